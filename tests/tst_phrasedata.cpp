// `pescope data --model M --phrase TEXT --what embeddings|attention` (issue 28) through the
// executable. Known answers: transformers' own arrays for the two model folders in
// tests/data/models (see its README) for every phrase of their ref/phrases.json. Without
// positions, where transformers gave no array: the token table's rows read from the safetensors
// file by the small reader below (GPT-2's wte; Llama's embed_tokens, which RoPE leaves alone),
// and for the attention what NoPE implies - keys holding the same token get the same weight.
// Then the refusals: exit 2 with one line naming the option or file, and no file left behind.
#include "formats/npyfile.h"
#include "forwardreference.h"
#include "layerreference.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace pe::test;

namespace {

// Rows `rows` of an F32 tensor of a .safetensors file: 8 bytes of header length, the JSON
// header, then the data (the format's README).
std::vector<float> tensorRows(const QString &file, const QString &name, const QJsonArray &rows)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    const QByteArray bytes = f.readAll();
    const auto headerLength = qFromLittleEndian<quint64>(bytes.constData());
    const QJsonObject header =
        QJsonDocument::fromJson(bytes.mid(8, qsizetype(headerLength))).object();
    const QJsonObject tensor = header.value(name).toObject();
    if (tensor.value(QLatin1String("dtype")).toString() != QLatin1String("F32"))
        qFatal("%s is not F32", qPrintable(name));
    const qint64 columns = tensor.value(QLatin1String("shape")).toArray().at(1).toInteger();
    const qint64 begin = 8 + qint64(headerLength) +
                         tensor.value(QLatin1String("data_offsets")).toArray().at(0).toInteger();
    std::vector<float> out;
    for (const QJsonValue row : rows) {
        std::vector<float> values(static_cast<std::size_t>(columns));
        std::memcpy(values.data(), bytes.constData() + begin + row.toInteger() * columns * 4,
                    std::size_t(columns) * 4);
        out.insert(out.end(), values.begin(), values.end());
    }
    return out;
}

// stderr's last line, without its end.
QString lastLine(const QByteArray &err)
{
    return QString::fromUtf8(err).trimmed().section(QLatin1Char('\n'), -1);
}

} // namespace

class TestPhraseData : public QObject
{
    Q_OBJECT

private slots:
    void knownAnswers_data();
    void knownAnswers();
    void embeddingsWithoutPositions_data();
    void embeddingsWithoutPositions();
    void attentionWithoutPositions_data();
    void attentionWithoutPositions();
    void dryRun();
    void csv();
    void refusals_data();
    void refusals();
    void tooLong();
    void unwritableOutput();
    void phraseFile();
    void nonFiniteWeightsAreSaid();
    void laterLayers_data();
    void laterLayers();
    void laterLayerNanWarning();
    void layerAnalyses();

private:
    // A copy of llama-tiny in `name`, its config.json and weights changed by `edit`.
    QString editedLlama(const QString &name, const std::function<void(QJsonObject &)> &config,
                        const std::function<void(QByteArray &, const QJsonObject &)> &weights);
    // Runs `pescope data --model folder --phrase text` with `extra`; the array, or a failure.
    Array run(const QString &folder, const QString &text, const QStringList &extra);
    QTemporaryDir m_dir;
};

Array TestPhraseData::run(const QString &folder, const QString &text, const QStringList &extra)
{
    return runPhraseData(m_dir.filePath(QStringLiteral("out.npy")), folder, text, extra);
}

void TestPhraseData::knownAnswers_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QJsonObject>("phrase");
    for (const char *model : {"gpt2-tiny", "llama-tiny"}) {
        const QJsonArray cases = phraseCases(modelFolder(model));
        QVERIFY(cases.size() >= 8);
        for (const QJsonValue c : cases)
            QTest::addRow("%s: %s", model,
                          qPrintable(c.toObject().value(QLatin1String("text")).toString()))
                << modelFolder(model) << c.toObject();
    }
}

// transformers' hidden_states[0] and attentions[0] for every phrase, text in, arrays out: the
// model's tokenizer with its special tokens, then layer 0.
void TestPhraseData::knownAnswers()
{
    QFETCH(QString, folder);
    QFETCH(QJsonObject, phrase);
    const QString text = phrase.value(QLatin1String("text")).toString();
    const qint64 tokens = phrase.value(QLatin1String("ids")).toArray().size();
    const QString refs = folder + QStringLiteral("/ref/");

    const Array hidden =
        run(folder, text, {QStringLiteral("--what"), QStringLiteral("embeddings")});
    QCOMPARE(hidden.shape, (std::vector<qint64>{tokens, 64}));
    const Array hiddenRef = readNpy(refs + phrase.value(QLatin1String("hidden0")).toString());
    PE_COMPARE_ARRAY(hidden.values, hiddenRef.values, embeddingTolerance);

    const Array attention =
        run(folder, text, {QStringLiteral("--what"), QStringLiteral("attention")});
    QCOMPARE(attention.shape, (std::vector<qint64>{4, tokens, tokens}));
    const Array attentionRef = readNpy(refs + phrase.value(QLatin1String("attn0")).toString());
    PE_COMPARE_ARRAY(attention.values, attentionRef.values, attentionTolerance);
}

void TestPhraseData::embeddingsWithoutPositions_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("table");
    QTest::addColumn<QJsonObject>("phrase");
    const std::pair<const char *, const char *> models[] = {
        {"gpt2-tiny", "transformer.wte.weight"}, {"llama-tiny", "model.embed_tokens.weight"}};
    for (const auto &[model, table] : models)
        for (const QJsonValue c : phraseCases(modelFolder(model)))
            QTest::addRow("%s: %s", model,
                          qPrintable(c.toObject().value(QLatin1String("text")).toString()))
                << modelFolder(model) << QString::fromLatin1(table) << c.toObject();
}

// Without positions the embedding output is the token table's rows: GPT-2 adds no wpe, and a
// RoPE model's output is the same either way (transformers' hidden_states[0] for Llama).
void TestPhraseData::embeddingsWithoutPositions()
{
    QFETCH(QString, folder);
    QFETCH(QString, table);
    QFETCH(QJsonObject, phrase);
    const Array hidden = run(folder, phrase.value(QLatin1String("text")).toString(),
                             {QStringLiteral("--no-positions")});
    const std::vector<float> rows = tensorRows(folder + QStringLiteral("/model.safetensors"), table,
                                               phrase.value(QLatin1String("ids")).toArray());
    PE_COMPARE_ARRAY(hidden.values, rows, embeddingTolerance);
}

void TestPhraseData::attentionWithoutPositions_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QJsonObject>("phrase");
    for (const char *model : {"gpt2-tiny", "llama-tiny"})
        for (const QJsonValue c : phraseCases(modelFolder(model)))
            if (c.toObject().value(QLatin1String("text")).toString().startsWith(u"same same"))
                QTest::addRow("%s", model) << modelFolder(model) << c.toObject();
}

// "same same same ...": five keys hold one token. Without positions a query cannot tell them
// apart, so it gives them one weight; with positions (transformers' array) it does not.
void TestPhraseData::attentionWithoutPositions()
{
    QFETCH(QString, folder);
    QFETCH(QJsonObject, phrase);
    const QJsonArray ids = phrase.value(QLatin1String("ids")).toArray();
    const auto n = qint64(ids.size());
    std::vector<qint64> same; // the positions of the repeated token
    for (qint64 j = 0; j < n; ++j)
        if (ids[j] == ids[n / 2])
            same.push_back(j);
    QVERIFY(same.size() >= 4);
    const Array without = run(
        folder, phrase.value(QLatin1String("text")).toString(),
        {QStringLiteral("--what"), QStringLiteral("attention"), QStringLiteral("--no-positions")});
    const Array with =
        readNpy(folder + QStringLiteral("/ref/") + phrase.value(QLatin1String("attn0")).toString());
    QCOMPARE(without.shape, with.shape);
    const qint64 query = same.back(); // sees every one of them
    double spreadWith = 0;
    for (qint64 h = 0; h < 4; ++h) {
        const auto at = [&](const Array &a, qint64 j) {
            return double(a.values[std::size_t((h * n + query) * n + j)]);
        };
        double rowSum = 0;
        for (qint64 j = 0; j < n; ++j)
            rowSum += at(without, j);
        PE_COMPARE_NEAR(rowSum, 1.0, 1e-5);
        for (const qint64 j : same) {
            PE_COMPARE_NEAR(at(without, j), at(without, same.front()), 1e-6);
            spreadWith = std::max(spreadWith, std::abs(at(with, j) - at(with, same.front())));
        }
    }
    QVERIFY2(spreadWith > 1e-3, "with positions the weights of the repeated token differ");
}

void TestPhraseData::dryRun()
{
    const QString out = m_dir.filePath(QStringLiteral("dry.npy"));
    const pe::test::RunResult r =
        runPescope({QStringLiteral("data"), QStringLiteral("--model"), modelFolder("llama-tiny"),
                    QStringLiteral("--phrase"), QStringLiteral("The cat sat on the mat."),
                    QStringLiteral("--what"), QStringLiteral("attention"), QStringLiteral("--out"),
                    out, QStringLiteral("--dry-run")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(!QFile::exists(out));
    const QString err = QString::fromUtf8(r.err);
    // Which files, how many tokens, what would be written.
    QVERIFY2(err.contains(QLatin1String("LlamaForCausalLM")) &&
                 err.contains(QLatin1String("tokenizer.json")) &&
                 err.contains(QString::fromUtf8("10 tokens: <s> ▁ The▁ c at▁")),
             r.err.constData());
    QVERIFY2(lastLine(r.err).startsWith(
                 QLatin1String("pescope data: dry run: would write the 4 x 10 x 10 attention")),
             r.err.constData());
}

// CSV: one line per token, hidden columns.
void TestPhraseData::csv()
{
    const QString out = m_dir.filePath(QStringLiteral("hidden.csv"));
    const pe::test::RunResult r = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"), modelFolder("gpt2-tiny"),
         QStringLiteral("--phrase"), QStringLiteral("the the the"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0].split(',').size(), 64);
    const Array ref = readNpy(modelFolder("gpt2-tiny") + QStringLiteral("/ref/hidden0_14.npy"));
    PE_COMPARE_REL(lines[2].split(',').last().toDouble(), ref.values.back(), 1e-5);
}

void TestPhraseData::refusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected"); // what the one line must name
    const QString llama = modelFolder("llama-tiny");
    const QString out = m_dir.filePath(QStringLiteral("refused.npy"));
    const QStringList phrase{QStringLiteral("--model"),  llama,
                             QStringLiteral("--phrase"), QStringLiteral("a cat"),
                             QStringLiteral("--out"),    out};
    const auto add = [&](const char *name, const QStringList &args, const char *expected) {
        QTest::addRow("%s", name) << (QStringList{QStringLiteral("data")} + args)
                                  << QString::fromUtf8(expected);
    };
    add("layer 2", phrase + QStringList{QStringLiteral("--layer"), QStringLiteral("2")},
        "layer 2: LlamaForCausalLM has 2 layers (0 to 1)");
    add("layer 1 embeddings",
        phrase + QStringList{QStringLiteral("--what"), QStringLiteral("embeddings"),
                             QStringLiteral("--layer"), QStringLiteral("1")},
        "the embeddings are hidden_states[0], the input of layer 0; layer 1 applies to the "
        "attention");
    add("layer -1", phrase + QStringList{QStringLiteral("--layer"), QStringLiteral("-1")},
        "--layer must be between 0");
    add("what matrix", phrase + QStringList{QStringLiteral("--what"), QStringLiteral("matrix")},
        "--what must be embeddings, attention, distance, head-scores, sinks, frequency-atlas, "
        "norms, top-activations or probe with --phrase (got \"matrix\")");
    add("scheme", phrase + QStringList{QStringLiteral("--scheme"), QStringLiteral("rope")},
        "--scheme does not apply to --phrase");
    add("positions", phrase + QStringList{QStringLiteral("--positions"), QStringLiteral("5")},
        "--positions does not apply to --phrase");
    add("no model",
        {QStringLiteral("--phrase"), QStringLiteral("a cat"), QStringLiteral("--out"), out},
        "--phrase needs --model");
    add("no-positions without a phrase",
        {QStringLiteral("--no-positions"), QStringLiteral("--out"), out},
        "--no-positions does not apply to a spec without --phrase");
    add("attention without a phrase",
        {QStringLiteral("--model"), llama, QStringLiteral("--what"), QStringLiteral("attention"),
         QStringLiteral("--out"), out},
        "--what attention needs --model PATH --phrase TEXT");
    add("missing model",
        {QStringLiteral("--model"), m_dir.filePath(QStringLiteral("nowhere")),
         QStringLiteral("--phrase"), QStringLiteral("a"), QStringLiteral("--out"), out},
        "nowhere");
    add("bad extension",
        {QStringLiteral("--model"), llama, QStringLiteral("--phrase"), QStringLiteral("a"),
         QStringLiteral("--out"), m_dir.filePath(QStringLiteral("x.txt"))},
        "--out must end in .npy or .csv");

    // Weights and config without tokenizer.json: the tokenizer is named.
    const QString noTokenizer = m_dir.filePath(QStringLiteral("no-tokenizer"));
    QDir().mkpath(noTokenizer);
    for (const char *file : {"config.json", "model.safetensors"})
        QFile::copy(llama + QLatin1Char('/') + QLatin1String(file),
                    noTokenizer + QLatin1Char('/') + QLatin1String(file));
    add("no tokenizer.json",
        {QStringLiteral("--model"), noTokenizer, QStringLiteral("--phrase"), QStringLiteral("a"),
         QStringLiteral("--out"), out},
        "tokenizer.json");
    // The GPT-2 tokenizer gives no tokens for an empty text (no BOS): nothing to compute.
    add("no tokens",
        {QStringLiteral("--model"), modelFolder("gpt2-tiny"), QStringLiteral("--phrase"), QString(),
         QStringLiteral("--out"), out},
        "--phrase: the phrase has no tokens with this tokenizer");
    // Issue 45: a negative epsilon made every attention row NaN, written with exit 0.
    add("negative rms_norm_eps",
        {QStringLiteral("--model"),
         editedLlama(QStringLiteral("negative-eps"),
                     [](QJsonObject &c) { c.insert(QStringLiteral("rms_norm_eps"), -1); }, {}),
         QStringLiteral("--phrase"), QStringLiteral("a cat"), QStringLiteral("--what"),
         QStringLiteral("attention"), QStringLiteral("--out"), out},
        "rms_norm_eps must be a number >= 0 (got -1)");
    // --phrase-file (issue 37).
    const QString badUtf8 = m_dir.filePath(QStringLiteral("bad.txt"));
    QFile bad(badUtf8);
    if (bad.open(QIODevice::WriteOnly))
        bad.write("a cat\n\xFF");
    bad.close();
    add("phrase and phrase-file", phrase + QStringList{QStringLiteral("--phrase-file"), badUtf8},
        "not both");
    add("phrase-file not UTF-8",
        {QStringLiteral("--model"), llama, QStringLiteral("--phrase-file"), badUtf8,
         QStringLiteral("--out"), out},
        "byte 6 (line 2) is 0xff");
    add("phrase-file missing",
        {QStringLiteral("--model"), llama, QStringLiteral("--phrase-file"),
         m_dir.filePath(QStringLiteral("absent.txt")), QStringLiteral("--out"), out},
        "absent.txt");
}

// Exit 2, one line on stderr naming what is wrong, no output file.
void TestPhraseData::refusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const pe::test::RunResult r = runPescope(args);
    QCOMPARE(r.exitCode, 2);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.startsWith(QLatin1String("pescope data: ")) && err.count(QLatin1Char('\n')) == 1,
             qPrintable(err));
    QVERIFY2(err.contains(expected), qPrintable(err));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("refused.npy"))));
}

void TestPhraseData::laterLayers_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("layer");
    for (const char *model : {"gpt2-tiny4", "llama-tiny4", "qwen3-tiny4", "neox-tiny4"})
        for (const int layer : {1, 3})
            QTest::addRow("%s layer %d", model, layer) << QString::fromLatin1(model) << layer;
}

// --layer N > 0: layer N's attention through the whole forward pass, text in, array out, against
// transformers' attentions[N] (tests/data/models-layers) for two phrases.
void TestPhraseData::laterLayers()
{
    QFETCH(QString, model);
    QFETCH(int, layer);
    const QString folder = QFINDTESTDATA(QStringLiteral("data/models-layers/") + model);
    const QJsonArray cases = phraseCases(folder);
    QVERIFY(cases.size() >= 4);
    for (const int index : {0, 3}) {
        const QJsonObject phrase = cases[index].toObject();
        const qint64 tokens = phrase.value(QLatin1String("ids")).toArray().size();
        const Array attention = run(folder, phrase.value(QLatin1String("text")).toString(),
                                    {QStringLiteral("--what"), QStringLiteral("attention"),
                                     QStringLiteral("--layer"), QString::number(layer)});
        QCOMPARE(attention.shape, (std::vector<qint64>{4, tokens, tokens}));
        const Array all = readNpy(folder + QStringLiteral("/ref/") +
                                  phrase.value(QLatin1String("attn")).toString());
        const auto perLayer = qsizetype(4 * tokens * tokens);
        const std::vector<float> expected(all.values.begin() + layer * perLayer,
                                          all.values.begin() + (layer + 1) * perLayer);
        // tst_forwardpass's bound for the deeper layers (float32 rounding grows with depth).
        PE_COMPARE_ARRAY(attention.values, expected, (Tolerance{.absolute = 2.5e-5}));
    }
    // --no-positions: a different array of the same shape, rows still summing to 1.
    const QJsonObject phrase = cases[0].toObject();
    const qint64 tokens = phrase.value(QLatin1String("ids")).toArray().size();
    const Array without =
        run(folder, phrase.value(QLatin1String("text")).toString(),
            {QStringLiteral("--what"), QStringLiteral("attention"), QStringLiteral("--layer"),
             QString::number(layer), QStringLiteral("--no-positions")});
    QCOMPARE(without.shape, (std::vector<qint64>{4, tokens, tokens}));
    for (qint64 row = 0; row < 4 * tokens; ++row) {
        double sum = 0;
        for (qint64 j = 0; j < tokens; ++j)
            sum += without.values[std::size_t(row * tokens + j)];
        PE_COMPARE_NEAR(sum, 1.0, 1e-5);
    }
}

// --what distance|head-scores|sinks|norms|top-activations|frequency-atlas|probe: shapes, and the
// attention's and hidden states' numbers against loops over transformers' arrays; --layer N
// picks one layer; a RoPE analysis of GPT-2 is refused by name.
void TestPhraseData::layerAnalyses()
{
    const QString folder = QFINDTESTDATA(QStringLiteral("data/models-layers/llama-tiny4"));
    const QJsonObject phrase = phraseCases(folder).at(0).toObject();
    const QString text = phrase.value(QLatin1String("text")).toString();
    const auto n = qint64(phrase.value(QLatin1String("ids")).toArray().size());
    const Array attn =
        readNpy(folder + QStringLiteral("/ref/") + phrase.value(QLatin1String("attn")).toString());
    const Array hidden = readNpy(folder + QStringLiteral("/ref/") +
                                 phrase.value(QLatin1String("hidden")).toString());
    const auto what = [](const char *name) {
        return QStringList{QStringLiteral("--what"), QLatin1String(name)};
    };
    const Array distance = run(folder, text, what("distance"));
    QCOMPARE(distance.shape, (std::vector<qint64>{4, 4, n}));
    const std::vector<double> expected = referenceDistance(attn.values, 4, 4, n);
    for (std::size_t i = 0; i < expected.size(); ++i)
        PE_COMPARE_NEAR(distance.values[i], expected[i], 2.5e-5);
    const Array scores =
        run(folder, text,
            what("head-scores") + QStringList{QStringLiteral("--layer"), QStringLiteral("2")});
    QCOMPARE(scores.shape, (std::vector<qint64>{4, 5}));
    const std::vector<double> all = referenceHeadScores(attn.values, 4, 4, n, 8);
    for (std::size_t i = 0; i < scores.values.size(); ++i)
        PE_COMPARE_NEAR(scores.values[i], all[2 * 20 + i], 2.5e-5);
    const Array sinks = run(folder, text, what("sinks"));
    QCOMPARE(sinks.shape, std::vector<qint64>{4});
    for (qint64 l = 0; l < 4; ++l) {
        double flags = 0;
        for (qint64 h = 0; h < 4; ++h)
            flags += all[std::size_t(l * 20 + h * 5 + 4)];
        PE_COMPARE_NEAR(sinks.values[std::size_t(l)], flags / 4, 1e-6);
    }
    const Array norms = run(folder, text, what("norms"));
    QCOMPARE(norms.shape, (std::vector<qint64>{5, n}));
    const std::vector<double> expectedNorms = referenceNorms(hidden.values, 64);
    for (std::size_t i = 0; i < expectedNorms.size(); ++i)
        PE_COMPARE_NEAR(norms.values[i], expectedNorms[i], 1e-4 * expectedNorms[i]);
    QCOMPARE(run(folder, text, what("top-activations")).shape, (std::vector<qint64>{5, 5, 4}));
    // --window, --top-k: the same loops with the other window, the other count.
    const Array window2 =
        run(folder, text,
            what("head-scores") + QStringList{QStringLiteral("--window"), QStringLiteral("2")});
    const std::vector<double> all2 = referenceHeadScores(attn.values, 4, 4, n, 2);
    for (std::size_t i = 0; i < all2.size(); ++i)
        PE_COMPARE_NEAR(window2.values[i], all2[i], 2.5e-5);
    QCOMPARE(
        run(folder, text,
            what("top-activations") + QStringList{QStringLiteral("--top-k"), QStringLiteral("2")})
            .shape,
        (std::vector<qint64>{5, 2, 4}));
    QCOMPARE(run(folder, text, what("frequency-atlas")).shape, (std::vector<qint64>{4, 4, 8}));
    QCOMPARE(run(folder, text, what("probe")).shape, std::vector<qint64>{5});
    const pe::test::RunResult gpt2 = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"),
         QFINDTESTDATA(QStringLiteral("data/models-layers/gpt2-tiny4")), QStringLiteral("--phrase"),
         text, QStringLiteral("--what"), QStringLiteral("frequency-atlas"), QStringLiteral("--out"),
         m_dir.filePath(QStringLiteral("atlas.npy"))});
    QCOMPARE(gpt2.exitCode, 2);
    QVERIFY2(gpt2.err.contains("no rotary positions"), gpt2.err.constData());
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("atlas.npy"))));
    const pe::test::RunResult layer = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"), folder, QStringLiteral("--phrase"),
         text, QStringLiteral("--what"), QStringLiteral("distance"), QStringLiteral("--layer"),
         QStringLiteral("4"), QStringLiteral("--out"), m_dir.filePath(QStringLiteral("d.npy"))});
    QCOMPARE(layer.exitCode, 2);
    QVERIFY2(layer.err.contains("layers 0 to 3"), layer.err.constData());
    // An analysis's option with a phrase array is refused, not ignored.
    const pe::test::RunResult stray = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"), folder, QStringLiteral("--phrase"),
         text, QStringLiteral("--what"), QStringLiteral("attention"), QStringLiteral("--window"),
         QStringLiteral("4"), QStringLiteral("--out"), m_dir.filePath(QStringLiteral("a.npy"))});
    QCOMPARE(stray.exitCode, 2);
    QVERIFY2(stray.err.contains("--window does not apply to --what attention"),
             stray.err.constData());
}

// A NaN in layer 2's weights: layer 3's attention is written (NaN from there on), and stderr
// names the tensor.
void TestPhraseData::laterLayerNanWarning()
{
    const QString folder = QFINDTESTDATA(QStringLiteral("data/models-layers/gpt2-tiny4"));
    const QString copy = m_dir.filePath(QStringLiteral("nan-gpt2"));
    QVERIFY(QDir().mkpath(copy));
    for (const char *name : {"config.json", "model.safetensors", "tokenizer.json"})
        QVERIFY(QFile::copy(folder + QLatin1Char('/') + QLatin1String(name),
                            copy + QLatin1Char('/') + QLatin1String(name)));
    // The first value of transformer.h.2.mlp.c_proj.weight, found through the header.
    QFile file(copy + QStringLiteral("/model.safetensors"));
    QVERIFY(file.open(QIODevice::ReadWrite));
    quint64 length = 0;
    QCOMPARE(file.read(reinterpret_cast<char *>(&length), 8), 8);
    const QJsonObject header = QJsonDocument::fromJson(file.read(qint64(length))).object();
    const qint64 offset = header.value(QLatin1String("transformer.h.2.mlp.c_proj.weight"))
                              .toObject()
                              .value(QLatin1String("data_offsets"))
                              .toArray()[0]
                              .toInteger();
    QVERIFY(file.seek(8 + qint64(length) + offset));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    QCOMPARE(file.write(reinterpret_cast<const char *>(&nan), sizeof nan), qint64(sizeof nan));
    file.close();
    const QString out = m_dir.filePath(QStringLiteral("nan.npy"));
    const pe::test::RunResult r = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"), copy, QStringLiteral("--phrase"),
         QStringLiteral("a cat"), QStringLiteral("--what"), QStringLiteral("attention"),
         QStringLiteral("--layer"), QStringLiteral("3"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("warning: transformer.h.2.mlp.c_proj.weight has 1 value that is "
                            "not finite"),
             r.err.constData());
    QVERIFY(QFile::exists(out));
}

// --phrase-file: the phrase read from a file gives transformers' arrays as --phrase does.
void TestPhraseData::phraseFile()
{
    const QString folder = modelFolder("llama-tiny");
    const QJsonObject phrase = phraseCases(folder).at(0).toObject();
    const QString text = phrase.value(QLatin1String("text")).toString();
    const QString path = m_dir.filePath(QStringLiteral("phrase.txt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text.toUtf8());
    file.close();
    const QString out = m_dir.filePath(QStringLiteral("from-file.npy"));
    const pe::test::RunResult r =
        runPescope({QStringLiteral("data"), QStringLiteral("--model"), folder,
                    QStringLiteral("--phrase-file"), path, QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const Array hidden = readNpy(out);
    const qint64 tokens = phrase.value(QLatin1String("ids")).toArray().size();
    QCOMPARE(hidden.shape, (std::vector<qint64>{tokens, 64}));
    const Array hiddenRef = readNpy(folder + QStringLiteral("/ref/") +
                                    phrase.value(QLatin1String("hidden0")).toString());
    PE_COMPARE_ARRAY(hidden.values, hiddenRef.values, embeddingTolerance);
}

// GPT-2's wpe holds 256 positions: a phrase of more tokens is refused, saying how many it has
// and how many the model takes, rather than cut.
void TestPhraseData::tooLong()
{
    const QString out = m_dir.filePath(QStringLiteral("long.npy"));
    QStringList words;
    for (int i = 0; i < 300; ++i)
        words << QStringLiteral("cat");
    const pe::test::RunResult r = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"), modelFolder("gpt2-tiny"),
         QStringLiteral("--phrase"), words.join(QLatin1Char(' ')), QStringLiteral("--out"), out});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("the phrase has ") && r.err.contains("at most 256"), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

// A folder that cannot be written: exit 1 naming it, nothing left.
void TestPhraseData::unwritableOutput()
{
    const QString out = m_dir.filePath(QStringLiteral("missing/folder/x.npy"));
    const pe::test::RunResult r = runPescope(
        {QStringLiteral("data"), QStringLiteral("--model"), modelFolder("llama-tiny"),
         QStringLiteral("--phrase"), QStringLiteral("a cat"), QStringLiteral("--out"), out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(lastLine(r.err).contains(QLatin1String("missing/folder")), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

QString
TestPhraseData::editedLlama(const QString &name, const std::function<void(QJsonObject &)> &config,
                            const std::function<void(QByteArray &, const QJsonObject &)> &weights)
{
    const QString from = modelFolder("llama-tiny");
    const QString to = m_dir.filePath(name);
    QDir().mkpath(to);
    for (const char *file : {"tokenizer.json", "tokenizer_config.json"})
        QFile::copy(from + QLatin1Char('/') + QLatin1String(file),
                    to + QLatin1Char('/') + QLatin1String(file));
    QFile in(from + QStringLiteral("/config.json"));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QJsonObject c = QJsonDocument::fromJson(in.readAll()).object();
    if (config)
        config(c);
    QFile out(to + QStringLiteral("/config.json"));
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QJsonDocument(c).toJson());
    out.close();
    QFile tensors(from + QStringLiteral("/model.safetensors"));
    if (!tensors.open(QIODevice::ReadOnly))
        return {};
    QByteArray bytes = tensors.readAll();
    // safetensors: an 8-byte little-endian header length, the JSON header, then the data.
    const auto headerLength = qFromLittleEndian<quint64>(bytes.constData());
    const QJsonObject header =
        QJsonDocument::fromJson(bytes.mid(8, qsizetype(headerLength))).object();
    if (weights)
        weights(bytes, header);
    QFile written(to + QStringLiteral("/model.safetensors"));
    if (!written.open(QIODevice::WriteOnly))
        return {};
    written.write(bytes);
    return to;
}

// Issue 45: NaN weights gave an all-NaN attention with exit 0 and no word. The array is written
// as the weights give it, and stderr names the tensor.
void TestPhraseData::nonFiniteWeightsAreSaid()
{
    const QString q = QStringLiteral("model.layers.0.self_attn.q_proj.weight");
    const QString folder =
        editedLlama(QStringLiteral("nan-q"), {}, [&](QByteArray &bytes, const QJsonObject &header) {
            const auto headerLength = qFromLittleEndian<quint64>(bytes.constData());
            const QJsonArray offsets =
                header.value(q).toObject().value(QStringLiteral("data_offsets")).toArray();
            const qsizetype at = 8 + qsizetype(headerLength) + qsizetype(offsets[0].toInteger());
            const float nan = std::numeric_limits<float>::quiet_NaN();
            std::memcpy(bytes.data() + at, &nan, sizeof nan);
        });
    QVERIFY(!folder.isEmpty());
    const QString out = m_dir.filePath(QStringLiteral("nan.npy"));
    const pe::test::RunResult r =
        runPescope({QStringLiteral("data"), QStringLiteral("--model"), folder,
                    QStringLiteral("--phrase"), QStringLiteral("a cat"), QStringLiteral("--what"),
                    QStringLiteral("attention"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString warning = QStringLiteral("pescope data: warning: the attention holds NaN or "
                                           "infinite values: %1 holds 1 NaN or infinite values "
                                           "of 4096")
                                .arg(q);
    QVERIFY2(QString::fromUtf8(r.err).contains(warning), r.err.constData());
    const Array attention = readNpy(out);
    QVERIFY(std::any_of(attention.values.begin(), attention.values.end(),
                        [](float v) { return std::isnan(v); }));
}

QTEST_GUILESS_MAIN(TestPhraseData)
#include "tst_phrasedata.moc"
