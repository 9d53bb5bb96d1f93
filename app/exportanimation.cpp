#include "exportanimation.h"

#include "figures/animationexporter.h"
#include "media/outputformats.h"

#include <QElapsedTimer>

#include <cstdio>

#include <unistd.h>

namespace pe::cli {

namespace {

const QString command = QStringLiteral("export");
const QStringList animationFlags = {QStringLiteral("from"), QStringLiteral("to"),
                                    QStringLiteral("frames"), QStringLiteral("fps")};

std::optional<double> optionalNumber(const QCommandLineParser &parser, const QString &name)
{
    if (!parser.isSet(name))
        return std::nullopt;
    return numberOption(parser, name, 0.0);
}

} // namespace

void addAnimationOptions(OptionSet &options)
{
    options.addPlain({QStringLiteral("animate"),
                      QStringLiteral("An animation (--out %1): position moves the marker of "
                                     "the waves and heatmap, the rotation view's position or the "
                                     "phrase views' token; a field of the scheme (e.g. factor, "
                                     "base) is swept for any view, each frame computed anew.")
                          .arg(outputExtensionList(OutputKind::Animation)),
                      QStringLiteral("position|PARAM")});
    options.addPlain({QStringLiteral("from"),
                      QStringLiteral("animation: the value at the first frame (position: 0)."),
                      QStringLiteral("A")});
    options.addPlain({QStringLiteral("to"),
                      QStringLiteral("animation: the value at the last frame (position: the "
                                     "last one)."),
                      QStringLiteral("B")});
    options.addPlain({QStringLiteral("frames"),
                      QStringLiteral("animation: frames, from %1 to %2. Default 60.")
                          .arg(videolimits::minFrames)
                          .arg(videolimits::maxFrames),
                      QStringLiteral("N")});
    options.addPlain({QStringLiteral("fps"),
                      QStringLiteral("animation: frames per second, from %1 to %2 (a GIF stores "
                                     "delays in 1/100 s). Default 30.")
                          .arg(videolimits::minFps)
                          .arg(videolimits::maxFps),
                      QStringLiteral("F")});
}

std::optional<AnimationRequest> animationFromOptions(const QCommandLineParser &parser,
                                                     const QString &path,
                                                     const FigureOptions &figure)
{
    const std::optional<VideoFormat> format = videoFormatForPath(path);
    if (!parser.isSet(QStringLiteral("animate"))) {
        if (format)
            throw UsageError{QStringLiteral("--out %1 is an animation: add --animate position or "
                                            "--animate PARAM")
                                 .arg(path)};
        refuseOptions(parser, animationFlags, QStringLiteral("a still figure (add --animate)"));
        return std::nullopt;
    }
    if (!format)
        throw UsageError{
            QStringLiteral("--animate writes --out %1 (got \"%2\")")
                .arg(outputExtensionList(OutputKind::Animation, QStringLiteral("FIG")), path)};
    AnimationRequest r;
    r.format = *format;
    r.options.parameter = parser.value(QStringLiteral("animate")).trimmed();
    r.options.from = optionalNumber(parser, QStringLiteral("from"));
    r.options.to = optionalNumber(parser, QStringLiteral("to"));
    r.options.frames = int(integerOption(parser, QStringLiteral("frames"), videolimits::minFrames,
                                         videolimits::maxFrames, 60));
    r.fps = int(
        integerOption(parser, QStringLiteral("fps"), videolimits::minFps, videolimits::maxFps, 30));
    VideoSettings settings{r.format, int(std::min<qint64>(figure.width, INT_MAX)),
                           int(std::min<qint64>(figure.height, INT_MAX)), r.options.frames, r.fps};
    if (const VideoProblem problem = videoProblem(settings)) {
        const QString option = problem.setting == VideoSetting::Frames ? QStringLiteral("--frames")
                               : problem.setting == VideoSetting::Fps  ? QStringLiteral("--fps")
                               : problem.setting == VideoSetting::Width
                                   ? QStringLiteral("--width")
                                   : QStringLiteral("--height");
        throw UsageError{option + QLatin1Char(' ') + problem.message};
    }
    return r;
}

FigureAnimation planAnimation(const FigureState &state, const QList<FigureView> &views,
                              const AnimationRequest &request)
{
    QString error;
    const std::optional<FigureAnimation> animation =
        FigureAnimation::plan(state, views, request.options, &error);
    if (!animation)
        throw UsageError{error};
    return *animation;
}

int writeAnimation(const FigureState &state, const FigureOptions &figure,
                   const FigureAnimation &animation, const AnimationRequest &request,
                   Backend &backend, const QString &path)
{
    QElapsedTimer timer;
    timer.start();
    // Progress only for a person watching: a terminal on stderr, updated in place.
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    int shown = -1;
    const auto progress = [&](int done, int total) {
        if (terminal && done != shown) {
            shown = done;
            std::fprintf(stderr, "\rpescope export: frame %d of %d", done, total);
            std::fflush(stderr);
        }
        return true;
    };
    AnimationExporter exporter(state, figure, animation);
    QString error;
    const VideoEncoder::Status status =
        exporter.write(path, request.fps, backend, progress, &error);
    if (terminal && shown >= 0)
        std::fprintf(stderr, "\r\033[K");
    if (status != VideoEncoder::Status::Done) {
        report(command, error);
        return Failure;
    }
    report(command, QStringLiteral("%1 animation written to %2 (%3 frames of %4 x %5 px at %6 "
                                   "fps, %7 from %8 to %9), computed by the %10 backend, in %11 "
                                   "ms")
                        .arg(figureViewsName(figure.views), path)
                        .arg(animation.frames())
                        .arg(figure.width)
                        .arg(figure.height)
                        .arg(request.fps)
                        .arg(animation.parameter(), animation.valueText(0),
                             animation.valueText(animation.frames() - 1), backend.id())
                        .arg(timer.elapsed()));
    return Success;
}

} // namespace pe::cli
