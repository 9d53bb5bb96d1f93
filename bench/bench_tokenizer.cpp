// Benchmark for issue 28: MB/s encoding about 1 MB of mixed text (English prose, code, numbers,
// accented Latin, CJK, Arabic, Devanagari, emoji) with each of the four tokenizer families of
// tests/data/tokenizers, one thread, beside a plain whitespace split of the same text in the
// same process as the baseline. Prints medians and ratios; it never passes or fails on time.
//
//   bench_tokenizer [--megabytes M] [--runs R] [--family NAME]
//   bench_tokenizer --write-text PATH [--megabytes M]     the same text, for another program
//   bench_tokenizer --tokenizer FILE --text-file PATH [--runs R]
//                                 one JSON line: median seconds to read FILE and to encode the
//                                 text (bench_tokenizers_vs_hf.py compares it with HF's)
#include "benchtiming.h"
#include "text/tokenizer.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSysInfo>
#include <QThread>

#include <cstdio>
#include <ctime>

namespace {

// Words of several scripts, and made-up words so that not every word repeats (a tokenizer's
// cost is in the words it has not seen yet).
QString mixedText(qint64 bytes)
{
    const QStringList words =
        QStringLiteral(
            "the quick brown fox jumps over the lazy dog ; positional encodings rotate queries and "
            "keys by angles that grow with position , so attention sees relative distance . "
            "def encode(self, text: str) -> list[int]: return self._ids[text] "
            "1,000,000 3.14159 2026-11-26 https://example.org/path?q=rope&theta=10000 "
            "Ångström naïve café déjà-vu l'été dernier "
            "東京タワー 日本語のテキスト 中文文本 "
            "مرحبا بالعالم नमस्ते दुनिया 한국어 텍스트 "
            "🙂 🇩🇪 👩‍💻 C++20 Qt6 Eigen3.4 I'm you're isn't")
            .split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString letters = QStringLiteral("abcdefghijklmnopqrstuvwxyzéèàüößçñ");
    QRandomGenerator rng(28);
    QString text;
    qint64 size = 0;
    while (size < bytes) {
        QString line;
        for (int w = 0; w < 400; ++w) {
            if (rng.bounded(4) == 0) {
                const int length = 3 + int(rng.bounded(8));
                for (int i = 0; i < length; ++i)
                    line += letters[rng.bounded(int(letters.size()))];
            } else {
                line += words[rng.bounded(int(words.size()))];
            }
            line += rng.bounded(12) == 0 ? QStringLiteral("\n") : QStringLiteral(" ");
        }
        text += line;
        size += line.toUtf8().size();
    }
    return text;
}

// CPU seconds of this thread: on a shared machine the wall clock also counts the time other
// processes had the core.
double threadSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Median wall and CPU seconds of `runs` runs after a warm-up.
struct Measured
{
    double wall = 0;
    double cpu = 0;
};

Measured measure(int runs, const std::function<void()> &work)
{
    std::vector<double> cpu;
    const pe::bench::Timing wall = pe::bench::timeRuns(runs, [&] {
        const double start = threadSeconds();
        work();
        cpu.push_back(threadSeconds() - start);
    });
    cpu.erase(cpu.begin()); // the warm-up
    return {wall.median, pe::bench::median(cpu)};
}

// Reading `file` and encoding the text of `textFile` (special tokens added), median seconds of
// `runs` after a warm-up, as one JSON line.
int timeFile(const QString &file, const QString &textFile, int runs)
{
    QFile in(textFile);
    if (!in.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(textFile));
    const QString text = QString::fromUtf8(in.readAll());
    QString error;
    // Each run's tokenizer is kept until the end: freeing the previous one is not reading.
    std::vector<pe::Tokenizer> loaded;
    const Measured load = measure(runs, [&] {
        std::optional<pe::Tokenizer> t = pe::Tokenizer::fromPath(file, &error);
        if (!t)
            qFatal("%s", qPrintable(error));
        loaded.push_back(std::move(*t));
    });
    const pe::Tokenizer *tokenizer = &loaded.back();
    qsizetype tokens = 0;
    const Measured encode = measure(runs, [&] {
        const std::optional<pe::TokenEncoding> e = tokenizer->encode(text, true, &error);
        if (!e)
            qFatal("%s", qPrintable(error));
        tokens = e->size();
    });
    std::printf("{\"load_s\": %.6f, \"encode_s\": %.6f, \"load_cpu_s\": %.6f, "
                "\"encode_cpu_s\": %.6f, \"tokens\": %lld}\n",
                load.wall, encode.wall, load.cpu, encode.cpu, qlonglong(tokens));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions(
        {{QStringLiteral("megabytes"), QStringLiteral("text size"), QStringLiteral("M"),
          QStringLiteral("1")},
         {QStringLiteral("runs"), QStringLiteral("timed runs"), QStringLiteral("R"),
          QStringLiteral("5")},
         {QStringLiteral("family"), QStringLiteral("only this tokenizer"), QStringLiteral("NAME")},
         {QStringLiteral("write-text"), QStringLiteral("write the text (UTF-8)"),
          QStringLiteral("PATH")},
         {QStringLiteral("tokenizer"), QStringLiteral("a tokenizer.json to time"),
          QStringLiteral("FILE")},
         {QStringLiteral("text-file"), QStringLiteral("the text to encode"),
          QStringLiteral("PATH")}});
    parser.process(app);
    const qint64 bytes = qint64(parser.value(QStringLiteral("megabytes")).toDouble() * 1e6);
    const int runs = parser.value(QStringLiteral("runs")).toInt();
    if (parser.isSet(QStringLiteral("write-text"))) {
        QFile out(parser.value(QStringLiteral("write-text")));
        if (!out.open(QIODevice::WriteOnly) || out.write(mixedText(bytes).toUtf8()) < 0)
            qFatal("cannot write %s", qPrintable(out.fileName()));
        return 0;
    }
    if (parser.isSet(QStringLiteral("tokenizer")))
        return timeFile(parser.value(QStringLiteral("tokenizer")),
                        parser.value(QStringLiteral("text-file")), runs);
    const QString text = mixedText(bytes);
    const double megabytes = double(text.toUtf8().size()) / 1e6;
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::printf("text: %.2f MB of UTF-8, %lld characters; %s, %d cores, one thread used\n",
                megabytes, qlonglong(text.size()), qPrintable(QSysInfo::prettyProductName()),
                QThread::idealThreadCount());

    std::printf("%-20s %12s %12s %10s\n", "", "MB/s (CPU)", "MB/s (wall)", "tokens");
    qsizetype words = 0;
    const Measured baseline = measure(runs, [&] {
        words = text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts).size();
    });
    std::printf("%-20s %12.2f %12.2f %10lld  (words: the baseline)\n", "whitespace split",
                megabytes / baseline.cpu, megabytes / baseline.wall, qlonglong(words));

    for (const char *family :
         {"bpe-bytelevel", "wordpiece-bert", "unigram-metaspace", "bpe-bytefallback"}) {
        if (parser.isSet(QStringLiteral("family")) &&
            parser.value(QStringLiteral("family")) != QLatin1String(family))
            continue;
        QString error;
        const std::optional<pe::Tokenizer> tokenizer = pe::Tokenizer::fromPath(
            QStringLiteral(PE_SOURCE_DIR "/tests/data/tokenizers/%1/tokenizer.json")
                .arg(QLatin1String(family)),
            &error);
        if (!tokenizer)
            qFatal("%s", qPrintable(error));
        qsizetype tokens = 0;
        const Measured t = measure(runs, [&] {
            const std::optional<pe::TokenEncoding> e = tokenizer->encode(text, true, &error);
            if (!e)
                qFatal("%s", qPrintable(error));
            tokens = e->size();
        });
        std::printf("%-20s %12.2f %12.2f %10lld  (%.1fx the baseline's CPU time)\n", family,
                    megabytes / t.cpu, megabytes / t.wall, qlonglong(tokens), t.cpu / baseline.cpu);
    }
    return 0;
}
