// GGUF reader: v2 and v3 files with every metadata type, tensors in every readable type read
// back bit-exact (ne[] order reversed into C order), llama.cpp's model keys, quantized types
// refused by name, and every hostile header refused with one message naming the file. Files are
// written by tests/modelfilewriter.h from ggml/docs/gguf.md and gguf-py's constants.
#include "formats/gguffile.h"
#include "modelfilewriter.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

using namespace pe;
using namespace pe::test;

class TestGguf : public QObject
{
    Q_OBJECT

private slots:
    void init() { QVERIFY(m_dir.isValid()); }

    void readsEveryMetadataType_data();
    void readsEveryMetadataType();
    void readsTensorsInCOrder_data();
    void readsTensorsInCOrder();
    void honoursAlignment();
    void modelKeyHelpers();
    void olderLinearScalingKey();
    void ropeScalingKeyOfTheWrongType();
    void ggmlTypeTable_data();
    void ggmlTypeTable();
    void refusesQuantizedTensorsByName();
    void readsQ8_0Blocks();
    void hostileFiles_data();
    void hostileFiles();

private:
    QString write(const QByteArray &bytes, const QString &name = QStringLiteral("model.gguf"))
    {
        const QString file = m_dir.filePath(name);
        return writeBytes(file, bytes) ? file : QString();
    }
    QTemporaryDir m_dir;
};

void TestGguf::readsEveryMetadataType_data()
{
    QTest::addColumn<quint32>("version");
    QTest::addRow("v2") << quint32(2);
    QTest::addRow("v3") << quint32(3);
}

void TestGguf::readsEveryMetadataType()
{
    QFETCH(quint32, version);
    GgufBuilder b(version);
    b.addRaw("u8", GUINT8, QByteArray(1, char(0xfe)));
    b.addRaw("i8", GINT8, QByteArray(1, char(0x80)));
    b.addRaw("u16", GUINT16, le16(0xfffe));
    b.addRaw("i16", GINT16, le16(0x8000));
    b.addU32("u32", 0xfffffffeu);
    b.addI32("i32", -2147483647 - 1);
    b.addF32("f32", 0.1f);
    b.addBool("bool.true", true);
    b.addBool("bool.false", false);
    b.addString("string", "gr\xc3\xbc\xc3\x9f dich");
    b.addString("empty", "");
    b.addU64("u64", 0xfffffffffffffffeull);
    b.addRaw("i64", GINT64, le64(0x8000000000000000ull));
    b.addF64("f64", -1.0 / 3.0);
    b.addArray("a.u8", GUINT8, 3, QByteArray("\x01\x02\xff", 3));
    b.addArray("a.i16", GINT16, 2, le16(0xffff) + le16(7));
    b.addArray("a.u64", GUINT64, 1, le64(42));
    b.addArray("a.f32", GFLOAT32, 2, f32Bytes({1.5f, -0.25f}));
    b.addArray("a.f64", GFLOAT64, 1, f64Bytes({1e300}));
    b.addArray("a.bool", GBOOL, 2, QByteArray("\x01\x00", 2));
    b.addArray("a.string", GSTRING, 3, ggufString("a") + ggufString("") + ggufString("\xce\xb8"));
    b.addArray("a.empty", GINT32, 0, {});
    const QString file = write(b.build());

    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(file, &error), qPrintable(error));
    QCOMPARE(gguf.version(), version);
    QCOMPARE(gguf.keys().size(), qsizetype(22));
    QCOMPARE(gguf.keys().front(), QStringLiteral("u8"));
    QCOMPARE(gguf.keys().back(), QStringLiteral("a.empty"));
    const auto v = [&](const char *key) { return gguf.value(QLatin1String(key)); };
    QCOMPARE(v("u8")->type, GgufType::UInt8);
    QCOMPARE(*v("u8")->toInt(), qint64(254));
    QCOMPARE(*v("i8")->toInt(), qint64(-128));
    QCOMPARE(*v("u16")->toInt(), qint64(65534));
    QCOMPARE(*v("i16")->toInt(), qint64(-32768));
    QCOMPARE(*v("u32")->toInt(), qint64(4294967294));
    QCOMPARE(*v("i32")->toInt(), qint64(-2147483648LL));
    QCOMPARE(*v("f32")->toDouble(), double(0.1f));
    QVERIFY(!v("f32")->toInt());
    QCOMPARE(*v("bool.true")->toBool(), true);
    QCOMPARE(*v("bool.false")->toBool(), false);
    QVERIFY(!v("bool.true")->toInt());
    QCOMPARE(*v("string")->toString(), QString::fromUtf8("gr\xc3\xbc\xc3\x9f dich"));
    QCOMPARE(*v("empty")->toString(), QString());
    // UINT64 beyond qint64 has no toInt(), but its exact value is in `scalar`.
    QVERIFY(!v("u64")->toInt());
    QCOMPARE(v("u64")->scalar.toULongLong(), 0xfffffffffffffffeull);
    QCOMPARE(*v("i64")->toInt(), std::numeric_limits<qint64>::min());
    QCOMPARE(*v("f64")->toDouble(), -1.0 / 3.0);
    QCOMPARE(v("u32")->toDouble().value(), 4294967294.0);
    QVERIFY(!v("missing"));

    QVERIFY(v("a.u8")->isArray());
    QCOMPARE(v("a.u8")->arrayType, GgufType::UInt8);
    QCOMPARE(v("a.u8")->arrayCount, qint64(3));
    QCOMPARE(*gguf.intArray(QStringLiteral("a.u8"), &error), (std::vector<qint64>{1, 2, 255}));
    QCOMPARE(*gguf.intArray(QStringLiteral("a.i16"), &error), (std::vector<qint64>{-1, 7}));
    QCOMPARE(*gguf.intArray(QStringLiteral("a.u64"), &error), (std::vector<qint64>{42}));
    QCOMPARE(*gguf.doubleArray(QStringLiteral("a.f32"), &error), (std::vector<double>{1.5, -0.25}));
    QCOMPARE(*gguf.doubleArray(QStringLiteral("a.f64"), &error), (std::vector<double>{1e300}));
    QCOMPARE(*gguf.doubleArray(QStringLiteral("a.u8"), &error), (std::vector<double>{1, 2, 255}));
    QCOMPARE(*gguf.stringArray(QStringLiteral("a.string"), &error),
             (QStringList{QStringLiteral("a"), QString(), QString::fromUtf8("\xce\xb8")}));
    QCOMPARE(gguf.intArray(QStringLiteral("a.empty"), &error)->size(), size_t(0));
    QVERIFY(!gguf.stringArray(QStringLiteral("a.u8"), &error));
    QVERIFY2(error.contains(QLatin1String("a.u8 is not an array of strings")), qPrintable(error));
    QVERIFY(!gguf.intArray(QStringLiteral("a.f32"), &error));
    QVERIFY(!gguf.intArray(QStringLiteral("u8"), &error));
    QVERIFY(!gguf.intArray(QStringLiteral("a.u8"), &error, 2));
    QVERIFY2(error.contains(QLatin1String("more than the 2 asked for")), qPrintable(error));
    QVERIFY(gguf.tensors().empty());
}

void TestGguf::readsTensorsInCOrder_data()
{
    QTest::addColumn<quint32>("version");
    QTest::addRow("v2") << quint32(2);
    QTest::addRow("v3") << quint32(3);
}

void TestGguf::readsTensorsInCOrder()
{
    QFETCH(quint32, version);
    // position_embd.weight as GPT-2 stores it: ne = [n_embd = 3, n_ctx = 4], so element
    // (p, i) of the C-order [4, 3] table is at p * 3 + i; here its value is 10 p + i.
    std::vector<float> table;
    for (int p = 0; p < 4; ++p)
        for (int i = 0; i < 3; ++i)
            table.push_back(float(10 * p + i));
    const std::vector<quint16> half = {0x3c00, 0xc000, 0x0001, 0x7bff};
    const std::vector<quint16> brain = {0x3f80, 0x4049};
    const std::vector<double> wide = {1.0 + std::ldexp(1.0, -24), 0.5, std::ldexp(1.0, 128)};
    GgufBuilder b(version);
    b.addString("general.architecture", "gpt2");
    b.addTensor("position_embd.weight", {3, 4}, 0, f32Bytes(table));
    b.addTensor("f16", {2, 2}, 1, u16Bytes(half));
    b.addTensor("bf16", {2}, 30, u16Bytes(brain));
    b.addTensor("f64", {3}, 28, f64Bytes(wide));
    b.addTensor("cube", {2, 1, 2}, 0, f32Bytes({1, 2, 3, 4}));
    const QString file = write(b.build());

    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(file, &error), qPrintable(error));
    QCOMPARE(gguf.tensors().size(), qsizetype(5));
    const std::optional<TensorInfo> wpe = gguf.positionEmbedding();
    QVERIFY(wpe);
    QCOMPARE(wpe->shape, (std::vector<qint64>{4, 3}));
    QCOMPARE(wpe->typeName, QStringLiteral("F32"));
    QCOMPARE(wpe->byteSize, qint64(48));
    QCOMPARE(wpe->offset % 32, qint64(0));
    QCOMPARE(wpe->offset, gguf.dataOffset());
    std::vector<float> out;
    QVERIFY2(gguf.read(QStringLiteral("position_embd.weight"), &out, &error), qPrintable(error));
    QCOMPARE(out, table);
    QVERIFY(gguf.readRows(QStringLiteral("position_embd.weight"), 2, 1, &out, &error));
    QCOMPARE(out, (std::vector<float>{20, 21, 22}));
    QVERIFY(gguf.read(QStringLiteral("f16"), &out, &error));
    for (size_t i = 0; i < half.size(); ++i)
        QCOMPARE(double(out[i]), halfReference(half[i]));
    QVERIFY(gguf.read(QStringLiteral("bf16"), &out, &error));
    QCOMPARE(double(out[1]), bfloat16Reference(0x4049));
    QVERIFY(gguf.read(QStringLiteral("f64"), &out, &error));
    QCOMPARE(out[0], 1.0f); // a tie rounds to even
    QCOMPARE(out[1], 0.5f);
    QVERIFY(std::isinf(out[2]));
    QCOMPARE(gguf.find(QStringLiteral("cube"))->shape, (std::vector<qint64>{2, 1, 2}));
    QCOMPARE(gguf.find(QStringLiteral("f64"))->shape, (std::vector<qint64>{3}));
    QVERIFY(!gguf.ropeFrequencies());
    QVERIFY(!gguf.readRows(QStringLiteral("missing"), 0, 1, &out, &error));
    QVERIFY2(error.startsWith(gguf.path()), qPrintable(error));
}

void TestGguf::honoursAlignment()
{
    GgufBuilder b(3);
    b.setAlignment(64);
    b.addU32("general.alignment", 64);
    b.addTensor("a", {3}, 0, f32Bytes({1, 2, 3}));
    b.addTensor("b", {2}, 0, f32Bytes({4, 5}));
    const QByteArray bytes = b.build();
    const QString file = write(bytes);
    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(file, &error), qPrintable(error));
    QCOMPARE(gguf.alignment(), quint32(64));
    QCOMPARE(gguf.dataOffset() % 64, qint64(0));
    QCOMPARE(gguf.find(QStringLiteral("b"))->offset, gguf.dataOffset() + 64);
    std::vector<float> out;
    QVERIFY(gguf.read(QStringLiteral("b"), &out, &error));
    QCOMPARE(out, (std::vector<float>{4, 5}));
    // The default is 32.
    GgufBuilder d(2);
    d.addTensor("a", {3}, 0, f32Bytes({1, 2, 3}));
    d.addTensor("b", {1}, 0, f32Bytes({9}));
    QVERIFY(gguf.open(write(d.build()), &error));
    QCOMPARE(gguf.alignment(), quint32(32));
    QCOMPARE(gguf.find(QStringLiteral("b"))->offset, gguf.dataOffset() + 32);
    // A file without tensors may end before the padding (ggml reads it all the same): its empty
    // data section starts at the end of the file, never past it (a fuzz finding, issue 14).
    const QByteArray bare = "GGUF" + le32(3) + le64(0) + le64(0); // 24 bytes, no padding to 32
    QVERIFY2(gguf.open(write(bare), &error), qPrintable(error));
    QCOMPARE(gguf.tensors().size(), qsizetype(0));
    QCOMPARE(gguf.dataOffset(), qint64(bare.size()));
}

void TestGguf::modelKeyHelpers()
{
    // The keys llama.cpp writes for a llama3-scaled Llama 3.1 (gguf-py Keys.LLM / Rope).
    GgufBuilder b(3);
    b.addString("general.architecture", "llama");
    b.addString("general.name", "Tiny Llama 3.1");
    b.addU32("llama.context_length", 131072);
    b.addU32("llama.embedding_length", 4096);
    b.addU32("llama.block_count", 32);
    b.addU32("llama.attention.head_count", 32);
    b.addU32("llama.attention.head_count_kv", 8);
    b.addU32("llama.rope.dimension_count", 128);
    b.addF32("llama.rope.freq_base", 500000.0f);
    b.addString("llama.rope.scaling.type", "yarn");
    b.addF32("llama.rope.scaling.factor", 8.0f);
    b.addF32("llama.rope.scaling.attn_factor", 1.25f);
    b.addU32("llama.rope.scaling.original_context_length", 8192);
    b.addBool("llama.rope.scaling.finetuned", true);
    b.addF32("llama.rope.scaling.yarn_log_multiplier", 0.1f);
    b.addF32("llama.rope.scaling.yarn_beta_fast", 32.0f);
    b.addF32("llama.rope.scaling.yarn_beta_slow", 1.0f);
    b.addF32("llama.rope.scaling.yarn_ext_factor", -1.0f);
    b.addF32("llama.rope.scaling.yarn_attn_factor", 1.0f);
    b.addTensor("rope_freqs.weight", {4}, 0, f32Bytes({1, 1, 2, 8}));
    const QString file = write(b.build());
    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(file, &error), qPrintable(error));
    QCOMPARE(gguf.architecture(), QStringLiteral("llama"));
    QCOMPARE(gguf.archKey(QStringLiteral("context_length")),
             QStringLiteral("llama.context_length"));
    QCOMPARE(gguf.contextLength(), std::optional<qint64>(131072));
    QCOMPARE(gguf.embeddingLength(), std::optional<qint64>(4096));
    QCOMPARE(gguf.blockCount(), std::optional<qint64>(32));
    QCOMPARE(gguf.headCount(), std::optional<qint64>(32));
    QCOMPARE(gguf.headCountKv(), std::optional<qint64>(8));
    QCOMPARE(gguf.ropeDimensionCount(), std::optional<qint64>(128));
    QCOMPARE(gguf.ropeFreqBase(), std::optional<double>(500000.0));
    const GgufRopeScaling s = gguf.ropeScaling();
    QCOMPARE(s.type, QStringLiteral("yarn"));
    QCOMPARE(s.factor, std::optional<double>(8.0));
    QCOMPARE(s.attnFactor, std::optional<double>(1.25));
    QCOMPARE(s.originalContextLength, std::optional<qint64>(8192));
    QCOMPARE(s.finetuned, std::optional<bool>(true));
    QCOMPARE(s.yarnLogMultiplier, std::optional<double>(double(0.1f)));
    QCOMPARE(s.yarnBetaFast, std::optional<double>(32.0));
    QCOMPARE(s.yarnBetaSlow, std::optional<double>(1.0));
    QCOMPARE(s.yarnExtFactor, std::optional<double>(-1.0));
    QCOMPARE(s.yarnAttnFactor, std::optional<double>(1.0));
    QCOMPARE(gguf.ropeScalingKeys().size(), qsizetype(10));
    QVERIFY(gguf.ropeFrequencies());
    std::vector<float> out;
    QVERIFY(gguf.read(QStringLiteral("rope_freqs.weight"), &out, &error));
    QCOMPARE(out, (std::vector<float>{1, 1, 2, 8}));
    QVERIFY(!gguf.positionEmbedding());
    QVERIFY(!gguf.archInt(QStringLiteral("missing")));
    // A key of the wrong type: no number.
    QVERIFY(!gguf.archInt(QStringLiteral("rope.freq_base")));
}

void TestGguf::olderLinearScalingKey()
{
    GgufBuilder b(2);
    b.addString("general.architecture", "llama");
    b.addF32("llama.rope.scale_linear", 4.0f);
    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(write(b.build()), &error), qPrintable(error));
    QCOMPARE(gguf.ropeScaling().type, QStringLiteral("linear"));
    QCOMPARE(gguf.ropeScaling().factor, std::optional<double>(4.0));
    QVERIFY(gguf.ropeScaling().factorFromScaleLinear);
    QVERIFY(gguf.ropeScaling().problem.isEmpty());
    QVERIFY(!gguf.ropeFreqBase());
    QVERIFY(gguf.architecture() == QLatin1String("llama"));

    // llama.cpp's load_hparams: rope.scaling.factor first, the older key only without it; an
    // absent type is "linear".
    GgufBuilder both(2);
    both.addString("general.architecture", "llama");
    both.addF32("llama.rope.scaling.factor", 2.0f);
    both.addF32("llama.rope.scale_linear", 4.0f);
    QVERIFY2(gguf.open(write(both.build()), &error), qPrintable(error));
    QCOMPARE(gguf.ropeScaling().type, QStringLiteral("linear"));
    QCOMPARE(gguf.ropeScaling().factor, std::optional<double>(2.0));
    QVERIFY(!gguf.ropeScaling().factorFromScaleLinear);
}

// A rope.scaling key of the wrong type is named, with its type, and left unset.
void TestGguf::ropeScalingKeyOfTheWrongType()
{
    GgufBuilder b(2);
    b.addString("general.architecture", "llama");
    b.addString("llama.rope.scaling.type", "yarn");
    b.addString("llama.rope.scaling.factor", "eight");
    b.addU64("llama.rope.scaling.original_context_length", ~quint64(0));
    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(write(b.build()), &error), qPrintable(error));
    const GgufRopeScaling s = gguf.ropeScaling();
    QCOMPARE(s.type, QStringLiteral("yarn"));
    QVERIFY(!s.factor);
    QVERIFY(!s.originalContextLength);
    QCOMPARE(s.problem,
             QStringLiteral("llama.rope.scaling.factor must be a number, it is a STRING"));
}

void TestGguf::ggmlTypeTable_data()
{
    // From gguf-py/gguf/constants.py (GGMLQuantizationType, GGML_QUANT_SIZES), typed here.
    QTest::addColumn<quint32>("id");
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("blockSize");
    QTest::addColumn<qint64>("typeSize");
    QTest::addRow("F32") << 0u << "F32" << qint64(1) << qint64(4);
    QTest::addRow("F16") << 1u << "F16" << qint64(1) << qint64(2);
    QTest::addRow("Q4_0") << 2u << "Q4_0" << qint64(32) << qint64(18);
    QTest::addRow("Q4_1") << 3u << "Q4_1" << qint64(32) << qint64(20);
    QTest::addRow("Q5_0") << 6u << "Q5_0" << qint64(32) << qint64(22);
    QTest::addRow("Q5_1") << 7u << "Q5_1" << qint64(32) << qint64(24);
    QTest::addRow("Q8_0") << 8u << "Q8_0" << qint64(32) << qint64(34);
    QTest::addRow("Q8_1") << 9u << "Q8_1" << qint64(32) << qint64(40);
    QTest::addRow("Q2_K") << 10u << "Q2_K" << qint64(256) << qint64(84);
    QTest::addRow("Q3_K") << 11u << "Q3_K" << qint64(256) << qint64(110);
    QTest::addRow("Q4_K") << 12u << "Q4_K" << qint64(256) << qint64(144);
    QTest::addRow("Q5_K") << 13u << "Q5_K" << qint64(256) << qint64(176);
    QTest::addRow("Q6_K") << 14u << "Q6_K" << qint64(256) << qint64(210);
    QTest::addRow("Q8_K") << 15u << "Q8_K" << qint64(256) << qint64(292);
    QTest::addRow("IQ2_XXS") << 16u << "IQ2_XXS" << qint64(256) << qint64(66);
    QTest::addRow("IQ2_XS") << 17u << "IQ2_XS" << qint64(256) << qint64(74);
    QTest::addRow("IQ3_XXS") << 18u << "IQ3_XXS" << qint64(256) << qint64(98);
    QTest::addRow("IQ1_S") << 19u << "IQ1_S" << qint64(256) << qint64(50);
    QTest::addRow("IQ4_NL") << 20u << "IQ4_NL" << qint64(32) << qint64(18);
    QTest::addRow("IQ3_S") << 21u << "IQ3_S" << qint64(256) << qint64(110);
    QTest::addRow("IQ2_S") << 22u << "IQ2_S" << qint64(256) << qint64(82);
    QTest::addRow("IQ4_XS") << 23u << "IQ4_XS" << qint64(256) << qint64(136);
    QTest::addRow("I8") << 24u << "I8" << qint64(1) << qint64(1);
    QTest::addRow("I16") << 25u << "I16" << qint64(1) << qint64(2);
    QTest::addRow("I32") << 26u << "I32" << qint64(1) << qint64(4);
    QTest::addRow("I64") << 27u << "I64" << qint64(1) << qint64(8);
    QTest::addRow("F64") << 28u << "F64" << qint64(1) << qint64(8);
    QTest::addRow("IQ1_M") << 29u << "IQ1_M" << qint64(256) << qint64(56);
    QTest::addRow("BF16") << 30u << "BF16" << qint64(1) << qint64(2);
    QTest::addRow("TQ1_0") << 34u << "TQ1_0" << qint64(256) << qint64(54);
    QTest::addRow("TQ2_0") << 35u << "TQ2_0" << qint64(256) << qint64(66);
    QTest::addRow("MXFP4") << 39u << "MXFP4" << qint64(32) << qint64(17);
    QTest::addRow("NVFP4") << 40u << "NVFP4" << qint64(64) << qint64(36);
    QTest::addRow("Q1_0") << 41u << "Q1_0" << qint64(128) << qint64(18);
}

void TestGguf::ggmlTypeTable()
{
    QFETCH(quint32, id);
    QFETCH(QString, name);
    QFETCH(qint64, blockSize);
    QFETCH(qint64, typeSize);
    const std::optional<GgmlType> type = ggmlType(id);
    QVERIFY(type);
    QCOMPARE(type->name, name);
    QCOMPARE(type->blockSize, blockSize);
    QCOMPARE(type->typeSize, typeSize);
    QVERIFY(!type->removed);
    const bool readable = name == QLatin1String("F32") || name == QLatin1String("F16") ||
                          name == QLatin1String("BF16") || name == QLatin1String("F64") ||
                          name == QLatin1String("Q8_0");
    QCOMPARE(type->dtype != TensorDType::Unsupported, readable);
    QCOMPARE(type->quantized, blockSize > 1);
    // Each type opens as a two-block tensor of the right byte size.
    GgufBuilder b(3);
    b.addTensor("t", {quint64(2 * blockSize)}, id, QByteArray(int(2 * typeSize), '\0'));
    const QString file = m_dir.filePath(QStringLiteral("type-%1.gguf").arg(name));
    QVERIFY(writeBytes(file, b.build()));
    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(file, &error), qPrintable(error));
    QCOMPARE(gguf.find(QStringLiteral("t"))->byteSize, 2 * typeSize);
    QCOMPARE(gguf.find(QStringLiteral("t"))->typeName, name);
}

void TestGguf::refusesQuantizedTensorsByName()
{
    GgufBuilder b(3);
    b.addString("general.architecture", "llama");
    // Two rows of one Q4_K block each (256 elements, 144 bytes).
    b.addTensor("blk.0.attn_q.weight", {256, 2}, 12, QByteArray(288, '\x11'));
    b.addTensor("blk.0.attn_norm.weight", {4}, 26, QByteArray(16, '\0'));
    GgufFile gguf;
    QString error;
    const QString file = write(b.build());
    QVERIFY2(gguf.open(file, &error), qPrintable(error));
    const std::optional<TensorInfo> q = gguf.find(QStringLiteral("blk.0.attn_q.weight"));
    QVERIFY(q);
    QVERIFY(q->quantized);
    QCOMPARE(q->shape, (std::vector<qint64>{2, 256}));
    QCOMPARE(q->byteSize, qint64(288));
    std::vector<float> out;
    QVERIFY(!gguf.read(QStringLiteral("blk.0.attn_q.weight"), &out, &error));
    QCOMPARE(error, file + QStringLiteral(": tensor blk.0.attn_q.weight is Q4_K, a quantized type "
                                          "pescope cannot read (it reads F32, F16, BF16 and "
                                          "Q8_0)"));
    QVERIFY(!gguf.read(QStringLiteral("blk.0.attn_norm.weight"), &out, &error));
    QVERIFY2(error.contains(QLatin1String("is I32; pescope reads F32")), qPrintable(error));
}

// ggml-common.h block_q8_0 { ggml_half d; int8_t qs[32]; }, dequantize_row_q8_0: d * qs[j].
// Two rows of two blocks: scales 0.5 (0x3800), -3 (0xC200), 2^-24 (0x0001, the smallest
// subnormal) and 0; values from -128 to 127. Row 1 is read alone too (whole blocks per row).
void TestGguf::readsQ8_0Blocks()
{
    const quint16 scales[4] = {0x3800, 0xC200, 0x0001, 0x0000};
    const double scaleValues[4] = {0.5, -3.0, std::ldexp(1.0, -24), 0.0};
    QByteArray data;
    std::vector<double> expected;
    for (int b = 0; b < 4; ++b) {
        data += le16(scales[b]);
        for (int j = 0; j < 32; ++j) {
            const int q = -128 + (b * 32 + j) * 2; // -128 .. 126
            data += char(qint8(q));
            expected.push_back(scaleValues[b] * q);
        }
    }
    GgufBuilder b(3);
    b.addTensor("q", {64, 2}, 8, data);
    GgufFile gguf;
    QString error;
    QVERIFY2(gguf.open(write(b.build()), &error), qPrintable(error));
    const std::optional<TensorInfo> info = gguf.find(QStringLiteral("q"));
    QVERIFY(info && info->isReadable() && info->quantized);
    QCOMPARE(info->dtype, TensorDType::Q8_0);
    std::vector<float> all, second;
    QVERIFY2(gguf.read(QStringLiteral("q"), &all, &error), qPrintable(error));
    QCOMPARE(all.size(), std::size_t(128));
    for (std::size_t i = 0; i < all.size(); ++i)
        QCOMPARE(double(all[i]), expected[i]);
    QVERIFY2(gguf.readRows(QStringLiteral("q"), 1, 1, &second, &error), qPrintable(error));
    QCOMPARE(second, std::vector<float>(all.begin() + 64, all.end()));
}

void TestGguf::hostileFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");

    const QByteArray header3 = QByteArray("GGUF") + le32(3);
    QTest::addRow("empty file") << QByteArray() << QStringLiteral("not a GGUF file");
    QTest::addRow("bad magic") << QByteArray("GGUX\x03\0\0\0", 8)
                               << QStringLiteral("not a GGUF file");
    QTest::addRow("GGJT file") << QByteArray("tjgg\x03\0\0\0", 8)
                               << QStringLiteral("an older GGML/GGJT file");
    QTest::addRow("version 1") << QByteArray("GGUF" + le32(1) + le32(0) + le32(0))
                               << QStringLiteral("GGUF version 1 is not supported");
    QTest::addRow("version 4") << QByteArray("GGUF" + le32(4) + le64(0) + le64(0))
                               << QStringLiteral("GGUF version 4 is not supported");
    QTest::addRow("big-endian") << QByteArray("GGUF" + QByteArray("\0\0\0\x03", 4) + le64(0) +
                                              le64(0))
                                << QStringLiteral("a big-endian GGUF file");
    QTest::addRow("truncated header")
        << QByteArray(header3 + le32(0)) << QStringLiteral("the file ends inside the header");
    QTest::addRow("2^60 tensors") << QByteArray(header3 + le64(quint64(1) << 60) + le64(0))
                                  << QStringLiteral("declares 0 metadata entries and "
                                                    "1152921504606846976 tensors");
    // limits::maxTensorsPerFile: one more, with room in the file for that many (24 bytes each),
    // is refused before any tensor info is read.
    QTest::addRow("more tensors than pescope reads")
        << QByteArray(header3 + le64(quint64(limits::maxTensorsPerFile) + 1) + le64(0) +
                      QByteArray((limits::maxTensorsPerFile + 1) * 24, '\0'))
        << QStringLiteral("the header declares 1000001 tensors, more than the 1000000 "
                          "pescope reads from one file");
    QTest::addRow("2^64-1 metadata entries") << QByteArray(header3 + le64(0) + le64(~quint64(0)))
                                             << QStringLiteral("more than the remaining");
    QTest::addRow("kv count beyond the file")
        << QByteArray(header3 + le64(0) + le64(2) + ggufString("a") + le32(GUINT8) + "x")
        << QStringLiteral("declares 2 metadata entries");

    const auto oneKv = [&](const QByteArray &kv) -> QByteArray {
        return header3 + le64(0) + le64(1) + kv;
    };
    QTest::addRow("key length 2^63")
        << oneKv(le64(quint64(1) << 63) + "abc" + QByteArray(10, '\0'))
        << QStringLiteral(
               "metadata key #0: a string of 9223372036854775808 bytes runs past the end");
    QTest::addRow("string value length 2^40")
        << oneKv(ggufString("k") + le32(GSTRING) + le64(quint64(1) << 40) + "abc")
        << QStringLiteral("metadata key k: a string of 1099511627776 bytes runs past the end");
    QTest::addRow("array count 2^61 of u32")
        << oneKv(ggufString("k") + le32(GARRAY) + le32(GUINT32) + le64(quint64(1) << 61) + "abcd")
        << QStringLiteral("an array of 2305843009213693952 UINT32 values runs past the end");
    QTest::addRow("string array count 2^40")
        << oneKv(ggufString("k") + le32(GARRAY) + le32(GSTRING) + le64(quint64(1) << 40) +
                 QByteArray(16, '\0'))
        << QStringLiteral("an array of 1099511627776 STRING values runs past the end");
    QTest::addRow("string array element too long")
        << oneKv(ggufString("k") + le32(GARRAY) + le32(GSTRING) + le64(2) + ggufString("ok") +
                 le64(1000) + "x")
        << QStringLiteral("metadata key k, array element 1: a string of 1000 bytes");
    QTest::addRow("array of arrays")
        << oneKv(ggufString("k") + le32(GARRAY) + le32(GARRAY) + le64(1) + QByteArray(16, '\0'))
        << QStringLiteral("arrays of arrays are not supported");
    QTest::addRow("unknown value type")
        << oneKv(ggufString("k") + le32(13) + QByteArray(8, '\0'))
        << QStringLiteral("metadata key k has the unknown value type 13");
    QTest::addRow("unknown array element type")
        << oneKv(ggufString("k") + le32(GARRAY) + le32(99) + le64(0))
        << QStringLiteral("an array of the unknown value type 99");
    QTest::addRow("bool 2") << oneKv(ggufString("k") + le32(GBOOL) + QByteArray(1, 2))
                            << QStringLiteral("a BOOL value is 2");
    QTest::addRow("bool array with 7")
        << oneKv(ggufString("k") + le32(GARRAY) + le32(GBOOL) + le64(2) + QByteArray("\x01\x07", 2))
        << QStringLiteral("element 1 of a BOOL array is 7");
    QTest::addRow("truncated scalar") << oneKv(ggufString("k") + le32(GUINT64) + "abc")
                                      << QStringLiteral("the file ends inside metadata key k");
    QTest::addRow("duplicate key")
        << QByteArray(header3 + le64(0) + le64(2) + ggufString("k") + le32(GUINT8) + "a" +
                      ggufString("k") + le32(GUINT8) + "b")
        << QStringLiteral("metadata key k appears twice");

    GgufBuilder badAlignType;
    badAlignType.addF32("general.alignment", 32.0f);
    QTest::addRow("alignment not a UINT32")
        << badAlignType.build()
        << QStringLiteral("general.alignment must be a UINT32, it is a FLOAT32");
    GgufBuilder badAlign;
    badAlign.addU32("general.alignment", 13);
    QTest::addRow("alignment 13") << badAlign.build()
                                  << QStringLiteral("general.alignment 13 is not a power of two");
    GgufBuilder zeroAlign;
    zeroAlign.addU32("general.alignment", 0);
    QTest::addRow("alignment 0") << zeroAlign.build()
                                 << QStringLiteral("general.alignment 0 is not a power of two");

    const auto oneTensor = [&](const QByteArray &info, const QByteArray &rest = {}) -> QByteArray {
        return header3 + le64(1) + le64(0) + info + rest;
    };
    QTest::addRow("tensor name 2^50 bytes")
        << oneTensor(le64(quint64(1) << 50) + QByteArray(40, '\0'))
        << QStringLiteral("the name of tensor #0: a string of 1125899906842624 bytes");
    QTest::addRow("tensor name 64 bytes")
        << oneTensor(ggufString(QByteArray(64, 'n')) + le32(1) + le64(1) + le32(0) + le64(0),
                     QByteArray(64, '\0'))
        << QStringLiteral("longer than GGML's limit of 63 bytes");
    QTest::addRow("5 dimensions") << oneTensor(ggufString("t") + le32(5) + QByteArray(60, '\0'))
                                  << QStringLiteral(
                                         "tensor t has 5 dimensions; GGML allows at most 4");
    QTest::addRow("dimension 2^63")
        << oneTensor(ggufString("t") + le32(1) + le64(quint64(1) << 63) + le32(0) + le64(0))
        << QStringLiteral("dimension 0 is 9223372036854775808");
    QTest::addRow("shape product overflows")
        << oneTensor(ggufString("t") + le32(2) + le64(quint64(1) << 40) + le64(quint64(1) << 40) +
                     le32(0) + le64(0))
        << QStringLiteral("more elements than a 64-bit count holds");
    QTest::addRow("bytes overflow")
        << oneTensor(ggufString("t") + le32(1) + le64(quint64(1) << 62) + le32(28) + le64(0))
        << QStringLiteral("larger than a 64-bit size");
    QTest::addRow("unknown GGML type")
        << oneTensor(ggufString("t") + le32(1) + le64(4) + le32(99) + le64(0))
        << QStringLiteral("tensor t has the unknown GGML type id 99");
    QTest::addRow("removed GGML type")
        << oneTensor(ggufString("t") + le32(1) + le64(32) + le32(31) + le64(0))
        << QStringLiteral("tensor t has GGML type Q4_0_4_4 (id 31), which llama.cpp removed");
    QTest::addRow("row not whole blocks")
        << oneTensor(ggufString("t") + le32(1) + le64(33) + le32(2) + le64(0))
        << QStringLiteral("rows of 33 elements are not a whole number of 32-element blocks");
    QTest::addRow("offset not aligned")
        << oneTensor(ggufString("t") + le32(1) + le64(1) + le32(0) + le64(4), QByteArray(64, '\0'))
        << QStringLiteral("its offset 4 is not a multiple of the alignment 32");
    QTest::addRow("truncated tensor info")
        << oneTensor(ggufString("t") + le32(4) + le64(4) + QByteArray(8, '\0'))
        << QStringLiteral("the file ends inside tensor t");
    QTest::addRow("duplicate tensor name")
        << QByteArray(header3 + le64(2) + le64(0) + ggufString("t") + le32(1) + le64(1) + le32(0) +
                      le64(0) + ggufString("t") + le32(1) + le64(1) + le32(0) + le64(32) +
                      QByteArray(128, '\0'))
        << QStringLiteral("tensor t appears twice");

    GgufBuilder truncated;
    truncated.addTensor("wpe", {16, 4}, 0, f32Bytes(std::vector<float>(64, 1.0f)));
    QByteArray cut = truncated.build();
    cut.chop(10);
    QTest::addRow("truncated tensor data")
        << cut << QStringLiteral("tensor wpe: its data (256 bytes at offset 0");
    GgufBuilder far;
    far.addTensor("t", {4}, 0, f32Bytes({1, 2, 3, 4}), qint64(1) << 62);
    QTest::addRow("offset 2^62") << far.build() << QStringLiteral("runs past the end of the file");
    GgufBuilder overlap;
    overlap.addTensor("a", {16}, 0, f32Bytes(std::vector<float>(16, 0.0f)), 0);
    overlap.addTensor("b", {16}, 0, f32Bytes(std::vector<float>(16, 0.0f)), 32);
    QByteArray overlapping = overlap.build() + QByteArray(128, '\0');
    QTest::addRow("overlapping tensors")
        << overlapping << QStringLiteral("tensors a and b overlap (bytes");
}

void TestGguf::hostileFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString file = write(bytes, QStringLiteral("hostile.gguf"));
    GgufFile gguf;
    QString error;
    QVERIFY(!gguf.open(file, &error));
    QVERIFY2(error.startsWith(file + QLatin1String(": ")), qPrintable(error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY(gguf.keys().isEmpty());
    QVERIFY(gguf.tensors().empty());
}

QTEST_GUILESS_MAIN(TestGguf)
#include "tst_gguf.moc"
