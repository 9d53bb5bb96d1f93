#include "dialogs/animationexportdialog.h"

#include "backendfactory.h"
#include "dialogs/filedialog.h"
#include "figures/animationexporter.h"
#include "state/sessionfile.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace pe {

AnimationExportDialog::AnimationExportDialog(const ExplorerState *state,
                                             const QList<FigureView> &views,
                                             const AnimationOptions &animation, QWidget *parent)
    : QDialog(parent), m_state(state), m_views(views), m_animation(animation),
      m_path(new QLineEdit(this)), m_frames(new QSpinBox(this)), m_fps(new QSpinBox(this)),
      m_width(new QSpinBox(this)), m_height(new QSpinBox(this)), m_progress(new QProgressBar(this)),
      m_message(new QLabel(this)), m_export(new QPushButton(tr("Export"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this))
{
    setWindowTitle(tr("Export animation"));
    setObjectName(QStringLiteral("animationExport"));
    m_path->setObjectName(QStringLiteral("animationPath"));
    m_path->setText(QDir::home().filePath(figureViewsName(views) + QStringLiteral(".gif")));
    m_frames->setObjectName(QStringLiteral("animationFrames"));
    m_frames->setRange(videolimits::minFrames, videolimits::maxFrames);
    m_frames->setValue(animation.frames);
    m_fps->setObjectName(QStringLiteral("animationFps"));
    m_fps->setRange(videolimits::minFps, videolimits::maxFps);
    m_fps->setValue(30);
    for (QSpinBox *side : {m_width, m_height})
        side->setRange(videolimits::minSide, videolimits::maxSide);
    m_width->setValue(1280);
    m_height->setValue(720);
    m_progress->setObjectName(QStringLiteral("animationProgress"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_message->setObjectName(QStringLiteral("animationMessage"));
    m_message->setWordWrap(true);
    m_cancel->setEnabled(false);

    auto *browse = new QToolButton(this);
    browse->setText(tr("…"));
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path);
    pathRow->addWidget(browse);
    auto *size = new QHBoxLayout;
    size->addWidget(m_width);
    size->addWidget(new QLabel(tr("×"), this));
    size->addWidget(m_height);
    size->addWidget(new QLabel(tr("pixels"), this));
    auto *form = new QFormLayout;
    form->addRow(tr("Animates"), new QLabel(QStringLiteral("%1 of %2, from %3 to %4")
                                                .arg(animation.parameter, figureViewsName(views))
                                                .arg(animation.from.value_or(0))
                                                .arg(animation.to.value_or(0)),
                                            this));
    form->addRow(tr("File (.gif, .mp4, .webm)"), pathRow);
    form->addRow(tr("Frames"), m_frames);
    form->addRow(tr("Frames per second"), m_fps);
    form->addRow(tr("Size"), size);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_export, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_message);
    layout->addWidget(buttons);

    connect(browse, &QToolButton::clicked, this, &AnimationExportDialog::browse);
    connect(buttons, &QDialogButtonBox::rejected, this, [this] {
        if (m_busy)
            m_cancelled = true;
        else
            reject();
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] { m_cancelled = true; });
    connect(m_export, &QPushButton::clicked, this, [this] {
        QString error;
        exportAnimation(&error);
    });
}

void AnimationExportDialog::setPath(const QString &path)
{
    m_path->setText(path);
}

void AnimationExportDialog::setFrames(int frames)
{
    m_frames->setValue(frames);
}

void AnimationExportDialog::setFps(int fps)
{
    m_fps->setValue(fps);
}

void AnimationExportDialog::setFigureSize(int width, int height)
{
    m_width->setValue(width);
    m_height->setValue(height);
}

QString AnimationExportDialog::message() const
{
    return m_message->text();
}

void AnimationExportDialog::browse()
{
    const QString chosen = saveFileName(
        this, tr("Export animation"), m_path->text(),
        tr("Animations (*.gif *.mp4 *.webm);;GIF (*.gif);;MP4 (*.mp4);;WebM (*.webm)"));
    if (!chosen.isEmpty())
        m_path->setText(chosen);
}

bool AnimationExportDialog::exportAnimation(QString *error)
{
    if (m_busy) {
        *error = tr("an export is already running");
        return false;
    }
    const auto fail = [&](const QString &text) {
        *error = text;
        m_message->setText(text);
        return false;
    };
    const QString path = m_path->text();
    VideoSettings settings;
    settings.width = m_width->value();
    settings.height = m_height->value();
    settings.frames = m_frames->value();
    settings.fps = m_fps->value();
    const std::optional<VideoFormat> format = videoFormatForPath(path);
    if (!format)
        return fail(tr("The file name must end in .gif, .mp4 or .webm."));
    settings.format = *format;
    if (const QString problem = VideoEncoder::check(path, settings); !problem.isEmpty())
        return fail(problem);

    // A copy of the window's state: the animation moves it, the window's views stay.
    ExplorerState copy;
    QJsonObject json;
    QString problem;
    if (!parseSession(sessionBytes(*m_state), tr("the window"), &json, &problem) ||
        !copy.applyJson(json, &problem))
        return fail(problem);
    AnimationOptions options = m_animation;
    options.frames = settings.frames;
    const std::optional<FigureAnimation> plan =
        FigureAnimation::plan(copy, m_views, options, &problem);
    if (!plan)
        return fail(problem);
    const std::unique_ptr<Backend> backend = makeBackend(copy.backendChoice(), &problem);
    if (!backend)
        return fail(problem);
    FigureOptions figure;
    figure.views = m_views;
    figure.width = settings.width;
    figure.height = settings.height;

    m_busy = true;
    m_cancelled = false;
    m_export->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->setRange(0, settings.frames);
    m_progress->setValue(0);
    m_message->setText(tr("Rendering…"));
    AnimationExporter exporter(copy, figure, *plan, *backend);
    // Frames are drawn here (figures are widgets); between frames the window stays live and
    // Cancel is heard.
    const VideoEncoder::Status status = exporter.write(
        path, settings.fps,
        [this](int done, int) {
            m_progress->setValue(done);
            QApplication::processEvents();
            return !m_cancelled;
        },
        &problem);
    m_busy = false;
    m_export->setEnabled(true);
    m_cancel->setEnabled(false);
    if (status == VideoEncoder::Status::Cancelled)
        return fail(tr("Cancelled; no file was written."));
    if (status != VideoEncoder::Status::Done)
        return fail(problem);
    m_message->setText(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
    emit exported(path);
    return true;
}

} // namespace pe
