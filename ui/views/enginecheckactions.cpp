#include "views/enginecheckactions.h"

#include "dialogs/enginecheckdialog.h"
#include "dialogs/filedialog.h"
#include "rope/enginecheck.h"
#include "schemes/ropescheme.h"
#include "state/explorerstate.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>

namespace pe {

EngineCheckActions::EngineCheckActions(ExplorerState *state, ComputeScheduler *scheduler,
                                       QWidget *parent)
    : QObject(parent), m_state(state), m_scheduler(scheduler), m_parent(parent),
      m_action(new QAction(tr("Chec&k engine table…"), this))
{
    setObjectName(QStringLiteral("engineCheckActions"));
    m_action->setObjectName(QStringLiteral("checkEngineTableAction"));
    m_action->setToolTip(tr("An inference engine's RoPE numbers (.npy, a .safetensors tensor, a "
                            "GGUF file's rope_freqs) against Hugging Face's for the rotary layer "
                            "the window shows: the error per position and pair, the verdict, the "
                            "mistake it matches"));
    connect(m_action, &QAction::triggered, this, [this] {
        // What must be open first is said before a file is asked for (issue 38): no table can
        // be checked without a rotary layer to check it against.
        QString error;
        if (!EngineCheckDialog::requestFor(*m_state, QString(), &error)) {
            report(error);
            return;
        }
        const QString path =
            openFileName(m_parent, tr("Check engine table"), QDir::homePath(),
                         tr("Engine tables (*.npy *.safetensors *.gguf);;All files (*)"));
        if (!path.isEmpty())
            checkEngineTable(path);
    });
}

EngineCheckActions *EngineCheckActions::of(const QObject *window)
{
    return window->findChild<EngineCheckActions *>(QStringLiteral("engineCheckActions"),
                                                   Qt::FindDirectChildrenOnly);
}

EngineCheckDialog *EngineCheckActions::checkEngineTable(const QString &against)
{
    if (!m_engineCheck)
        m_engineCheck = new EngineCheckDialog(m_state, m_scheduler, m_parent);
    QString error;
    if (!m_engineCheck->check(against, &error)) {
        report(error);
        return nullptr;
    }
    m_engineCheck->show();
    m_engineCheck->raise();
    return m_engineCheck;
}

bool EngineCheckActions::isEngineTableDrop(const QString &path) const
{
    const QFileInfo info(path);
    static const QStringList suffixes{QStringLiteral("npy"), QStringLiteral("safetensors"),
                                      QStringLiteral("gguf")};
    return m_state->spec().get<RopeScheme>() && info.isFile() &&
           suffixes.contains(info.suffix().toLower()) &&
           !QFileInfo::exists(info.dir().filePath(QStringLiteral("config.json"))) &&
           info.size() <= maxRopeCandidateValues * qint64(sizeof(double)) + (qint64(1) << 20);
}

void EngineCheckActions::report(const QString &text)
{
    emit message(text);
    QMessageBox::warning(m_parent, tr("Check engine table"), text);
}

} // namespace pe
