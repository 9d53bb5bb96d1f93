#include "views/configpasteaction.h"

#include "dialogs/configpastedialog.h"
#include "formats/modelconfig.h"
#include "model/modelcard.h"
#include "model/modelspec.h"
#include "state/explorerstate.h"
#include "views/modelpage.h"

#include <QAction>
#include <QKeySequence>
#include <QTableWidget>

#include <memory>

namespace pe {

ConfigPasteAction::ConfigPasteAction(ExplorerState *state, ModelPage *modelPage, QWidget *parent)
    : QObject(parent), m_state(state), m_modelPage(modelPage), m_parent(parent),
      m_action(new QAction(tr("&Paste config.json…"), this))
{
    m_action->setObjectName(QStringLiteral("pasteConfigAction"));
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    m_action->setToolTip(tr("A model's config.json as text: its first rotary layer's RoPE, "
                            "with every scaling field, and its layer map"));
    connect(m_action, &QAction::triggered, this, [this] {
        // One dialog, kept: deleted on close, it could go while its own text edit was still
        // inside a nested loop (a drag of the selected text runs QDrag::exec), and the edit then
        // read its freed self (the monkey test's SIGSEGV in QPlainTextEdit::mouseMoveEvent).
        if (!m_dialog) {
            m_dialog = new ConfigPasteDialog(
                [this](QByteArrayView text, QString *error) {
                    return applyModelConfigText(m_state, m_modelPage, text, error);
                },
                m_parent);
            connect(m_dialog, &QDialog::accepted, this,
                    [this] { emit message(tr("Applied the pasted config.json")); });
        }
        m_dialog->prepare();
        m_dialog->open();
    });
}

namespace {
const QString pastedName = QStringLiteral("the pasted config.json");
} // namespace

bool applyModelConfigText(ExplorerState *state, ModelPage *modelPage, QByteArrayView text,
                          QString *error)
{
    const std::optional<ModelConfig> config = parseHfConfigText(text, pastedName, error);
    if (!config)
        return false;
    const std::optional<ModelLayerSpec> spec = modelLayerSpec(*config, -1, error);
    if (!spec)
        return false;
    return state->asOneStep(QStringLiteral("Paste config.json"), [&] {
        if (!state->setSpec(spec->spec, error))
            return false;
        auto card = std::make_shared<ModelCard>();
        card->source = pastedName;
        card->config = config;
        modelPage->setCard(card);
        if (spec->layer >= 0)
            modelPage->layerTable()->selectRow(spec->layer);
        return true;
    });
}

} // namespace pe
