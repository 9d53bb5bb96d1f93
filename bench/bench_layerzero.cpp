// Benchmark for issue 28's keystroke budget: a model's embeddings and layer 0's attention for a
// typed phrase, with and without positions (what the Phrases page recomputes on each key), with
// the reader held open, side by side with the same work reopening the model each time (config,
// safetensors headers and layer 0's weights read again) and against the 50 ms target. Prints
// medians and ratios; it never passes or fails on time.
//
//   bench_layerzero [--model FOLDER] [--tokens N] [--runs R]
#include "benchtiming.h"
#include "model/layerzero.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <vector>

namespace {

// Embeddings and attention, with and without positions: one keystroke's model work.
void keystroke(pe::LayerZero &model, const std::vector<int> &ids)
{
    QString error;
    for (const bool positions : {true, false}) {
        if (!model.embeddings(ids, positions, &error) || !model.attention(ids, positions, &error))
            qFatal("%s", qPrintable(error));
    }
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption modelOption(QStringLiteral("model"), QStringLiteral("Model folder."),
                                         QStringLiteral("FOLDER"),
                                         QStringLiteral(PE_BENCH_DIR "/../tests/data/models/"
                                                                     "llama-tiny"));
    const QCommandLineOption tokensOption(QStringLiteral("tokens"),
                                          QStringLiteral("Phrase length."), QStringLiteral("N"),
                                          QStringLiteral("50"));
    const QCommandLineOption runsOption(QStringLiteral("runs"), QStringLiteral("Timed runs."),
                                        QStringLiteral("R"), QStringLiteral("50"));
    parser.addOptions({modelOption, tokensOption, runsOption});
    parser.process(app);
    const QString folder = parser.value(modelOption);
    const int tokens = std::max(1, parser.value(tokensOption).toInt());
    const int runs = std::max(1, parser.value(runsOption).toInt());

    QString error;
    std::unique_ptr<pe::LayerZero> model = pe::LayerZero::open(folder, &error);
    if (!model)
        qFatal("%s", qPrintable(error));
    // A phrase of `tokens` ids spread over the vocabulary (the ids' values do not change the work).
    std::vector<int> ids(std::size_t(tokens), 0);
    for (int i = 0; i < tokens; ++i)
        ids[std::size_t(i)] = int((qint64(i) * 7919 + 1) % model->vocabularyRows());

    const pe::bench::Timing held = pe::bench::timeRuns(runs, [&] { keystroke(*model, ids); });
    const pe::bench::Timing reopened = pe::bench::timeRuns(runs, [&] {
        const std::unique_ptr<pe::LayerZero> fresh = pe::LayerZero::open(folder, &error);
        if (!fresh)
            qFatal("%s", qPrintable(error));
        keystroke(*fresh, ids);
    });
    const double targetSeconds = 0.050;
    std::printf("model: %s (%s, hidden %lld, %lld heads), %d tokens, %d runs\n", qPrintable(folder),
                qPrintable(model->architecture()), static_cast<long long>(model->hiddenSize()),
                static_cast<long long>(model->heads()), tokens, runs);
    std::printf("keystroke, reader held:   median %8.3f ms (min %.3f ms)\n", held.median * 1e3,
                held.min * 1e3);
    std::printf("keystroke, model reopened: median %8.3f ms (min %.3f ms)\n", reopened.median * 1e3,
                reopened.min * 1e3);
    std::printf("reopened / held: %.1fx; held / 50 ms target: %.4f\n",
                reopened.median / held.median, held.median / targetSeconds);
    return 0;
}
