// Every scheme of core/schemes/schemelist.h, through what every descriptor promises: names,
// a field table whose defaults are valid and read back, a plan the backends compute, values
// within the stated range, sessions and the command line. A new scheme is checked here by
// being in the list; its own numbers get a test function below.
#include "modelfilewriter.h"
#include "testutil.h"

#include "backends/cpubackend.h"
#include "backends/cpusampler.h"
#include "formats/npyfile.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace pe;

namespace {

// A 64 x 16 table in a .npy file, for schemes that read their values from a file.
QString tableFile()
{
    static QTemporaryDir dir;
    const QString path = dir.filePath(u"table.npy"_qs);
    if (!QFileInfo::exists(path)) {
        std::vector<float> values;
        for (int p = 0; p < 64; ++p)
            for (int j = 0; j < 16; ++j)
                values.push_back(float(std::sin(0.1 * p + j)));
        test::writeBytes(path, test::npyBytes("<f4", {64, 16}, test::f32Bytes(values)));
    }
    return path;
}

// The spec of scheme `s` at its defaults over a small matrix; a scheme that reads a file
// (resolve()) reads tableFile(), and its shape is then the table's (16 columns).
template <class S> EncodingSpec smallSpec(S s, qint64 positions = 24, qint64 dims = 16)
{
    EncodingSpec spec;
    if constexpr (requires { s.source; })
        s.source = tableFile();
    spec.scheme = s;
    spec.positions = positions;
    spec.dims = dims;
    QString error;
    if (!spec.resolve(&error))
        qFatal("%s", qPrintable(error));
    return spec.normalized();
}

std::vector<float> encodeAll(const EncodingSpec &spec)
{
    std::vector<float> out(std::size_t(spec.positions * spec.dims));
    CpuBackend cpu(1);
    QString error;
    if (!cpu.encode(spec, 0, spec.positions, out.data(), &error))
        qFatal("%s", qPrintable(error));
    return out;
}

// Writes `args` with `pescope data` into `file`; the array read back.
bool dataRun(const QStringList &args, const QString &file, std::vector<float> *values,
             TensorInfo *info)
{
    const test::RunResult run =
        test::runPescope(QStringList{u"data"_qs} + args + QStringList{u"--out"_qs, file});
    if (run.exitCode != 0) {
        qWarning("%s", run.err.constData());
        return false;
    }
    NpyFile npy;
    QString error;
    if (!npy.open(file, &error) || !npy.read(values, &error)) {
        qWarning("%s", qPrintable(error));
        return false;
    }
    *info = npy.tensor();
    return true;
}

} // namespace

class TestSchemes : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    // Seed 001 called the learned scheme "random", and early sessions saved that name: it is
    // still read (the descriptor's alias), and written as "learned".
    void theLearnedSchemesOldNameIsRead()
    {
        EncodingSpec spec;
        QVERIFY(!spec.readJson(QJsonObject{{QStringLiteral("scheme"), QStringLiteral("random")}}));
        QVERIFY(spec.get<LearnedScheme>());
        QCOMPARE(spec.toJson().value(QStringLiteral("scheme")).toString(),
                 QStringLiteral("learned"));
        QVERIFY(spec.readJson(QJsonObject{{QStringLiteral("scheme"), QStringLiteral("randomly")}}));
    }

    void namesAreUniqueAndComplete()
    {
        QSet<QString> ids;
        forEachScheme([&](const auto &s) {
            const SchemeInfo &info = s.info;
            QVERIFY(!QString::fromUtf8(info.id).isEmpty());
            QVERIFY(!QString::fromUtf8(info.label).isEmpty());
            QVERIFY(!QString::fromUtf8(info.description).isEmpty());
            QVERIFY2(!ids.contains(QString::fromUtf8(info.id)), info.id);
            ids.insert(QString::fromUtf8(info.id));
        });
        QCOMPARE(qsizetype(schemeCount), ids.size());
        QCOMPARE(qsizetype(std::size(schemeNames)), ids.size());
        for (const ChoiceName &n : schemeNames)
            QCOMPARE(schemeId(defaultScheme(std::size_t(n.value))), QString::fromUtf8(n.name));
    }

    // Every descriptor carries its help (the description) and its formula with its parameters;
    // a cell's formula ends in the value computed there (the heatmap's hover readout).
    void everySchemeHasAFormulaAndHelp()
    {
        forEachScheme([&](const auto &s) {
            const EncodingSpec spec = smallSpec(s);
            const QString id = spec.schemeId();
            QVERIFY2(QString::fromUtf8(spec.info().description).size() > 10, qPrintable(id));
            const QString formula = spec.formula();
            QVERIFY2(formula.size() > 10, qPrintable(id));
            QCOMPARE(formula, std::visit([&](const auto &x) { return x.formula(spec.shape()); },
                                         spec.scheme));
            const std::vector<float> values = encodeAll(spec);
            for (auto [p, j] : {std::pair{0, 0}, std::pair{5, 3}, std::pair{23, 15}}) {
                const float v = values[std::size_t(p * spec.dims + j)];
                const QString cell = spec.cellFormula(p, j, v);
                QVERIFY2(!cell.isEmpty(), qPrintable(id));
                if (!std::isinf(v))
                    QVERIFY2(cell.contains(QString::number(v, 'g', 6)), qPrintable(cell));
            }
        });
        // The numbers are the parameters': the sinusoid's base and d, RoPE's θ, ALiBi's slope.
        EncodingSpec sinusoid = smallSpec(SinusoidalScheme{.base = 500.0}, 24, 16);
        QVERIFY2(sinusoid.formula().contains(u"500<sup>2<i>i</i>/16</sup>"_qs),
                 qPrintable(sinusoid.formula()));
        // Column 3 of d = 16: cos(p / 500^(2/16)), omega = 500^(-1/8).
        const QString cell = sinusoid.cellFormula(5, 3, 0.5);
        QVERIFY2(cell.startsWith(u"PE(5, 3) = cos(5 / 500^(2/16)) = cos(5 × "_qs),
                 qPrintable(cell));
        QVERIFY2(cell.contains(QString::number(std::pow(500.0, -1.0 / 8.0), 'g', 6)),
                 qPrintable(cell));
        AlibiScheme alibi;
        alibi.heads = 8;
        alibi.head = 2; // slope 2^(-8 x 3 / 8) = 1/8
        QVERIFY2(alibi.formula({}).contains(u"= 0.125"_qs), qPrintable(alibi.formula({})));
        QVERIFY2(alibi.cellFormula(4, 1, -0.375, {}).endsWith(u"−0.125 × 3 = -0.375"_qs),
                 qPrintable(alibi.cellFormula(4, 1, -0.375, {})));
        // A scheme with nothing to draw on the Model page says why, from its descriptor.
        QVERIFY(NopeScheme::info.modelNotice);
        QVERIFY(!SinusoidalScheme::info.modelNotice);
    }

    // Every field's default reads back through its text and its JSON; the defaults are valid.
    void defaultsAreValidAndReadBack()
    {
        forEachScheme([&](const auto &s) {
            using S = std::decay_t<decltype(s)>;
            const EncodingSpec spec = smallSpec(s);
            QVERIFY2(spec.validate().isEmpty(), qPrintable(spec.schemeId() + spec.validate()));
            for (const Field<S> &f : S::fields()) {
                S copy;
                QVERIFY2(setFieldText(f, copy, fieldText(f, s)).isEmpty(), f.key);
                QVERIFY2(copy == s, f.key);
                QVERIFY2(setFieldJson(f, copy, fieldJson(f, s)).isEmpty(), f.key);
                QVERIFY2(copy == s, f.key);
                QVERIFY2(!QString::fromUtf8(f.help).isEmpty(), f.key);
                QVERIFY2(!QString::fromUtf8(f.label).isEmpty(), f.key);
            }
            EncodingSpec back;
            const FieldProblem problem = back.readJson(spec.toJson());
            QVERIFY2(!problem, qPrintable(problem.message));
            QString error;
            QVERIFY2(back.resolve(&error), qPrintable(error)); // a table is read again
            QVERIFY(back == spec);
        });
    }

    // The plan covers the matrix, the CPU computes it, and every value lies in the range the
    // descriptor states before computing (colour scales rely on it).
    void plansComputeWithinTheStatedRange()
    {
        forEachScheme([&](const auto &s) {
            const EncodingSpec spec = smallSpec(s);
            const qint64 columns = planColumns(spec.plan());
            QVERIFY(columns == spec.dims || columns == -1);
            const ValueRange range = spec.valueRange();
            QVERIFY(range.minimum <= range.maximum);
            for (float v : encodeAll(spec))
                QVERIFY2(v == -std::numeric_limits<float>::infinity() ||
                             (v >= range.minimum - 1e-6 && v <= range.maximum + 1e-6),
                         qPrintable(spec.schemeId() + QStringLiteral(": %1").arg(v)));
            QVERIFY(!spec.caption().isEmpty());
            QVERIFY(!spec.legend().isEmpty());
            QVERIFY(!spec.column(0).label.isEmpty());
            QVERIFY(!spec.outputs().empty());
            QCOMPARE(spec.outputs().front().name, u"matrix"_qs);
        });
    }

    // A 1 x 1 sample inside one cell is that cell, whatever the scheme computes with.
    void samplingAgreesWithEncoding()
    {
        forEachScheme([&](const auto &s) {
            const EncodingSpec spec = smallSpec(s, 20, 12);
            const std::vector<float> all = encodeAll(spec);
            for (auto [p, j] : {std::pair{0, 0}, std::pair{7, 3}, std::pair{19, 11}}) {
                float v = 0;
                QString error;
                QVERIFY2(sampleOnCpu(spec, {p + 0.25, j + 0.25, 0.5, 0.5}, 1, 1, &v, &error, 1),
                         qPrintable(error));
                const float expected = all[std::size_t(p * spec.dims + j)];
                if (std::isinf(expected))
                    QCOMPARE(v, expected);
                else
                    PE_COMPARE_NEAR(v, expected, 1e-6);
            }
        });
    }

    // `pescope data --help` lists every scheme and every option of every scheme's table.
    void helpListsEverySchemeAndOption()
    {
        const test::RunResult run = test::runPescope({u"data"_qs, u"--help"_qs});
        QCOMPARE(run.exitCode, 0);
        const QString help = QString::fromUtf8(run.out).simplified(); // lines are wrapped
        QVERIFY2(help.contains(choiceList(schemeNames), Qt::CaseInsensitive), qPrintable(help));
        forEachScheme([&](const auto &s) {
            using S = std::decay_t<decltype(s)>;
            for (const Field<S> &f : S::fields())
                if (f.flag)
                    QVERIFY2(help.contains(QStringLiteral("--") + QString::fromUtf8(f.flag)),
                             f.flag);
        });
    }

    // Each scheme's default array, written by `pescope data` with nothing but its name.
    void dataWritesEveryScheme()
    {
        forEachScheme([&](const auto &s) {
            const EncodingSpec spec = smallSpec(s, 6, 4);
            const QString file = m_dir.filePath(spec.schemeId() + QStringLiteral(".npy"));
            QStringList args = {u"--scheme"_qs, spec.schemeId(), u"--positions"_qs, u"6"_qs};
            if constexpr (requires { s.source; }) // a table from a file: its columns
                args << u"--model"_qs << tableFile();
            else if (spec.info().usesDims)
                args << u"--dims"_qs << u"4"_qs;
            std::vector<float> values;
            TensorInfo info;
            const DataOutput output = spec.outputs().front();
            if (output.type != ElementType::Float32) // int32 arrays: shape only
                return;
            QVERIFY2(dataRun(args, file, &values, &info), qPrintable(spec.schemeId()));
            QCOMPARE(info.shape, output.shape);
            if (!output.rows) // the matrix itself
                QCOMPARE(values, encodeAll(spec));
        });
    }

    void unknownAndForeignOptionsAreRefused()
    {
        const test::RunResult unknown =
            test::runPescope({u"data"_qs, u"--scheme"_qs, u"wavelet"_qs, u"--positions"_qs, u"4"_qs,
                              u"--dims"_qs, u"4"_qs, u"--out"_qs, m_dir.filePath(u"x.npy"_qs)});
        QCOMPARE(unknown.exitCode, 2);
        const QString expected = QStringLiteral("--scheme must be ") + choiceList(schemeNames);
        QVERIFY2(QString::fromUtf8(unknown.err).contains(expected), unknown.err.constData());
        // An option of another scheme would be ignored: it is refused instead.
        const test::RunResult foreign = test::runPescope(
            {u"data"_qs, u"--scheme"_qs, u"learned"_qs, u"--base"_qs, u"100"_qs, u"--positions"_qs,
             u"4"_qs, u"--dims"_qs, u"4"_qs, u"--out"_qs, m_dir.filePath(u"x.npy"_qs)});
        QCOMPARE(foreign.exitCode, 2);
        QVERIFY2(foreign.err.contains("--base does not apply to --scheme learned"),
                 foreign.err.constData());
    }

    // NoPE: no positional information, zeros everywhere, on every path.
    void nopeIsAllZeros()
    {
        const EncodingSpec spec = smallSpec(NopeScheme{}, 8, 4);
        for (float v : encodeAll(spec))
            QCOMPARE(v, 0.0f);
        float pixels[6] = {1, 1, 1, 1, 1, 1};
        QString error;
        QVERIFY(sampleOnCpu(spec, MatrixWindow::whole(spec), 2, 3, pixels, &error, 1));
        for (float v : pixels)
            QCOMPARE(v, 0.0f);
        std::vector<float> values;
        TensorInfo info;
        QVERIFY(
            dataRun({u"--scheme"_qs, u"nope"_qs, u"--positions"_qs, u"8"_qs, u"--dims"_qs, u"4"_qs},
                    m_dir.filePath(u"z.npy"_qs), &values, &info));
        QCOMPARE(info.shape, (std::vector<qint64>{8, 4}));
        QCOMPARE(values, std::vector<float>(32, 0.0f));
    }
};

QTEST_GUILESS_MAIN(TestSchemes)
#include "tst_schemes.moc"
