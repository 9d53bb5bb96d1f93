#include "views/exportactions.h"

#include "compute/computescheduler.h"
#include "compute/viewdata.h"
#include "dialogs/exportdialog.h"
#include "dialogs/filedialog.h"
#include "state/explorerstate.h"
#include "views/viewpage.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QKeySequence>
#include <QMessageBox>
#include <QStandardPaths>

namespace pe {

ExportActions::ExportActions(ExplorerState *state, ComputeScheduler *scheduler,
                             const ViewPages *pages, QWidget *parent)
    : QObject(parent), m_state(state), m_scheduler(scheduler), m_pages(pages), m_parent(parent)
{
    setObjectName(QStringLiteral("exportActions"));
    createActions();
}

ExportActions *ExportActions::of(const QObject *window)
{
    return window->findChild<ExportActions *>(QStringLiteral("exportActions"),
                                              Qt::FindDirectChildrenOnly);
}

// Export figure, copy figure, export data.
void ExportActions::createActions()
{
    m_exportFigure = new QAction(tr("&Export figure…"), this);
    m_exportFigure->setObjectName(QStringLiteral("exportFigureAction"));
    m_exportFigure->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportFigure->setToolTip(
        tr("%1 of the current or a chosen view (Ctrl+E)").arg(outputLabelList(OutputKind::Figure)));
    connect(m_exportFigure, &QAction::triggered, this, [this] {
        ExportDialog *dialog = exportDialog();
        dialog->show();
        dialog->raise();
        dialog->activateWindow();
    });

    m_copy = new QAction(tr("&Copy figure"), this);
    m_copy->setObjectName(QStringLiteral("copyFigureAction"));
    m_copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_copy->setToolTip(tr("The current view as an image (and SVG) on the clipboard"));
    connect(m_copy, &QAction::triggered, this, [this] {
        QString error;
        if (!copyFigure(&error))
            report(error, true);
    });

    m_data = new QAction(tr("Export &data of the current view…"), this);
    m_data->setObjectName(QStringLiteral("exportDataAction"));
    m_data->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_data->setToolTip(tr("The heatmap's matrix or the phrase embeddings as .npy or .csv"));
    connect(m_data, &QAction::triggered, this, &ExportActions::askForDataPath);
}

void ExportActions::askForDataPath()
{
    const FigureView view = m_pages->current().dataView();
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QString selected;
    QString path =
        saveFileName(m_parent, tr("Export data (%1)").arg(viewDataDescription(view)),
                     QDir(folder).filePath(figureViewName(view) + QStringLiteral(".npy")),
                     tr("NumPy array (*.npy);;CSV (*.csv)"), &selected);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += selected.contains(QLatin1String("csv")) ? QStringLiteral(".csv")
                                                        : QStringLiteral(".npy");
    QString error;
    if (!exportCurrentData(path, &error))
        report(error, true, tr("Export data"));
}

FigureData ExportActions::currentData(const QList<FigureView> &views) const
{
    return m_scheduler->figureData(views);
}

QImage ExportActions::currentFigure(QString *error) const
{
    const ViewPage &page = m_pages->current();
    FigureOptions options;
    options.views = page.figureViews();
    options.choices = page.figureChoices();
    options.style = m_state->figureStyle();
    const FigureData data = currentData(options.views);
    if (!figureDataMatches(*m_state, options.views, data)) {
        *error = tr("the figure is still being computed; try again in a moment");
        return {};
    }
    const QSize size = page.figureSize();
    options.width = qBound(figurelimits::minSide, size.width(), figurelimits::maxSide);
    options.height = qBound(figurelimits::minSide, size.height(), figurelimits::maxSide);
    return FigureExporter(*m_state, data, options).renderImage(error);
}

bool ExportActions::copyFigure(QString *error)
{
    const QImage image = currentFigure(error);
    if (image.isNull())
        return false;
    QApplication::clipboard()->setImage(image);
    report(
        tr("Copied the figure (%1 × %2) to the clipboard").arg(image.width()).arg(image.height()),
        false);
    return true;
}

bool ExportActions::exportCurrentData(const QString &path, QString *error)
{
    const ViewPage &page = m_pages->current();
    const FigureView view = page.dataView();
    const FigureData data = currentData({view});
    if (!figureDataMatches(*m_state, {view}, data)) {
        *error = tr("the data is still being computed; try again in a moment");
        return false;
    }
    if (!writeViewData(*m_state, data, view, path, error, page.figureChoices()))
        return false;
    report(tr("Exported %1 data to %2").arg(figureViewName(view), QDir::toNativeSeparators(path)),
           false);
    return true;
}

ExportDialog *ExportActions::exportDialog()
{
    if (!m_dialog) {
        m_dialog = new ExportDialog(m_state, m_scheduler, m_parent);
        m_dialog->setAttribute(Qt::WA_DeleteOnClose, false);
        connect(m_dialog, &ExportDialog::exported, this, [this](const QString &path) {
            report(tr("Exported %1").arg(QDir::toNativeSeparators(path)), false);
        });
        // The figure's look is part of the session: kept when the dialog closes.
        connect(m_dialog, &QDialog::finished, this,
                [this] { m_state->setFigureStyle(m_dialog->options().style); });
    }
    // Opens on the view the window shows, at the size it has on screen.
    const ViewPage &page = m_pages->current();
    FigureOptions options = m_dialog->options();
    options.views = page.figureViews();
    options.choices = page.figureChoices();
    options.style = m_state->figureStyle();
    const QSize size = page.figureSize();
    if (size.width() >= figurelimits::minSide && size.height() >= figurelimits::minSide) {
        // A remembered MP4 or WebM takes even sides: the view's 951 x 541 would be refused at
        // once (issue 38).
        const qint64 step = m_dialog->needsEvenSides() ? 2 : 1;
        options.width = size.width() / step * step;
        options.height = size.height() / step * step;
    }
    m_dialog->setOptions(options);
    // A new name each time: the last export's file is never offered to be overwritten.
    m_dialog->useFreshPath();
    return m_dialog;
}

void ExportActions::exportAnimation(const QList<FigureView> &views,
                                    const AnimationOptions &animation)
{
    ExportDialog *dialog = exportDialog();
    FigureOptions options = dialog->options();
    // The view on screen, which exportDialog() chose; the Motion bar's views only where the
    // dialog cannot offer that one.
    if (options.views != m_pages->current().figureViews())
        options.views = views;
    // A common video size (even sides, as MP4 and WebM need), at the still's font scale.
    options.width = 1280;
    options.height = 720;
    dialog->setOptions(options);
    dialog->setAnimation(animation);
    dialog->useFreshPath(); // the animation's format
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

void ExportActions::report(const QString &text, bool error, const QString &title)
{
    emit message(text);
    if (error && !title.isEmpty())
        QMessageBox::warning(m_parent, title, text);
}

} // namespace pe
