#include "dialogs/enginecheckdialog.h"

#include "dialogs/filedialog.h"

#include "compute/computescheduler.h"
#include "figures/enginecheckfigure.h"
#include "figures/figureexporter.h"
#include "state/explorerstate.h"

#include "figures/qcpinclude.h"
#include "widgets/figureplot.h"
#include "widgets/screenfit.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace pe {

namespace {

// Row bins of the drawn error grid: finer than any screen, bounded for a long table.
constexpr qint64 gridRows = 2048;

} // namespace

EngineCheckDialog::EngineCheckDialog(ExplorerState *state, ComputeScheduler *scheduler,
                                     QWidget *parent)
    : QDialog(parent), m_state(state), m_scheduler(scheduler), m_plot(new FigurePlot(this)),
      m_readout(new QLabel(this)), m_report(new QPlainTextEdit(this)),
      m_export(new QPushButton(tr("&Export figure…"), this))
{
    setObjectName(QStringLiteral("engineCheckDialog"));
    setWindowTitle(tr("Check engine table"));
    m_plot->setObjectName(QStringLiteral("engineCheckPlot"));
    m_plot->setMinimumSize(320, 200); // the dialog fits a 1024 x 600 screen
    m_plot->setMouseTracking(true);
    m_readout->setObjectName(QStringLiteral("engineCheckReadout"));
    m_readout->setMinimumWidth(1); // a hover's text must not widen the dialog (phraseview.cpp)
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_readout->setText(tr("Point at a cell to read its error; the ringed cell is the worst."));
    m_report->setObjectName(QStringLiteral("engineCheckReport"));
    m_report->setReadOnly(true);
    m_report->setMaximumHeight(130);
    m_export->setObjectName(QStringLiteral("engineCheckExport"));
    m_export->setEnabled(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_export, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(m_export, &QPushButton::clicked, this, &EngineCheckDialog::exportInteractively);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_readout);
    layout->addWidget(m_report);
    layout->addWidget(buttons);
    fitToScreen(this, {1000, 780});

    connect(scheduler, &ComputeScheduler::engineCheckReady, this,
            [this](const std::shared_ptr<const EngineCheck> &check) {
                if (m_waiting)
                    showCheck(check);
            });
    connect(scheduler, &ComputeScheduler::engineCheckFailed, this, [this](const QString &message) {
        if (m_waiting)
            showError(message);
    });
    connect(m_plot, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent *event) { hover(event->pos()); });
}

std::optional<EngineCheckRequest>
EngineCheckDialog::requestFor(const ExplorerState &state, const QString &against, QString *error)
{
    const EncodingSpec &spec = state.spec();
    const RopeScheme *rope = spec.get<RopeScheme>();
    if (!rope) {
        *error = tr("The window shows no rotary encoding: open a model or config.json with RoPE "
                    "first (File > Open model), then check an engine's table against it.");
        return std::nullopt;
    }
    EngineCheckRequest request;
    request.headDim = spec.dims;
    request.config = *rope;
    request.reference =
        QStringLiteral("the window's %1, %2 dims").arg(rope->legend()).arg(spec.dims);
    request.against = against;
    request.errorGridRows = gridRows;
    return request;
}

bool EngineCheckDialog::check(const QString &against, QString *error)
{
    const std::optional<EngineCheckRequest> request = requestFor(*m_state, against, error);
    if (!request)
        return false;
    m_waiting = true;
    m_check.reset();
    m_error.clear();
    m_export->setEnabled(false);
    m_report->setPlainText(tr("Checking %1…").arg(QDir::toNativeSeparators(against)));
    m_scheduler->requestEngineCheck(*request);
    return true;
}

void EngineCheckDialog::showCheck(const std::shared_ptr<const EngineCheck> &check)
{
    m_waiting = false;
    m_check = check;
    EngineCheckFigure(*m_state, plotTheme(m_state->theme())).build(m_plot, *check);
    m_plot->replot();
    m_report->setPlainText(check->lines.join(QLatin1Char('\n')));
    m_readout->setText(EngineCheckFigure::readout(*check, double(check->result.worst.pair),
                                                  double(check->result.worst.position)));
    m_export->setEnabled(true);
    emit checkFinished();
}

void EngineCheckDialog::showError(const QString &message)
{
    m_waiting = false;
    m_error = message;
    m_report->setPlainText(message);
    emit checkFinished();
}

QString EngineCheckDialog::readoutText() const
{
    return m_readout->text();
}

void EngineCheckDialog::hover(const QPoint &at)
{
    if (!m_check || m_plot->axisRectCount() == 0)
        return;
    for (QCPAxisRect *rect : m_plot->axisRects()) {
        if (!rect->rect().contains(at))
            continue;
        const double pair = rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
        const double position = rect->axis(QCPAxis::atLeft)->pixelToCoord(at.y());
        const QString text = EngineCheckFigure::readout(*m_check, pair, position);
        if (!text.isEmpty()) {
            m_readout->setText(text);
            m_plot->setToolTip(text);
        }
    }
}

bool EngineCheckDialog::exportFigure(const QString &path, QString *error) const
{
    if (!m_check) {
        *error = tr("Nothing has been checked yet.");
        return false;
    }
    FigureData data;
    data.engineCheck = m_check;
    FigureOptions options;
    options.views = {FigureView::EngineCheck};
    options.height = 900;
    return FigureExporter(*m_state, data, options).writeFile(path, error);
}

void EngineCheckDialog::exportInteractively()
{
    const QString path =
        saveFileName(this, tr("Export figure"),
                     QFileInfo(m_check ? m_check->request.against : QString()).path() +
                         QStringLiteral("/engine-check.png"),
                     outputFileFilter(OutputKind::Figure));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportFigure(path, &error))
        QMessageBox::warning(this, tr("Export figure"), error);
}

} // namespace pe
