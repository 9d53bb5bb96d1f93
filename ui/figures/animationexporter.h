// AnimationExporter: an animated figure (GIF, MP4, WebM) made of still figures: for each frame
// the animation's value is set in the state, what the views need is computed (only when it
// changed: a moving marker reuses the data) and the FigureExporter renders the frame, which the
// VideoEncoder writes. `pescope export --animate` and the export dialog use it.
#pragma once

#include "compute/figuredata.h"
#include "figures/figureanimation.h"
#include "figures/figureoptions.h"
#include "media/videoencoder.h"

namespace pe {

class Backend;

class AnimationExporter
{
public:
    // `state` is changed frame by frame (it ends at the last frame's value).
    AnimationExporter(ExplorerState &state, const FigureOptions &figure,
                      const FigureAnimation &animation, Backend &backend);

    // Frame k as the still export of the state at that frame renders it. When only the waves'
    // one marker moves, the still part (axes, grid, curves) is painted once and each frame
    // paints the marker, its dots and the legend over a copy of it: the same pixels but where
    // the marker crosses a curve (drawn over it instead of under it), several times faster.
    QImage renderFrame(int frame, QString *error);
    // Frame k through the still export's whole path, always.
    QImage renderStill(int frame, QString *error);
    // Whether renderFrame paints only the moving part (known after the first frame).
    bool paintsMarkerOnly() const { return m_markerOnly; }
    // Renders and encodes every frame to `path` (the format by extension) at `fps`.
    VideoEncoder::Status write(const QString &path, int fps, const VideoEncoder::Progress &progress,
                               QString *error);
    // The compute results of the last frame rendered.
    const FigureData &data() const { return m_data; }

private:
    ExplorerState &m_state;
    FigureOptions m_figure;
    FigureAnimation m_animation;
    Backend &m_backend;
    FigureData m_data;
    bool m_markerOnly = false;
    QImage m_still; // the figure without the moving marker, its dots and the legend
    bool prepare(int frame, QString *error);
    QImage paint(QImage image, bool still, QString *error) const;
};

} // namespace pe
