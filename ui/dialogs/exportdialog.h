// ExportDialog: File → Export figure, the window's one export path. Chooses the view, format,
// size (pixels, inches or cm at a DPI), print theme, font size, legend, colorbar, title and
// caption, as `pescope export` does; shows a live preview rendered by the same FigureExporter
// that writes the file, and copies the figure to the clipboard. GIF, MP4 and WebM animate the
// view (the position or a field of the scheme swept between two values) through an
// AnimationJob: computed by the scheduler, encoded off the GUI thread, with progress and Cancel.
// The Motion bar's Export… opens it preset to what the bar plays.
#pragma once

#include "figures/figureanimation.h"
#include "figures/figureexporter.h"

#include <QDialog>
#include <QImage>
#include <QTimer>

#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace pe {

class AnimationJob;
class ComputeScheduler;

class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Unit { Pixels, Inches, Centimetres };

    ExportDialog(const ExplorerState *state, ComputeScheduler *scheduler,
                 QWidget *parent = nullptr);
    ~ExportDialog() override;

    FigureOptions options() const;
    void setOptions(const FigureOptions &options);
    void setViews(const QList<FigureView> &views);
    QString path() const;
    void setPath(const QString &path);
    // A name no file has yet, in the folder of the current one (the Pictures folder at first),
    // after the chosen views and format: pescope-decay.png, else pescope-decay-2.png, and so on.
    // The window gives each opening of the dialog one (issue 46: the previous export's name
    // was offered again, and Export replaced that file).
    void useFreshPath();
    // Asked before a file that exists is replaced (a file chosen with Browse… was asked about
    // by the file dialog already); true replaces it. The default is a message box.
    using ReplaceQuestion = std::function<bool(const QString &path)>;
    void setReplaceQuestion(ReplaceQuestion ask) { m_askReplace = std::move(ask); }
    Unit unit() const;
    void setUnit(Unit unit);

    // The scheduler's results for the chosen views when they match the state's parameters, else
    // empty members.
    FigureData currentData() const;
    // The format chosen is GIF, MP4 or WebM.
    bool isAnimated() const;
    // The format chosen takes even sides only (MP4, WebM).
    bool needsEvenSides() const;
    // What moves, its range and frame count (frames and fps are the dialog's).
    AnimationOptions animation() const;
    int fps() const;
    // Chooses an animation (GIF unless an animated format is chosen already) of `options`.
    void setAnimation(const AnimationOptions &options, int fps = 30);
    // Empty when the animation can be written; else why not, as shown in the dialog.
    QString animationProblem() const;

    // Writes path() with options(): a still at once (false with *error, also shown), an
    // animation in the background (false when it cannot start; exported() or a message follows).
    bool exportFigure(QString *error);
    bool isExporting() const;
    // Stops an animation being written; nothing is left at its path.
    void cancelExport();
    bool copyToClipboard(QString *error);
    // The last preview, at most 480 x 360 pixels; null while there is nothing to show (the
    // figure's numbers are still being computed by the scheduler).
    QImage previewImage() const { return m_preview; }
    QString message() const;

public slots:
    // Draws the preview from the scheduler's results, or asks the scheduler for them (the preview
    // follows when they arrive).
    void refreshPreview();

signals:
    void exported(const QString &path);
    // An animation stopped without a file: cancelled or failed (the message says which).
    void exportStopped(const QString &message);

protected:
    void hideEvent(QHideEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    // Escape and Close stop an animation being written instead of closing.
    void reject() override;

private:
    // The constructor's parts, in the order it calls them.
    void setUpViewAndFormat();
    void setUpSizeControls();
    void setUpStyleControls();
    void setUpAnimationControls();
    void setUpPreviewAndStatus();
    void layOutDialog();
    QLayout *buildForm();
    void connectControls();
    void syncAnimationControls();
    void onParameterChanged();
    bool startAnimation(QString *error);
    void onAnimationFinished(int status, const QString &error);
    void onFormatChanged();
    void onUnitChanged();
    void syncSizeInfo();
    void syncViewAvailability();
    void schedulePreview();
    void showPreview();
    void browse();
    // False, with *error, when `file` exists and the user keeps it.
    bool mayReplace(const QString &file, QString *error);
    void setMessage(const QString &text, bool error);
    void showReadiness(const QString &message, bool canExport, bool error = false);
    double pixelsToUnit(int pixels) const;
    int unitToPixels(double value) const;

    const ExplorerState *m_state;
    ComputeScheduler *m_scheduler;
    QComboBox *m_view;
    QComboBox *m_format;
    QComboBox *m_unit;
    QDoubleSpinBox *m_width;
    QDoubleSpinBox *m_height;
    QSpinBox *m_dpi;
    QLabel *m_sizeInfo;
    QCheckBox *m_printTheme;
    QCheckBox *m_interpolate;
    QCheckBox *m_showSelection;
    QDoubleSpinBox *m_fontScale;
    QComboBox *m_legend;
    QComboBox *m_colorbar;
    QLineEdit *m_xLabel;
    QLineEdit *m_yLabel;
    QLineEdit *m_title;
    QCheckBox *m_caption;
    QLineEdit *m_captionText;
    QLineEdit *m_path;
    QComboBox *m_parameter;
    QDoubleSpinBox *m_from;
    QDoubleSpinBox *m_to;
    QSpinBox *m_frames;
    QSpinBox *m_fps;
    QLabel *m_previewLabel;
    QLabel *m_message;
    QProgressBar *m_progress;
    QPushButton *m_exportButton;
    QPushButton *m_copyButton;
    QPushButton *m_cancelButton;
    AnimationJob *m_job = nullptr; // the animation being written, a child
    QString m_jobPath;
    QString m_confirmedPath; // chosen with Browse…, whose file dialog asked about replacing it
    ReplaceQuestion m_askReplace;
    QTimer m_previewTimer;
    QImage m_preview;
    Unit m_currentUnit = Unit::Pixels;
    int m_pixelWidth = 1200;
    int m_pixelHeight = 800;
};

} // namespace pe
