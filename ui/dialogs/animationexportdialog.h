// AnimationExportDialog: the Motion bar's Export… (issue 13): what the bar plays (its parameter
// and range, the current page's view) as a GIF, MP4 or WebM of a chosen frame count, frame rate
// and size, with progress and Cancel. It renders from a copy of the window's state, so the views
// do not move while it works, through the same AnimationExporter as `pescope export --animate`.
#pragma once

#include "figures/figureanimation.h"
#include "media/videoencoder.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace pe {

class AnimationExportDialog : public QDialog
{
    Q_OBJECT

public:
    AnimationExportDialog(const ExplorerState *state, const QList<FigureView> &views,
                          const AnimationOptions &animation, QWidget *parent = nullptr);

    void setPath(const QString &path);
    void setFrames(int frames);
    void setFps(int fps);
    void setFigureSize(int width, int height);
    // Renders and writes the animation; false with *error (also shown) on failure or cancel.
    bool exportAnimation(QString *error);
    void cancel() { m_cancelled = true; } // stops the export in progress at the next frame
    QString message() const;

signals:
    void exported(const QString &path);

private:
    void browse();

    const ExplorerState *m_state;
    QList<FigureView> m_views;
    AnimationOptions m_animation;
    QLineEdit *m_path;
    QSpinBox *m_frames;
    QSpinBox *m_fps;
    QSpinBox *m_width;
    QSpinBox *m_height;
    QProgressBar *m_progress;
    QLabel *m_message;
    QPushButton *m_export;
    QPushButton *m_cancel;
    bool m_busy = false;
    bool m_cancelled = false;
};

} // namespace pe
