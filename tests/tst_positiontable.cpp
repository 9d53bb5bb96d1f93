// Learned position tables read from model files (issue 10): loadPositionTable (which tensor,
// which offset, what is refused), the analyses of a table (cosine similarity, PCA, the
// best-fitting sinusoid per dimension) against tables built here with known answers, and
// `pescope data --model` writing them.
#include "analysis/positionanalysis.h"
#include "encodingspec.h"
#include "model/positiontable.h"
#include "modelfilewriter.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <numbers>

using namespace pe;

namespace {

constexpr double pi = std::numbers::pi;

// n x 4 table X = s1 u1 v1' + s2 u2 v2' + s3 u3 v3' + mean, with orthonormal v and zero-mean,
// mutually orthogonal u over whole periods: its principal axes are the v, its scores s_k u_k,
// its explained variances s_k^2 / sum s^2.
struct KnownPca
{
    static constexpr int n = 64;
    static constexpr double s[3] = {3.0, 2.0, 1.0};
    static double u(int k, int p)
    {
        const double t = 2 * pi * p / n;
        const double scale = std::sqrt(2.0 / n); // unit length over n points
        return scale * (k == 0 ? std::cos(t) : k == 1 ? std::sin(t) : std::cos(2 * t));
    }
    static double v(int k, int j)
    {
        static const double r = 1 / std::sqrt(2.0);
        static const double axes[3][4] = {{r, r, 0, 0}, {r, -r, 0, 0}, {0, 0, 1, 0}};
        return axes[k][j];
    }
    static std::vector<float> table()
    {
        std::vector<float> out;
        for (int p = 0; p < n; ++p)
            for (int j = 0; j < 4; ++j) {
                double x = 0.25 * j; // a constant mean per column, removed by centring
                for (int k = 0; k < 3; ++k)
                    x += s[k] * u(k, p) * v(k, j);
                out.push_back(float(x));
            }
        return out;
    }
};

} // namespace

class TestPositionTable : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString &name) const { return m_dir.filePath(name); }

    // A model folder: config.json and model.safetensors with `tensor` (rows x cols F32).
    QString modelFolder(const QString &name, const QByteArray &config, const QString &tensor,
                        qint64 rows, qint64 cols, const std::vector<float> &values) const
    {
        const QString folder = path(name);
        QDir().mkpath(folder);
        test::writeBytes(folder + u"/config.json"_qs, config);
        test::writeBytes(
            folder + u"/model.safetensors"_qs,
            test::safetensorsBytes({{tensor, u"F32"_qs, {rows, cols}, test::f32Bytes(values)}}));
        return folder;
    }

private slots:
    void cosineRowsMatchTheDefinition()
    {
        const std::vector<float> t = KnownPca::table();
        const qint64 n = KnownPca::n;
        std::vector<float> rows(std::size_t(3 * n));
        positionCosineRows(t.data(), n, 4, 10, 3, rows.data());
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < n; ++q) {
                double dot = 0, a = 0, b = 0;
                for (int j = 0; j < 4; ++j) {
                    const double x = t[std::size_t((10 + r) * 4 + j)],
                                 y = t[std::size_t(q * 4 + j)];
                    dot += x * y;
                    a += x * x;
                    b += y * y;
                }
                PE_COMPARE_CLOSER_THAN(rows[std::size_t(r * n + q)], dot / std::sqrt(a * b), 1e-6);
            }
        // A zero row is similar to nothing.
        const std::vector<float> zeros(8, 0.0f);
        std::vector<float> out(4);
        positionCosineRows(zeros.data(), 2, 4, 0, 2, out.data());
        QCOMPARE(out, std::vector<float>(4, 0.0f));
    }

    void pcaRecoversKnownAxes()
    {
        const std::vector<float> t = KnownPca::table();
        const PositionPca pca = positionPca(t.data(), KnownPca::n, 4, 3);
        QCOMPARE(pca.components, 3);
        const double total = 9 + 4 + 1;
        for (int k = 0; k < 3; ++k) {
            PE_COMPARE_CLOSER_THAN(pca.explainedVariance[std::size_t(k)],
                                   KnownPca::s[k] * KnownPca::s[k] / total, 1e-6);
            // Up to sign (the code fixes it; the test accepts either and checks consistency).
            double dot = 0;
            for (int j = 0; j < 4; ++j)
                dot += pca.axes[std::size_t(k * 4 + j)] * KnownPca::v(k, j);
            PE_COMPARE_CLOSER_THAN(std::abs(dot), 1, 1e-6);
            const double sign = dot > 0 ? 1 : -1;
            for (int p = 0; p < KnownPca::n; ++p)
                PE_COMPARE_CLOSER_THAN(pca.scores[std::size_t(p * 3 + k)],
                                       sign * KnownPca::s[k] * KnownPca::u(k, p), 1e-5);
        }
    }

    void sinusoidFitRecoversFrequencyAndPhase_data()
    {
        QTest::addColumn<double>("omega");
        QTest::addColumn<double>("phase");
        QTest::addRow("slow") << 0.05 << 1.0;
        QTest::addRow("medium") << 0.3 << 0.5;
        QTest::addRow("fast") << 2.5 << -2.0;
    }
    void sinusoidFitRecoversFrequencyAndPhase()
    {
        QFETCH(double, omega);
        QFETCH(double, phase);
        const int n = 300;
        std::vector<float> column;
        for (int p = 0; p < n; ++p)
            column.push_back(float(0.7 * std::sin(omega * p + phase) + 0.1));
        const SinusoidFit fit = fitSinusoid(column.data(), n, 1);
        PE_COMPARE_CLOSER_THAN(fit.angularFrequency, omega, 1e-5);
        PE_COMPARE_CLOSER_THAN(std::remainder(fit.phase - phase, 2 * pi), 0, 1e-3);
        PE_COMPARE_CLOSER_THAN(fit.amplitude, 0.7, 1e-4);
        PE_COMPARE_CLOSER_THAN(fit.offset, 0.1, 1e-4);
        QVERIFY(fit.rSquared > 0.999999);
        // Noise is no sinusoid: a poor fit.
        std::vector<float> noise;
        quint32 state = 12345;
        for (int p = 0; p < n; ++p) {
            state = state * 1664525u + 1013904223u;
            noise.push_back(float(state >> 8) / float(1 << 24) - 0.5f);
        }
        QVERIFY(fitSinusoid(noise.data(), n, 1).rSquared < 0.2);
    }

    void robertaOffsetFromConfig()
    {
        // RoBERTa: padding_idx (pad_token_id) 1, positions start at row padding_idx + 1 = 2.
        std::vector<float> values;
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 2; ++c)
                values.push_back(float(10 * r + c));
        const QString folder =
            modelFolder(u"roberta"_qs,
                        R"({"model_type": "roberta", "hidden_size": 2, "num_attention_heads": 1,
                "num_hidden_layers": 1, "max_position_embeddings": 6, "pad_token_id": 1})",
                        u"roberta.embeddings.position_embeddings.weight"_qs, 6, 2, values);
        QString error;
        const auto table = loadPositionTable(folder, {}, -1, &error);
        QVERIFY2(table, qPrintable(error));
        QCOMPARE(table->tensor, u"roberta.embeddings.position_embeddings.weight"_qs);
        QCOMPARE(table->offset, qint64(2));
        QCOMPARE(table->positions(), qint64(4));
        QCOMPARE(table->row(0)[0], 20.0f);
        QCOMPARE(table->row(3)[1], 51.0f);
        QCOMPARE(table->minimum, 0.0f);
        QCOMPARE(table->maximum, 51.0f);
        // A spec whose parameters no longer name the loaded table is refused, not drawn.
        EncodingSpec spec;
        spec.scheme = TableScheme{folder, {}, -1, table};
        spec.positions = 4;
        spec = spec.normalized();
        QVERIFY2(spec.validate().isEmpty(), qPrintable(spec.validate()));
        std::get<TableScheme>(spec.scheme).source = path(u"other"_qs);
        QVERIFY(spec.validate().contains(u"is not loaded"_qs));
        // An explicit offset wins.
        const auto zero = loadPositionTable(folder, {}, 0, &error);
        QVERIFY(zero);
        QCOMPARE(zero->row(0)[0], 0.0f);
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<qint64>("offset");
        QTest::addColumn<QString>("message");
        QTest::addRow("absent tensor") << u"nope.weight"_qs << qint64(-1) << u"nope.weight"_qs;
        QTest::addRow("1-D tensor") << u"bias"_qs << qint64(-1) << u"has 1 dimensions"_qs;
        QTest::addRow("offset past the end")
            << u"wpe.weight"_qs << qint64(8) << u"leaves no position"_qs;
    }
    void refusals()
    {
        QFETCH(QString, tensor);
        QFETCH(qint64, offset);
        QFETCH(QString, message);
        const QString file = path(u"two.safetensors"_qs);
        test::writeBytes(file, test::safetensorsBytes(
                                   {{u"wpe.weight"_qs,
                                     u"F32"_qs,
                                     {8, 2},
                                     test::f32Bytes(std::vector<float>(16, 1.0f))},
                                    {u"bias"_qs, u"F32"_qs, {2}, test::f32Bytes({1.0f, 2.0f})}}));
        QString error;
        QVERIFY(!loadPositionTable(file, tensor, offset, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void dataModelCommand()
    {
        // A GPT-2-like table: row p = (cos(0.2 p), sin(0.2 p), 0.5): a circle, two sinusoids.
        const int n = 40;
        std::vector<float> values;
        for (int p = 0; p < n; ++p)
            values.insert(values.end(), {float(std::cos(0.2 * p)), float(std::sin(0.2 * p)), 0.5f});
        const QString folder =
            modelFolder(u"gpt2"_qs,
                        R"({"model_type": "gpt2", "n_embd": 3, "n_head": 1, "n_layer": 2,
                            "n_positions": 40})",
                        u"wpe.weight"_qs, n, 3, values);
        const QString stored = path(u"positions.npy"_qs);
        test::RunResult run = test::runPescope({u"data"_qs, u"--model"_qs, folder, u"--what"_qs,
                                                u"positions"_qs, u"--out"_qs, stored});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile file(stored);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().endsWith(test::f32Bytes(values))); // bit-exact, as stored

        // Similarity of positions 0..9 (--positions): cos of the angle between them,
        // (cos(0.2 (p - q)) + 0.25) / 1.25 for these rows.
        const QString similarity = path(u"similarity.csv"_qs);
        run = test::runPescope({u"data"_qs, u"--model"_qs, folder, u"--what"_qs, u"similarity"_qs,
                                u"--positions"_qs, u"10"_qs, u"--out"_qs, similarity});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile csv(similarity);
        QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 10);
        for (int p = 0; p < 10; ++p) {
            const QList<QByteArray> cells = lines[p].split(',');
            QCOMPARE(cells.size(), 10);
            for (int q = 0; q < 10; ++q)
                PE_COMPARE_CLOSER_THAN(cells[q].toDouble(), (std::cos(0.2 * (p - q)) + 0.25) / 1.25,
                                       1e-6);
        }

        // The sinusoid fit finds 0.2 rad/position in dims 0 and 1.
        const QString fit = path(u"fit.npy"_qs);
        run = test::runPescope({u"data"_qs, u"--model"_qs, folder, u"--what"_qs, u"sinusoid-fit"_qs,
                                u"--out"_qs, fit});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile fitFile(fit);
        QVERIFY(fitFile.open(QIODevice::ReadOnly));
        const QByteArray bytes = fitFile.readAll();
        const auto at = [&](int i) {
            double v;
            std::memcpy(&v, bytes.constData() + bytes.size() - 9 * 8 + i * 8, 8);
            return v;
        };
        PE_COMPARE_CLOSER_THAN(at(0), 0.2, 1e-5); // dim 0: omega, R^2
        QVERIFY(at(2) > 0.99999);
        PE_COMPARE_CLOSER_THAN(at(3), 0.2, 1e-5); // dim 1
        QVERIFY(at(5) > 0.99999);

        // A rotary model's config with --tensor reads that tensor; --layer is refused here.
        run = test::runPescope({u"data"_qs, u"--model"_qs, folder, u"--layer"_qs, u"1"_qs,
                                u"--what"_qs, u"positions"_qs, u"--out"_qs, stored});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--layer does not apply"), run.err.constData());
        run = test::runPescope({u"data"_qs, u"--model"_qs, folder, u"--positions"_qs, u"41"_qs,
                                u"--out"_qs, path(u"m.npy"_qs)});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("at most the table's 40 positions"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestPositionTable)
#include "tst_positiontable.moc"
