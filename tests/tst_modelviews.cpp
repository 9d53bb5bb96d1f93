// The Phrases page's model figures as views (issue 39): `pescope export --view tokens |
// embeddings | token-cosine | attention --model M --text ...` through the executable, for the two
// model folders of tests/data/models (see its README). The numbers (--out .npy) against
// transformers' own: hidden_states[0] (ref/hidden0_N.npy), layer 0's attention (ref/attn0_N.npy)
// and the token ids (ref/phrases.json); the figures (--out .png) at the asked size, drawn (not
// blank), following --attention-head and --model-phrase; the refusals name their option.
#include "formats/npyfile.h"
#include "modelreference.h"
#include "testutil.h"
#include "tolerance.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

using namespace pe::test;

namespace {

// The first half of a with/without stack: the arrays with the model's positions.
std::vector<float> withPositions(const Array &a)
{
    return {a.values.begin(), a.values.begin() + qsizetype(a.values.size() / 2)};
}

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

QString lastLine(const QByteArray &err)
{
    return QString::fromUtf8(err).trimmed().section(QLatin1Char('\n'), -1);
}

} // namespace

class TestModelViews : public QObject
{
    Q_OBJECT

private slots:
    void dataMatchesTransformers_data();
    void dataMatchesTransformers();
    void attentionHeadData_data();
    void attentionHeadData();
    void figures_data();
    void figures();
    void choicesChangeTheFigure();
    void refusals_data();
    void refusals();
    void tokenizerAlone();

private:
    // `pescope export --model folder --view view --out FILE` with `extra`; the exit code, and the
    // error in *err.
    int run(const QString &folder, const QString &view, const QString &file,
            const QStringList &extra, QByteArray *err = nullptr);
    QTemporaryDir m_dir;
};

int TestModelViews::run(const QString &folder, const QString &view, const QString &file,
                        const QStringList &extra, QByteArray *err)
{
    QFile::remove(file);
    const pe::test::RunResult r =
        runPescope(QStringList{QStringLiteral("export"), QStringLiteral("--model"), folder,
                               QStringLiteral("--view"), view, QStringLiteral("--out"), file} +
                   extra);
    if (err)
        *err = r.err;
    return r.exitCode;
}

void TestModelViews::dataMatchesTransformers_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QJsonObject>("phrase");
    for (const char *model : {"gpt2-tiny", "llama-tiny"}) {
        const QJsonArray cases = phraseCases(modelFolder(model));
        QVERIFY(cases.size() >= 4);
        for (qsizetype i = 0; i < 4; ++i)
            QTest::addRow("%s: %s", model,
                          qPrintable(cases[i].toObject().value(QLatin1String("text")).toString()))
                << modelFolder(model) << cases[i].toObject();
    }
}

// One phrase (A): the embeddings and attention with positions are transformers' hidden_states[0]
// and layer 0's attention; the tokens are its ids.
void TestModelViews::dataMatchesTransformers()
{
    QFETCH(QString, folder);
    QFETCH(QJsonObject, phrase);
    const QStringList text{QStringLiteral("--text"),
                           phrase.value(QLatin1String("text")).toString()};
    const QJsonArray ids = phrase.value(QLatin1String("ids")).toArray();
    const qint64 tokens = ids.size();
    const QString refs = folder + QStringLiteral("/ref/");
    const QString out = m_dir.filePath(QStringLiteral("out.npy"));
    QByteArray err;

    QVERIFY2(run(folder, QStringLiteral("tokens"), out, text, &err) == 0, err.constData());
    const Array tokenIds = readNpy(out);
    QCOMPARE(tokenIds.shape, (std::vector<qint64>{tokens}));
    for (qint64 t = 0; t < tokens; ++t)
        QCOMPARE(double(tokenIds.values[std::size_t(t)]), ids[t].toDouble());

    QVERIFY2(run(folder, QStringLiteral("embeddings"), out, text, &err) == 0, err.constData());
    const Array hidden = readNpy(out);
    QCOMPARE(hidden.shape, (std::vector<qint64>{2, tokens, 64}));
    const Array hiddenRef = readNpy(refs + phrase.value(QLatin1String("hidden0")).toString());
    QVERIFY(!hiddenRef.values.empty());
    const QString hiddenMismatch =
        pe::test::arrayMismatch(withPositions(hidden), hiddenRef.values, embeddingTolerance, 64);
    QVERIFY2(hiddenMismatch.isEmpty(), qPrintable(hiddenMismatch));

    QVERIFY2(run(folder, QStringLiteral("attention"), out, text, &err) == 0, err.constData());
    const Array attention = readNpy(out);
    QCOMPARE(attention.shape, (std::vector<qint64>{2, 4, tokens, tokens}));
    const Array attentionRef = readNpy(refs + phrase.value(QLatin1String("attn0")).toString());
    QVERIFY(!attentionRef.values.empty());
    const QString attentionMismatch = pe::test::arrayMismatch(
        withPositions(attention), attentionRef.values, attentionTolerance, tokens);
    QVERIFY2(attentionMismatch.isEmpty(), qPrintable(attentionMismatch));
}

void TestModelViews::attentionHeadData_data()
{
    QTest::addColumn<QString>("folder");
    for (const char *model : {"gpt2-tiny", "llama-tiny"})
        QTest::addRow("%s", model) << modelFolder(model);
}

// Issue 47: `pescope data --view attention --attention-head mean|N` writes the three panels the
// figure draws, 3 x tokens x tokens: with positions (the mean over heads, taken here in float64
// from transformers' layer-0 attention), without (the same of the all-heads data's second half)
// and with − without.
void TestModelViews::attentionHeadData()
{
    QFETCH(QString, folder);
    const QJsonObject phrase = phraseCases(folder).first().toObject();
    const QString text = phrase.value(QLatin1String("text")).toString();
    const qint64 tokens = phrase.value(QLatin1String("ids")).toArray().size(), heads = 4;
    const qint64 cells = tokens * tokens;
    const Array reference =
        readNpy(folder + QStringLiteral("/ref/") + phrase.value(QLatin1String("attn0")).toString());
    QCOMPARE(qint64(reference.values.size()), heads * cells);
    const QString all = m_dir.filePath(QStringLiteral("all.npy"));
    QByteArray err;
    QVERIFY2(
        run(folder, QStringLiteral("attention"), all, {QStringLiteral("--text"), text}, &err) == 0,
        err.constData());
    const Array everyHead = readNpy(all);
    QCOMPARE(everyHead.shape, (std::vector<qint64>{2, heads, tokens, tokens}));
    for (const QString head : {QStringLiteral("mean"), QStringLiteral("2")}) {
        const QString out = m_dir.filePath(QStringLiteral("panels.npy"));
        QFile::remove(out);
        const pe::test::RunResult r = runPescope(
            {QStringLiteral("data"), QStringLiteral("--model"), folder, QStringLiteral("--view"),
             QStringLiteral("attention"), QStringLiteral("--text"), text,
             QStringLiteral("--attention-head"), head, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Array panels = readNpy(out);
        QCOMPARE(panels.shape, (std::vector<qint64>{3, tokens, tokens}));
        // The chosen head, or the float64 mean of the heads, of `values` (heads x cells).
        const auto chosen = [&](const std::vector<float> &values, std::size_t offset) {
            std::vector<double> grid(std::size_t(cells), 0.0);
            for (qint64 i = 0; i < cells; ++i) {
                if (head == QLatin1String("2")) {
                    grid[std::size_t(i)] = values[offset + std::size_t(2 * cells + i)];
                    continue;
                }
                for (qint64 h = 0; h < heads; ++h)
                    grid[std::size_t(i)] += double(values[offset + std::size_t(h * cells + i)]);
                grid[std::size_t(i)] /= double(heads);
            }
            return grid;
        };
        const std::vector<float> with(panels.values.begin(), panels.values.begin() + cells);
        const std::vector<float> without(panels.values.begin() + cells,
                                         panels.values.begin() + 2 * cells);
        const std::vector<float> difference(panels.values.begin() + 2 * cells, panels.values.end());
        PE_COMPARE_ARRAY(with, chosen(reference.values, 0), attentionTolerance, tokens);
        PE_COMPARE_ARRAY(without, chosen(everyHead.values, std::size_t(heads * cells)),
                         (Tolerance{.absolute = 1e-12, .relative = 1e-6}), tokens);
        std::vector<double> expected(static_cast<std::size_t>(cells));
        for (std::size_t i = 0; i < expected.size(); ++i)
            expected[i] = double(with[i]) - double(without[i]);
        PE_COMPARE_ARRAY(difference, expected, (Tolerance{.absolute = 1e-12, .relative = 1e-6}),
                         tokens);
    }
}

void TestModelViews::figures_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("view");
    for (const char *model : {"gpt2-tiny", "llama-tiny"})
        for (const char *view : {"tokens", "embeddings", "token-cosine", "attention"})
            QTest::addRow("%s %s", model, view) << modelFolder(model) << QString::fromUtf8(view);
}

// Each view as a PNG of the asked size with a drawn figure in it.
void TestModelViews::figures()
{
    QFETCH(QString, folder);
    QFETCH(QString, view);
    const QString png = m_dir.filePath(view + QStringLiteral(".png"));
    QByteArray err;
    QVERIFY2(run(folder, view, png,
                 {QStringLiteral("--text"), QStringLiteral("The cat sat on the mat."),
                  QStringLiteral("--text"), QStringLiteral("A mat sat on the cat."),
                  QStringLiteral("--width"), QStringLiteral("900"), QStringLiteral("--height"),
                  QStringLiteral("600")},
                 &err) == 0,
             err.constData());
    const QImage image(png);
    QCOMPARE(image.size(), QSize(900, 600));
    // Text alone has a few dozen shades of grey; a heatmap many colours.
    QVERIFY2(distinctColours(image) >= (view == QLatin1String("tokens") ? 8 : 100),
             qPrintable(QString::number(distinctColours(image))));
}

// --attention-head and --model-phrase reach the figure: another head or phrase, another image.
void TestModelViews::choicesChangeTheFigure()
{
    const QString folder = modelFolder("llama-tiny");
    const QStringList texts{QStringLiteral("--text"), QStringLiteral("The cat sat on the mat."),
                            QStringLiteral("--text"), QStringLiteral("Positions matter.")};
    const auto image = [&](const QStringList &extra) {
        const QString png = m_dir.filePath(QStringLiteral("choice.png"));
        QByteArray err;
        if (run(folder, QStringLiteral("attention"), png, texts + extra, &err) != 0)
            qWarning("%s", err.constData());
        return QImage(png);
    };
    const QImage mean = image({});
    const QImage head0 = image({QStringLiteral("--attention-head"), QStringLiteral("0")});
    const QImage head1 = image({QStringLiteral("--attention-head"), QStringLiteral("1")});
    const QImage phraseB = image({QStringLiteral("--model-phrase"), QStringLiteral("B")});
    QVERIFY(!mean.isNull() && !head0.isNull() && !head1.isNull() && !phraseB.isNull());
    QVERIFY(mean != head0);
    QVERIFY(head0 != head1);
    QVERIFY(mean != phraseB);
    QCOMPARE(image({QStringLiteral("--attention-head"), QStringLiteral("mean")}), mean);
}

void TestModelViews::refusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("names");
    const QString folder = modelFolder("gpt2-tiny");
    const QString png = m_dir.filePath(QStringLiteral("refused.png"));
    const QStringList base{QStringLiteral("export"), QStringLiteral("--out"), png};
    const QStringList text{QStringLiteral("--text"), QStringLiteral("hello")};
    QTest::addRow("no model") << base +
                                     QStringList{QStringLiteral("--view"),
                                                 QStringLiteral("attention")} +
                                     text
                              << QStringLiteral("--model");
    QTest::addRow("no text") << base + QStringList{QStringLiteral("--view"),
                                                   QStringLiteral("embeddings"),
                                                   QStringLiteral("--model"), folder}
                             << QStringLiteral("--text");
    QTest::addRow("one phrase, token-cosine")
        << base +
               QStringList{QStringLiteral("--view"), QStringLiteral("token-cosine"),
                           QStringLiteral("--model"), folder} +
               text
        << QStringLiteral("--text");
    QTest::addRow("phrase B of one")
        << base + QStringList{QStringLiteral("--view"),         QStringLiteral("embeddings"),
                              QStringLiteral("--model"),        folder,
                              QStringLiteral("--model-phrase"), QStringLiteral("B")} +
               text
        << QStringLiteral("--model-phrase");
    QTest::addRow("phrase C") << base + QStringList{QStringLiteral("--view"),
                                                    QStringLiteral("embeddings"),
                                                    QStringLiteral("--model"),
                                                    folder,
                                                    QStringLiteral("--model-phrase"),
                                                    QStringLiteral("C")} +
                                     text
                              << QStringLiteral("--model-phrase");
    QTest::addRow("head beyond the model's")
        << base + QStringList{QStringLiteral("--view"),           QStringLiteral("attention"),
                              QStringLiteral("--model"),          folder,
                              QStringLiteral("--attention-head"), QStringLiteral("4")} +
               text
        << QStringLiteral("--attention-head");
    QTest::addRow("head not a number")
        << base + QStringList{QStringLiteral("--view"),           QStringLiteral("attention"),
                              QStringLiteral("--model"),          folder,
                              QStringLiteral("--attention-head"), QStringLiteral("first")} +
               text
        << QStringLiteral("--attention-head");
    // Issue 46: a tokenizer has no layer map; said as such, not as a config missing its keys.
    QTest::addRow("heatmap of a tokenizer alone")
        << base +
               QStringList{
                   QStringLiteral("--view"), QStringLiteral("heatmap"), QStringLiteral("--model"),
                   QFINDTESTDATA(QStringLiteral("data/tokenizers-real/gpt2/tokenizer.json"))}
        << QStringLiteral("is a tokenizer alone");
    QTest::addRow("head on another view")
        << base + QStringList{QStringLiteral("--view"), QStringLiteral("heatmap"),
                              QStringLiteral("--attention-head"), QStringLiteral("1")}
        << QStringLiteral("--attention-head");
}

// Exit 2, one line naming the option, and no file.
void TestModelViews::refusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, names);
    const QString png = m_dir.filePath(QStringLiteral("refused.png"));
    QFile::remove(png);
    const pe::test::RunResult r = runPescope(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(lastLine(r.err).contains(names), r.err.constData());
    QVERIFY(!QFile::exists(png));
}

// Issue 46: a published tokenizer.json alone draws and exports the tokens view (Hugging Face's
// ids, tests/data/tokenizers-real/gpt2/cases.json); the views that need weights are refused by
// name, exit 2, as is `data --phrase`.
void TestModelViews::tokenizerAlone()
{
    const QString tokenizer =
        QFINDTESTDATA(QStringLiteral("data/tokenizers-real/gpt2/tokenizer.json"));
    const QStringList texts{QStringLiteral("--text"), QStringLiteral("Hello world"),
                            QStringLiteral("--text"),
                            QStringLiteral("The quick brown fox jumps over the lazy dog.")};
    const QString npy = m_dir.filePath(QStringLiteral("alone.npy"));
    QByteArray err;
    QVERIFY2(run(tokenizer, QStringLiteral("tokens"), npy, texts, &err) == 0, err.constData());
    const Array ids = readNpy(npy);
    QCOMPARE(ids.shape, (std::vector<qint64>{2}));
    QCOMPARE(ids.values, (std::vector<float>{15496.0F, 995.0F}));
    QVERIFY2(run(tokenizer, QStringLiteral("tokens"), npy,
                 texts + QStringList{QStringLiteral("--model-phrase"), QStringLiteral("B")},
                 &err) == 0,
             err.constData());
    QCOMPARE(readNpy(npy).values,
             (std::vector<float>{464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13}));
    const QString png = m_dir.filePath(QStringLiteral("alone.png"));
    QVERIFY2(run(tokenizer, QStringLiteral("tokens"), png, texts, &err) == 0, err.constData());
    QVERIFY(distinctColours(QImage(png)) >= 8);
    for (const char *view : {"embeddings", "token-cosine", "attention"}) {
        QFile::remove(png);
        QCOMPARE(run(tokenizer, QString::fromLatin1(view), png, texts, &err), 2);
        const QString line = lastLine(err);
        QVERIFY2(line.contains(QStringLiteral("--view %1:").arg(QLatin1String(view))) &&
                     line.contains(QLatin1String("config.json")),
                 err.constData());
        QVERIFY(!QFile::exists(png));
    }
    const pe::test::RunResult data =
        runPescope({QStringLiteral("data"), QStringLiteral("--model"), tokenizer,
                    QStringLiteral("--phrase"), QStringLiteral("Hello world"),
                    QStringLiteral("--out"), m_dir.filePath(QStringLiteral("data.npy"))});
    QCOMPARE(data.exitCode, 2);
    QVERIFY2(lastLine(data.err).contains(QLatin1String("safetensors")), data.err.constData());
}

QTEST_GUILESS_MAIN(TestModelViews)
#include "tst_modelviews.moc"
