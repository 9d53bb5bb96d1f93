// .npy reader: versions 1.0, 2.0 and 3.0, '<f2', '<f4', '<f8' read back bit-exact (F64 rounded to
// nearest), rows, files written by NumPy itself when Debian's python3 has it, and every hostile
// header refused with one message naming the file and the problem.
#include "formats/npyfile.h"
#include "modelfilewriter.h"
#include "testutil.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

using namespace pe;
using namespace pe::test;

class TestNpyReader : public QObject
{
    Q_OBJECT

private slots:
    void init() { QVERIFY(m_dir.isValid()); }

    void readsFloatTypes_data();
    void readsFloatTypes();
    void readsRowsAndScalars();
    void readsWhatNumpyWrites();
    void readsComplex();
    void hostileFiles_data();
    void hostileFiles();

private:
    QString write(const QByteArray &bytes, const QString &name)
    {
        const QString file = m_dir.filePath(name);
        return writeBytes(file, bytes) ? file : QString();
    }
    QTemporaryDir m_dir;
};

void TestNpyReader::readsFloatTypes_data()
{
    QTest::addColumn<QByteArray>("descr");
    QTest::addColumn<int>("major");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<std::vector<double>>("expected");

    const std::vector<float> f32 = {0.0f, -0.0f, 1.0f, -2.5f, 3.0e38f, 1e-45f, INFINITY};
    std::vector<double> f32Expected(f32.begin(), f32.end());
    const std::vector<quint16> f16 = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x3555};
    std::vector<double> f16Expected;
    for (const quint16 bits : f16)
        f16Expected.push_back(halfReference(bits));
    // F64 rounded to nearest, ties to even (see tst_safetensors for the derivations).
    const std::vector<double> f64 = {1.0 + std::ldexp(1.0, -24), 1.0 + 3 * std::ldexp(1.0, -24),
                                     std::ldexp(1.0, -150), 0.25, std::ldexp(1.0, 128)};
    const std::vector<double> f64Expected = {1.0, 1.0 + std::ldexp(1.0, -22), 0.0, 0.25, INFINITY};
    for (int major : {1, 2, 3}) {
        QTest::addRow("<f4 v%d.0", major)
            << QByteArray("<f4") << major << f32Bytes(f32) << f32Expected;
        QTest::addRow("<f2 v%d.0", major)
            << QByteArray("<f2") << major << u16Bytes(f16) << f16Expected;
        QTest::addRow("<f8 v%d.0", major)
            << QByteArray("<f8") << major << f64Bytes(f64) << f64Expected;
    }
}

void TestNpyReader::readsFloatTypes()
{
    QFETCH(QByteArray, descr);
    QFETCH(int, major);
    QFETCH(QByteArray, data);
    QFETCH(std::vector<double>, expected);
    const QString file = write(npyBytes(descr, {qint64(expected.size())}, data, false, major),
                               QStringLiteral("array.npy"));
    NpyFile npy;
    QString error;
    QVERIFY2(npy.open(file, &error), qPrintable(error));
    QCOMPARE(npy.majorVersion(), major);
    QCOMPARE(npy.tensor().typeName, QString::fromLatin1(descr));
    QCOMPARE(npy.tensor().name, QStringLiteral("array"));
    QCOMPARE(npy.tensor().offset % 64, qint64(0));
    std::vector<float> out;
    QVERIFY2(npy.read(&out, &error), qPrintable(error));
    QCOMPARE(out.size(), expected.size());
    for (size_t i = 0; i < out.size(); ++i) {
        QVERIFY2(double(out[i]) == expected[i] && std::signbit(out[i]) == std::signbit(expected[i]),
                 qPrintable(QStringLiteral("element %1: %2, expected %3")
                                .arg(i)
                                .arg(double(out[i]), 0, 'g', 17)
                                .arg(expected[i], 0, 'g', 17)));
    }
}

void TestNpyReader::readsRowsAndScalars()
{
    std::vector<float> table;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 2; ++c)
            for (int k = 0; k < 3; ++k)
                table.push_back(float(100 * r + 10 * c + k));
    NpyFile npy;
    QString error;
    QVERIFY2(npy.open(write(npyBytes("<f4", {4, 2, 3}, f32Bytes(table)), QStringLiteral("t.npy")),
                      &error),
             qPrintable(error));
    QCOMPARE(npy.tensor().shape, (std::vector<qint64>{4, 2, 3}));
    QCOMPARE(npy.tensor().rowLength(), qint64(6));
    std::vector<float> out;
    QVERIFY(npy.readRows(2, 1, &out, &error));
    QCOMPARE(out, (std::vector<float>{200, 201, 202, 210, 211, 212}));
    QVERIFY(!npy.readRows(3, 2, &out, &error));
    QVERIFY2(error.contains(QLatin1String("out of range")), qPrintable(error));
    // A scalar (shape ()) and an empty array.
    QVERIFY(
        npy.open(write(npyBytes("<f8", {}, f64Bytes({-4.0})), QStringLiteral("s.npy")), &error));
    QVERIFY(npy.tensor().shape.empty());
    QVERIFY(npy.read(&out, &error));
    QCOMPARE(out, std::vector<float>{-4.0f});
    QVERIFY(npy.open(write(npyBytes("<f4", {0, 5}, {}), QStringLiteral("e.npy")), &error));
    QVERIFY(npy.read(&out, &error));
    QVERIFY(out.empty());
}

// np.save of a complex64 / complex128 array (freqs_cis): each element a (real, imag) pair of
// float32 / float64, read as a trailing dimension of 2 in that order.
void TestNpyReader::readsComplex()
{
    // (real, imag) = (10 r + c, -(10 r + c) - 0.5) for a 2 x 3 array.
    std::vector<float> pairs32;
    std::vector<double> pairs64;
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c)
            for (const double v : {double(10 * r + c), -double(10 * r + c) - 0.5}) {
                pairs32.push_back(float(v));
                pairs64.push_back(v);
            }
    for (const char *descr : {"<c8", "<c16"}) {
        const bool wide = QByteArray(descr) == "<c16";
        const QString file =
            write(npyBytes(descr, {2, 3}, wide ? f64Bytes(pairs64) : f32Bytes(pairs32)),
                  QStringLiteral("freqs_cis.npy"));
        NpyFile npy;
        QString error;
        QVERIFY2(npy.open(file, &error), qPrintable(error));
        QCOMPARE(npy.tensor().typeName, QString::fromLatin1(descr));
        QCOMPARE(npy.tensor().dtype, wide ? TensorDType::F64 : TensorDType::F32);
        QCOMPARE(npy.tensor().shape, (std::vector<qint64>{2, 3, 2}));
        std::vector<float> out;
        QVERIFY2(npy.read(&out, &error), qPrintable(error));
        QCOMPARE(out, pairs32);
        QVERIFY(npy.readRows(1, 1, &out, &error));
        QCOMPARE(out, (std::vector<float>{10, -10.5f, 11, -11.5f, 12, -12.5f}));
    }
}

void TestNpyReader::readsWhatNumpyWrites()
{
    const QString python = pythonWithNumpy();
    if (python.isEmpty())
        PE_SKIP_MISSING("no python3 with NumPy to write reference files");
    // NumPy writes each file and prints the float32 it makes of every element (astype(float32),
    // which rounds to nearest even), as hexadecimal bit patterns.
    const QString script = QStringLiteral(R"(
import numpy as np, sys
d = sys.argv[1]
rng = np.random.default_rng(7)
base = rng.standard_normal((5, 7)) * 1e3
arrays = {
    'f4': base.astype('<f4'), 'f2': base.astype('<f2') / 64, 'f8': base * np.pi,
    'f8tiny': np.array([1e-46, 2.0**-150, 1 + 2.0**-24, 3e38, 4e38], dtype='<f8'),
}
for name, a in arrays.items():
    for v in (1, 2, 3):
        with open(f'{d}/{name}_v{v}.npy', 'wb') as f:
            np.lib.format.write_array(f, a, version=(v, 0))
    print(name, ' '.join('%08x' % x for x in a.astype(np.float32).ravel().view(np.uint32)))
np.save(f'{d}/fortran.npy', np.asfortranarray(base))
np.save(f'{d}/int64.npy', np.arange(6, dtype='<i8'))
np.save(f'{d}/bigendian.npy', base.astype('>f4'))
)");
    QProcess process;
    process.start(python, {QStringLiteral("-c"), script, m_dir.path()});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    const QStringList lines = QString::fromLatin1(process.readAllStandardOutput())
                                  .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4);
    for (const QString &line : lines) {
        const QStringList fields = line.split(QLatin1Char(' '));
        for (int v = 1; v <= 3; ++v) {
            NpyFile npy;
            QString error;
            const QString file = m_dir.filePath(QStringLiteral("%1_v%2.npy").arg(fields[0]).arg(v));
            QVERIFY2(npy.open(file, &error), qPrintable(error));
            QCOMPARE(npy.majorVersion(), v);
            std::vector<float> out;
            QVERIFY2(npy.read(&out, &error), qPrintable(error));
            QCOMPARE(qsizetype(out.size()), fields.size() - 1);
            for (size_t i = 0; i < out.size(); ++i) {
                quint32 bits;
                std::memcpy(&bits, &out[i], 4);
                QCOMPARE(QStringLiteral("%1").arg(bits, 8, 16, QLatin1Char('0')),
                         fields[qsizetype(i) + 1]);
            }
        }
    }
    NpyFile npy;
    QString error;
    QVERIFY(!npy.open(m_dir.filePath(QStringLiteral("fortran.npy")), &error));
    QVERIFY2(error.contains(QLatin1String("fortran_order is True")), qPrintable(error));
    QVERIFY(!npy.open(m_dir.filePath(QStringLiteral("int64.npy")), &error));
    QVERIFY2(error.contains(QLatin1String("dtype '<i8' is not supported")), qPrintable(error));
    QVERIFY(!npy.open(m_dir.filePath(QStringLiteral("bigendian.npy")), &error));
    QVERIFY2(error.contains(QLatin1String("dtype '>f4' is big-endian")), qPrintable(error));
}

void TestNpyReader::hostileFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray four = f32Bytes({1, 2, 3, 4});
    const auto raw = [](int major, const QByteArray &dict,
                        const QByteArray &data = {}) -> QByteArray {
        QByteArray out = QByteArray("\x93NUMPY", 6) + char(major) + char(0);
        out += major == 1 ? le16(quint16(dict.size())) : le32(quint32(dict.size()));
        return out + dict + data;
    };
    QTest::addRow("empty") << QByteArray() << QStringLiteral("not a .npy file");
    QTest::addRow("bad magic") << QByteArray("\x93NUMPZ\x01\x00\x00\x00", 10)
                               << QStringLiteral("not a .npy file");
    QTest::addRow("version 4.0") << raw(4, "{}") << QStringLiteral(".npy format version 4.0");
    QTest::addRow("version 1.1") << QByteArray("\x93NUMPY\x01\x01\x02\x00{}", 12)
                                 << QStringLiteral(".npy format version 1.1");
    QTest::addRow("v2 length cut") << QByteArray("\x93NUMPY\x02\x00\x10\x00", 10)
                                   << QStringLiteral("ends inside the header length");
    QTest::addRow("header length past the end") << QByteArray("\x93NUMPY\x01\x00\x00\x10{}", 12)
                                                << QStringLiteral("runs past the end of the file");
    QTest::addRow("v2 header of 4 GB") << QByteArray("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14)
                                       << QStringLiteral("refuses headers over 10000 bytes");
    QTest::addRow("v1 header over 10000 bytes") << raw(1, "{" + QByteArray(10001, ' ') + "}")
                                                << QStringLiteral("refuses headers over 10000");
    QTest::addRow("non-ASCII v1 header")
        << raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), '\xc3\xa9': 1}", four)
        << QStringLiteral("header is not ASCII");
    QTest::addRow("not a dict") << raw(1, "['<f4']", four) << QStringLiteral("no '{'");
    QTest::addRow("unterminated") << raw(1, "{'descr': '<f4', 'shape': (4,", four)
                                  << QStringLiteral("malformed header");
    QTest::addRow("key not a string")
        << raw(1, "{descr: '<f4'}", four) << QStringLiteral("a key is not a string");
    QTest::addRow("missing shape") << raw(1, "{'descr': '<f4', 'fortran_order': False}", four)
                                   << QStringLiteral("the header lacks 'shape'");
    QTest::addRow("missing descr") << raw(1, "{'fortran_order': False, 'shape': (4,)}", four)
                                   << QStringLiteral("the header lacks 'descr'");
    QTest::addRow("unexpected key")
        << raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}", four)
        << QStringLiteral("the unexpected key 'x'");
    QTest::addRow("structured dtype")
        << raw(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,)}", four)
        << QStringLiteral("structured dtype");
    QTest::addRow("fortran_order maybe")
        << raw(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (4,)}", four)
        << QStringLiteral("neither True nor False");
    QTest::addRow("negative dimension")
        << raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}", four)
        << QStringLiteral("not a non-negative whole number");
    QTest::addRow("dimension overflows int64")
        << raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
               four)
        << QStringLiteral("not a non-negative whole number below 2^63");
    QTest::addRow("shape product overflows")
        << raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
               four)
        << QStringLiteral("more elements than a 64-bit size holds");
    QTest::addRow("bytes overflow")
        << raw(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", four)
        << QStringLiteral("more elements than a 64-bit size holds");
    QTest::addRow("shape a list") << raw(1,
                                         "{'descr': '<f4', 'fortran_order': False, 'shape': [4]}",
                                         four)
                                  << QStringLiteral("'shape' is not a tuple");
    QTest::addRow("int64") << npyBytes("<i8", {2}, QByteArray(16, 0))
                           << QStringLiteral(
                                  "dtype '<i8' is not supported; pescope reads float arrays");
    QTest::addRow("uint8") << npyBytes("|u1", {4}, QByteArray(4, 0))
                           << QStringLiteral("dtype '|u1'");
    // complex64 / complex128 are read (as (real, imag) pairs); clongdouble is not.
    QTest::addRow("complex256") << npyBytes("<c32", {1}, QByteArray(32, 0))
                                << QStringLiteral("dtype '<c32'");
    QTest::addRow("big-endian") << npyBytes(">f8", {1}, QByteArray(8, 0))
                                << QStringLiteral("dtype '>f8' is big-endian");
    QTest::addRow("fortran order")
        << npyBytes("<f4", {2, 2}, four, true) << QStringLiteral("fortran_order is True");
    QTest::addRow("truncated data") << npyBytes("<f4", {5}, four)
                                    << QStringLiteral("needs 20 bytes of data, but the file has 16 "
                                                      "after its header (truncated?)");
    // Three complex64 values are 24 bytes (two floats each), not the 16 there.
    QTest::addRow("truncated complex")
        << npyBytes("<c8", {3}, four)
        << QStringLiteral("needs 24 bytes of data, but the file has 16 after its header");
    QTest::addRow("extra data") << npyBytes("<f4", {3}, four)
                                << QStringLiteral("needs 12 bytes of data, but the file has 16");
}

void TestNpyReader::hostileFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString file = write(bytes, QStringLiteral("hostile.npy"));
    NpyFile npy;
    QString error;
    QVERIFY(!npy.open(file, &error));
    QVERIFY2(error.startsWith(file + QLatin1String(": ")), qPrintable(error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    QCOMPARE(npy.tensor().byteSize, qint64(0));
}

QTEST_GUILESS_MAIN(TestNpyReader)
#include "tst_npyreader.moc"
