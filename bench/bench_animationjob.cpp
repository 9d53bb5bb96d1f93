// bench_animationjob: the window's animated export (File > Export figure as MP4: AnimationJob,
// its frames' numbers from a ComputeScheduler, encoded by a FrameWriter) on the animation that
// bench_animation.py asks `pescope export --animate position` for: the waves view of the
// sinusoidal encoding, two marked dims, the marker moving over every position, 1280 x 720, CPU
// backend, 30 fps. Run it through bench_animation.py, which sets QT_QPA_PLATFORM=offscreen and
// checks that the file equals the command line's byte for byte.
//
//     bench_animationjob OUT.mp4 FRAMES POSITIONS DIMS WAVE,WAVE
//
// Prints the job's seconds (start() to finished(Done)) and the longest time the event loop went
// without a turn after start() returned (a 5 ms timer's longest gap): what a person clicking
// Cancel waits at most.
#include "compute/computescheduler.h"
#include "figures/animationjob.h"
#include "state/explorerstate.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <algorithm>
#include <cstdio>

using namespace pe;

namespace {

int usage(const char *why)
{
    std::fprintf(stderr,
                 "bench_animationjob: %s\nusage: bench_animationjob OUT.mp4 FRAMES POSITIONS "
                 "DIMS WAVE,WAVE\n",
                 why);
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() != 6)
        return usage("five arguments expected");
    bool okFrames = false, okPositions = false, okDims = false;
    const QString out = args[1];
    const int frames = args[2].toInt(&okFrames);
    const qint64 positions = args[3].toLongLong(&okPositions);
    const qint64 dims = args[4].toLongLong(&okDims);
    QList<qint64> waves;
    for (const QString &wave : args[5].split(QLatin1Char(','))) {
        bool ok = false;
        waves.append(wave.toLongLong(&ok));
        if (!ok)
            return usage("WAVE,WAVE: dims as whole numbers");
    }
    if (!okFrames || !okPositions || !okDims || waves.isEmpty())
        return usage("FRAMES, POSITIONS and DIMS are whole numbers");

    // The state `pescope export --view waves --scheme sinusoidal --positions P --dims D
    // --mark-dims W --backend cpu` builds: defaults, then those options.
    QString error;
    ExplorerState state;
    state.setBackendChoice(BackendChoice::Cpu);
    EncodingSpec spec = state.spec();
    spec.scheme = SinusoidalScheme{};
    spec.positions = positions;
    spec.dims = dims;
    if (!state.setSpec(spec, &error))
        return usage(qPrintable(error));
    ViewOptions view = state.viewOptions();
    view.waveDims = waves;
    view.selection = {view.markers.isEmpty() ? view.selection.position : view.markers.constFirst(),
                      waves.constFirst()};
    if (!state.setViewOptions(view, &error))
        return usage(qPrintable(error));

    FigureOptions figure;
    figure.views = {FigureView::Waves};
    figure.width = 1280;
    figure.height = 720;
    AnimationOptions options;
    options.from = 0;
    options.to = double(positions - 1);
    options.frames = frames;
    const std::optional<FigureAnimation> plan =
        FigureAnimation::plan(FigureState(state), figure.views, options, &error);
    if (!plan)
        return usage(qPrintable(error));

    ComputeScheduler scheduler(&state);
    AnimationJob job(state, figure, *plan, &scheduler);
    QEventLoop loop;
    VideoEncoder::Status status = VideoEncoder::Status::Failed;
    QString why;
    QObject::connect(&job, &AnimationJob::finished, &loop,
                     [&](VideoEncoder::Status s, const QString &e) {
                         status = s;
                         why = e;
                         loop.quit();
                     });
    // The event loop's longest pause while the job runs.
    QElapsedTimer clock;
    QTimer ticker;
    ticker.setInterval(5);
    qint64 lastTick = 0, longestGap = 0;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        longestGap = std::max(longestGap, now - lastTick);
        lastTick = now;
    });

    clock.start();
    if (!job.start(out, 30, &error))
        return usage(qPrintable(error));
    lastTick = clock.nsecsElapsed(); // start() itself (the media module's loading) left out
    ticker.start();
    loop.exec();
    const double seconds = double(clock.nsecsElapsed()) * 1e-9;
    if (status != VideoEncoder::Status::Done) {
        std::fprintf(stderr, "bench_animationjob: %s\n", qPrintable(why));
        return 1;
    }
    std::printf("job %.4f s, longest event-loop gap %.1f ms\n", seconds, double(longestGap) * 1e-6);
    return 0;
}
