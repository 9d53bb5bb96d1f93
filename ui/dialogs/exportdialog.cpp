#include "dialogs/exportdialog.h"

#include "compute/computescheduler.h"
#include "compute/tabledata.h"
#include "dialogs/filedialog.h"
#include "figures/animationjob.h"
#include "media/outputformats.h"
#include "widgets/fieldform.h"
#include "widgets/fieldmarks.h"
#include "widgets/screenfit.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

// Enter in a size field applies the size (the pixel count and the preview follow) instead of
// pressing the default button: a typed 30000 must not write a file at once.
class ApplyOnEnter : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::KeyPress) {
            const int key = static_cast<QKeyEvent *>(event)->key();
            if (key == Qt::Key_Return || key == Qt::Key_Enter) {
                static_cast<QAbstractSpinBox *>(watched)->interpretText();
                return true;
            }
        }
        return QObject::eventFilter(watched, event);
    }
};

// A typed size applies on Enter, on leaving the field (keyboard tracking off) or, as in the
// window's forms, after a pause once typing stops.
void commitAfterPause(QAbstractSpinBox *box, QObject *owner)
{
    box->installEventFilter(new ApplyOnEnter(owner));
    auto *pause = new QTimer(owner);
    pause->setSingleShot(true);
    pause->setInterval(FieldForm::commitPauseMs);
    QObject::connect(pause, &QTimer::timeout, box, [box] {
        if (box->hasFocus())
            box->interpretText();
    });
    const auto restart = [pause] { pause->start(); };
    if (auto *spin = qobject_cast<QSpinBox *>(box))
        QObject::connect(spin, &QSpinBox::textChanged, pause, restart);
    else if (auto *real = qobject_cast<QDoubleSpinBox *>(box))
        QObject::connect(real, &QDoubleSpinBox::textChanged, pause, restart);
}

constexpr int previewWidth = 480;
constexpr int previewHeight = 360;

// The preview's label: it asks for the preview's size and takes two thirds of it where the
// screen is small; a QLabel would ask for its pixmap's size, which is what it was given.
class PreviewLabel : public QLabel
{
public:
    using QLabel::QLabel;
    QSize sizeHint() const override { return {previewWidth, previewHeight}; }
    QSize minimumSizeHint() const override { return {previewWidth * 2 / 3, previewHeight * 2 / 3}; }
};

struct ViewChoice
{
    QString label;
    QList<FigureView> views;
};

QList<ViewChoice> viewChoices()
{
    QList<ViewChoice> choices{{QObject::tr("Encoding page: waves over heatmap (Fig 16-9)"),
                               {FigureView::Waves, FigureView::Heatmap}}};
    for (const ViewEntry &entry : viewList())
        if (entry.job != ViewJob::EngineCheck) // drawn from a checked file, not the window's state
            choices.append({labelOf(pageNames, entry.page) + QStringLiteral(": ") +
                                QString::fromUtf8(entry.title),
                            {entry.view}});
    return choices;
}

} // namespace

ExportDialog::ExportDialog(const ExplorerState *state, ComputeScheduler *scheduler, QWidget *parent)
    : QDialog(parent), m_state(state), m_scheduler(scheduler), m_view(new QComboBox(this)),
      m_format(new QComboBox(this)), m_unit(new QComboBox(this)), m_width(new QDoubleSpinBox(this)),
      m_height(new QDoubleSpinBox(this)), m_dpi(new QSpinBox(this)), m_sizeInfo(new QLabel(this)),
      m_printTheme(new QCheckBox(tr("Print t&heme (black on white)"), this)),
      m_interpolate(new QCheckBox(tr("&Smooth heatmap cells"), this)),
      m_showSelection(new QCheckBox(tr("&Include selection"), this)),
      m_fontScale(new QDoubleSpinBox(this)), m_legend(new QComboBox(this)),
      m_colorbar(new QComboBox(this)), m_xLabel(new QLineEdit(this)), m_yLabel(new QLineEdit(this)),
      m_title(new QLineEdit(this)), m_caption(new QCheckBox(tr("with the &parameters"), this)),
      m_captionText(new QLineEdit(this)), m_path(new QLineEdit(this)),
      m_parameter(new QComboBox(this)), m_from(new QDoubleSpinBox(this)),
      m_to(new QDoubleSpinBox(this)), m_frames(new QSpinBox(this)), m_fps(new QSpinBox(this)),
      m_previewLabel(new PreviewLabel(this)), m_message(new QLabel(this)),
      m_progress(new QProgressBar(this)), m_exportButton(new QPushButton(tr("&Export"), this)),
      m_copyButton(new QPushButton(tr("Copy to c&lipboard"), this)),
      m_cancelButton(new QPushButton(tr("Stop"), this))
{
    setWindowTitle(tr("Export figure"));
    setObjectName(QStringLiteral("exportDialog"));
    setUpViewAndFormat();
    setUpSizeControls();
    setUpStyleControls();
    setUpAnimationControls();
    setUpPreviewAndStatus();
    layOutDialog();

    connectControls();
    syncViewAvailability();

    m_askReplace = [this](const QString &file) {
        return QMessageBox::question(this, tr("Replace file?"),
                                     tr("%1 already exists.\nDo you want to replace it?")
                                         .arg(QDir::toNativeSeparators(file)),
                                     QMessageBox::Yes | QMessageBox::No,
                                     QMessageBox::No) == QMessageBox::Yes;
    };
    useFreshPath();
    setUnit(Unit::Pixels);
    syncAnimationControls();
    syncSizeInfo();
    schedulePreview();
}

void ExportDialog::setUpViewAndFormat()
{
    for (const ViewChoice &choice : viewChoices())
        m_view->addItem(choice.label, figureViewsName(choice.views));
    m_view->setObjectName(QStringLiteral("exportView"));
    m_view->setToolTip(tr("Which figure to export; the same builders draw the window's views"));
    for (const OutputFormat &format : outputFormats())
        m_format->addItem(format.kind == OutputKind::Animation
                              ? tr("%1 (animated)").arg(QString::fromLatin1(format.label))
                              : QString::fromLatin1(format.label),
                          QString::fromLatin1(format.extension));
    m_format->setObjectName(QStringLiteral("exportFormat"));
    m_format->setToolTip(outputFormatSummary()); // every row of the formats' table
}

// Width, height, their unit and the DPI.
void ExportDialog::setUpSizeControls()
{
    m_unit->addItems({tr("pixels"), tr("inches"), tr("cm")});
    m_unit->setObjectName(QStringLiteral("exportUnit"));
    for (QDoubleSpinBox *box : {m_width, m_height}) {
        box->setRange(0.01, figurelimits::maxSide);
        box->setDecimals(0);
        box->setKeyboardTracking(false);
    }
    m_width->setObjectName(QStringLiteral("exportWidth"));
    m_height->setObjectName(QStringLiteral("exportHeight"));
    m_width->setToolTip(tr("Figure width in the chosen unit; applied on Enter, on leaving the "
                           "field or after a pause"));
    m_height->setToolTip(tr("Figure height in the chosen unit; applied on Enter, on leaving the "
                            "field or after a pause"));
    m_unit->setToolTip(tr("The unit of width and height; inches and cm go through the DPI"));
    m_dpi->setRange(int(figurelimits::minDpi), int(figurelimits::maxDpi));
    m_dpi->setValue(96);
    m_dpi->setSuffix(tr(" dpi"));
    m_dpi->setKeyboardTracking(false);
    m_dpi->setObjectName(QStringLiteral("exportDpi"));
    m_sizeInfo->setObjectName(QStringLiteral("exportSizeInfo"));
    for (QAbstractSpinBox *box :
         std::initializer_list<QAbstractSpinBox *>{m_width, m_height, m_dpi})
        commitAfterPause(box, this);
    m_dpi->setToolTip(tr("96 draws text as large as the window does; 300 for print"));
}

// Title, caption, path, theme, smoothing, font scale, legend, colorbar, axis labels, selection.
void ExportDialog::setUpStyleControls()
{
    m_title->setPlaceholderText(tr("No title"));
    m_title->setObjectName(QStringLiteral("exportTitle"));
    m_caption->setObjectName(QStringLiteral("exportCaption"));
    m_captionText->setObjectName(QStringLiteral("exportCaptionText"));
    m_captionText->setEnabled(false);
    m_path->setObjectName(QStringLiteral("exportPath"));
    m_printTheme->setObjectName(QStringLiteral("exportPrintTheme"));
    m_interpolate->setObjectName(QStringLiteral("exportInterpolate"));
    m_interpolate->setToolTip(tr("Off: every cell is a sharp block (nearest neighbour)"));
    m_fontScale->setRange(figurelimits::minFontScale, figurelimits::maxFontScale);
    m_fontScale->setSingleStep(0.25);
    m_fontScale->setDecimals(2);
    m_fontScale->setValue(1.0);
    m_fontScale->setPrefix(QStringLiteral("× "));
    m_fontScale->setKeyboardTracking(false);
    m_fontScale->setObjectName(QStringLiteral("exportFontScale"));
    m_fontScale->setToolTip(tr("Text size relative to the window's: 1.5 for slides"));
    for (const ChoiceName &c : legendPlaceNames)
        m_legend->addItem(tr(c.label), QString::fromUtf8(c.name));
    m_legend->setObjectName(QStringLiteral("exportLegend"));
    m_legend->setToolTip(tr("Where the legend goes; auto keeps it off the curves"));
    for (const ChoiceName &c : colorbarPlaceNames)
        m_colorbar->addItem(tr(c.label), QString::fromUtf8(c.name));
    m_colorbar->setObjectName(QStringLiteral("exportColorbar"));
    m_colorbar->setToolTip(tr("Figures of several heatmaps (phrases): a colorbar per row, per "
                              "plot with its own range, or one shared by all"));
    m_xLabel->setPlaceholderText(tr("As drawn (e.g. position p)"));
    m_yLabel->setPlaceholderText(tr("As drawn (e.g. PE(p, i))"));
    m_xLabel->setObjectName(QStringLiteral("exportXLabel"));
    m_yLabel->setObjectName(QStringLiteral("exportYLabel"));
    m_showSelection->setObjectName(QStringLiteral("exportShowSelection"));
    m_showSelection->setToolTip(tr("Draw the selected cell, its dim's wave and the clicked token "
                                   "as the window marks them"));
}

// What an animation sweeps, from and to which value, in how many frames at which rate.
void ExportDialog::setUpAnimationControls()
{
    m_parameter->setObjectName(QStringLiteral("exportAnimate"));
    m_parameter->setToolTip(tr("What moves: the position (the marker of the waves and heatmap, "
                               "the rotation's position, the phrases' token) or a numeric field "
                               "of the scheme, swept from one value to the other"));
    for (QDoubleSpinBox *box : {m_from, m_to}) {
        box->setRange(-1e12, 1e12);
        box->setKeyboardTracking(false);
    }
    m_from->setObjectName(QStringLiteral("exportFrom"));
    m_to->setObjectName(QStringLiteral("exportTo"));
    m_from->setToolTip(tr("The value at the first frame"));
    m_to->setToolTip(tr("The value at the last frame"));
    m_frames->setObjectName(QStringLiteral("exportFrames"));
    m_frames->setRange(videolimits::minFrames, videolimits::maxFrames);
    m_frames->setValue(AnimationOptions().frames);
    m_frames->setKeyboardTracking(false);
    m_fps->setObjectName(QStringLiteral("exportFps"));
    m_fps->setRange(videolimits::minFps, videolimits::maxFps);
    m_fps->setValue(30);
    m_fps->setSuffix(tr(" frames per second"));
    m_fps->setKeyboardTracking(false);
}

void ExportDialog::setUpPreviewAndStatus()
{
    m_previewLabel->setObjectName(QStringLiteral("exportPreview"));
    // The preview takes what the form leaves: 480 x 360 where there is room, less on a small
    // screen (its image scaled down to fit), so that the dialog never scrolls (issue 46).
    m_previewLabel->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    m_previewLabel->installEventFilter(this);
    m_previewLabel->setAlignment(Qt::AlignCenter);
    m_previewLabel->setWordWrap(true); // a long refusal in its place
    m_previewLabel->setFrameShape(QFrame::StyledPanel);
    m_message->setObjectName(QStringLiteral("exportMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setObjectName(QStringLiteral("exportProgress"));
    // Shown while an animation is written; its room is kept, so nothing moves when it shows.
    QSizePolicy keep = m_progress->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    m_progress->setSizePolicy(keep);
    m_progress->hide();
    m_cancelButton->setObjectName(QStringLiteral("exportCancel"));
    m_cancelButton->setToolTip(tr("Stop writing the animation; no file is left (Escape)"));
    m_cancelButton->setEnabled(false);
}

// The form beside the preview, the message and progress below, the buttons at the bottom.
void ExportDialog::layOutDialog()
{
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_copyButton, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancelButton, QDialogButtonBox::ActionRole);
    buttons->addButton(m_exportButton, QDialogButtonBox::AcceptRole);
    m_exportButton->setDefault(true);
    connect(buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);

    auto *layout = new QVBoxLayout(this);
    // The form beside the preview, the message and progress under the preview, where the
    // form's taller column leaves room (a band of their own above the buttons stood empty
    // mostly). They scroll only on a screen too small even for that; the buttons stay in view.
    auto *content = new QWidget(this);
    auto *top = new QHBoxLayout(content);
    top->setContentsMargins(0, 0, 0, 0);
    top->addLayout(buildForm(), 0);
    auto *side = new QVBoxLayout;
    side->addWidget(m_previewLabel, 1);
    side->addWidget(m_message);
    side->addWidget(m_progress);
    top->addLayout(side, 1);
    layout->addWidget(new ContentScrollArea(content, this), 1);
    layout->addWidget(buttons);
    // All of it where the screen has room (adjustSize would stop at two thirds of it).
    fitToScreen(this, sizeHint());
}

ExportDialog::~ExportDialog()
{
    // Stops an animation being written (nothing is left at its path) while the dialog is whole.
    delete m_job;
}

// The form's rows. A row whose field is a layout gets a label with that layout's first field as
// its buddy: QFormLayout gives a text label a buddy only for a widget field, and a label without
// one shows its '&' as it is ("Si&ze:").
QLayout *ExportDialog::buildForm()
{
    auto *form = new QFormLayout;
    const auto addRow = [&](const QString &text, QLayout *fields, QWidget *buddy) {
        auto *label = new QLabel(text, this);
        label->setBuddy(buddy);
        form->addRow(label, fields);
    };
    auto *sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(m_height);
    sizeRow->addWidget(m_unit);
    sizeRow->addWidget(m_dpi);
    auto *animateRow = new QHBoxLayout;
    animateRow->addWidget(m_parameter, 1);
    auto *fromLabel = new QLabel(tr("f&rom"), this);
    fromLabel->setBuddy(m_from);
    auto *toLabel = new QLabel(tr("to"), this);
    toLabel->setBuddy(m_to);
    animateRow->addWidget(fromLabel);
    animateRow->addWidget(m_from, 1);
    animateRow->addWidget(toLabel);
    animateRow->addWidget(m_to, 1);
    auto *framesRow = new QHBoxLayout;
    framesRow->addWidget(m_frames, 1);
    auto *atLabel = new QLabel(tr("at"), this);
    atLabel->setBuddy(m_fps);
    framesRow->addWidget(atLabel);
    framesRow->addWidget(m_fps, 2);
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    auto *browseButton = new QPushButton(tr("&Browse…"), this);
    connect(browseButton, &QPushButton::clicked, this, &ExportDialog::browse);
    pathRow->addWidget(browseButton);

    // Fields that belong together share a row: the dialog fits a 1024 x 600 screen unscrolled.
    auto *looks = new QGridLayout;
    looks->setContentsMargins(0, 0, 0, 0);
    looks->addWidget(m_printTheme, 0, 0);
    looks->addWidget(m_interpolate, 0, 1);
    looks->addWidget(m_showSelection, 1, 0);
    auto *axesRow = new QHBoxLayout;
    auto *yLabel = new QLabel(tr("&Y:"), this);
    yLabel->setBuddy(m_yLabel);
    axesRow->addWidget(m_xLabel, 1);
    axesRow->addWidget(yLabel);
    axesRow->addWidget(m_yLabel, 1);
    auto *captionRow = new QHBoxLayout;
    captionRow->addWidget(m_caption);
    captionRow->addWidget(m_captionText, 1);

    form->addRow(tr("&View:"), m_view);
    form->addRow(tr("&Format:"), m_format);
    addRow(tr("Si&ze:"), sizeRow, m_width);
    form->addRow(QString(), m_sizeInfo);
    form->addRow(QString(), looks);
    form->addRow(tr("F&ont size:"), m_fontScale);
    form->addRow(tr("&Legend:"), m_legend);
    form->addRow(tr("Colorb&ar:"), m_colorbar);
    addRow(tr("&X axis title:"), axesRow, m_xLabel);
    form->addRow(tr("&Title:"), m_title);
    addRow(tr("&Caption:"), captionRow, m_caption);
    addRow(tr("A&nimate:"), animateRow, m_parameter);
    addRow(tr("Fra&mes:"), framesRow, m_frames);
    addRow(tr("&File:"), pathRow, m_path);
    return form;
}

void ExportDialog::connectControls()
{
    m_previewTimer.setSingleShot(true);
    m_previewTimer.setInterval(120);
    connect(&m_previewTimer, &QTimer::timeout, this, &ExportDialog::refreshPreview);
    connect(m_view, &QComboBox::currentIndexChanged, this, [this] {
        syncAnimationControls();
        schedulePreview();
    });
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChanged);
    connect(m_unit, &QComboBox::currentIndexChanged, this, &ExportDialog::onUnitChanged);
    connect(m_width, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        m_pixelWidth = unitToPixels(v);
        syncSizeInfo();
        schedulePreview();
    });
    connect(m_height, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        m_pixelHeight = unitToPixels(v);
        syncSizeInfo();
        schedulePreview();
    });
    connect(m_dpi, &QSpinBox::valueChanged, this, [this] {
        // A physical size stays put when the DPI changes; a pixel size does.
        if (m_currentUnit != Unit::Pixels) {
            m_pixelWidth = unitToPixels(m_width->value());
            m_pixelHeight = unitToPixels(m_height->value());
        }
        syncSizeInfo();
        schedulePreview();
    });
    for (QCheckBox *box : {m_printTheme, m_interpolate, m_showSelection})
        connect(box, &QCheckBox::toggled, this, &ExportDialog::schedulePreview);
    connect(m_caption, &QCheckBox::toggled, this, [this](bool on) {
        m_captionText->setEnabled(on);
        schedulePreview();
    });
    connect(m_fontScale, &QDoubleSpinBox::valueChanged, this, &ExportDialog::schedulePreview);
    connect(m_legend, &QComboBox::currentIndexChanged, this, &ExportDialog::schedulePreview);
    connect(m_colorbar, &QComboBox::currentIndexChanged, this, &ExportDialog::schedulePreview);
    for (QLineEdit *edit : {m_title, m_captionText, m_xLabel, m_yLabel})
        connect(edit, &QLineEdit::textChanged, this, &ExportDialog::schedulePreview);
    connect(m_parameter, &QComboBox::currentIndexChanged, this, &ExportDialog::onParameterChanged);
    for (QDoubleSpinBox *box : {m_from, m_to})
        connect(box, &QDoubleSpinBox::valueChanged, this, &ExportDialog::schedulePreview);
    for (QSpinBox *box : {m_frames, m_fps})
        connect(box, &QSpinBox::valueChanged, this, &ExportDialog::schedulePreview);
    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        QString error;
        // A still is written at once and the dialog closes; an animation closes it when done.
        if (exportFigure(&error) && !isAnimated())
            accept();
    });
    connect(m_copyButton, &QPushButton::clicked, this, [this] {
        QString error;
        copyToClipboard(&error);
    });
    connect(m_cancelButton, &QPushButton::clicked, this, &ExportDialog::cancelExport);
    if (m_scheduler) {
        connect(m_scheduler, &ComputeScheduler::encodingReady, this,
                &ExportDialog::schedulePreview);
        connect(m_scheduler, &ComputeScheduler::phrasesReady, this, &ExportDialog::schedulePreview);
        connect(m_scheduler, &ComputeScheduler::schemesReady, this, &ExportDialog::schedulePreview);
        connect(m_scheduler, &ComputeScheduler::figureDataReady, this,
                &ExportDialog::schedulePreview);
        connect(m_scheduler, &ComputeScheduler::figureDataFailed, this,
                [this](const QString &error) {
                    m_previewTimer.stop();
                    m_preview = QImage();
                    m_previewLabel->setText(error);
                    setMessage(error, true);
                });
        connect(m_scheduler, &ComputeScheduler::cancelled, this, [this] {
            if (!m_preview.isNull())
                return;
            m_previewTimer.stop();
            m_previewLabel->setText(tr("Cancelled"));
            setMessage(tr("Cancelled; change a parameter or the view to compute again."), false);
        });
    }
    connect(m_state, &ExplorerState::changed, this, &ExportDialog::syncViewAvailability);
    connect(m_state, &ExplorerState::changed, this, &ExportDialog::schedulePreview);
}

FigureOptions ExportDialog::options() const
{
    FigureOptions o;
    QString ignored;
    o.views = parseFigureViews(m_view->currentData().toString(), &ignored).value_or(o.views);
    o.width = m_pixelWidth;
    o.height = m_pixelHeight;
    o.dpi = m_dpi->value();
    o.printTheme = m_printTheme->isChecked();
    o.interpolate = m_interpolate->isChecked();
    o.style.showSelection = m_showSelection->isChecked();
    o.style.fontScale = m_fontScale->value();
    o.style.legend = parseAs<LegendPlace>(legendPlaceNames, m_legend->currentData().toString())
                         .value_or(LegendPlace::Auto);
    o.style.colorbar =
        parseAs<ColorbarPlace>(colorbarPlaceNames, m_colorbar->currentData().toString())
            .value_or(ColorbarPlace::PerRow);
    o.style.xLabel = m_xLabel->text().trimmed();
    o.style.yLabel = m_yLabel->text().trimmed();
    o.title = m_title->text().trimmed();
    o.caption = m_caption->isChecked();
    o.captionText = o.caption ? m_captionText->text().trimmed() : QString();
    return o;
}

void ExportDialog::setOptions(const FigureOptions &options)
{
    setViews(options.views);
    {
        const QSignalBlocker block(m_dpi);
        m_dpi->setValue(int(std::lround(options.dpi)));
    }
    m_pixelWidth = int(options.width); // FigureOptions' limits fit an int
    m_pixelHeight = int(options.height);
    onUnitChanged(); // redisplays the size in the current unit
    m_printTheme->setChecked(options.printTheme);
    m_interpolate->setChecked(options.interpolate);
    m_showSelection->setChecked(options.style.showSelection);
    m_fontScale->setValue(options.style.fontScale);
    m_legend->setCurrentIndex(
        qMax(0, m_legend->findData(nameOf(legendPlaceNames, options.style.legend))));
    m_colorbar->setCurrentIndex(
        qMax(0, m_colorbar->findData(nameOf(colorbarPlaceNames, options.style.colorbar))));
    m_xLabel->setText(options.style.xLabel);
    m_yLabel->setText(options.style.yLabel);
    m_title->setText(options.title);
    m_caption->setChecked(options.caption);
    m_captionText->setText(options.captionText);
    schedulePreview();
}

// The Model views need a learned position table: without one their entries are greyed, the
// tooltip saying why, and a chosen one falls back to the first view.
void ExportDialog::syncViewAvailability()
{
    const QString problem = tableProblem(m_state->spec());
    auto *model = qobject_cast<QStandardItemModel *>(m_view->model());
    if (!model)
        return;
    QString ignored;
    for (int row = 0; row < m_view->count(); ++row) {
        const std::optional<QList<FigureView>> views =
            parseFigureViews(m_view->itemData(row).toString(), &ignored);
        if (!views || !anyViewNeeds(*views, ViewJob::Table))
            continue;
        QStandardItem *item = model->item(row);
        item->setEnabled(problem.isEmpty());
        item->setToolTip(problem);
        if (!problem.isEmpty() && m_view->currentIndex() == row)
            m_view->setCurrentIndex(0);
    }
}

void ExportDialog::setViews(const QList<FigureView> &views)
{
    const int index = m_view->findData(figureViewsName(views));
    const auto *model = qobject_cast<const QStandardItemModel *>(m_view->model());
    if (index >= 0 && (!model || model->item(index)->isEnabled()))
        m_view->setCurrentIndex(index);
}

QString ExportDialog::path() const
{
    return m_path->text().trimmed();
}

void ExportDialog::useFreshPath()
{
    QString folder = QFileInfo(path()).absolutePath();
    if (path().isEmpty() || !QFileInfo(folder).isDir()) {
        folder = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
        if (folder.isEmpty() || !QFileInfo(folder).isDir())
            folder = QDir::homePath();
    }
    const QString stem =
        QStringLiteral("pescope-") +
        figureViewsName(options().views).replace(QLatin1Char('+'), QLatin1Char('-'));
    const QString extension = m_format->currentData().toString();
    QString candidate;
    for (int n = 1; n < 10000; ++n) {
        const QString suffix = n == 1 ? QString() : QStringLiteral("-%1").arg(n);
        candidate = QDir(folder).filePath(stem + suffix + QLatin1Char('.') + extension);
        if (!QFileInfo::exists(candidate))
            break;
    }
    m_path->setText(candidate);
}

bool ExportDialog::mayReplace(const QString &file, QString *error)
{
    if (!QFileInfo::exists(file) || QFileInfo(file) == QFileInfo(m_confirmedPath))
        return true;
    if (m_askReplace && m_askReplace(file))
        return true;
    *error = tr("not exported: %1 exists and was kept").arg(QDir::toNativeSeparators(file));
    return false;
}

void ExportDialog::setPath(const QString &path)
{
    m_path->setText(path);
    const int index = m_format->findData(QFileInfo(path).suffix().toLower());
    if (index >= 0 && index != m_format->currentIndex()) {
        {
            const QSignalBlocker block(m_format);
            m_format->setCurrentIndex(index);
        }
        syncAnimationControls();
        syncSizeInfo();
        schedulePreview();
    }
}

ExportDialog::Unit ExportDialog::unit() const
{
    return m_currentUnit;
}

void ExportDialog::setUnit(Unit unit)
{
    m_unit->setCurrentIndex(int(unit));
    onUnitChanged();
}

double ExportDialog::pixelsToUnit(int pixels) const
{
    switch (m_currentUnit) {
    case Unit::Pixels:
        return pixels;
    case Unit::Inches:
        return pixels / double(m_dpi->value());
    case Unit::Centimetres:
        return pixels / double(m_dpi->value()) * 2.54;
    }
    return pixels;
}

int ExportDialog::unitToPixels(double value) const
{
    switch (m_currentUnit) {
    case Unit::Pixels:
        return int(std::lround(value));
    case Unit::Inches:
        return int(std::lround(value * m_dpi->value()));
    case Unit::Centimetres:
        return int(std::lround(value / 2.54 * m_dpi->value()));
    }
    return int(std::lround(value));
}

void ExportDialog::onUnitChanged()
{
    m_currentUnit = Unit(qBound(0, m_unit->currentIndex(), 2));
    const QSignalBlocker blockW(m_width);
    const QSignalBlocker blockH(m_height);
    const int decimals = m_currentUnit == Unit::Pixels ? 0 : 2;
    for (QDoubleSpinBox *box : {m_width, m_height}) {
        box->setDecimals(decimals);
        box->setSingleStep(m_currentUnit == Unit::Pixels ? 10.0 : 0.1);
    }
    m_width->setValue(pixelsToUnit(m_pixelWidth));
    m_height->setValue(pixelsToUnit(m_pixelHeight));
    syncSizeInfo();
}

void ExportDialog::syncSizeInfo()
{
    const FigureOptions o = options();
    const QString problem = o.validate();
    // A refused size is explained here, beside the size fields.
    m_sizeInfo->setPalette(QPalette());
    m_sizeInfo->setFont(QFont());
    if (!problem.isEmpty())
        markAsMessage(m_sizeInfo);
    m_sizeInfo->setText(problem.isEmpty() ? tr("%1 × %2 pixels = %3 × %4 in = %5 × %6 cm at %7 dpi")
                                                .arg(o.width)
                                                .arg(o.height)
                                                .arg(o.widthInches(), 0, 'f', 2)
                                                .arg(o.heightInches(), 0, 'f', 2)
                                                .arg(o.widthInches() * 2.54, 0, 'f', 1)
                                                .arg(o.heightInches() * 2.54, 0, 'f', 1)
                                                .arg(o.dpi)
                                          : problem);
}

void ExportDialog::onFormatChanged()
{
    const QString extension = m_format->currentData().toString();
    QFileInfo info(path());
    if (!info.fileName().isEmpty())
        m_path->setText(
            QDir(info.path()).filePath(info.completeBaseName() + QLatin1Char('.') + extension));
    syncAnimationControls();
    syncSizeInfo();
    schedulePreview();
}

void ExportDialog::browse()
{
    const OutputFormat *format =
        outputFormatForPath(QStringLiteral("x.") + m_format->currentData().toString());
    const QString filter = format ? outputFileFilter(*format) : QString();
    const QString chosen = saveFileName(this, tr("Export figure"), path(), filter);
    if (!chosen.isEmpty()) {
        setPath(chosen);
        m_confirmedPath = path();
    }
}

bool ExportDialog::isAnimated() const
{
    return videoFormatForPath(QStringLiteral("x.") + m_format->currentData().toString())
        .has_value();
}

bool ExportDialog::needsEvenSides() const
{
    const std::optional<VideoFormat> video =
        videoFormatForPath(QStringLiteral("x.") + m_format->currentData().toString());
    return video && videoNeedsEvenSides(*video);
}

AnimationOptions ExportDialog::animation() const
{
    AnimationOptions options;
    options.parameter = m_parameter->currentText();
    options.from = m_from->value();
    options.to = m_to->value();
    options.frames = m_frames->value();
    return options;
}

int ExportDialog::fps() const
{
    return m_fps->value();
}

void ExportDialog::setAnimation(const AnimationOptions &options, int fps)
{
    if (!isAnimated())
        m_format->setCurrentIndex(m_format->findData(videoFormatName(VideoFormat::Gif)));
    syncAnimationControls();
    const int index = m_parameter->findText(options.parameter);
    if (index >= 0)
        m_parameter->setCurrentIndex(index);
    if (options.from)
        m_from->setValue(*options.from);
    if (options.to)
        m_to->setValue(*options.to);
    m_frames->setValue(options.frames);
    m_fps->setValue(fps);
    schedulePreview();
}

// The parameters the chosen views can sweep; the animation's rows are enabled for an animated
// format only (disabled, not hidden, so that no control moves).
void ExportDialog::syncAnimationControls()
{
    const QList<FigureView> views = options().views;
    const QStringList names = FigureAnimation::parameterNames(*m_state, views);
    QStringList shown;
    for (int i = 0; i < m_parameter->count(); ++i)
        shown.append(m_parameter->itemText(i));
    if (names != shown) {
        const QString current = m_parameter->currentText();
        {
            const QSignalBlocker block(m_parameter);
            m_parameter->clear();
            m_parameter->addItems(names);
            m_parameter->setCurrentIndex(std::max(0, int(names.indexOf(current))));
        }
        if (m_parameter->currentText() != current)
            onParameterChanged();
    }
    const bool animated = isAnimated();
    for (QWidget *field :
         std::initializer_list<QWidget *>{m_parameter, m_from, m_to, m_frames, m_fps})
        field->setEnabled(animated && !names.isEmpty());
}

// A new parameter starts from its default range: every position, or the field's value to 8
// times it.
void ExportDialog::onParameterChanged()
{
    const AnimationOptions defaults =
        FigureAnimation::defaultOptions(*m_state, options().views, m_parameter->currentText());
    const bool position = defaults.parameter == QLatin1String("position");
    for (QDoubleSpinBox *box : {m_from, m_to}) {
        const QSignalBlocker block(box);
        box->setDecimals(position ? 0 : 3);
        box->setSingleStep(position ? 1.0 : 0.1);
    }
    {
        const QSignalBlocker a(m_from), b(m_to);
        m_from->setValue(defaults.from.value_or(0));
        m_to->setValue(defaults.to.value_or(0));
    }
    schedulePreview();
}

QString ExportDialog::animationProblem() const
{
    if (!isAnimated())
        return {};
    const FigureOptions o = options();
    if (m_parameter->count() == 0)
        return tr("The %1 view has nothing to animate: no position and no numeric field of the "
                  "scheme.")
            .arg(figureViewsName(o.views));
    QString error;
    if (!FigureAnimation::plan(*m_state, o.views, animation(), &error))
        return error;
    VideoSettings settings;
    settings.format =
        *videoFormatForPath(QStringLiteral("x.") + m_format->currentData().toString());
    settings.width = int(o.width);
    settings.height = int(o.height);
    settings.frames = m_frames->value();
    settings.fps = fps();
    if (const VideoProblem problem = videoProblem(settings)) {
        const QString setting = problem.setting == VideoSetting::Width    ? tr("The width")
                                : problem.setting == VideoSetting::Height ? tr("The height")
                                : problem.setting == VideoSetting::Frames ? tr("The frame count")
                                                                          : tr("The frame rate");
        return setting + QLatin1Char(' ') + problem.message;
    }
    return {};
}

FigureData ExportDialog::currentData() const
{
    return m_scheduler ? m_scheduler->figureData(options().views) : FigureData();
}

void ExportDialog::hideEvent(QHideEvent *event)
{
    cancelExport(); // a dialog that closes leaves nothing running
    if (m_scheduler)
        m_scheduler->releaseFigureData();
    QDialog::hideEvent(event);
}

void ExportDialog::schedulePreview()
{
    m_previewTimer.start();
}

void ExportDialog::refreshPreview()
{
    FigureOptions o = options();
    if (const QString problem = o.validate(); !problem.isEmpty()) {
        // Explained once, beside the size fields (syncSizeInfo).
        m_preview = QImage();
        m_previewLabel->setText(tr("No preview at this size"));
        showReadiness(QString(), false);
        return;
    }
    const FigureData data = currentData();
    if (!figureDataMatches(*m_state, o.views, data)) {
        // The scheduler computes what is missing; figureDataReady() brings the preview back.
        if (m_scheduler)
            m_scheduler->requestFigureData(o.views);
        m_preview = QImage();
        m_previewLabel->setText(m_scheduler ? tr("Computing…") : tr("Nothing to show"));
        showReadiness(tr("Waiting for the current parameters to be computed."), false);
        return;
    }
    // The same layout as the file, drawn smaller: the DPI shrinks with the pixel size.
    const double fit =
        qMin(1.0, qMin(double(previewWidth) / o.width, double(previewHeight) / o.height));
    FigureOptions small = o;
    small.dpi = qMax(figurelimits::minDpi, o.dpi * fit);
    small.width = qMax(figurelimits::minSide, int(std::lround(o.width * small.dpi / o.dpi)));
    small.height = qMax(figurelimits::minSide, int(std::lround(o.height * small.dpi / o.dpi)));
    QString error;
    const QImage image = FigureExporter(*m_state, data, small).renderImage(&error);
    if (image.isNull()) {
        m_preview = QImage();
        m_previewLabel->setText(error);
        showReadiness(error, false, true);
        return;
    }
    m_preview = image.width() > previewWidth || image.height() > previewHeight
                    ? image.scaled(previewWidth, previewHeight, Qt::KeepAspectRatio,
                                   Qt::SmoothTransformation)
                    : image;
    showPreview();
    const QString problem = animationProblem();
    showReadiness(problem, problem.isEmpty(), !problem.isEmpty());
}

// The message under the form and whether Export and Copy can be pressed; while an animation is
// written they tell its progress instead.
void ExportDialog::showReadiness(const QString &message, bool canExport, bool error)
{
    if (isExporting())
        return;
    setMessage(message, error);
    m_exportButton->setEnabled(canExport);
    m_copyButton->setEnabled(!m_preview.isNull()); // a still of what the preview shows
}

// The preview as large as its label allows, never larger than rendered.
void ExportDialog::showPreview()
{
    if (m_preview.isNull())
        return;
    const QSize room = m_previewLabel->contentsRect().size();
    const QImage shown = m_preview.width() > room.width() || m_preview.height() > room.height()
                             ? m_preview.scaled(room, Qt::KeepAspectRatio, Qt::SmoothTransformation)
                             : m_preview;
    m_previewLabel->setPixmap(QPixmap::fromImage(shown));
}

bool ExportDialog::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_previewLabel && event->type() == QEvent::Resize)
        showPreview();
    return QDialog::eventFilter(watched, event);
}

bool ExportDialog::exportFigure(QString *error)
{
    if (isAnimated())
        return startAnimation(error);
    const FigureData data = currentData();
    const FigureOptions o = options();
    const QString file = path();
    bool ok = false;
    if (file.isEmpty())
        *error = tr("choose a file to export to");
    else if (!figureDataMatches(*m_state, o.views, data))
        *error = tr("the figure is still being computed; try again in a moment");
    else if (mayReplace(file, error))
        ok = FigureExporter(*m_state, data, o).writeFile(file, error);
    if (!ok) {
        setMessage(*error, true);
        return false;
    }
    setMessage(tr("Exported %1").arg(QDir::toNativeSeparators(file)), false);
    emit exported(file);
    return true;
}

bool ExportDialog::startAnimation(QString *error)
{
    const FigureOptions o = options();
    std::optional<FigureAnimation> plan;
    if (isExporting())
        *error = tr("an animation is being written; stop it first");
    else if (path().isEmpty())
        *error = tr("choose a file to export to");
    else if (const QString problem = animationProblem(); !problem.isEmpty())
        *error = problem;
    else if (mayReplace(path(), error))
        plan = FigureAnimation::plan(*m_state, o.views, animation(), error);
    if (plan) {
        m_job = new AnimationJob(*m_state, o, *plan, m_scheduler, this);
        connect(m_job, &AnimationJob::progress, this, [this](int done, int total, bool palette) {
            m_progress->setRange(0, total);
            m_progress->setValue(done);
            m_progress->setFormat(palette ? tr("Choosing the GIF's colours: %v of %m frames")
                                          : tr("%v of %m frames written"));
        });
        connect(m_job, &AnimationJob::finished, this,
                [this](VideoEncoder::Status status, const QString &why) {
                    onAnimationFinished(int(status), why);
                });
        if (!m_job->start(path(), fps(), error)) {
            delete m_job;
            m_job = nullptr;
        }
    }
    if (!m_job) {
        setMessage(*error, true);
        return false;
    }
    m_jobPath = path();
    m_progress->setValue(0);
    m_progress->show();
    m_cancelButton->setEnabled(true);
    m_exportButton->setEnabled(false);
    setMessage(tr("Writing %1…").arg(QDir::toNativeSeparators(m_jobPath)), false);
    return true;
}

void ExportDialog::onAnimationFinished(int status, const QString &error)
{
    m_job->deleteLater();
    m_job = nullptr;
    m_progress->hide();
    m_cancelButton->setEnabled(false);
    m_exportButton->setEnabled(true);
    switch (VideoEncoder::Status(status)) {
    case VideoEncoder::Status::Done:
        setMessage(tr("Exported %1").arg(QDir::toNativeSeparators(m_jobPath)), false);
        emit exported(m_jobPath);
        accept();
        return;
    case VideoEncoder::Status::Cancelled:
        setMessage(tr("Stopped; no file was written."), false);
        break;
    case VideoEncoder::Status::Failed:
        setMessage(error, true);
        break;
    }
    emit exportStopped(message());
}

bool ExportDialog::isExporting() const
{
    return m_job != nullptr;
}

void ExportDialog::cancelExport()
{
    if (m_job)
        m_job->cancel();
}

void ExportDialog::reject()
{
    if (isExporting()) {
        cancelExport();
        return;
    }
    QDialog::reject();
}

bool ExportDialog::copyToClipboard(QString *error)
{
    const FigureData data = currentData();
    const FigureOptions o = options();
    if (!figureDataMatches(*m_state, o.views, data)) {
        *error = tr("the figure is still being computed; try again in a moment");
        setMessage(*error, true);
        return false;
    }
    const FigureExporter exporter(*m_state, data, o);
    const QImage image = exporter.renderImage(error);
    if (image.isNull()) {
        setMessage(*error, true);
        return false;
    }
    auto *mime = new QMimeData;
    mime->setImageData(image);
    const QByteArray svg = exporter.renderSvg(error);
    if (!svg.isEmpty())
        mime->setData(QString::fromLatin1(outputFormat(FigureFormat::Svg).mime), svg);
    QApplication::clipboard()->setMimeData(mime);
    setMessage(tr("Copied a %1 × %2 figure to the clipboard").arg(o.width).arg(o.height), false);
    return true;
}

QString ExportDialog::message() const
{
    return m_message->text();
}

void ExportDialog::setMessage(const QString &text, bool error)
{
    m_message->setText(text);
    // The palette, not a style sheet: the label keeps following the light and dark themes.
    m_message->setPalette(QPalette());
    m_message->setFont(QFont());
    if (error)
        markAsMessage(m_message);
}

} // namespace pe
