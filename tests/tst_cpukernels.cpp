// The CPU kernels (core/kernels): every instruction set this machine runs gives the same bits as
// the SSE2 set, kernel by kernel and through the real call sites (CpuBackend::encode,
// sampleOnCpu, encodePng); the SSE2 set, the one for CPUs without AVX, is also checked against
// float64 and a PNG decoder; PE_CPU_KERNELS picks the set; and the portable build keeps every
// AVX instruction inside the kernels, so the program starts on a CPU without AVX.
#include "backends/cpubackend.h"
#include "backends/cpusampler.h"
#include "backends/phasekernels.h"
#include "buildinfo.h"
#include "kernels/cpukernels.h"
#include "media/pngencoder.h"
#include "testutil.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cstring>
#include <vector>

using namespace pe;
using kernels::CpuIsa;
using kernels::CpuKernels;

namespace {

// The index of the first byte where a and b differ, or -1.
template <typename T> qint64 firstDifference(const std::vector<T> &a, const std::vector<T> &b)
{
    if (a.size() != b.size())
        return 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0)
            return qint64(i);
    return -1;
}

#define PE_COMPARE_BITS(actual, expected, what)                                                    \
    do {                                                                                           \
        const qint64 pe_at = firstDifference(actual, expected);                                    \
        if (pe_at >= 0)                                                                            \
            QFAIL(                                                                                 \
                qPrintable(QStringLiteral("%1: the %2 set differs from sse2 at element %3")        \
                               .arg(QLatin1String(what), QLatin1String(kernels::cpuIsaName(isa)))  \
                               .arg(pe_at)));                                                      \
    } while (false)

std::vector<std::uint64_t> randomWords(std::size_t n, quint32 seed)
{
    QRandomGenerator random(seed);
    std::vector<std::uint64_t> words(n);
    for (auto &w : words)
        w = random.generate64();
    return words;
}

std::vector<float> randomFloats(std::size_t n, quint32 seed)
{
    QRandomGenerator random(seed);
    std::vector<float> values(n);
    for (auto &v : values)
        v = float(random.generateDouble() * 2.0 - 1.0);
    return values;
}

// libpng's heuristic written out plainly: the filter (0 none, 1 sub, 2 up) whose bytes, read as
// signed, have the smallest sum of absolute values; ties prefer none, then sub.
std::vector<std::uint8_t> referenceFilteredLine(const std::vector<std::uint8_t> &rgb,
                                                const std::vector<std::uint8_t> &above)
{
    const std::size_t n = rgb.size();
    std::vector<std::uint8_t> none = rgb, sub(n), up(n);
    for (std::size_t i = 0; i < n; ++i) {
        sub[i] = std::uint8_t(rgb[i] - (i >= 3 ? rgb[i - 3] : 0));
        up[i] = std::uint8_t(rgb[i] - above[i]);
    }
    const auto cost = [](const std::vector<std::uint8_t> &bytes) {
        long sum = 0;
        for (const std::uint8_t b : bytes)
            sum += std::abs(int(std::int8_t(b)));
        return sum;
    };
    const long cn = cost(none), cs = cost(sub), cu = cost(up);
    const int filter = cs < cn && cs <= cu ? 1 : cu < cn ? 2 : 0;
    const std::vector<std::uint8_t> &chosen = filter == 1 ? sub : filter == 2 ? up : none;
    std::vector<std::uint8_t> line(n + 1);
    line[0] = std::uint8_t(filter);
    std::copy(chosen.begin(), chosen.end(), line.begin() + 1);
    return line;
}

// Noise, smooth gradients and flat runs, so that every filter wins on some row.
QImage testImage(int width, int height)
{
    QImage image(width, height, QImage::Format_RGB32);
    QRandomGenerator random(7);
    for (int y = 0; y < height; ++y) {
        auto *line = reinterpret_cast<QRgb *>(image.scanLine(y));
        for (int x = 0; x < width; ++x) {
            switch (y % 3) {
            case 0:
                line[x] = qRgb(int(random.bounded(256)), int(random.bounded(256)), x % 256);
                break;
            case 1:
                line[x] = qRgb(x % 256, (x / 2) % 256, (x * 3) % 256);
                break;
            default:
                line[x] = qRgb(200, 30 + y % 7, 90);
            }
        }
    }
    return image;
}

} // namespace

class TestCpuKernels : public QObject
{
    Q_OBJECT

    std::vector<CpuIsa> m_isas;

    const CpuKernels &sse2() const { return *kernels::cpuKernelsFor(CpuIsa::Sse2); }

private slots:
    void initTestCase()
    {
        m_isas = kernels::supportedCpuIsas();
        QVERIFY(!m_isas.empty());
        QCOMPARE(m_isas.back(), CpuIsa::Sse2); // every x86-64 CPU runs the baseline
        QStringList names;
        for (const CpuIsa isa : m_isas)
            names.append(QString::fromLatin1(kernels::cpuIsaName(isa)));
        qInfo("kernel sets this CPU runs: %s", qPrintable(names.join(QStringLiteral(", "))));
        if (m_isas.size() == 1)
            qWarning("only the SSE2 set runs here: the comparisons below compare it with itself");
    }

    void cleanup() { kernels::forceCpuKernels(std::nullopt); }

    void namesRoundTrip()
    {
        for (const CpuIsa isa : {CpuIsa::Sse2, CpuIsa::Avx2, CpuIsa::Avx512})
            QCOMPARE(kernels::parseCpuIsa(kernels::cpuIsaName(isa)), std::optional(isa));
        QVERIFY(!kernels::parseCpuIsa("avx"));
        QVERIFY(!kernels::parseCpuIsa(""));
    }

    void forcingSelects()
    {
        for (const CpuIsa isa : m_isas) {
            QVERIFY(kernels::forceCpuKernels(isa));
            QCOMPARE(kernels::cpuKernels().isa, isa);
        }
        QVERIFY(kernels::forceCpuKernels(std::nullopt));
        QCOMPARE(kernels::cpuKernels().isa, m_isas.front()); // auto: the widest
    }

    // Lengths around the vector widths (1 to 16 lanes) and their tails.
    void kernelsAgree_data()
    {
        QTest::addColumn<int>("n");
        for (const int n : {1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 64, 250, 1001})
            QTest::addRow("n=%d", n) << n;
    }

    void kernelsAgree()
    {
        QFETCH(int, n);
        const auto size = std::size_t(n);
        const std::vector<std::uint64_t> step = randomWords(size, 1), offset = randomWords(size, 2);
        const std::vector<std::uint64_t> centre = randomWords(size, 3), span = randomWords(size, 4);
        const std::vector<float> dirichlet = randomFloats(size, 5), low = randomFloats(size, 6);
        const std::vector<float> values = randomFloats(size, 7);
        const qint64 rows = 5;

        struct Results
        {
            std::vector<float> phaseRows, phaseAt, learnedRows, closed[4], closedHigh[4];
            std::vector<std::uint64_t> phaseAfter;
            std::vector<double> learnedAcc, acc;
            std::vector<std::uint8_t> png;
        };
        const auto run = [&](const CpuKernels &k) {
            Results r;
            std::vector<std::uint64_t> phase = offset;
            r.phaseRows.resize(size * rows);
            k.phaseRows(step.data(), phase.data(), n, rows, r.phaseRows.data());
            r.phaseAfter = phase;
            r.phaseAt.resize(size);
            k.phaseAt(step.data(), offset.data(), 123456789, r.phaseAt.data(), n);
            r.learnedRows.resize(size * rows);
            k.learnedRows(0x1234567890abcdefull, n, (1 << 20) - 2, rows, r.learnedRows.data());
            r.learnedAcc.assign(size, 0.25);
            k.learnedAccumulate(0xdeadbeef, 4000000000u, 0.3, r.learnedAcc.data(), n);
            r.acc.assign(size, -1.5);
            k.accumulate(values.data(), 0.7, r.acc.data(), n);
            // Every branch: whole cells with and without a cell above, and none.
            for (int branch = 0; branch < 4; ++branch) {
                r.closed[branch].assign(size, 0.0f);
                r.closedHigh[branch].assign(size, 0.0f);
                k.closedFormRow({step.data(), offset.data(), centre.data(), span.data(),
                                 dirichlet.data(), low.data(), r.closedHigh[branch].data(),
                                 r.closed[branch].data(), 987654321, branch < 2, 0.375f,
                                 branch % 2 == 0 ? 0.625f : 0.0f, 0.125f, n});
            }
            QRandomGenerator random(9);
            std::vector<std::uint32_t> pixels(size);
            for (auto &p : pixels)
                p = random.generate();
            std::vector<std::uint8_t> above(3 * size), current(3 * size);
            for (auto &b : above)
                b = std::uint8_t(random.bounded(256));
            r.png.resize(3 * size + 1);
            k.pngFilterRow(pixels.data(), n, above.data(), current.data(), r.png.data());
            return r;
        };

        const Results expected = run(sse2());
        for (const CpuIsa isa : m_isas) {
            const Results got = run(*kernels::cpuKernelsFor(isa));
            PE_COMPARE_BITS(got.phaseRows, expected.phaseRows, "phaseRows");
            PE_COMPARE_BITS(got.phaseAfter, expected.phaseAfter, "phaseRows' phases");
            PE_COMPARE_BITS(got.phaseAt, expected.phaseAt, "phaseAt");
            PE_COMPARE_BITS(got.learnedRows, expected.learnedRows, "learnedRows");
            PE_COMPARE_BITS(got.learnedAcc, expected.learnedAcc, "learnedAccumulate");
            PE_COMPARE_BITS(got.acc, expected.acc, "accumulate");
            for (int branch = 0; branch < 4; ++branch) {
                PE_COMPARE_BITS(got.closed[branch], expected.closed[branch], "closedFormRow");
                PE_COMPARE_BITS(got.closedHigh[branch], expected.closedHigh[branch],
                                "closedFormRow's upper cell");
            }
            PE_COMPARE_BITS(got.png, expected.png, "pngFilterRow");
        }
    }

    // The SSE2 set against formulas written here: sin of the exact phase in float64, Keras'
    // uniform hash, and libpng's filter choice.
    void sse2MatchesReferences()
    {
        const CpuKernels &k = sse2();
        const qint64 dims = 37, first = (qint64(1) << 20) - 3, rows = 3;
        const EncodingSpec spec = test::sinusoidalSpec(qint64(1) << 20, dims);
        const std::vector<kernels::ColumnPhase> columns =
            std::get<PhaseColumnsPlan>(spec.plan()).columns;
        std::vector<std::uint64_t> step, phase;
        for (const auto &c : columns) {
            step.push_back(c.step);
            phase.push_back(std::uint64_t(first) * c.step + c.offset);
        }
        std::vector<float> out(std::size_t(dims * rows));
        k.phaseRows(step.data(), phase.data(), dims, rows, out.data());
        for (qint64 r = 0; r < rows; ++r)
            for (qint64 j = 0; j < dims; ++j)
                PE_COMPARE_NEAR(out[std::size_t(r * dims + j)],
                                test::referenceInterleaved(first + r, j, dims, 10000.0), 1e-6);

        std::vector<float> learned(static_cast<std::size_t>(dims));
        k.learnedRows(42, dims, 5, 1, learned.data());
        for (qint64 j = 0; j < dims; ++j) {
            const float v = learned[std::size_t(j)];
            QVERIFY(v >= -0.05f && v < 0.05f);
            QCOMPARE(v, kernels::learnedValue(kernels::rowKey(42, 5), std::uint32_t(j)));
        }

        QRandomGenerator random(3);
        for (const int width : {1, 2, 5, 64, 301}) {
            const auto n = std::size_t(width);
            std::vector<std::uint32_t> pixels(n);
            for (std::size_t x = 0; x < n; ++x)
                pixels[x] = x % 2 ? random.generate() : 0xff102030u + std::uint32_t(x);
            std::vector<std::uint8_t> above(3 * n), current(3 * n), line(3 * n + 1);
            for (auto &b : above)
                b = std::uint8_t(random.bounded(256));
            k.pngFilterRow(pixels.data(), width, above.data(), current.data(), line.data());
            std::vector<std::uint8_t> rgb;
            for (const std::uint32_t p : pixels)
                rgb.insert(rgb.end(),
                           {std::uint8_t(p >> 16), std::uint8_t(p >> 8), std::uint8_t(p)});
            QCOMPARE(current, rgb);
            QCOMPARE(line, referenceFilteredLine(rgb, above));
        }
    }

    // Through the call sites, each set forced in turn.
    void encodeAgrees_data()
    {
        QTest::addColumn<EncodingSpec>("spec");
        QTest::addColumn<qint64>("firstRow");
        QTest::addColumn<qint64>("rows");
        const EncodingSpec s = test::sinusoidalSpec(1 << 20, 129);
        QTest::addRow("sinusoidal, odd dims, rows near 2^20")
            << s << s.positions - 300 << qint64(300);
        QTest::addRow("split, base 500000")
            << test::sinusoidalSpec(1 << 20, 64, 500000, Layout::Split) << qint64(0)
            << qint64(1000);
        RopeScheme llama3;
        llama3.ropeTheta = 500000;
        llama3.pairing = RopePairing::Half;
        llama3.ropeType = RopeType::Llama3;
        llama3.factor = 8;
        llama3.originalMaxPositionEmbeddings = 8192;
        EncodingSpec rope;
        rope.scheme = llama3;
        rope.positions = 9000;
        rope.dims = 128;
        QTest::addRow("rope llama3") << rope << qint64(100) << qint64(8900);
        QTest::addRow("learned, odd dims")
            << test::learnedSpec(5000, 77, 7) << qint64(13) << qint64(4000);
    }

    void encodeAgrees()
    {
        QFETCH(EncodingSpec, spec);
        QFETCH(qint64, firstRow);
        QFETCH(qint64, rows);
        const auto encode = [&](CpuIsa isa) {
            if (!kernels::forceCpuKernels(isa))
                return std::vector<float>();
            std::vector<float> out(std::size_t(rows * spec.dims));
            QString error;
            CpuBackend cpu(2);
            if (!cpu.encode(spec, firstRow, rows, out.data(), &error))
                qWarning("%s", qPrintable(error));
            return out;
        };
        const std::vector<float> expected = encode(CpuIsa::Sse2);
        QVERIFY(!expected.empty());
        for (const CpuIsa isa : m_isas)
            PE_COMPARE_BITS(encode(isa), expected, "CpuBackend::encode");
    }

    void sampleAgrees_data()
    {
        QTest::addColumn<EncodingSpec>("spec");
        QTest::addColumn<MatrixWindow>("window");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        const EncodingSpec big = test::sinusoidalSpec(1 << 20, 8192);
        QTest::addRow("2^20 x 8192 into 97 x 61") << big << MatrixWindow::whole(big) << 97 << 61;
        // Fractional edges: pixel rows cut cells, so the low/high weight branches run.
        QTest::addRow("zoomed, fractional cells")
            << big << MatrixWindow{1000.3, 20.25, 17.7, 40.5} << 45 << 50;
        QTest::addRow("zoomed out near 2^20")
            << big << MatrixWindow{1040000.5, 100, 8000.25, 3000.5} << 130 << 77;
        const EncodingSpec learned = test::learnedSpec(big.positions, big.dims, 3);
        QTest::addRow("learned, sampled rows")
            << learned << MatrixWindow{500.5, 10.5, 70000, 700} << 64 << 48;
    }

    void sampleAgrees()
    {
        QFETCH(EncodingSpec, spec);
        QFETCH(MatrixWindow, window);
        QFETCH(int, width);
        QFETCH(int, height);
        const auto sample = [&](CpuIsa isa) {
            if (!kernels::forceCpuKernels(isa))
                return std::vector<float>();
            std::vector<float> out(std::size_t(width) * std::size_t(height));
            QString error;
            if (!sampleOnCpu(spec, window, width, height, out.data(), &error, 2))
                qWarning("%s", qPrintable(error));
            return out;
        };
        const std::vector<float> expected = sample(CpuIsa::Sse2);
        QVERIFY(!expected.empty());
        for (const CpuIsa isa : m_isas)
            PE_COMPARE_BITS(sample(isa), expected, "sampleOnCpu");
    }

    void pngAgrees()
    {
        const QImage image = testImage(333, 197);
        const auto encode = [&](CpuIsa isa) {
            if (!kernels::forceCpuKernels(isa))
                return QByteArray();
            QString error;
            return encodePng(image, {{QStringLiteral("Software"), QStringLiteral("test")}}, &error);
        };
        const QByteArray expected = encode(CpuIsa::Sse2);
        QVERIFY(!expected.isEmpty());
        QImage decoded = QImage::fromData(expected, "PNG").convertToFormat(QImage::Format_RGB32);
        QCOMPARE(decoded, image);
        for (const CpuIsa isa : m_isas)
            QVERIFY2(encode(isa) == expected,
                     qPrintable(QStringLiteral("the PNG of the %1 set differs from sse2's")
                                    .arg(QLatin1String(kernels::cpuIsaName(isa)))));
    }

    // PE_CPU_KERNELS picks the set the program uses; --version names it.
    void environmentPicksTheSet()
    {
        const auto version = [](const QByteArray &value) {
            QProcess process;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("PE_CPU_KERNELS"), QString::fromLatin1(value));
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
            process.setProcessEnvironment(env);
            process.start(QStringLiteral(PE_EXECUTABLE), {QStringLiteral("--version")});
            process.waitForFinished(60000);
            return test::RunResult{process.exitCode(), process.readAllStandardOutput(),
                                   process.readAllStandardError()};
        };
        for (const CpuIsa isa : m_isas) {
            const test::RunResult r = version(kernels::cpuIsaName(isa));
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.contains(
                         QByteArray(QByteArray("CPU kernels: ") + kernels::cpuIsaName(isa) + ' ')),
                     r.out.constData());
            QVERIFY2(r.err.isEmpty(), r.err.constData());
        }
        const QByteArray widest =
            QByteArray("CPU kernels: ") + kernels::cpuIsaName(m_isas.front()) + ' ';
        test::RunResult r = version("auto");
        QVERIFY2(r.out.contains(widest), r.out.constData());
        r = version("avx");
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("PE_CPU_KERNELS=avx is not avx512, avx2, sse2 or auto"),
                 r.err.constData());
        QVERIFY2(r.out.contains(widest), r.out.constData());
        for (const CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2}) {
            if (kernels::cpuKernelsFor(isa))
                continue;
            r = version(kernels::cpuIsaName(isa));
            QVERIFY2(r.err.contains("this CPU cannot run them"), r.err.constData());
        }
    }

    // In a portable build every AVX (VEX or EVEX encoded) instruction of the program is inside
    // the avx2 or avx512 kernels, which run only after the CPU check: the rest runs on any
    // x86-64. objdump lists the instructions; AT&T mnemonics of VEX/EVEX forms start with 'v'.
    void onlyKernelsUseAvx()
    {
#ifndef __x86_64__
        QSKIP("not an x86-64 build");
#endif
        if (buildInfo().nativeArch)
            QSKIP("built with PE_NATIVE_ARCH=ON (-march=native): AVX is allowed everywhere");
        if (test::underSanitizer) // the release build's run of this suite checks it
            QSKIP("Clang's UBSan puts data before functions (-fsanitize=function signatures), "
                  "which objdump decodes as stray VEX instructions");
        const QString objdump = QStandardPaths::findExecutable(QStringLiteral("objdump"));
        if (objdump.isEmpty())
            PE_SKIP_MISSING("objdump (binutils) is not installed");
        QProcess process;
        process.start(objdump,
                      {QStringLiteral("-d"), QStringLiteral("-C"),
                       QStringLiteral("--no-show-raw-insn"), QStringLiteral(PE_EXECUTABLE)});
        QVERIFY(process.waitForFinished(300000));
        QCOMPARE(process.exitCode(), 0);
        const QList<QByteArray> lines = process.readAllStandardOutput().split('\n');
        static const QRegularExpression symbol(QStringLiteral("^[0-9a-f]+ <(.*)>:$"));
        static const QRegularExpression instruction(QStringLiteral("^\\s+[0-9a-f]+:\\s+(\\S+)"));
        QString function;
        QStringList offenders;
        int avxInKernels = 0;
        for (const QByteArray &raw : lines) {
            const QString line = QString::fromLatin1(raw);
            if (const auto m = symbol.match(line); m.hasMatch()) {
                function = m.captured(1);
                continue;
            }
            const auto m = instruction.match(line);
            if (!m.hasMatch() || !m.captured(1).startsWith(QLatin1Char('v')))
                continue;
            if (function.contains(QLatin1String("pe::kernels::avx2::")) ||
                function.contains(QLatin1String("pe::kernels::avx512::")))
                ++avxInKernels;
            else if (!offenders.contains(function))
                offenders.append(function);
        }
        QVERIFY2(avxInKernels > 0, "found no AVX code in the avx2/avx512 kernels");
        QVERIFY2(offenders.isEmpty(),
                 qPrintable(QStringLiteral("AVX instructions outside the kernels: ") +
                            offenders.mid(0, 10).join(QStringLiteral("; "))));
    }

    // Where QEMU's user-mode emulator is installed: the program run on an emulated CPU without
    // AVX (Nehalem: SSE4.2) chooses the SSE2 set and writes the same bytes as on this CPU.
    void runsOnCpuWithoutAvx()
    {
        const QString qemu = QStandardPaths::findExecutable(QStringLiteral("qemu-x86_64"));
        if (qemu.isEmpty())
            PE_SKIP_MISSING("qemu-x86_64 (Debian: qemu-user) is not installed");
        if (test::underSanitizer) // its fixed shadow memory does not fit qemu-user's address map
            QSKIP("AddressSanitizer's processes do not start under qemu-user");
        if (buildInfo().nativeArch)
            QSKIP("built with PE_NATIVE_ARCH=ON: this build needs this machine's CPU");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QStringList data = {QStringLiteral("data"), QStringLiteral("--positions"),
                                  QStringLiteral("3000"), QStringLiteral("--dims"),
                                  QStringLiteral("65"),   QStringLiteral("--backend"),
                                  QStringLiteral("cpu"),  QStringLiteral("--out")};
        const auto run = [&](const QString &program, const QStringList &args) {
            QProcess process;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
            env.remove(QStringLiteral("PE_CPU_KERNELS"));
            process.setProcessEnvironment(env);
            process.start(program, args);
            process.waitForFinished(300000);
            return test::RunResult{process.exitCode(), process.readAllStandardOutput(),
                                   process.readAllStandardError()};
        };
        const QString exe = QStringLiteral(PE_EXECUTABLE);
        const QStringList emulated = {QStringLiteral("-cpu"), QStringLiteral("Nehalem"), exe};
        test::RunResult r = run(qemu, emulated + QStringList{QStringLiteral("--version")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("CPU kernels: sse2 (this CPU runs sse2;"), r.out.constData());

        const QString here = dir.filePath(QStringLiteral("here.npy"));
        const QString there = dir.filePath(QStringLiteral("emulated.npy"));
        r = run(exe, data + QStringList{here});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = run(qemu, emulated + data + QStringList{there});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QFile a(here), b(there);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray bytes = a.readAll();
        QCOMPARE(bytes.size(), 128 + 3000 * 65 * 4);
        QVERIFY2(bytes == b.readAll(), "the emulated CPU wrote other bytes");
    }
};

QTEST_GUILESS_MAIN(TestCpuKernels)
#include "tst_cpukernels.moc"
