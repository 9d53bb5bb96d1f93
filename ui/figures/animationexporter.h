// AnimationExporter: an animated figure (GIF, MP4, WebM) made of still figures: for each frame
// the animation's value is set in the state, what the views need is computed (only when it
// changed: a moving marker reuses the data) and the frame is painted as the still export paints
// that state. `pescope export --animate` computes and draws on its own thread (write()); the
// window's AnimationJob has the ComputeScheduler compute (inputs(), setData()) and draws each
// frame with render(): the same frames, in the same order.
#pragma once

#include "compute/figuredata.h"
#include "figures/figureanimation.h"
#include "figures/figureoptions.h"
#include "media/videoencoder.h"

#include <optional>

namespace pe {

class Backend;

class AnimationExporter
{
public:
    // Draws from a copy of `state`'s values, moved frame by frame (state()).
    AnimationExporter(const FigureState &state, const FigureOptions &figure,
                      const FigureAnimation &animation);

    const FigureAnimation &animation() const { return m_animation; }
    // The values of the frame applied last.
    const FigureState &state() const { return m_state; }
    const FigureOptions &figure() const { return m_figure; }
    // The video settings of this animation written to `path` (the format by extension) at
    // `fps`; nullopt with *error for a name that is not .gif, .mp4 or .webm.
    std::optional<VideoSettings> videoSettings(const QString &path, int fps, QString *error) const;

    // Sets frame k's value in the state; false with *error when the state refuses it.
    bool apply(int frame, QString *error);
    // The parameters the applied frame's numbers depend on, and whether data() holds them.
    FigureInputs inputs() const { return FigureInputs::of(m_state); }
    bool hasData() const;
    void setData(const FigureData &data) { m_data = data; }
    // The compute results of the last frame (kept: members that still match are reused).
    const FigureData &data() const { return m_data; }
    // The applied frame, painted from data() as the still export of the state paints it. When
    // only the waves' first marker moves, the still part (axes, grid, curves, the other
    // markers and crosses) is painted once and each frame paints the first marker, its dots and
    // the legend over a copy of it: the same pixels but where the marker crosses a curve or
    // another marker (drawn over it instead of under it), several times faster. Null with
    // *error on failure.
    QImage render(QString *error);
    // Whether render() paints only the moving part (known after the first frame).
    bool paintsMarkerOnly() const { return m_markerOnly; }

    // Frame k: apply(), the numbers computed on `backend` when they changed, render().
    QImage renderFrame(int frame, Backend &backend, QString *error);
    // Frame k through the still export's whole path, always.
    QImage renderStill(int frame, Backend &backend, QString *error);
    // Renders and encodes every frame to `path` (the format by extension) at `fps`.
    VideoEncoder::Status write(const QString &path, int fps, Backend &backend,
                               const VideoEncoder::Progress &progress, QString *error);

private:
    bool prepare(int frame, Backend &backend, QString *error);
    QImage paint(QImage image, bool still, QString *error) const;

    FigureState m_state; // the frames' values, moved frame by frame
    FigureOptions m_figure;
    FigureAnimation m_animation;
    FigureData m_data;
    bool m_markerOnly = false;
    QImage m_still; // the figure without the moving marker, its dots and the legend
};

} // namespace pe
