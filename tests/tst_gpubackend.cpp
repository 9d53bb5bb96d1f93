// The GPU backend (OpenGL 4.3 compute) against the CPU backend and float64 references, its
// chunking, its errors, and the fallback to the CPU. Runs on Mesa's llvmpipe under Xvfb.
#include "backends/backendfactory.h"
#include "backends/cpubackend.h"
#include "backends/fallbackbackend.h"
#include "backends/gpubackend.h"
#include "backends/phasekernels.h"
#include "gputestutil.h"
#include "testutil.h"

#include <QGuiApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <cstring>

#include <future>
#include <vector>

using namespace pe;

Q_DECLARE_METATYPE(pe::MatrixWindow)

namespace {

EncodingSpec makeSpec(const QString &scheme, qint64 positions, qint64 dims, double base,
                      const QString &layout, quint64 seed)
{
    return scheme == u"learned"_qs
               ? test::learnedSpec(positions, dims, seed)
               : test::sinusoidalSpec(positions, dims, base, *parseAs<Layout>(layoutNames, layout));
}

const char *const badShader = "void main() { this_is_not_glsl(); }\n";

} // namespace

class TestGpuBackend : public QObject
{
    Q_OBJECT

    std::unique_ptr<GpuBackend> m_gpu;
    CpuBackend m_cpu;

    std::vector<float> cpuRows(const EncodingSpec &spec, qint64 first, qint64 count)
    {
        std::vector<float> out(std::size_t(count * spec.dims));
        QString error;
        if (!m_cpu.encode(spec, first, count, out.data(), &error))
            qFatal("CPU encode failed: %s", qPrintable(error));
        return out;
    }

private slots:
    void initTestCase()
    {
        if (!test::cachedMissingOpenGl43().isEmpty())
            return; // every test skips (or fails under PE_REQUIRE_GPU) with the reason
        QString why;
        // In a debug context: the driver's error messages fail every call (and cleanupTestCase).
        GpuBackend::Options options;
        options.debugContext = true;
        m_gpu = GpuBackend::create(&why, options);
        // A 4.3 context exists, so the backend must start: anything else is a bug.
        QVERIFY2(m_gpu, qPrintable(why));
        qInfo("%s", qPrintable(m_gpu->description()));
    }

    void encodeAgreesWithCpu_data()
    {
        QTest::addColumn<QString>("scheme");
        QTest::addColumn<qint64>("positions");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<double>("base");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<qint64>("firstRow");
        QTest::addColumn<qint64>("rowCount");
        const QString sin = u"sinusoidal"_qs, learned = u"learned"_qs;
        const QString il = u"interleaved"_qs, split = u"split"_qs;
        const qint64 p20 = qint64(1) << 20;
        QTest::addRow("1 x 1") << sin << 1ll << 1ll << 1e4 << il << 0ull << 0ll << 1ll;
        QTest::addRow("1 x 1 split") << sin << 1ll << 1ll << 1e4 << split << 0ull << 0ll << 1ll;
        QTest::addRow("7 x 3 base 10") << sin << 7ll << 3ll << 10.0 << il << 0ull << 0ll << 7ll;
        QTest::addRow("201 x 512 (Fig 16-9)")
            << sin << 201ll << 512ll << 1e4 << il << 0ull << 0ll << 201ll;
        QTest::addRow("300 x 333 base 100 split")
            << sin << 300ll << 333ll << 100.0 << split << 0ull << 0ll << 300ll;
        QTest::addRow("1000 x 129 base 1e5")
            << sin << 1000ll << 129ll << 1e5 << il << 0ull << 0ll << 1000ll;
        QTest::addRow("64 x 1025 base 1e7 split")
            << sin << 64ll << 1025ll << 1e7 << split << 0ull << 0ll << 64ll;
        QTest::addRow("rows near 2^20, 1024 dims")
            << sin << p20 << 1024ll << 1e4 << il << 0ull << p20 - 64 << 64ll;
        QTest::addRow("rows near 2^20, split, 777 dims")
            << sin << p20 << 777ll << 1e4 << split << 0ull << p20 - 50 << 50ll;
        QTest::addRow("rows near 2^20, base 10")
            << sin << p20 << 64ll << 10.0 << il << 0ull << p20 - 100 << 100ll;
        QTest::addRow("rows near 2^20, base 1e7")
            << sin << p20 << 99ll << 1e7 << split << 0ull << p20 - 100 << 100ll;
        QTest::addRow("rows near 2^24") << sin << (qint64(1) << 24) << 48ll << 1e4 << il << 0ull
                                        << (qint64(1) << 24) - 20 << 20ll;
        QTest::addRow("learned seed 0")
            << learned << 100ll << 77ll << 1e4 << il << 0ull << 0ll << 100ll;
        QTest::addRow("learned seed 42, 1 x 1")
            << learned << 1ll << 1ll << 1e4 << il << 42ull << 0ll << 1ll;
        QTest::addRow("learned 64-bit seed near 2^20")
            << learned << p20 << 513ll << 1e4 << il << 0x123456789abull << p20 - 40 << 40ll;
    }
    void encodeAgreesWithCpu()
    {
        PE_REQUIRE_OPENGL43();
        QFETCH(QString, scheme);
        QFETCH(qint64, positions);
        QFETCH(qint64, dims);
        QFETCH(double, base);
        QFETCH(QString, layout);
        QFETCH(quint64, seed);
        QFETCH(qint64, firstRow);
        QFETCH(qint64, rowCount);
        const EncodingSpec spec = makeSpec(scheme, positions, dims, base, layout, seed);
        QVERIFY2(spec.validate().isEmpty(), qPrintable(spec.validate()));
        std::vector<float> gpu(std::size_t(rowCount * dims), NAN);
        QString error;
        QVERIFY2(m_gpu->encode(spec, firstRow, rowCount, gpu.data(), &error), qPrintable(error));
        // The learned hash is integer arithmetic and one exactly rounded product: bit-equal.
        const double tolerance = spec.get<LearnedScheme>() ? 0.0 : 1e-6;
        // Rows counted from firstRow.
        PE_COMPARE_ARRAY(gpu, cpuRows(spec, firstRow, rowCount), {.absolute = tolerance}, dims);
    }

    // RoPE's cos/sin table reaches the GPU through the same generic column-phase table.
    void ropeUsesThePhaseTable()
    {
        PE_REQUIRE_OPENGL43();
        EncodingSpec spec;
        RopeScheme rope;
        rope.ropeTheta = 500000.0;
        spec.scheme = rope;
        spec.positions = qint64(1) << 20;
        spec.dims = 128;
        QVERIFY2(spec.validate().isEmpty(), qPrintable(spec.validate()));
        const qint64 first = spec.positions - 32, count = 32;
        std::vector<float> gpu(std::size_t(count * spec.dims));
        QString error;
        QVERIFY2(m_gpu->encode(spec, first, count, gpu.data(), &error), qPrintable(error));
        PE_COMPARE_ARRAY(gpu, cpuRows(spec, first, count), {.absolute = 1e-6});
    }

    // The float64 formula of the seeds, at the positions where float32 angles fail most.
    void gpuMatchesFloat64NearTwoTo20_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<double>("base");
        QTest::addRow("interleaved 1e4") << u"interleaved"_qs << 1e4;
        QTest::addRow("split 1e4") << u"split"_qs << 1e4;
        QTest::addRow("interleaved 10") << u"interleaved"_qs << 10.0;
        QTest::addRow("split 1e7") << u"split"_qs << 1e7;
    }
    void gpuMatchesFloat64NearTwoTo20()
    {
        PE_REQUIRE_OPENGL43();
        QFETCH(QString, layout);
        QFETCH(double, base);
        const qint64 p20 = qint64(1) << 20, dims = 512, count = 256;
        const EncodingSpec spec = makeSpec(u"sinusoidal"_qs, p20, dims, base, layout, 0);
        std::vector<float> gpu(std::size_t(count * dims));
        QString error;
        QVERIFY2(m_gpu->encode(spec, p20 - count, count, gpu.data(), &error), qPrintable(error));
        double worst = 0.0;
        for (qint64 r = 0; r < count; ++r)
            for (qint64 j = 0; j < dims; ++j) {
                const qint64 p = p20 - count + r;
                const double expected = layout == u"interleaved"_qs
                                            ? test::referenceInterleaved(p, j, dims, base)
                                            : test::referenceSplit(p, j, dims, base);
                worst =
                    std::max(worst, std::abs(double(gpu[std::size_t(r * dims + j)]) - expected));
            }
        qInfo("max |gpu - float64| = %.3g", worst);
        QVERIFY2(worst <= 1e-6, qPrintable(QString::number(worst)));
    }

    // Every limit the chunking has, on small matrices: buffers of a few rows, of one row, and
    // smaller than a row (a chunk is then one row); chunk boundaries at every 4-byte offset
    // modulo 64 in the caller's memory, aligned and not; dispatches of a single work group;
    // one ring slot (each chunk waits for the last) and three; each read-back path. The
    // backend runs in a debug context: an error or undefined-behaviour message from the
    // driver, like a GL error, fails the call, and none may appear. On fb2ffab the first three
    // rows failed on an NVIDIA H200 (every chunk after the first read back stale) and passed
    // on llvmpipe.
    void chunkingKeepsResults_data()
    {
        QTest::addColumn<qint64>("maxBufferBytes");
        QTest::addColumn<int>("maxRowGroups");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<int>("outOffset"); // floats: 1 puts every chunk off 16-byte alignment
        QTest::addColumn<int>("readback");
        QTest::addColumn<int>("ringSlots");
        QTest::addColumn<int>("width");
        const int any = int(GpuBackend::Readback::Auto);
        const int plain = int(GpuBackend::Readback::Plain);
        const int shaderBuffer = int(GpuBackend::Readback::ShaderBuffer);
        // The H200's three failures (fb2ffab): 2 rows of 333 floats per buffer, 64 rows per
        // dispatch, and both.
        QTest::addRow("a buffer per 2 rows") << qint64(3000) << 0 << 333ll << 0 << any << 3 << 40;
        QTest::addRow("a dispatch per 64 rows") << qint64(0) << 1 << 333ll << 0 << any << 3 << 40;
        QTest::addRow("both") << qint64(200000) << 1 << 333ll << 0 << any << 3 << 40;
        QTest::addRow("buffer smaller than a row")
            << qint64(1000) << 0 << 333ll << 1 << any << 3 << 40;
        // 12-byte chunks: boundaries at every multiple of 4 modulo 64 (gcd(12, 64) = 4).
        QTest::addRow("12-byte chunks, every offset")
            << qint64(12) << 0 << 3ll << 0 << any << 3 << 3;
        QTest::addRow("12-byte chunks, unaligned out")
            << qint64(12) << 0 << 3ll << 1 << any << 3 << 3;
        QTest::addRow("60-byte chunks of 3 rows of 5")
            << qint64(60) << 0 << 5ll << 1 << any << 3 << 5;
        QTest::addRow("dispatches of one work group")
            << qint64(0) << 1 << 64ll << 0 << any << 3 << 16;
        QTest::addRow("one work group, 1 dim, 4-byte chunks")
            << qint64(4) << 1 << 1ll << 1 << any << 3 << 1;
        QTest::addRow("one ring slot") << qint64(3000) << 1 << 333ll << 0 << any << 1 << 40;
        QTest::addRow("fallback: no buffer storage")
            << qint64(3000) << 1 << 333ll << 1 << plain << 3 << 40;
        QTest::addRow("fallback, one slot") << qint64(12) << 0 << 3ll << 0 << plain << 1 << 3;
        QTest::addRow("diagnostic: read the shader's buffer")
            << qint64(3000) << 1 << 333ll << 0 << shaderBuffer << 3 << 40;
    }
    void chunkingKeepsResults()
    {
        PE_REQUIRE_OPENGL43();
        QFETCH(qint64, maxBufferBytes);
        QFETCH(int, maxRowGroups);
        QFETCH(qint64, dims);
        QFETCH(int, outOffset);
        QFETCH(int, readback);
        QFETCH(int, ringSlots);
        QFETCH(int, width);
        if (readback == int(GpuBackend::Readback::ShaderBuffer) &&
            !m_gpu->renderer().contains(u"llvmpipe"_qs))
            QSKIP("the pre-fix pattern is compared on hardware by bench_backends --readback "
                  "shader-buffer (tests/gpu/device-check.sh), which reports and does not fail");
        GpuBackend::Options options;
        options.maxBufferBytes = maxBufferBytes;
        options.maxRowGroupsPerDispatch = maxRowGroups;
        options.readback = GpuBackend::Readback(readback);
        options.ringSlots = ringSlots;
        options.debugContext = true;
        QString why;
        const std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why, options);
        QVERIFY2(gpu, qPrintable(why));
        const qint64 first = 4000, rows = 777;
        const int height = 700;
        for (const QString &scheme : {u"sinusoidal"_qs, u"learned"_qs}) {
            const EncodingSpec spec = makeSpec(scheme, 5000, dims, 1e4, u"split"_qs, 9);
            std::vector<float> buffer(std::size_t(rows * dims + outOffset + 1), NAN);
            float *out = buffer.data() + outOffset;
            QVERIFY2(gpu->encode(spec, first, rows, out, &why), qPrintable(why));
            QVERIFY(std::isnan(buffer[std::size_t(rows * dims + outOffset)])); // nothing past
            const std::vector<float> values(out, out + rows * dims);
            QString wrong = test::arrayMismatch(values, cpuRows(spec, first, rows), {1e-6}, dims);
            QVERIFY2(wrong.isEmpty(), qPrintable(scheme + u": encode: "_qs + wrong));

            const MatrixWindow window{10.5, 0.25, 4000.0, double(dims) - 0.5};
            std::vector<float> pixels(std::size_t(width) * height + 1, NAN);
            std::vector<float> expected(std::size_t(width) * height);
            QVERIFY2(gpu->sample(spec, window, width, height, pixels.data() + 1, &why),
                     qPrintable(why));
            QVERIFY2(m_cpu.sample(spec, window, width, height, expected.data(), &why),
                     qPrintable(why));
            pixels.erase(pixels.begin());
            wrong = test::arrayMismatch(pixels, expected, {1e-6}, width);
            QVERIFY2(wrong.isEmpty(), qPrintable(scheme + u": sample: "_qs + wrong));
        }
        if (readback != int(GpuBackend::Readback::Auto))
            QCOMPARE(int(gpu->readback()), readback);
        for (const QString &message : gpu->debugMessages())
            QVERIFY2(!message.startsWith(u"error"_qs) && !message.startsWith(u"undefined"_qs),
                     qPrintable(message));
    }

    // The switch that disables buffer storage gives the fallback path; auto takes persistent
    // mapping where the driver has it (llvmpipe does: GL 4.5).
    void readbackPathIsChosen()
    {
        PE_REQUIRE_OPENGL43();
        QString why;
        GpuBackend::Options options;
        options.readback = GpuBackend::Readback::Plain;
        const std::unique_ptr<GpuBackend> plain = GpuBackend::create(&why, options);
        QVERIFY2(plain, qPrintable(why));
        QCOMPARE(plain->readback(), GpuBackend::Readback::Plain);
        qInfo("read-back on this driver: %s; GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT %d",
              qPrintable(GpuBackend::readbackName(m_gpu->readback())),
              m_gpu->storageBufferOffsetAlignment());
        QVERIFY(m_gpu->readback() == GpuBackend::Readback::Persistent ||
                m_gpu->readback() == GpuBackend::Readback::Plain);
    }

    // A call the driver refuses (here: an output binding at a misaligned offset, which leaves
    // the previous binding in place) fails the call, naming the error, after the dispatch it
    // belongs to; nothing reaches the caller's memory. With and without a debug context.
    void refusedCallFailsLoudly_data()
    {
        QTest::addColumn<bool>("debugContext");
        QTest::addRow("glGetError") << false;
        QTest::addRow("debug context") << true;
    }
    void refusedCallFailsLoudly()
    {
        PE_REQUIRE_OPENGL43();
        QFETCH(bool, debugContext);
        if (m_gpu->storageBufferOffsetAlignment() <= 1)
            QSKIP("GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT is 1: no offset is misaligned");
        GpuBackend::Options options;
        options.misalignOutputBindingForTesting = true;
        options.debugContext = debugContext;
        QString why;
        const std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why, options);
        QVERIFY2(gpu, qPrintable(why));
        const EncodingSpec spec = makeSpec(u"sinusoidal"_qs, 100, 8, 1e4, u"interleaved"_qs, 0);
        std::vector<float> out(std::size_t(100 * 8), NAN);
        QString error;
        QVERIFY(!gpu->encode(spec, 0, 100, out.data(), &error));
        // A driver may also refuse the dispatch that follows (nothing usable bound): both named.
        QVERIFY2(error.contains(u"GL_INVALID_VALUE"_qs) &&
                     error.contains(u" while computing rows 0 to 100"_qs),
                 qPrintable(error));
        if (debugContext) // the driver's own words follow
            QVERIFY2(error.contains(u"(the driver: error"_qs), qPrintable(error));
        QVERIFY(std::all_of(out.begin(), out.end(), [](float v) { return std::isnan(v); }));
        std::vector<float> pixels(std::size_t(20 * 10), NAN);
        QVERIFY(!gpu->sample(spec, MatrixWindow::whole(spec), 20, 10, pixels.data(), &error));
        QVERIFY2(error.contains(u"GL_INVALID_VALUE"_qs) &&
                     error.contains(u" while computing pixel rows 0 to 10"_qs),
                 qPrintable(error));
        QVERIFY(std::all_of(pixels.begin(), pixels.end(), [](float v) { return std::isnan(v); }));
    }

    // The bus's figure for bench_backends: an idle device buffer read back through the ring.
    void measureReadbackCopiesTheBuffer()
    {
        PE_REQUIRE_OPENGL43();
        GpuBackend::Options options;
        options.maxBufferBytes = 1 << 16;
        QString why;
        const std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why, options);
        QVERIFY2(gpu, qPrintable(why));
        const qint64 floats = (qint64(1) << 18) + 3; // 16 chunks and 12 bytes
        std::vector<float> out(std::size_t(floats) + 1, NAN);
        QVERIFY2(gpu->measureReadback(floats * 4, out.data(), &why), qPrintable(why));
        QVERIFY(std::all_of(out.begin(), out.end() - 1, [](float v) { return v == 0.0f; }));
        QVERIFY(std::isnan(out.back()));
        QCOMPARE(gpu->lastTimings().chunks, 17);
        QVERIFY(!gpu->measureReadback(6, out.data(), &why)); // not whole floats
    }

    // lastTimings() counts the chunks a call took and, where timer queries exist, their time.
    void timingsCountChunks()
    {
        PE_REQUIRE_OPENGL43();
        GpuBackend::Options options;
        options.maxBufferBytes = qint64(1000) * 4 * 10; // 10 rows of 1,000 floats
        QString why;
        const std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why, options);
        QVERIFY2(gpu, qPrintable(why));
        const EncodingSpec spec = makeSpec(u"sinusoidal"_qs, 1000, 1000, 1e4, u"split"_qs, 0);
        std::vector<float> out(std::size_t(95 * 1000));
        QVERIFY2(gpu->encode(spec, 0, 95, out.data(), &why), qPrintable(why));
        const GpuBackend::CallTimings t = gpu->lastTimings();
        QCOMPARE(t.chunks, 10);
        QVERIFY(t.hostCopyMs >= 0.0);
        QVERIFY(t.kernelMs == -1.0 || t.kernelMs >= 0.0);
        QVERIFY(t.transferMs == -1.0 || t.transferMs >= 0.0);
    }

    // Sampling on the GPU: same plan, same numbers as the CPU (semantics in tst_sampling).
    void sampleAgreesWithCpu_data()
    {
        QTest::addColumn<QString>("scheme");
        QTest::addColumn<qint64>("positions");
        QTest::addColumn<qint64>("dims");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<MatrixWindow>("window");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        const qint64 p20 = qint64(1) << 20;
        QTest::addRow("2^20 x 8192 whole, 96 x 54")
            << u"sinusoidal"_qs << p20 << 8192ll << u"interleaved"_qs
            << MatrixWindow{0, 0, double(p20), 8192} << 96 << 54;
        QTest::addRow("near 2^20, fractional, split")
            << u"sinusoidal"_qs << p20 << 8191ll << u"split"_qs
            << MatrixWindow{p20 - 5000.3, 17.6, 4999.1, 3000.2} << 77 << 61;
        QTest::addRow("zoomed in past one cell per pixel")
            << u"sinusoidal"_qs << 1000ll << 64ll << u"interleaved"_qs
            << MatrixWindow{500.2, 10.1, 3.5, 2.5} << 50 << 40;
        QTest::addRow("learned, exact") << u"learned"_qs << 4096ll << 100ll << u"interleaved"_qs
                                        << MatrixWindow{3.5, 1.25, 4000, 97.5} << 33 << 21;
        QTest::addRow("learned 2^20 x 8192, row budget")
            << u"learned"_qs << p20 << 8192ll << u"interleaved"_qs
            << MatrixWindow{0, 0, double(p20), 8192} << 64 << 36;
    }
    void sampleAgreesWithCpu()
    {
        PE_REQUIRE_OPENGL43();
        QFETCH(QString, scheme);
        QFETCH(qint64, positions);
        QFETCH(qint64, dims);
        QFETCH(QString, layout);
        QFETCH(MatrixWindow, window);
        QFETCH(int, width);
        QFETCH(int, height);
        const EncodingSpec spec = makeSpec(scheme, positions, dims, 1e4, layout, 7);
        std::vector<float> gpu(std::size_t(width * height), NAN), cpu(gpu.size(), NAN);
        QString error;
        QVERIFY2(m_gpu->sample(spec, window, width, height, gpu.data(), &error), qPrintable(error));
        QVERIFY2(m_cpu.sample(spec, window, width, height, cpu.data(), &error), qPrintable(error));
        PE_COMPARE_ARRAY(gpu, cpu, {.absolute = 1e-6}, width); // row: pixel y, column: x
    }

    // streamEncoding calls encode() from std::async threads; the UI from its workers.
    void usableFromOtherThreads()
    {
        PE_REQUIRE_OPENGL43();
        const EncodingSpec spec = makeSpec(u"sinusoidal"_qs, 1000, 64, 1e4, u"interleaved"_qs, 0);
        std::vector<float> a(std::size_t(100 * 64)), b(a.size());
        auto job = [&](std::vector<float> *out, qint64 first) {
            QString error;
            return m_gpu->encode(spec, first, 100, out->data(), &error);
        };
        auto first = std::async(std::launch::async, job, &a, 0);
        QVERIFY(first.get());
        auto second = std::async(std::launch::async, job, &b, 900);
        QVERIFY(second.get());
        PE_COMPARE_ARRAY(a, cpuRows(spec, 0, 100), {.absolute = 1e-6});
        PE_COMPARE_ARRAY(b, cpuRows(spec, 900, 100), {.absolute = 1e-6});
    }

    void badArgumentsAreErrors()
    {
        PE_REQUIRE_OPENGL43();
        const EncodingSpec spec = makeSpec(u"sinusoidal"_qs, 10, 4, 1e4, u"interleaved"_qs, 0);
        std::vector<float> out(100);
        QString error;
        QVERIFY(!m_gpu->encode(spec, 8, 5, out.data(), &error));
        QVERIFY2(error.contains(u"outside the 10 positions"_qs), qPrintable(error));
        EncodingSpec bad = spec;
        bad.dims = 0;
        QVERIFY(!m_gpu->encode(bad, 0, 1, out.data(), &error));
        QVERIFY2(error.contains(u"dims"_qs), qPrintable(error));
        QVERIFY(!m_gpu->sample(spec, MatrixWindow{0, 0, 11, 4}, 2, 2, out.data(), &error));
        QVERIFY2(error.contains(u"positions"_qs), qPrintable(error));
    }

    // A shader that does not compile: creation fails with the file name and the compiler log.
    void shaderErrorsCarryTheLog()
    {
        PE_REQUIRE_OPENGL43();
        GpuBackend::Options options;
        options.shaderOverrides.insert(u"encode_phase"_qs, badShader);
        QString why;
        QVERIFY(!GpuBackend::create(&why, options));
        QVERIFY2(why.contains(u"encode_phase.comp does not compile"_qs), qPrintable(why));
        QVERIFY2(why.contains(u"this_is_not_glsl"_qs), qPrintable(why)); // the log names it
    }

    // A shader failing at run time: the wrapper answers from the CPU and says so.
    void runtimeShaderFailureFallsBackToCpu()
    {
        PE_REQUIRE_OPENGL43();
        GpuBackend::Options options;
        options.shaderOverrides.insert(u"sample_phase"_qs, badShader);
        QString why;
        std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why, options);
        QVERIFY2(gpu, qPrintable(why));
        FallbackBackend backend(std::move(gpu));
        const EncodingSpec spec = makeSpec(u"sinusoidal"_qs, 5000, 50, 1e4, u"interleaved"_qs, 0);

        std::vector<float> rows(std::size_t(10 * 50));
        QVERIFY2(backend.encode(spec, 0, 10, rows.data(), &why), qPrintable(why));
        QCOMPARE(backend.id(), u"gpu"_qs); // encode_phase is fine
        QVERIFY(backend.notice().isEmpty());

        std::vector<float> pixels(std::size_t(30 * 20)), expected(pixels.size());
        const MatrixWindow window = MatrixWindow::whole(spec);
        QVERIFY2(backend.sample(spec, window, 30, 20, pixels.data(), &why), qPrintable(why));
        QVERIFY(m_cpu.sample(spec, window, 30, 20, expected.data(), &why));
        PE_COMPARE_ARRAY(pixels, expected, {}); // computed by the CPU itself: exact
        QCOMPARE(backend.id(), u"cpu"_qs);
        QVERIFY(backend.fellBack());
        QVERIFY2(backend.notice().contains(u"GPU backend failed"_qs), qPrintable(backend.notice()));
        QVERIFY2(backend.notice().contains(u"sample_phase.comp does not compile"_qs),
                 qPrintable(backend.notice()));
        // From now on the CPU answers everything.
        QVERIFY(backend.encode(spec, 0, 10, rows.data(), &why));
        QCOMPARE(backend.id(), u"cpu"_qs);
    }

    // A lost context (driver reset): the bare backend reports it; the wrapper falls back.
    void lostContextFallsBackToCpu()
    {
        PE_REQUIRE_OPENGL43();
        QString why;
        std::unique_ptr<GpuBackend> bare = GpuBackend::create(&why);
        QVERIFY2(bare, qPrintable(why));
        bare->loseContextForTesting();
        const EncodingSpec spec = makeSpec(u"learned"_qs, 300, 20, 1e4, u"interleaved"_qs, 5);
        std::vector<float> out(std::size_t(300 * 20));
        QVERIFY(!bare->encode(spec, 0, 300, out.data(), &why));
        QVERIFY2(why.contains(u"lost"_qs), qPrintable(why));

        std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why);
        QVERIFY2(gpu, qPrintable(why));
        gpu->loseContextForTesting();
        FallbackBackend backend(std::move(gpu));
        // Bad arguments are the caller's error, not the GPU's: no fallback for them.
        QVERIFY(!backend.encode(spec, 299, 2, out.data(), &why));
        QVERIFY(!backend.fellBack());
        QVERIFY2(backend.encode(spec, 0, 300, out.data(), &why), qPrintable(why));
        QCOMPARE(backend.id(), u"cpu"_qs);
        PE_COMPARE_ARRAY(out, cpuRows(spec, 0, 300), {}); // exact
        QVERIFY2(backend.notice().contains(u"context was lost"_qs), qPrintable(backend.notice()));
    }

    // auto takes a hardware GPU, but passes over a software renderer (llvmpipe), which is
    // slower than the CPU backend; --backend gpu takes whatever GPU there is.
    void factoryChoosesTheGpu()
    {
        PE_REQUIRE_OPENGL43();
        QString why;
        const std::unique_ptr<Backend> automatic = makeBackend(BackendChoice::Auto, &why);
        QVERIFY(automatic);
        const QString renderer = m_gpu->renderer();
        const bool software = renderer.contains(u"llvmpipe"_qs) ||
                              renderer.contains(u"softpipe"_qs) || renderer.contains(u"swrast"_qs);
        if (software) {
            QCOMPARE(automatic->id(), u"cpu"_qs);
            QVERIFY2(why.contains(u"software renderer"_qs), qPrintable(why));
        } else { // measured: the GPU where it was faster at some kind of job, and why
            QVERIFY2(why.contains(u"materialising to host memory: 16.0 MiB on the "_qs),
                     qPrintable(why));
            QCOMPARE(automatic->id(), why.contains(u"on the GPU"_qs) ? u"gpu"_qs : u"cpu"_qs);
        }
        const std::unique_ptr<Backend> gpu = makeBackend(BackendChoice::Gpu, &why);
        QVERIFY2(gpu, qPrintable(why));
        QCOMPARE(gpu->id(), u"gpu"_qs);
        bool listed = false;
        for (const BackendStatus &status : probeBackends())
            if (status.id == u"gpu"_qs) {
                listed = true;
                QVERIFY(status.available);
                QVERIFY2(status.description.contains(m_gpu->renderer()),
                         qPrintable(status.description));
                QVERIFY2(status.description.contains(u"OpenGL"_qs), qPrintable(status.description));
            }
        QVERIFY(listed);
    }

    // Auto's rule with injected timings (ms of the same jobs on each backend).
    void autoDecidesByMeasurement()
    {
        AutoTimings t;
        t.encodeBytes = qint64(16) << 20;
        t.sampleWidth = 960;
        t.sampleHeight = 540;
        // The GPU faster at both.
        t.cpuEncodeMs = 5.0;
        t.gpuEncodeMs = 1.0;
        t.cpuSampleMs = 3.0;
        t.gpuSampleMs = 0.5;
        AutoDecision d = decideAuto(t);
        QVERIFY(d.encodeOnGpu && d.sampleOnGpu);
        QVERIFY2(d.why.contains(u"materialising to host memory: 16.0 MiB on the GPU (CPU 5.00 "
                                u"ms, GPU 1.00 ms)"_qs),
                 qPrintable(d.why));
        QVERIFY2(d.why.contains(u"sampling a 960 x 540 viewport on the GPU"_qs), qPrintable(d.why));
        // As on the H200 (fb2ffab): the CPU's 16 cores fill memory faster than the bus brings
        // a GPU result, while the GPU samples faster.
        t.cpuEncodeMs = 0.33;
        t.gpuEncodeMs = 3.4;
        t.gpuSampleMs = 1.0;
        d = decideAuto(t);
        QVERIFY(!d.encodeOnGpu);
        QVERIFY(d.sampleOnGpu);
        QVERIFY2(d.why.contains(u"16.0 MiB on the CPU (CPU 0.33 ms, GPU 3.40 ms)"_qs),
                 qPrintable(d.why));
        // Within 10% is not worth a second code path; 10% faster is.
        t.cpuSampleMs = 1.0;
        t.gpuSampleMs = 0.95;
        QVERIFY(!decideAuto(t).sampleOnGpu);
        t.gpuSampleMs = 0.9;
        QVERIFY(decideAuto(t).sampleOnGpu);
        // Not measured (sampling for a job that only encodes, or a GPU that failed): the CPU.
        t.gpuSampleMs = -1.0;
        t.gpuEncodeMs = -1.0;
        d = decideAuto(t);
        QVERIFY(!d.encodeOnGpu && !d.sampleOnGpu);
        QVERIFY2(d.why.contains(u"on the CPU (the GPU was not measured)"_qs), qPrintable(d.why));
    }

    // A job the CPU finishes before the GPU could start does not start it.
    void autoSkipsTheGpuForShortJobs()
    {
        AutoTimings t;
        t.encodeBytes = qint64(16) << 20;
        t.cpuEncodeMs = 1.0; // 16 GB/s
        const qint64 mib = qint64(1) << 20;
        QVERIFY(cpuFinishesBeforeGpuStarts(t, 256 * mib));    // 16 ms < typicalGpuStartMs
        QVERIFY(!cpuFinishesBeforeGpuStarts(t, 32768 * mib)); // 2 s
        t.gpuStartMs = 10.0;                                  // measured in this process
        QVERIFY(!cpuFinishesBeforeGpuStarts(t, 256 * mib));
        QVERIFY(cpuFinishesBeforeGpuStarts(t, 128 * mib));
        t.cpuEncodeMs = -1.0; // the CPU not measured: no shortcut
        QVERIFY(!cpuFinishesBeforeGpuStarts(t, mib));

        PE_REQUIRE_OPENGL43();
        QString why;
        std::unique_ptr<Backend> backend = makeBackend(BackendChoice::Auto, &why, {4096});
        QCOMPARE(backend->id(), u"cpu"_qs);
        QVERIFY2(why.contains(u"less than starting the GPU takes"_qs), qPrintable(why));
        // 1 TiB passes that test (no job runs); then the GPU is started and measured (or passed
        // over as a software renderer).
        backend = makeBackend(BackendChoice::Auto, &why, {1048576 * mib});
        QVERIFY2(!why.contains(u"less than starting the GPU takes"_qs), qPrintable(why));
    }

    // The calibration on this machine's GPU: real timings for each job on each backend.
    void calibrationMeasuresBoth()
    {
        PE_REQUIRE_OPENGL43();
        CpuBackend cpu;
        const AutoTimings t = calibrateBackends(cpu, *m_gpu, true);
        QCOMPARE(t.encodeBytes, qint64(16) << 20);
        QCOMPARE(t.sampleWidth, 960);
        QCOMPARE(t.sampleHeight, 540);
        QVERIFY(t.cpuEncodeMs > 0 && t.gpuEncodeMs > 0 && t.cpuSampleMs > 0 && t.gpuSampleMs > 0);
        qInfo("calibration: %s", qPrintable(decideAuto(t).why));
    }

    // Routes: auto's choice per kind of job; a routed job is not a fallback and has no notice.
    void routesSendJobsWhereAutoChose()
    {
        PE_REQUIRE_OPENGL43();
        QString why;
        std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&why);
        QVERIFY2(gpu, qPrintable(why));
        FallbackBackend backend(std::move(gpu), GpuRoutes{false, true});
        const EncodingSpec spec = makeSpec(u"sinusoidal"_qs, 500, 20, 1e4, u"interleaved"_qs, 0);
        std::vector<float> rows(std::size_t(500 * 20));
        QVERIFY2(backend.encode(spec, 0, 500, rows.data(), &why), qPrintable(why));
        QCOMPARE(backend.id(), u"cpu"_qs);
        PE_COMPARE_ARRAY(rows, cpuRows(spec, 0, 500), {}); // the CPU's own numbers: exact
        std::vector<float> pixels(std::size_t(30 * 20)), expected(pixels.size());
        QVERIFY2(backend.sample(spec, MatrixWindow::whole(spec), 30, 20, pixels.data(), &why),
                 qPrintable(why));
        QCOMPARE(backend.id(), u"gpu"_qs);
        QVERIFY(m_cpu.sample(spec, MatrixWindow::whole(spec), 30, 20, expected.data(), &why));
        PE_COMPARE_ARRAY(pixels, expected, {.absolute = 1e-6});
        QVERIFY(!backend.fellBack());
        QVERIFY(backend.notice().isEmpty());
    }

    // The command line: --backend gpu computes on the GPU and says so. Headless (no display,
    // Qt's offscreen platform) the GPU cannot start: gpu fails with the reason, auto uses the CPU.
    void commandLine()
    {
        PE_REQUIRE_OPENGL43();
        QTemporaryDir dir;
        const auto run = [](const QStringList &args, const QProcessEnvironment &env) {
            QProcess process;
            process.setProcessEnvironment(env);
            process.start(QStringLiteral(PE_EXECUTABLE), args);
            process.waitForFinished(120000);
            return test::RunResult{process.exitStatus() == QProcess::NormalExit ? process.exitCode()
                                                                                : -1,
                                   process.readAllStandardOutput(), process.readAllStandardError()};
        };
        const auto data = [&dir](const QString &backend, const QString &file) {
            return QStringList{u"data"_qs, u"--positions"_qs, u"3000"_qs,        u"--dims"_qs,
                               u"65"_qs,   u"--layout"_qs,    u"split"_qs,       u"--backend"_qs,
                               backend,    u"--out"_qs,       dir.filePath(file)};
        };
        const QProcessEnvironment withDisplay = QProcessEnvironment::systemEnvironment();
        test::RunResult r = run(data(u"gpu"_qs, u"gpu.npy"_qs), withDisplay);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("by the gpu backend (GPU ("), r.err.constData());
        r = run(data(u"cpu"_qs, u"cpu.npy"_qs), withDisplay);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // Same numbers in the two files (.npy 1.0: the header length is at bytes 8-9).
        const auto values = [&dir](const QString &file) {
            QFile f(dir.filePath(file));
            if (!f.open(QIODevice::ReadOnly))
                return std::vector<float>();
            const QByteArray bytes = f.readAll();
            const int offset = 10 + (uchar(bytes[8]) | uchar(bytes[9]) << 8);
            std::vector<float> out(std::size_t(bytes.size() - offset) / sizeof(float));
            std::memcpy(out.data(), bytes.constData() + offset, out.size() * sizeof(float));
            return out;
        };
        const std::vector<float> gpuValues = values(u"gpu.npy"_qs);
        QCOMPARE(gpuValues.size(), std::size_t(3000 * 65));
        PE_COMPARE_ARRAY(gpuValues, values(u"cpu.npy"_qs), {.absolute = 1e-6});
        r = run({u"info"_qs}, withDisplay);
        QVERIFY2(r.out.contains("backend gpu: available, GPU ("), r.out.constData());
        // What auto chose and why: llvmpipe is passed over unmeasured; a hardware GPU is timed.
        const bool software = m_gpu->renderer().contains(u"llvmpipe"_qs) ||
                              m_gpu->renderer().contains(u"softpipe"_qs);
        QVERIFY2(r.out.contains(software ? QByteArray("backend auto: the CPU for every job: ")
                                         : QByteArray("materialising to host memory: 16.0 MiB")),
                 r.out.constData());

        QProcessEnvironment headless = withDisplay;
        for (const QString &name : {u"DISPLAY"_qs, u"WAYLAND_DISPLAY"_qs, u"QT_QPA_PLATFORM"_qs})
            headless.remove(name);
        r = run(data(u"gpu"_qs, u"headless-gpu.npy"_qs), headless);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("the gpu backend cannot start: could not create an OpenGL 4.3"),
                 r.err.constData());
        QVERIFY(!QFile::exists(dir.filePath(u"headless-gpu.npy"_qs)));
        r = run(data(u"auto"_qs, u"headless-auto.npy"_qs), headless);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("by the cpu backend"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1); // Qt's start-up chatter does not reach stderr
        r = run({u"info"_qs}, headless);
        QVERIFY2(r.out.contains("backend gpu: not available: could not create"), r.out.constData());
        QVERIFY2(r.out.contains("backend auto: the CPU for every job: could not create"),
                 r.out.constData());
    }

    void cleanupTestCase()
    {
        if (m_gpu) {
            const QStringList messages = m_gpu->debugMessages();
            qInfo("%lld debug message(s) from the driver", qint64(messages.size()));
            for (const QString &message : messages)
                QVERIFY2(!message.startsWith(u"error"_qs) && !message.startsWith(u"undefined"_qs),
                         qPrintable(message));
        }
        m_gpu.reset();
    }
};

int main(int argc, char **argv)
{
    pe::test::preferOffscreenWithoutDisplay();
    QGuiApplication app(argc, argv);
    TestGpuBackend test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_gpubackend.moc"
