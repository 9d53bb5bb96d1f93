// safetensors reader: every float type read back bit-exact, rows, metadata, sharded models
// opened shard by shard, and every hostile header refused with one message naming the file.
// Files are written by tests/modelfilewriter.h from the format's README, not by pescope.
#include "formats/mappedfile.h"
#include "formats/modeltensors.h"
#include "formats/safetensorsfile.h"
#include "formats/shardedsafetensors.h"
#include "modelfilewriter.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <cfloat>
#include <cmath>
#include <cstring>

#ifdef Q_OS_UNIX
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#endif

using namespace pe;
using namespace pe::test;

namespace {

// A header of `count` one-element F16 tensors named "model.layers.<i>.w" in data order (about
// 75 bytes each, as in the file), and the data they describe.
QByteArray manyTensorsFile(int count)
{
    QByteArray header = "{";
    header.reserve(qsizetype(count) * 80);
    for (int i = 0; i < count; ++i) {
        header += i ? ",\"" : "\"";
        header += "model.layers." + QByteArray::number(i) +
                  ".w\":{\"dtype\":\"F16\",\"shape\":[1],"
                  "\"data_offsets\":[" +
                  QByteArray::number(2 * i) + ',' + QByteArray::number(2 * i + 2) + "]}";
    }
    header += '}';
    return safetensorsFromHeader(header, QByteArray(qsizetype(count) * 2, '\0'));
}

// The process's resident set and its peak since the last resetPeakMemory(), in bytes, from
// /proc/self/status (VmRSS, VmHWM); -1 when unreadable.
qint64 statusBytes(const char *field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(std::strlen(field)))
                       .trimmed()
                       .split(' ')
                       .value(0)
                       .toLongLong() *
                   1024;
    }
    return -1;
}

// Writing 5 to /proc/self/clear_refs resets VmHWM to the current VmRSS (Linux 4.0 and later).
bool resetPeakMemory()
{
    QFile clearRefs(QStringLiteral("/proc/self/clear_refs"));
    return clearRefs.open(QIODevice::WriteOnly) && clearRefs.write("5") == 1;
}

quint32 bitsOf(float v)
{
    quint32 b;
    std::memcpy(&b, &v, 4);
    return b;
}

// Equal as float32 bit patterns (so -0 differs from +0), or both NaN.
bool sameFloat(float actual, double expected)
{
    if (std::isnan(expected))
        return std::isnan(actual);
    return bitsOf(actual) == bitsOf(float(expected)) && double(actual) == expected;
}

} // namespace

class TestSafetensors : public QObject
{
    Q_OBJECT

private slots:
    void init() { QVERIFY(m_dir.isValid()); }

    void readsF32BitExact();
    void readsF16Exactly();
    void readsBF16Exactly();
    void roundsF64ToNearestEven();
    void readsAtStoredPrecision();
    void readsRowRanges();
    void describesTensorsAndMetadata();
    void recognisesEveryDtypeName();
    void refusesNonFloatTensorsByName();
    void emptyTensorsAndScalars();
    void hostileFiles_data();
    void hostileFiles();
    void refusesWhatIsNotARegularFile_data();
    void refusesWhatIsNotARegularFile();
    void shardedOpensOnlyTheNeededShard();
    void shardedHostileIndexes_data();
    void shardedHostileIndexes();
    void refusesMoreTensorsThanTheLimit();
    void headerMemoryStaysWithinFourTimesItsSize();
    void findsEveryTensorOfALargeHeader();

private:
    QString path(const QString &name) const { return m_dir.filePath(name); }
    QTemporaryDir m_dir;
};

void TestSafetensors::readsF32BitExact()
{
    const std::vector<float> values = {
        0.0f,     -0.0f,     1.0f,        -1.5f,
        FLT_MAX,  -FLT_MAX,  FLT_MIN,     1e-45f /* smallest subnormal */,
        INFINITY, -INFINITY, 3.14159274f, 1e-10f};
    const QString file = path(QStringLiteral("f32.safetensors"));
    QVERIFY(writeBytes(
        file, safetensorsBytes(
                  {{QStringLiteral("t"), QStringLiteral("F32"), {3, 4}, f32Bytes(values)}})));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    std::vector<float> out;
    QVERIFY2(st.read(QStringLiteral("t"), &out, &error), qPrintable(error));
    QCOMPARE(out.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i)
        QCOMPARE(bitsOf(out[i]), bitsOf(values[i]));
    // A NaN payload survives the copy.
    const float quietNan = std::bit_cast<float>(quint32(0x7fc01234u));
    QVERIFY(writeBytes(
        file, safetensorsBytes(
                  {{QStringLiteral("n"), QStringLiteral("F32"), {1}, f32Bytes({quietNan})}})));
    QVERIFY(st.open(file, &error));
    QVERIFY(st.read(QStringLiteral("n"), &out, &error));
    QCOMPARE(bitsOf(out[0]), 0x7fc01234u);
}

void TestSafetensors::readsF16Exactly()
{
    // 1, -2, 65504 (largest), 2^-14 (smallest normal), 2^-24 (smallest subnormal), the largest
    // subnormal, -0, +inf, -inf, 1/3 rounded, 0.1 rounded, NaN.
    const std::vector<quint16> bits = {0x3c00, 0xc000, 0x7bff, 0x0400, 0x0001, 0x03ff,
                                       0x8000, 0x7c00, 0xfc00, 0x3555, 0x2e66, 0x7e00};
    const QString file = path(QStringLiteral("f16.safetensors"));
    QVERIFY(writeBytes(file, safetensorsBytes({{QStringLiteral("h"),
                                                QStringLiteral("F16"),
                                                {qint64(bits.size())},
                                                u16Bytes(bits)}})));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    std::vector<float> out;
    QVERIFY2(st.read(QStringLiteral("h"), &out, &error), qPrintable(error));
    QCOMPARE(out.size(), bits.size());
    for (size_t i = 0; i < bits.size(); ++i)
        QVERIFY2(sameFloat(out[i], halfReference(bits[i])),
                 qPrintable(QStringLiteral("F16 0x%1 read as %2, expected %3")
                                .arg(bits[i], 4, 16, QLatin1Char('0'))
                                .arg(double(out[i]), 0, 'g', 17)
                                .arg(halfReference(bits[i]), 0, 'g', 17)));
    QVERIFY(std::signbit(out[6]));
    QCOMPARE(double(out[2]), 65504.0);
    QCOMPARE(double(out[4]), std::ldexp(1.0, -24));
}

void TestSafetensors::readsBF16Exactly()
{
    // 1, -2, pi rounded, the largest finite, the smallest normal, a subnormal, -0, inf, NaN.
    const std::vector<quint16> bits = {0x3f80, 0xc000, 0x4049, 0x7f7f, 0x0080,
                                       0x0001, 0x8000, 0x7f80, 0x7fc0};
    const QString file = path(QStringLiteral("bf16.safetensors"));
    QVERIFY(writeBytes(file, safetensorsBytes({{QStringLiteral("b"),
                                                QStringLiteral("BF16"),
                                                {qint64(bits.size())},
                                                u16Bytes(bits)}})));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    std::vector<float> out;
    QVERIFY2(st.read(QStringLiteral("b"), &out, &error), qPrintable(error));
    for (size_t i = 0; i < bits.size(); ++i)
        QVERIFY2(sameFloat(out[i], bfloat16Reference(bits[i])),
                 qPrintable(QStringLiteral("BF16 0x%1").arg(bits[i], 4, 16, QLatin1Char('0'))));
    QCOMPARE(double(out[2]), 3.140625);
}

void TestSafetensors::roundsF64ToNearestEven()
{
    // Each double with the float IEEE-754 round-to-nearest-even gives, derived by hand:
    //  1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties to the even one, 1.
    //  1 + 3 * 2^-24 is halfway between 1 + 2^-23 and 1 + 2^-22: ties to even, 1 + 2^-22.
    //  1 + 2^-24 + 2^-40 is above halfway: 1 + 2^-23.
    //  2^-150 is half the smallest subnormal: ties to even, +0; 2^-150 + 2^-170 goes up, 2^-149.
    //  FLT_MAX stays; 2^128 overflows to inf; -1e300 to -inf; 0.5 and -0 are exact.
    const double flt_max = std::ldexp(2.0 - std::ldexp(1.0, -23), 127);
    const std::vector<std::pair<double, double>> cases = {
        {1.0 + std::ldexp(1.0, -24), 1.0},
        {1.0 + 3 * std::ldexp(1.0, -24), 1.0 + std::ldexp(1.0, -22)},
        {1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -40), 1.0 + std::ldexp(1.0, -23)},
        {std::ldexp(1.0, -150), 0.0},
        {std::ldexp(1.0, -150) + std::ldexp(1.0, -170), std::ldexp(1.0, -149)},
        {flt_max, flt_max},
        {std::ldexp(1.0, 128), INFINITY},
        {-1e300, -INFINITY},
        {0.5, 0.5},
        {-0.0, -0.0},
        {std::nan(""), std::nan("")},
    };
    std::vector<double> input;
    for (const auto &c : cases)
        input.push_back(c.first);
    const QString file = path(QStringLiteral("f64.safetensors"));
    QVERIFY(writeBytes(file, safetensorsBytes({{QStringLiteral("d"),
                                                QStringLiteral("F64"),
                                                {qint64(input.size())},
                                                f64Bytes(input)}})));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    std::vector<float> out;
    QVERIFY2(st.read(QStringLiteral("d"), &out, &error), qPrintable(error));
    for (size_t i = 0; i < cases.size(); ++i)
        QVERIFY2(sameFloat(out[i], cases[i].second),
                 qPrintable(QStringLiteral("case %1: %2 read as %3, expected %4")
                                .arg(i)
                                .arg(cases[i].first, 0, 'g', 17)
                                .arg(double(out[i]), 0, 'g', 17)
                                .arg(cases[i].second, 0, 'g', 17)));
    QVERIFY(std::signbit(out[9]));
    QVERIFY(!std::signbit(out[3]));
}

// `pescope verify` reads at the stored precision (issue 26): F64 as F64, values float32 cannot
// hold included; F32, F16 and BF16 widened exactly; a row range alike.
void TestSafetensors::readsAtStoredPrecision()
{
    const std::vector<double> wide = {1.0 + std::ldexp(1.0, -40), 0.1, -M_PI, 1e300};
    const std::vector<quint16> half = {0x3555, 0x0001, 0xc000};
    const std::vector<quint16> brain = {0x4049, 0x0001, 0xc000};
    const std::vector<float> single = {0.1f, -3.5f, 1e-40f};
    const QString file = path(QStringLiteral("precision.safetensors"));
    QVERIFY(writeBytes(
        file,
        safetensorsBytes({{QStringLiteral("d"), QStringLiteral("F64"), {2, 2}, f64Bytes(wide)},
                          {QStringLiteral("h"), QStringLiteral("F16"), {3}, u16Bytes(half)},
                          {QStringLiteral("b"), QStringLiteral("BF16"), {3}, u16Bytes(brain)},
                          {QStringLiteral("f"), QStringLiteral("F32"), {3}, f32Bytes(single)}})));
    ModelTensors tensors;
    QString error;
    QVERIFY2(tensors.open(file, ModelSourceKind::Safetensors, &error), qPrintable(error));
    std::vector<double> out;
    QVERIFY2(tensors.readRows(QStringLiteral("d"), 0, -1, &out, &error), qPrintable(error));
    QCOMPARE(out, wide);
    QVERIFY(tensors.readRows(QStringLiteral("d"), 1, 1, &out, &error));
    QCOMPARE(out, (std::vector<double>{-M_PI, 1e300}));
    QVERIFY(tensors.readRows(QStringLiteral("h"), 0, -1, &out, &error));
    for (std::size_t i = 0; i < half.size(); ++i)
        QCOMPARE(out[i], halfReference(half[i]));
    QVERIFY(tensors.readRows(QStringLiteral("b"), 0, -1, &out, &error));
    for (std::size_t i = 0; i < brain.size(); ++i)
        QCOMPARE(out[i], bfloat16Reference(brain[i]));
    QVERIFY(tensors.readRows(QStringLiteral("f"), 0, -1, &out, &error));
    for (std::size_t i = 0; i < single.size(); ++i)
        QCOMPARE(out[i], double(single[i]));
}

void TestSafetensors::readsRowRanges()
{
    // A [5, 3] table whose element (r, c) is 10 r + c.
    std::vector<float> table;
    for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 3; ++c)
            table.push_back(float(10 * r + c));
    const QString file = path(QStringLiteral("rows.safetensors"));
    QVERIFY(writeBytes(
        file, safetensorsBytes(
                  {{QStringLiteral("a"), QStringLiteral("F32"), {2}, f32Bytes({7, 8})},
                   {QStringLiteral("wpe"), QStringLiteral("F32"), {5, 3}, f32Bytes(table)}})));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    std::vector<float> out;
    QVERIFY2(st.readRows(QStringLiteral("wpe"), 1, 2, &out, &error), qPrintable(error));
    QCOMPARE(out, (std::vector<float>{10, 11, 12, 20, 21, 22}));
    QVERIFY(st.readRows(QStringLiteral("wpe"), 3, -1, &out, &error));
    QCOMPARE(out, (std::vector<float>{30, 31, 32, 40, 41, 42}));
    QVERIFY(st.readRows(QStringLiteral("wpe"), 5, 0, &out, &error));
    QVERIFY(out.empty());
    QVERIFY(!st.readRows(QStringLiteral("wpe"), 4, 2, &out, &error));
    QVERIFY2(error.startsWith(st.path()) && error.contains(QLatin1String("out of range")),
             qPrintable(error));
    QVERIFY(!st.readRows(QStringLiteral("wpe"), -1, 1, &out, &error));
    QVERIFY(!st.read(QStringLiteral("missing"), &out, &error));
    QVERIFY2(error.contains(QLatin1String("no tensor named missing")), qPrintable(error));
    // A 1-D tensor's rows are its elements.
    QVERIFY(st.readRows(QStringLiteral("a"), 1, 1, &out, &error));
    QCOMPARE(out, std::vector<float>{8});
}

void TestSafetensors::describesTensorsAndMetadata()
{
    const QString file = path(QStringLiteral("meta.safetensors"));
    const QByteArray bytes = safetensorsBytes(
        {{QStringLiteral("z.second"), QStringLiteral("F16"), {2, 2}, u16Bytes({1, 2, 3, 4})},
         {QStringLiteral("a.first"), QStringLiteral("F32"), {3}, f32Bytes({1, 2, 3})}},
        QStringLiteral("{\"format\":\"pt\",\"note\":\"\\u00e9t\\u00e9\"}"));
    QVERIFY(writeBytes(file, bytes));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    QCOMPARE(st.metadata().value(QStringLiteral("format")), QStringLiteral("pt"));
    QCOMPARE(st.metadata().value(QStringLiteral("note")), QString::fromUtf8("\xc3\xa9t\xc3\xa9"));
    QCOMPARE(st.tensors().size(), qsizetype(2));
    // In data order, not name order.
    QCOMPARE(st.tensors()[0].name, QStringLiteral("z.second"));
    const qint64 headerLength = qFromLittleEndian<quint64>(bytes.constData());
    QCOMPARE(st.headerSize(), headerLength);
    const std::optional<TensorInfo> first = st.find(QStringLiteral("z.second"));
    const std::optional<TensorInfo> second = st.find(QStringLiteral("a.first"));
    QVERIFY(first && second);
    QCOMPARE(first->offset, 8 + headerLength);
    QCOMPARE(first->byteSize, qint64(8));
    QCOMPARE(first->shape, (std::vector<qint64>{2, 2}));
    QCOMPARE(first->dtype, TensorDType::F16);
    QCOMPARE(first->typeName, QStringLiteral("F16"));
    QCOMPARE(first->rowCount(), qint64(2));
    QCOMPARE(first->rowLength(), qint64(2));
    QCOMPARE(second->offset, 8 + headerLength + 8);
    QCOMPARE(second->byteSize, qint64(12));
    QCOMPARE(second->file, st.path());
    QCOMPARE(second->shapeString(), QStringLiteral("[3]"));
}

void TestSafetensors::recognisesEveryDtypeName()
{
    // The Dtype enum of safetensors/src/tensor.rs with its bitsize(), typed here from the
    // source: every name opens, with the size the format gives it.
    const std::vector<std::pair<QString, int>> dtypes = {
        {QStringLiteral("BOOL"), 8},        {QStringLiteral("F4"), 4},
        {QStringLiteral("F6_E2M3"), 6},     {QStringLiteral("F6_E3M2"), 6},
        {QStringLiteral("U8"), 8},          {QStringLiteral("I8"), 8},
        {QStringLiteral("F8_E5M2"), 8},     {QStringLiteral("F8_E4M3"), 8},
        {QStringLiteral("F8_E8M0"), 8},     {QStringLiteral("F8_E4M3FNUZ"), 8},
        {QStringLiteral("F8_E5M2FNUZ"), 8}, {QStringLiteral("I16"), 16},
        {QStringLiteral("U16"), 16},        {QStringLiteral("F16"), 16},
        {QStringLiteral("BF16"), 16},       {QStringLiteral("I32"), 32},
        {QStringLiteral("U32"), 32},        {QStringLiteral("F32"), 32},
        {QStringLiteral("C64"), 64},        {QStringLiteral("F64"), 64},
        {QStringLiteral("I64"), 64},        {QStringLiteral("U64"), 64},
    };
    QCOMPARE(safetensorsDTypeNames().size(), qsizetype(dtypes.size()));
    for (const auto &[name, bits] : dtypes) {
        // 8 elements: a whole number of bytes for every size.
        const QByteArray data(8 * bits / 8, '\x01');
        const QString file = path(QStringLiteral("dtype-%1.safetensors").arg(name));
        QVERIFY(writeBytes(file, safetensorsBytes({{QStringLiteral("t"), name, {8}, data}})));
        SafetensorsFile st;
        QString error;
        QVERIFY2(st.open(file, &error), qPrintable(name + QLatin1String(": ") + error));
        QCOMPARE(st.find(QStringLiteral("t"))->typeName, name);
        QCOMPARE(st.find(QStringLiteral("t"))->byteSize, qint64(bits));
    }
}

void TestSafetensors::refusesNonFloatTensorsByName()
{
    const QString file = path(QStringLiteral("ints.safetensors"));
    QVERIFY(writeBytes(
        file, safetensorsBytes(
                  {{QStringLiteral("position_ids"), QStringLiteral("I64"), {2}, QByteArray(16, 0)},
                   {QStringLiteral("fp8"), QStringLiteral("F8_E4M3"), {4}, QByteArray(4, 0)}})));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    const std::optional<TensorInfo> ids = st.find(QStringLiteral("position_ids"));
    QVERIFY(ids);
    QCOMPARE(ids->dtype, TensorDType::Unsupported);
    QVERIFY(!ids->isReadable());
    std::vector<float> out;
    QVERIFY(!st.read(QStringLiteral("position_ids"), &out, &error));
    QCOMPARE(error, file + QStringLiteral(": tensor position_ids is I64; pescope reads F32, F16, "
                                          "BF16 and F64 tensors only"));
    QVERIFY(!st.read(QStringLiteral("fp8"), &out, &error));
    QVERIFY2(error.contains(QLatin1String("fp8 is F8_E4M3")), qPrintable(error));
}

void TestSafetensors::emptyTensorsAndScalars()
{
    // Empty tensors store no data; a scalar has shape [] and one element.
    const QString file = path(QStringLiteral("empty.safetensors"));
    QVERIFY(writeBytes(
        file, safetensorsBytes(
                  {{QStringLiteral("empty"), QStringLiteral("F32"), {0, 4}, {}},
                   {QStringLiteral("scalar"), QStringLiteral("F64"), {}, f64Bytes({2.5})}})));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    std::vector<float> out;
    QVERIFY(st.read(QStringLiteral("empty"), &out, &error));
    QVERIFY(out.empty());
    QVERIFY(st.read(QStringLiteral("scalar"), &out, &error));
    QCOMPARE(out, std::vector<float>{2.5f});
    QCOMPARE(st.find(QStringLiteral("scalar"))->rowCount(), qint64(1));
    // No tensors at all: a header "{}" and nothing else.
    QVERIFY(writeBytes(file, safetensorsFromHeader("{}      ", {})));
    QVERIFY2(st.open(file, &error), qPrintable(error));
    QVERIFY(st.tensors().empty());
}

void TestSafetensors::hostileFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");

    const auto header = [](const QByteArray &json, const QByteArray &data = {}) -> QByteArray {
        return safetensorsFromHeader(json, data);
    };
    const QByteArray f32x2 = f32Bytes({1, 2});
    QTest::addRow("empty file") << QByteArray() << QStringLiteral("too short");
    QTest::addRow("7 bytes") << QByteArray(7, '\0') << QStringLiteral("too short");
    QTest::addRow("header length past the end") << QByteArray(le64(1000) + QByteArray("{}"))
                                                << QStringLiteral("runs past the end of the file");
    QTest::addRow("header length 2^63") << QByteArray(le64(quint64(1) << 63) + QByteArray("{}"))
                                        << QStringLiteral("exceeds the safetensors limit");
    QTest::addRow("header length 2^64 - 1") << QByteArray(le64(~quint64(0)) + QByteArray("{}"))
                                            << QStringLiteral("exceeds the safetensors limit");
    QTest::addRow("header not an object")
        << header("[1, 2]  ") << QStringLiteral("does not start with '{'");
    QTest::addRow("zero-length header") << header({}) << QStringLiteral("does not start with '{'");
    QTest::addRow("truncated JSON")
        << header("{\"a\":{\"dtype\"") << QStringLiteral("invalid JSON");
    // The header is parsed one entry at a time (JsonMembers); what joins the entries is checked
    // as Qt's parser would check the whole text.
    const QByteArray a = "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}";
    QTest::addRow("trailing comma")
        << header("{" + a + ",}", f32x2.left(4))
        << QStringLiteral("invalid JSON at byte 54: a member is missing");
    QTest::addRow("two commas") << header("{" + a + ",,\"b\":1}", f32x2.left(4))
                                << QStringLiteral("a member is missing");
    QTest::addRow("entries without a comma")
        << header("{" + a + " \"b\":{}}", f32x2.left(4)) << QStringLiteral("invalid JSON at byte");
    QTest::addRow("']' closing the header")
        << header("{" + a + "]", f32x2.left(4))
        << QStringLiteral("invalid JSON at byte 53: ']' closes an object");
    QTest::addRow("'}' closing a shape")
        << header("{\"a\":{\"dtype\":\"F32\",\"shape\":[1},\"data_offsets\":[0,4]}}", f32x2.left(4))
        << QStringLiteral("'}' closes an array");
    QTest::addRow("text after the header's object")
        << header("{" + a + "} x", f32x2.left(4))
        << QStringLiteral("invalid JSON at byte 55: text after the object");
    QTest::addRow("a second object")
        << header("{" + a + "}{}", f32x2.left(4)) << QStringLiteral("text after the object");
    QTest::addRow("unterminated key")
        << header("{\"a", {}) << QStringLiteral("a string never ends");
    QTest::addRow("unclosed header")
        << header("{" + a, f32x2.left(4)) << QStringLiteral("the text ends inside the object");
    QTest::addRow("JSON nested 5000 deep")
        << header("{\"a\":" + QByteArray(5000, '[') + QByteArray(5000, ']') + "}")
        << QStringLiteral("nested deeper than 8 levels");
    QTest::addRow("duplicate tensor names")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                  "\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                  f32x2)
        << QStringLiteral("duplicate key \"w\"");
    QTest::addRow("duplicate names, one escaped")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                  "\"\\u0077\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                  f32x2)
        << QStringLiteral("duplicate key \"w\"");
    QTest::addRow("unknown dtype")
        << header("{\"w\":{\"dtype\":\"F12\",\"shape\":[2],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("tensor w has the unknown dtype \"F12\"");
    QTest::addRow("lower-case dtype")
        << header("{\"w\":{\"dtype\":\"f32\",\"shape\":[2],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("unknown dtype \"f32\"");
    QTest::addRow("no dtype") << header("{\"w\":{\"shape\":[2],\"data_offsets\":[0,8]}}", f32x2)
                              << QStringLiteral("tensor w has no dtype");
    QTest::addRow("entry not an object")
        << header("{\"w\":[1,2]}") << QStringLiteral("entry for tensor w is not a JSON object");
    QTest::addRow("negative dimension")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("non-negative whole numbers");
    QTest::addRow("fractional dimension")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("non-negative whole numbers");
    // Issue 35: numbers no integer type holds are refused, never cast.
    QTest::addRow("dimension 3.3e56")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[3.3e56],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("below 2^63");
    QTest::addRow("dimension -3.3e56")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[-3.3e56],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("below 2^63");
    QTest::addRow("dimension 2^63")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[9223372036854775808],"
                  "\"data_offsets\":[0,8]}}",
                  f32x2)
        << QStringLiteral("below 2^63");
    QTest::addRow("data offset 3.3e56")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,3.3e56]}}", f32x2)
        << QStringLiteral("data_offsets must be two");
    QTest::addRow("data offset -1e300")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[-1e300,8]}}", f32x2)
        << QStringLiteral("data_offsets must be two");
    QTest::addRow("dimension 1e30")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[1e30],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("below 2^63");
    QTest::addRow("shape product overflows int64")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],"
                  "\"data_offsets\":[0,8]}}",
                  f32x2)
        << QStringLiteral("more elements than a 64-bit count holds");
    QTest::addRow("elements x bits overflow")
        << header("{\"w\":{\"dtype\":\"F64\",\"shape\":[4611686018427387904],"
                  "\"data_offsets\":[0,8]}}",
                  f32x2)
        << QStringLiteral("more elements than a 64-bit count holds");
    QTest::addRow("F4 odd element count")
        << header("{\"w\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", "ab")
        << QStringLiteral("do not end on a byte boundary");
    QTest::addRow("one data offset")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", f32x2)
        << QStringLiteral("data_offsets must be two");
    QTest::addRow("string data offsets")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[\"0\",\"8\"]}}", f32x2)
        << QStringLiteral("data_offsets must be two");
    QTest::addRow("end before begin")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,0]}}", f32x2)
        << QStringLiteral("end before they begin");
    QTest::addRow("offsets past the end (truncated file)")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", f32x2)
        << QStringLiteral("run past the end of the file");
    QTest::addRow("offsets at 2^62")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4611686018427387904,"
                  "4611686018427387912]}}",
                  f32x2)
        << QStringLiteral("run past the end of the file");
    QTest::addRow("size disagrees with dtype x shape")
        << header("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", f32x2)
        << QStringLiteral("hold 8 bytes, but F32 [3] needs 12");
    QTest::addRow("overlapping tensors")
        << header("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                  "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                  f32Bytes({1, 2, 3}))
        << QStringLiteral("tensors a and b overlap");
    QTest::addRow("two tensors on the same bytes")
        << header("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                  "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                  f32x2)
        << QStringLiteral("overlap");
    QTest::addRow("a gap between tensors")
        << header("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                  "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
                  f32Bytes({1, 2, 3}))
        << QStringLiteral("bytes 4 to 8 of the data belong to no tensor");
    QTest::addRow("trailing bytes")
        << header("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", f32x2)
        << QStringLiteral("4 bytes after the last tensor's data");
    QTest::addRow("metadata not an object") << header("{\"__metadata__\":\"pt\"}")
                                            << QStringLiteral("__metadata__ is not a JSON object");
    QTest::addRow("metadata value not a string")
        << header("{\"__metadata__\":{\"format\":1}}")
        << QStringLiteral("__metadata__ entry \"format\" is not a string");
    QByteArray manyZeros = "{\"__metadata__\":{\"x\":\"y\"},\"w\":{\"dtype\":\"F32\",\"shape\":[";
    for (int i = 0; i < 40000; ++i)
        manyZeros += i ? ",0" : "0";
    manyZeros += "],\"data_offsets\":[0,0]}}";
    QTest::addRow("a shape of 40000 dimensions")
        << header(manyZeros) << QStringLiteral("entries, too many for a text of");
}

void TestSafetensors::hostileFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString file = path(QStringLiteral("hostile.safetensors"));
    QVERIFY(writeBytes(file, bytes));
    SafetensorsFile st;
    QString error;
    QVERIFY(!st.open(file, &error));
    QVERIFY2(error.startsWith(file + QLatin1String(": ")), qPrintable(error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY(!error.contains(QLatin1Char('\n')));
    QVERIFY(st.tensors().empty());
}

void TestSafetensors::refusesWhatIsNotARegularFile_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::addRow("missing") << QStringLiteral("missing") << QStringLiteral("no such file");
    QTest::addRow("directory") << QStringLiteral("directory") << QStringLiteral("is a folder");
#ifdef Q_OS_UNIX
    QTest::addRow("fifo") << QStringLiteral("fifo") << QStringLiteral("is a named pipe (FIFO)");
    QTest::addRow("character device")
        << QStringLiteral("device") << QStringLiteral("is a character device");
    QTest::addRow("socket") << QStringLiteral("socket") << QStringLiteral("is a socket");
    QTest::addRow("symlink to a directory")
        << QStringLiteral("symlink") << QStringLiteral("is a folder");
#endif
}

void TestSafetensors::refusesWhatIsNotARegularFile()
{
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QString target = path(kind);
    if (kind == QLatin1String("directory")) {
        QVERIFY(QDir().mkpath(target));
    }
#ifdef Q_OS_UNIX
    else if (kind == QLatin1String("fifo")) {
        QCOMPARE(::mkfifo(QFile::encodeName(target).constData(), 0600), 0);
    } else if (kind == QLatin1String("device")) {
        target = QStringLiteral("/dev/null");
    } else if (kind == QLatin1String("socket")) {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const QByteArray name = QFile::encodeName(target);
        QVERIFY(size_t(name.size()) < sizeof(address.sun_path));
        std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)), 0);
        ::close(fd);
    } else if (kind == QLatin1String("symlink")) {
        QVERIFY(QDir().mkpath(path(QStringLiteral("realdir"))));
        QVERIFY(QFile::link(path(QStringLiteral("realdir")), target));
    }
#endif
    // The FIFO has no writer: a reader that opened it blocking would hang here.
    SafetensorsFile st;
    QString error;
    QVERIFY(!st.open(target, &error));
    QVERIFY2(error.startsWith(QDir::toNativeSeparators(target)) && error.contains(expected),
             qPrintable(error));
    MappedFile mapped;
    QVERIFY(!mapped.open(target, &error));
    QVERIFY(!mapped.isOpen());
}

void TestSafetensors::shardedOpensOnlyTheNeededShard()
{
    const QString folder = path(QStringLiteral("sharded"));
    const QString shard1 = QStringLiteral("model-00001-of-00003.safetensors");
    const QString shard2 = QStringLiteral("model-00002-of-00003.safetensors");
    const QString shard3 = QStringLiteral("model-00003-of-00003.safetensors");
    QVERIFY(writeBytes(folder + QLatin1Char('/') + shard1,
                       safetensorsBytes({{QStringLiteral("wte.weight"),
                                          QStringLiteral("F32"),
                                          {2, 2},
                                          f32Bytes({1, 2, 3, 4})}})));
    QVERIFY(
        writeBytes(folder + QLatin1Char('/') + shard2,
                   safetensorsBytes({{QStringLiteral("wpe.weight"),
                                      QStringLiteral("F16"),
                                      {3, 2},
                                      u16Bytes({0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600})},
                                     {QStringLiteral("ln.bias"),
                                      QStringLiteral("BF16"),
                                      {2},
                                      u16Bytes({0x3f80, 0xbf80})}})));
    // The third shard is garbage: opening it would fail, so the test shows it is never opened.
    QVERIFY(writeBytes(folder + QLatin1Char('/') + shard3, QByteArray("not a safetensors file")));
    const QByteArray index = "{\"metadata\":{\"total_size\":36},\"weight_map\":{"
                             "\"wte.weight\":\"" +
                             shard1.toUtf8() + "\",\"wpe.weight\":\"" + shard2.toUtf8() +
                             "\",\"ln.bias\":\"" + shard2.toUtf8() + "\",\"h.0.attn\":\"" +
                             shard3.toUtf8() + "\",\"ghost\":\"" + shard1.toUtf8() + "\"}}";
    const QString indexPath = folder + QStringLiteral("/model.safetensors.index.json");
    QVERIFY(writeBytes(indexPath, index));

    ShardedSafetensors model;
    QString error;
    QVERIFY2(model.open(indexPath, &error), qPrintable(error));
    QCOMPARE(model.openShardCount(), 0);
    QCOMPARE(
        model.tensorNames(),
        (QStringList{QStringLiteral("ghost"), QStringLiteral("h.0.attn"), QStringLiteral("ln.bias"),
                     QStringLiteral("wpe.weight"), QStringLiteral("wte.weight")}));
    QCOMPARE(model.shardFiles(), (QStringList{shard1, shard2, shard3}));
    QCOMPARE(model.shardOf(QStringLiteral("wpe.weight")), shard2);
    QCOMPARE(model.metadata().value(QLatin1String("total_size")).toInteger(), qint64(36));

    const std::optional<TensorInfo> wpe = model.find(QStringLiteral("wpe.weight"), &error);
    QVERIFY2(wpe, qPrintable(error));
    QCOMPARE(model.openShardCount(), 1);
    QCOMPARE(wpe->shape, (std::vector<qint64>{3, 2}));
    QVERIFY(wpe->file.endsWith(shard2));
    std::vector<float> out;
    QVERIFY2(model.readRows(QStringLiteral("wpe.weight"), 1, 2, &out, &error), qPrintable(error));
    QCOMPARE(out, (std::vector<float>{3, 4, 5, 6}));
    QVERIFY(model.readRows(QStringLiteral("ln.bias"), 0, -1, &out, &error));
    QCOMPARE(out, (std::vector<float>{1, -1}));
    QCOMPARE(model.openShardCount(), 1);
    QVERIFY(model.readRows(QStringLiteral("wte.weight"), 0, -1, &out, &error));
    QCOMPARE(out, (std::vector<float>{1, 2, 3, 4}));
    QCOMPARE(model.openShardCount(), 2);

    // The index names a tensor its shard lacks; a broken shard; a name the index lacks.
    QVERIFY(!model.find(QStringLiteral("ghost"), &error));
    QVERIFY2(error.contains(QLatin1String("places tensor ghost in ")) && error.contains(shard1),
             qPrintable(error));
    QVERIFY(!model.find(QStringLiteral("h.0.attn"), &error));
    QVERIFY2(error.contains(shard3), qPrintable(error));
    QVERIFY(!model.find(QStringLiteral("nope"), &error));
    QVERIFY2(error.startsWith(model.indexPath()) &&
                 error.contains(QLatin1String("lists no tensor nope")),
             qPrintable(error));
    QCOMPARE(model.openShardCount(), 2);
}

void TestSafetensors::shardedHostileIndexes_data()
{
    QTest::addColumn<QByteArray>("index");
    QTest::addColumn<QString>("expected");
    QTest::addRow("not JSON") << QByteArray("{\"weight_map\":") << QStringLiteral("invalid JSON");
    QTest::addRow("no weight_map")
        << QByteArray("{\"metadata\":{}}") << QStringLiteral("no \"weight_map\" object");
    QTest::addRow("weight_map a list")
        << QByteArray("{\"weight_map\":[\"a\"]}") << QStringLiteral("no \"weight_map\" object");
    QTest::addRow("shard not a string") << QByteArray("{\"weight_map\":{\"w\":3}}")
                                        << QStringLiteral("entry for w is not a file name");
    QTest::addRow("shard in a parent folder")
        << QByteArray("{\"weight_map\":{\"w\":\"../secret.safetensors\"}}")
        << QStringLiteral("must be plain file names");
    QTest::addRow("absolute shard path") << QByteArray("{\"weight_map\":{\"w\":\"/etc/passwd\"}}")
                                         << QStringLiteral("must be plain file names");
    QTest::addRow("shard ..") << QByteArray("{\"weight_map\":{\"w\":\"..\"}}")
                              << QStringLiteral("must be plain file names");
    QTest::addRow("duplicate tensor")
        << QByteArray("{\"weight_map\":{\"w\":\"a.safetensors\",\"w\":\"b.safetensors\"}}")
        << QStringLiteral("duplicate key \"w\"");
    QTest::addRow("metadata a string") << QByteArray("{\"metadata\":\"x\",\"weight_map\":{}}")
                                       << QStringLiteral("\"metadata\" is not a JSON object");
    QTest::addRow("nested 100 deep") << QByteArray("{\"metadata\":" + QByteArray(100, '[') +
                                                   QByteArray(100, ']') + ",\"weight_map\":{}}")
                                     << QStringLiteral("nested deeper than 16 levels");
}

void TestSafetensors::shardedHostileIndexes()
{
    QFETCH(QByteArray, index);
    QFETCH(QString, expected);
    const QString indexPath = path(QStringLiteral("bad/model.safetensors.index.json"));
    QVERIFY(writeBytes(indexPath, index));
    ShardedSafetensors model;
    QString error;
    QVERIFY(!model.open(indexPath, &error));
    QVERIFY2(error.startsWith(QDir::toNativeSeparators(indexPath) + QLatin1String(": ")) &&
                 error.contains(expected),
             qPrintable(error));
    QVERIFY(model.tensorNames().isEmpty());
}

void TestSafetensors::refusesMoreTensorsThanTheLimit()
{
    // One entry more than limits::maxTensorsPerFile plus __metadata__: refused after the scan,
    // before any entry is stored (the entries need not even be tensors). Each is padded to 40
    // bytes: the scan's own bound (an object's entries times 32 bytes within its text) would
    // refuse shorter ones first.
    const qint64 entries = limits::maxTensorsPerFile + 2;
    QByteArray header = "{";
    header.reserve(entries * 40);
    const QByteArray padding(30, ' ');
    for (qint64 i = 0; i < entries; ++i)
        header += (i ? ",\"" : "\"") + QByteArray::number(i) + "\":0" + padding;
    header += '}';
    const QString file = path(QStringLiteral("many.safetensors"));
    QVERIFY(writeBytes(file, safetensorsFromHeader(header, {})));
    SafetensorsFile st;
    QString error;
    QVERIFY(!st.open(file, &error));
    QCOMPARE(error, file + QStringLiteral(": the header lists 1000002 entries, more than the "
                                          "1000000 tensors pescope reads from one file"));
    QVERIFY(st.tensors().empty());
}

void TestSafetensors::headerMemoryStaysWithinFourTimesItsSize()
{
#ifndef Q_OS_LINUX
    QSKIP("measures the resident set through /proc/self");
#else
    if (test::underSanitizer)
        QSKIP("AddressSanitizer's redzones and quarantine add to every allocation (415 MB for "
              "this 15 MB header): the release build measures the reader");
    // 200,000 tensors, a 15 MB header. Qt's JSON document alone costs about ten times its
    // text (the 99 MB header peaked at 1.98 GB); the reader must stay under four times,
    // counting the header's pages the mapping brings in. The peak is measured around open()
    // alone: the file is written and its bytes freed before.
    const QString file = path(QStringLiteral("large-header.safetensors"));
    qint64 headerSize = 0;
    {
        const QByteArray bytes = manyTensorsFile(200000);
        headerSize = qFromLittleEndian<quint64>(bytes.constData());
        QVERIFY(writeBytes(file, bytes));
    }
    if (!resetPeakMemory())
        QSKIP("/proc/self/clear_refs cannot be written here: the peak cannot be reset");
    const qint64 before = statusBytes("VmRSS:");
    QVERIFY(before > 0);
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    const qint64 growth = statusBytes("VmHWM:") - before;
    qInfo("header %lld bytes, peak growth %lld bytes (%.2fx)", headerSize, growth,
          double(growth) / double(headerSize));
    QCOMPARE(st.tensors().size(), qsizetype(200000));
    // The measurement sees the parse at all: the mapped header alone is 1x.
    QVERIFY(growth > headerSize / 2);
    QVERIFY2(growth <= 4 * headerSize, qPrintable(QString::number(growth)));
#endif
}

void TestSafetensors::findsEveryTensorOfALargeHeader()
{
    // The compact table gives back what the header says, by position and by name.
    const int count = 3000;
    const QString file = path(QStringLiteral("lookup.safetensors"));
    QVERIFY(writeBytes(file, manyTensorsFile(count)));
    SafetensorsFile st;
    QString error;
    QVERIFY2(st.open(file, &error), qPrintable(error));
    QCOMPARE(st.tensors().size(), qsizetype(count));
    const qint64 data = st.dataOffset();
    for (int i = 0; i < count; i += 7) {
        const QString name = QStringLiteral("model.layers.%1.w").arg(i);
        QCOMPARE(st.tensors()[i].name, name);
        const std::optional<TensorInfo> tensor = st.find(name);
        QVERIFY(tensor);
        QCOMPARE(tensor->offset, data + 2 * i);
        QCOMPARE(tensor->byteSize, qint64(2));
        QCOMPARE(tensor->shape, std::vector<qint64>{1});
        QCOMPARE(tensor->typeName, QStringLiteral("F16"));
        QCOMPARE(tensor->file, file);
    }
    QVERIFY(!st.find(QStringLiteral("model.layers.3000.w")));
    QVERIFY(!st.find(QStringLiteral("model.layers.")));
}

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
