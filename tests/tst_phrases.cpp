// Phrase embeddings (word + position) in fixed and random modes, as seed 001 builds them.
#include "testutil.h"

#include "backends/cpubackend.h"
#include "text/phrases.h"

using namespace pe;

class TestPhrases : public QObject
{
    Q_OBJECT

    static PhraseEmbedding embed(const PhraseSpec &spec)
    {
        CpuBackend backend;
        PhraseEmbedding result;
        QString error;
        if (!embedPhrases(backend, spec, &result, &error))
            qFatal("embedPhrases failed: %s", qPrintable(error));
        return result;
    }

    static PhraseSpec seed001Small(EmbeddingMode mode)
    {
        PhraseSpec spec;
        spec.phrases = {u"I am a robot"_qs, u"you too robot"_qs};
        spec.maxTokens = 10;
        spec.sequenceLength = 5;
        spec.dims = 6;
        spec.mode = mode;
        return spec;
    }

private slots:
    // The tensor seed 001 prints for PositionEmbeddingFixedWeights(5, 10, 6).
    void seed001FixedWeightsOutput()
    {
        const double printed[2][5][6] = {
            {{-0.9589243, 1.2836622, 0.23000172, 1.9731903, 0.01077196, 1.9999421},
             {0.56205547, 1.5004725, 0.3213085, 1.9603932, 0.01508068, 1.9999142},
             {1.566284, 0.3377554, 0.41192317, 1.9433732, 0.01938933, 1.999877},
             {1.0504174, -1.4061394, 0.2314966, 1.9860148, 0.01077211, 1.9999698},
             {-0.7568025, 0.3463564, 0.18459873, 1.982814, 0.00861763, 1.9999628}},
            {{0.14112, 0.0100075, 0.1387981, 1.9903207, 0.00646326, 1.9999791},
             {0.08466846, -0.11334133, 0.23099795, 1.9817369, 0.01077207, 1.9999605},
             {1.8185948, -0.8322937, 0.185397, 1.9913884, 0.00861771, 1.9999814},
             {0.14112, 0.0100075, 0.1387981, 1.9903207, 0.00646326, 1.9999791},
             {-0.7568025, 0.3463564, 0.18459873, 1.982814, 0.00861763, 1.9999628}}};
        const PhraseEmbedding result = embed(seed001Small(EmbeddingMode::Fixed));
        QCOMPARE(result.values.size(), std::size_t(2 * 5 * 6));
        for (int b = 0; b < 2; ++b)
            for (int p = 0; p < 5; ++p)
                for (int j = 0; j < 6; ++j)
                    PE_COMPARE_NEAR(result.values[std::size_t((b * 5 + p) * 6 + j)],
                                    printed[b][p][j], 1e-6);
        QCOMPARE(result.ids, (std::vector<std::vector<qint64>>{{5, 6, 7, 2, 0}, {3, 4, 2, 0, 0}}));
    }

    // Random mode: word and position tables each uniform in [-0.05, 0.05), so sums in (-0.1, 0.1);
    // the same id at the same position gives the same vector (padding is embedded like any id).
    void randomMode()
    {
        const PhraseEmbedding a = embed(seed001Small(EmbeddingMode::Random));
        for (float v : a.values)
            QVERIFY(v >= -0.1f && v < 0.1f);
        // Both phrases end with padding (id 0) at position 4.
        for (int j = 0; j < 6; ++j)
            QCOMPARE(a.values[std::size_t((0 * 5 + 4) * 6 + j)],
                     a.values[std::size_t((1 * 5 + 4) * 6 + j)]);
        // "robot" (id 2) at positions 3 and 2 differ only through the position table.
        QVERIFY(a.values[std::size_t(3 * 6)] != a.values[std::size_t((5 + 2) * 6)]);
        QCOMPARE(embed(seed001Small(EmbeddingMode::Random)).values, a.values);
        PhraseSpec reseeded = seed001Small(EmbeddingMode::Random);
        reseeded.seed = 1;
        QVERIFY(embed(reseeded).values != a.values);
    }

    // Seed 001's larger figure: 2 phrases x 20 tokens x 50 dims, fixed mode values in [-2, 2].
    void seed001FigureShape()
    {
        PhraseSpec spec;
        spec.phrases = {u"to understand machine learning algorithms you need to understand "
                        u"concepts such as gradient of a function Hessians of a matrix and "
                        u"optimization etc"_qs,
                        u"patrick henry said give me liberty or give me death when he addressed "
                        u"the second virginia convention in march"_qs};
        const PhraseEmbedding result = embed(spec);
        QCOMPARE(result.values.size(), std::size_t(2 * 20 * 50));
        QCOMPARE(result.vocabulary.size(), 2 + 36); // all 36 distinct words fit in 200 tokens
        // The words of each phrase, counted by hand: the first has 23, so Keras keeps its first
        // 20 (the window notes the cut); the second's 19 are padded to 20.
        QCOMPARE(result.tokenCounts, (std::vector<qint64>{23, 19}));
        for (float v : result.values)
            QVERIFY(std::abs(v) <= 2.0f);
        // First word of phrase 1 is "to" (count 2): its row = PE_200(id) + PE_20(0).
        const qint64 id = result.ids[0][0];
        QCOMPARE(result.vocabulary.at(int(id)), u"to"_qs);
        for (int j = 0; j < 50; ++j)
            PE_COMPARE_NEAR(result.values[std::size_t(j)],
                            test::referenceInterleaved(id, j, 50, 1e4) +
                                test::referenceInterleaved(0, j, 50, 1e4),
                            2e-6);
    }

    void invalidSpecs_data()
    {
        QTest::addColumn<QStringList>("phrases");
        QTest::addColumn<qint64>("sequenceLength");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<QString>("expected");
        QTest::addRow("no phrases")
            << QStringList() << qint64(5) << qint64(6) << u"at least one"_qs;
        QTest::addRow("empty phrase") << QStringList{u"a b"_qs, u"  "_qs} << qint64(5) << qint64(6)
                                      << u"phrase 2 is empty"_qs;
        QTest::addRow("punctuation only") << QStringList{u"?!..."_qs} << qint64(5) << qint64(6)
                                          << u"phrase 1 (\"?!...\") has no words"_qs;
        QTest::addRow("zero length")
            << QStringList{u"a"_qs} << qint64(0) << qint64(6) << u"sequenceLength"_qs;
        QTest::addRow("zero dims") << QStringList{u"a"_qs} << qint64(5) << qint64(0) << u"dims"_qs;
        QTest::addRow("too big for memory")
            << QStringList{u"a"_qs} << qint64(1) << (qint64(1) << 24) << u"dims"_qs;
        QTest::addRow("over the memory budget")
            << QStringList{u"a"_qs, u"b"_qs} << (qint64(1) << 24) << qint64(65536) << u"need"_qs;
    }
    void invalidSpecs()
    {
        QFETCH(QStringList, phrases);
        QFETCH(qint64, sequenceLength);
        QFETCH(qint64, dims);
        QFETCH(QString, expected);
        PhraseSpec spec;
        spec.phrases = phrases;
        spec.sequenceLength = sequenceLength;
        spec.dims = dims;
        const QString message = spec.validate();
        QVERIFY2(message.contains(expected), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestPhrases)
#include "tst_phrases.moc"
