// `pescope export --animate position|PARAM --from A --to B --frames N --fps F --out FIG.gif|.mp4|
// .webm`: the animation options of the export command, their checks before any work, and the
// writing with progress on a terminal.
#pragma once

#include "commandline.h"

#include "figures/figureanimation.h"
#include "figures/figureoptions.h"
#include "media/videoencoder.h"

namespace pe::cli {

struct AnimationRequest
{
    AnimationOptions options;
    int fps = 30;
    VideoFormat format = VideoFormat::Gif;
};

void addAnimationOptions(OptionSet &options);
// nullopt without --animate (its options are then refused, and an animation's extension too);
// else the request, its --frames, --fps and the figure's size checked for the format. Throws
// UsageError naming the option.
std::optional<AnimationRequest> animationFromOptions(const QCommandLineParser &parser,
                                                     const QString &path,
                                                     const FigureOptions &figure);
// The animation of the state's views; throws UsageError naming --animate, --from or --to.
FigureAnimation planAnimation(const FigureState &state, const QList<FigureView> &views,
                              const AnimationRequest &request);
// Renders and writes every frame; reports on stderr; the exit code.
int writeAnimation(const FigureState &state, const FigureOptions &figure,
                   const FigureAnimation &animation, const AnimationRequest &request,
                   Backend &backend, const QString &path);

} // namespace pe::cli
