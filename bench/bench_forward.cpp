// The whole forward pass (issue 48 item 6), run by bench_forward.py beside PyTorch's eager
// forward: opens a model folder, runs ForwardPass on `--tokens` deterministic token ids with
// `--threads` threads (no attentions or hidden states kept, logits as asked), and prints one line
// of JSON: the median and fastest of `--runs` warm runs, the process's peak resident memory
// (VmHWM) and the logits' checksum values the script compares with PyTorch's. It never passes
// or fails on time.
//
//   bench_forward --model FOLDER [--tokens N] [--threads T] [--runs R] [--last-logits]
//                 [--dump FILE]
#include "benchtiming.h"
#include "model/forwardpass.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>

#include <cstdio>
#include <vector>

namespace {

// The ids bench_forward.py gives PyTorch too: (p * 7919 + 13) mod vocabulary.
std::vector<int> tokenIds(qint64 tokens, qint64 vocabulary)
{
    std::vector<int> ids;
    for (qint64 p = 0; p < tokens; ++p)
        ids.push_back(int((p * 7919 + 13) % vocabulary));
    return ids;
}

// VmHWM, this program's own peak: getrusage's ru_maxrss keeps the parent's resident size from
// before exec (Linux carries the forked image's high-water mark over), which for a Python
// script that has just written a 1 GiB model is larger than this program's.
double peakResidentMiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (status.open(QIODevice::ReadOnly))
        for (const QByteArray &line : status.readAll().split('\n'))
            if (line.startsWith("VmHWM:"))
                return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0; // kB
    return -1;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption modelOption(QStringLiteral("model"), QStringLiteral("Model folder."),
                                         QStringLiteral("FOLDER"));
    const QCommandLineOption tokensOption(QStringLiteral("tokens"), QStringLiteral("Tokens."),
                                          QStringLiteral("N"), QStringLiteral("128"));
    const QCommandLineOption threadsOption(QStringLiteral("threads"), QStringLiteral("Threads."),
                                           QStringLiteral("T"), QStringLiteral("0"));
    const QCommandLineOption runsOption(QStringLiteral("runs"),
                                        QStringLiteral("Timed runs after a warm-up (0: one run)."),
                                        QStringLiteral("R"), QStringLiteral("3"));
    const QCommandLineOption lastOption(QStringLiteral("last-logits"),
                                        QStringLiteral("Logits of the last token only."));
    const QCommandLineOption dumpOption(QStringLiteral("dump"),
                                        QStringLiteral("Write the logits (float32) to FILE."),
                                        QStringLiteral("FILE"));
    parser.addOptions(
        {modelOption, tokensOption, threadsOption, runsOption, lastOption, dumpOption});
    parser.process(app);

    QString error;
    const std::unique_ptr<pe::ForwardPass> pass =
        pe::ForwardPass::open(parser.value(modelOption), &error);
    if (!pass)
        qFatal("%s", qPrintable(error));
    const std::vector<int> ids =
        tokenIds(parser.value(tokensOption).toLongLong(), pass->vocabularyRows());
    pe::ForwardOptions options;
    options.attentions = false;
    options.hiddenStates = false;
    options.threads = parser.value(threadsOption).toInt();
    options.lastLogitsOnly = parser.isSet(lastOption);
    std::optional<pe::ForwardResult> result;
    const auto work = [&] {
        result.reset(); // not held while the next run computes: the peak is one run's
        result = pass->run(ids, options, &error);
        if (!result)
            qFatal("%s", qPrintable(error));
    };
    const int runs = parser.value(runsOption).toInt();
    const pe::bench::Timing timing = pe::bench::timeRuns(runs, work); // --runs 0: one cold run
    if (parser.isSet(dumpOption)) {
        QFile file(parser.value(dumpOption));
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(file.fileName()));
        const auto bytes = qint64(result->logits.values.size() * sizeof(float));
        if (file.write(reinterpret_cast<const char *>(result->logits.values.data()), bytes) !=
                bytes ||
            !file.flush())
            qFatal("cannot write %s: %s", qPrintable(file.fileName()),
                   qPrintable(file.errorString()));
    }
    std::printf("{\"median\": %.6f, \"min\": %.6f, \"peak_mib\": %.1f, \"logits\": %lld}\n",
                timing.median, timing.min, peakResidentMiB(),
                static_cast<long long>(result->logits.values.size()));
    return 0;
}
