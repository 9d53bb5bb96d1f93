// The tokenizer.json reader (issue 28) against Hugging Face's own answers: every case of the four
// tokenizers in tests/data/tokenizers (ids, tokens, offsets, ids with special tokens, decoded
// text, the pair), the model folders' phrases, then small files written here whose expected
// tokens follow by hand from the documented rules of each component, and hostile files.
#include "testutil.h"

#include "formats/safejson.h"
#include "text/bytelevel.h"
#include "text/tokenizer.h"
#include "text/unicodetext.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

using namespace pe;

namespace {

const char *const families[] = {"bpe-bytelevel", "wordpiece-bert", "unigram-metaspace",
                                "bpe-bytefallback"};

QString dataPath(const QString &relative)
{
    return QFINDTESTDATA(QStringLiteral("data/tokenizers/") + relative);
}

QJsonObject readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    // Qt's parser drops a U+FEFF at the start of a string; the expected texts keep theirs.
    return jsonDocumentKeepingFeff(file.readAll()).object();
}

std::vector<qint64> idsOf(const QJsonValue &v)
{
    std::vector<qint64> out;
    for (const QJsonValue x : v.toArray())
        out.push_back(x.toInteger());
    return out;
}

QStringList stringsOf(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue x : v.toArray())
        out.append(x.toString());
    return out;
}

std::vector<std::pair<qint64, qint64>> offsetsOf(const QJsonValue &v)
{
    std::vector<std::pair<qint64, qint64>> out;
    for (const QJsonValue x : v.toArray())
        out.emplace_back(x.toArray().at(0).toInteger(), x.toArray().at(1).toInteger());
    return out;
}

Tokenizer load(const QString &family)
{
    QString error;
    std::optional<Tokenizer> t =
        Tokenizer::fromPath(dataPath(family + QStringLiteral("/tokenizer.json")), &error);
    if (!t)
        qFatal("%s", qPrintable(error));
    return *t;
}

// A tokenizer from a JSON object written in the test; fails the test with the reader's message.
std::optional<Tokenizer> fromObject(const QJsonObject &o, QString *error = nullptr)
{
    QString message;
    std::optional<Tokenizer> t =
        Tokenizer::fromJson(QJsonDocument(o).toJson(), QStringLiteral("test.json"), &message);
    if (error)
        *error = message;
    return t;
}

// A WordLevel model whose vocabulary is `tokens` (ids in order) and "[UNK]".
QJsonObject wordLevel(const QStringList &tokens)
{
    QJsonObject vocab;
    for (qsizetype i = 0; i < tokens.size(); ++i)
        vocab.insert(tokens[i], i);
    if (!vocab.contains(QStringLiteral("[UNK]")))
        vocab.insert(QStringLiteral("[UNK]"), tokens.size());
    return {{QStringLiteral("type"), QStringLiteral("WordLevel")},
            {QStringLiteral("vocab"), vocab},
            {QStringLiteral("unk_token"), QStringLiteral("[UNK]")}};
}

QJsonObject tokenizerJson(const QJsonObject &model, const QJsonValue &normalizer = QJsonValue(),
                          const QJsonValue &preTokenizer = QJsonValue(),
                          const QJsonValue &postProcessor = QJsonValue(),
                          const QJsonValue &decoder = QJsonValue(), const QJsonArray &added = {})
{
    return {{QStringLiteral("version"), QStringLiteral("1.0")},
            {QStringLiteral("added_tokens"), added},
            {QStringLiteral("normalizer"), normalizer},
            {QStringLiteral("pre_tokenizer"), preTokenizer},
            {QStringLiteral("model"), model},
            {QStringLiteral("post_processor"), postProcessor},
            {QStringLiteral("decoder"), decoder}};
}

QJsonObject typed(const char *type, QJsonObject fields = {})
{
    fields.insert(QStringLiteral("type"), QString::fromLatin1(type));
    return fields;
}

QJsonObject addedToken(qint64 id, const QString &content, bool special, QJsonObject flags = {})
{
    flags.insert(QStringLiteral("id"), id);
    flags.insert(QStringLiteral("content"), content);
    flags.insert(QStringLiteral("special"), special);
    if (!flags.contains(QStringLiteral("normalized")))
        flags.insert(QStringLiteral("normalized"), !special);
    return flags;
}

using Offsets = std::vector<std::pair<qint64, qint64>>;

QString show(const TokenEncoding &e)
{
    QStringList parts;
    for (qsizetype i = 0; i < e.size(); ++i)
        parts.append(QStringLiteral("%1:%2(%3,%4)")
                         .arg(e.tokens[i])
                         .arg(e.ids[std::size_t(i)])
                         .arg(e.offsets[std::size_t(i)].first)
                         .arg(e.offsets[std::size_t(i)].second));
    return parts.join(u' ');
}

} // namespace

class TestTokenizer : public QObject
{
    Q_OBJECT

private slots:
    void knownAnswers_data();
    void knownAnswers();
    void pairs_data();
    void pairs();
    void modelPhrases_data();
    void modelPhrases();
    // Small files whose tokens follow by hand from the components' documented rules.
    void documentedRules_data();
    void documentedRules();
    void postProcessors_data();
    void postProcessors();
    void decoders_data();
    void decoders();
    void refusals_data();
    void refusals();
    void encodeFailures();
    void spaceMarks_data();
    void spaceMarks();
    void foldersAndFiles();
    // Issue 37: published files, U+FEFF, the Precompiled normalizer, bounded growth.
    void publishedFiles_data();
    void publishedFiles();
    void byteOrderMark();
    void byteOrderMarksInJson();
    void largeFilesReadAsSmallOnes_data();
    void largeFilesReadAsSmallOnes();
    void precompiled_data();
    void precompiled();
    void precompiledOffsets();
    void precompiledRefusals_data();
    void precompiledRefusals();
    void boundedGrowth_data();
    void boundedGrowth();
    void bertKeepsUnassigned();
    void stripAccentsAsTokenizers_data();
    void stripAccentsAsTokenizers();
    void loneSurrogates();
    void droppingPostProcessors();
    void repeatingPostProcessors();
    void deadlineBetweenSteps();
    void boundedDecoders();
    void utf8Reading();
};

void TestTokenizer::knownAnswers_data()
{
    QTest::addColumn<QString>("family");
    QTest::addColumn<QJsonObject>("expected");
    for (const char *family : families) {
        const QJsonObject cases =
            readJson(dataPath(QString::fromLatin1(family) + QStringLiteral("/cases.json")));
        const QJsonArray list = cases.value(QStringLiteral("cases")).toArray();
        QVERIFY2(list.size() >= 30, family);
        for (qsizetype i = 0; i < list.size(); ++i)
            QTest::addRow("%s/%lld", family, qlonglong(i))
                << QString::fromLatin1(family) << list[i].toObject();
    }
}

void TestTokenizer::knownAnswers()
{
    QFETCH(QString, family);
    QFETCH(QJsonObject, expected);
    const Tokenizer t = load(family);
    const QString text = expected.value(QStringLiteral("text")).toString();
    QString error;
    const std::optional<TokenEncoding> plain = t.encode(text, false, &error);
    QVERIFY2(plain, qPrintable(error));
    const QStringList tokens = stringsOf(expected.value(QStringLiteral("tokens")));
    if (plain->tokens != tokens)
        qWarning("%s\n  expected %s", qPrintable(show(*plain)), qPrintable(tokens.join(u' ')));
    QCOMPARE(plain->tokens, tokens);
    QCOMPARE(plain->ids, idsOf(expected.value(QStringLiteral("ids"))));
    if (plain->offsets != offsetsOf(expected.value(QStringLiteral("offsets"))))
        qWarning("%s", qPrintable(show(*plain)));
    QCOMPARE(plain->offsets, offsetsOf(expected.value(QStringLiteral("offsets"))));
    const std::optional<TokenEncoding> special = t.encode(text, true, &error);
    QVERIFY2(special, qPrintable(error));
    QCOMPARE(special->ids, idsOf(expected.value(QStringLiteral("ids_special"))));
    QCOMPARE(t.decode(plain->ids), expected.value(QStringLiteral("decoded")).toString());
}

void TestTokenizer::pairs_data()
{
    QTest::addColumn<QString>("family");
    for (const char *family : families)
        QTest::newRow(family) << QString::fromLatin1(family);
}

void TestTokenizer::pairs()
{
    QFETCH(QString, family);
    const QJsonObject pair = readJson(dataPath(family + QStringLiteral("/cases.json")))
                                 .value(QStringLiteral("pair"))
                                 .toObject();
    QString error;
    const std::optional<TokenEncoding> e =
        load(family).encodePair(pair.value(QStringLiteral("a")).toString(),
                                pair.value(QStringLiteral("b")).toString(), true, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->ids, idsOf(pair.value(QStringLiteral("ids"))));
    QCOMPARE(e->typeIds, idsOf(pair.value(QStringLiteral("type_ids"))));
}

void TestTokenizer::modelPhrases_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("addSpecialTokens");
    QTest::addColumn<QJsonObject>("expected");
    for (const char *model : {"gpt2-tiny", "llama-tiny"}) {
        const QJsonObject ref =
            readJson(dataPath(QStringLiteral("models/%1/phrases.json").arg(QLatin1String(model))));
        const QJsonArray list = ref.value(QStringLiteral("cases")).toArray();
        QVERIFY(!list.isEmpty());
        for (qsizetype i = 0; i < list.size(); ++i)
            QTest::addRow("%s/%lld", model, qlonglong(i))
                << QString::fromLatin1(model)
                << ref.value(QStringLiteral("add_special_tokens")).toBool() << list[i].toObject();
    }
}

void TestTokenizer::modelPhrases()
{
    QFETCH(QString, model);
    QFETCH(bool, addSpecialTokens);
    QFETCH(QJsonObject, expected);
    // The model folder itself, as --model names it.
    QString error;
    const std::optional<Tokenizer> t = Tokenizer::fromPath(
        QFileInfo(dataPath(QStringLiteral("models/%1/tokenizer.json").arg(model))).path(), &error);
    QVERIFY2(t, qPrintable(error));
    const std::optional<TokenEncoding> e =
        t->encode(expected.value(QStringLiteral("text")).toString(), addSpecialTokens, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->tokens, stringsOf(expected.value(QStringLiteral("tokens"))));
    QCOMPARE(e->ids, idsOf(expected.value(QStringLiteral("ids"))));
}

namespace {

// A row of documentedRules: what a file makes of a text, tokens and offsets as pairs.
void addRule(const char *name, const QJsonObject &tokenizer, const QString &text,
             std::initializer_list<const char *> tokens, const QList<qint64> &offsets)
{
    QStringList list;
    for (const char *t : tokens)
        list.append(QString::fromUtf8(t));
    QTest::newRow(name) << tokenizer << text << list << offsets;
}

QJsonObject splitOn(const char *behavior, bool invert = false,
                    const QJsonObject &pattern = {{QStringLiteral("String"), QStringLiteral("-")}})
{
    return typed("Split", {{QStringLiteral("pattern"), pattern},
                           {QStringLiteral("behavior"), QString::fromLatin1(behavior)},
                           {QStringLiteral("invert"), invert}});
}

QJsonObject sequence(const char *type, const char *key, const QJsonArray &steps)
{
    return typed(type, {{QString::fromLatin1(key), steps}});
}

QJsonObject metaspace(const char *scheme, bool split = true)
{
    return typed("Metaspace", {{QStringLiteral("replacement"), QString::fromUtf8("▁")},
                               {QStringLiteral("prepend_scheme"), QString::fromLatin1(scheme)},
                               {QStringLiteral("split"), split}});
}

void addMetaspaceRules()
{
    // Metaspace: spaces become ▁, one is prepended (always; only at the text's start for
    // "first"; never), and pieces start at each ▁. The added token splits the text in two.
    const QJsonObject vocab =
        wordLevel({QString::fromUtf8("▁hey"), QString::fromUtf8("▁you"), QStringLiteral("hey"),
                   QStringLiteral("you"), QString::fromUtf8("▁hello"), QString::fromUtf8("▁world"),
                   QString::fromUtf8("▁hello▁world")});
    const QJsonArray sep{addedToken(8, QStringLiteral("<sep>"), true)};
    const QString text = QStringLiteral("hey<sep>you");
    addRule("metaspace always", tokenizerJson(vocab, {}, metaspace("always"), {}, {}, sep), text,
            {"▁hey", "<sep>", "▁you"}, {0, 3, 3, 8, 8, 11});
    addRule("metaspace first", tokenizerJson(vocab, {}, metaspace("first"), {}, {}, sep), text,
            {"▁hey", "<sep>", "you"}, {0, 3, 3, 8, 8, 11});
    addRule("metaspace never", tokenizerJson(vocab, {}, metaspace("never"), {}, {}, sep), text,
            {"hey", "<sep>", "you"}, {0, 3, 3, 8, 8, 11});
    addRule("metaspace split", tokenizerJson(vocab, {}, metaspace("always")),
            QStringLiteral("hello world"), {"▁hello", "▁world"}, {0, 5, 5, 11});
    addRule("metaspace no split", tokenizerJson(vocab, {}, metaspace("always", false)),
            QStringLiteral("hello world"), {"▁hello▁world"}, {0, 11});
}

void addAddedTokenRules()
{
    // Added tokens are found before the normalizer; their flags as AddedToken documents them.
    const QJsonObject vocab =
        wordLevel({QStringLiteral("cab"), QStringLiteral("c"), QStringLiteral("a"),
                   QStringLiteral("b"), QStringLiteral("hi"), QStringLiteral("world")});
    const QJsonObject ws = typed("WhitespaceSplit");
    const QJsonObject singleWord{{QStringLiteral("single_word"), true}};
    addRule("added single word",
            tokenizerJson(vocab, {}, ws, {}, {},
                          {addedToken(7, QStringLiteral("ab"), false, singleWord)}),
            QStringLiteral("ab cab ab"), {"ab", "cab", "ab"}, {0, 2, 3, 6, 7, 9});
    addRule("added anywhere",
            tokenizerJson(vocab, {}, ws, {}, {}, {addedToken(7, QStringLiteral("ab"), false)}),
            QStringLiteral("ab cab ab"), {"ab", "c", "ab", "ab"}, {0, 2, 3, 4, 4, 6, 7, 9});
    // lstrip / rstrip: the token takes the spaces beside it, and shows them.
    addRule("added lstrip",
            tokenizerJson(vocab, {}, ws, {}, {},
                          {addedToken(7, QStringLiteral("<mask>"), true,
                                      {{QStringLiteral("lstrip"), true}})}),
            QStringLiteral("a <mask>b"), {"a", " <mask>", "b"}, {0, 1, 1, 8, 8, 9});
    addRule("added rstrip",
            tokenizerJson(vocab, {}, ws, {}, {},
                          {addedToken(7, QStringLiteral("<mask>"), true,
                                      {{QStringLiteral("rstrip"), true}})}),
            QStringLiteral("a<mask> b"), {"a", "<mask> ", "b"}, {0, 1, 1, 8, 8, 9});
    // normalized: found in the lowercased text; not normalized: found in the original.
    addRule("added normalized",
            tokenizerJson(vocab, typed("Lowercase"), ws, {}, {},
                          {addedToken(7, QStringLiteral("hello"), false)}),
            QStringLiteral("HELLO World"), {"hello", "world"}, {0, 5, 6, 11});
    addRule("added not normalized",
            tokenizerJson(vocab, typed("Lowercase"), ws, {}, {},
                          {addedToken(7, QStringLiteral("[CLS]"), true)}),
            QStringLiteral("[CLS] HI [cls]"), {"[CLS]", "hi", "[UNK]"}, {0, 5, 6, 8, 9, 14});
}

QJsonObject bpe(const QStringList &tokens, const QJsonArray &merges, QJsonObject fields = {})
{
    QJsonObject vocab;
    for (qsizetype i = 0; i < tokens.size(); ++i)
        vocab.insert(tokens[i], i);
    fields.insert(QStringLiteral("type"), QStringLiteral("BPE"));
    fields.insert(QStringLiteral("vocab"), vocab);
    fields.insert(QStringLiteral("merges"), merges);
    return fields;
}

QJsonObject unigram(const QJsonArray &vocab, const QJsonValue &unkId, bool byteFallback = false)
{
    return typed("Unigram", {{QStringLiteral("vocab"), vocab},
                             {QStringLiteral("unk_id"), unkId},
                             {QStringLiteral("byte_fallback"), byteFallback}});
}

QJsonArray scored(std::initializer_list<std::pair<const char *, double>> entries)
{
    QJsonArray out;
    for (const auto &[token, score] : entries)
        out.append(QJsonArray{QString::fromUtf8(token), score});
    return out;
}

void addBpeRules()
{
    // The pair with the lowest rank merges first, wherever it is.
    const QStringList abc{QStringLiteral("a"),  QStringLiteral("b"),  QStringLiteral("c"),
                          QStringLiteral("ab"), QStringLiteral("bc"), QStringLiteral("abc")};
    addRule("bpe rank order",
            tokenizerJson(bpe(abc, {QStringLiteral("b c"), QStringLiteral("a b")})),
            QStringLiteral("abc"), {"a", "bc"}, {0, 1, 1, 3});
    addRule("bpe rank order reversed",
            tokenizerJson(bpe(abc, {QStringLiteral("a b"), QStringLiteral("b c")})),
            QStringLiteral("abc"), {"ab", "c"}, {0, 2, 2, 3});
    // ignore_merges: a piece that is a token is that token, merges or not.
    addRule(
        "bpe ignore merges",
        tokenizerJson(bpe(abc, {QStringLiteral("a b")}, {{QStringLiteral("ignore_merges"), true}})),
        QStringLiteral("abc"), {"abc"}, {0, 3});
    addRule("bpe without ignore merges", tokenizerJson(bpe(abc, {QStringLiteral("a b")})),
            QStringLiteral("abc"), {"ab", "c"}, {0, 2, 2, 3});
    // continuing_subword_prefix: characters after the first carry "##"; a merge's result
    // drops the right part's prefix.
    addRule("bpe continuing prefix",
            tokenizerJson(
                bpe({QStringLiteral("a"), QStringLiteral("##b"), QStringLiteral("ab"),
                     QStringLiteral("##c")},
                    QJsonArray{QJsonValue(QJsonArray{QStringLiteral("a"), QStringLiteral("##b")})},
                    {{QStringLiteral("continuing_subword_prefix"), QStringLiteral("##")}})),
            QStringLiteral("abc"), {"ab", "##c"}, {0, 2, 2, 3});
    // end_of_word_suffix: the last character carries "</w>".
    addRule(
        "bpe end of word suffix",
        tokenizerJson(bpe({QStringLiteral("a"), QStringLiteral("b</w>"), QStringLiteral("ab</w>")},
                          {QStringLiteral("a b</w>")},
                          {{QStringLiteral("end_of_word_suffix"), QStringLiteral("</w>")}})),
        QStringLiteral("ab"), {"ab</w>"}, {0, 2});
    // Unknown characters: one <unk> each, or one for a run with fuse_unk.
    const QStringList withUnk{QStringLiteral("a"), QStringLiteral("<unk>")};
    addRule("bpe fuse unk",
            tokenizerJson(bpe(withUnk, {},
                              {{QStringLiteral("unk_token"), QStringLiteral("<unk>")},
                               {QStringLiteral("fuse_unk"), true}})),
            QStringLiteral("axxa"), {"a", "<unk>", "a"}, {0, 1, 1, 3, 3, 4});
    addRule(
        "bpe unk not fused",
        tokenizerJson(bpe(withUnk, {}, {{QStringLiteral("unk_token"), QStringLiteral("<unk>")}})),
        QStringLiteral("axxa"), {"a", "<unk>", "<unk>", "a"}, {0, 1, 1, 2, 2, 3, 3, 4});
    // byte_fallback: an unknown character as its UTF-8 bytes (é is C3 A9), each covering it.
    addRule(
        "bpe byte fallback",
        tokenizerJson(bpe({QStringLiteral("a"), QStringLiteral("<0xC3>"), QStringLiteral("<0xA9>")},
                          {}, {{QStringLiteral("byte_fallback"), true}})),
        QString::fromUtf8("aé"), {"a", "<0xC3>", "<0xA9>"}, {0, 1, 1, 2, 1, 2});
}

void addModelRules()
{
    addBpeRules();
    // WordPiece's own example: greedy longest match first.
    const QJsonObject wordpiece{
        {QStringLiteral("type"), QStringLiteral("WordPiece")},
        {QStringLiteral("vocab"), QJsonObject{{QStringLiteral("un"), 0},
                                              {QStringLiteral("##aff"), 1},
                                              {QStringLiteral("##able"), 2},
                                              {QStringLiteral("[UNK]"), 3}}},
        {QStringLiteral("unk_token"), QStringLiteral("[UNK]")},
        {QStringLiteral("continuing_subword_prefix"), QStringLiteral("##")},
        {QStringLiteral("max_input_chars_per_word"), 100}};
    addRule("wordpiece", tokenizerJson(wordpiece), QStringLiteral("unaffable"),
            {"un", "##aff", "##able"}, {0, 2, 2, 5, 5, 9});
    QJsonObject shortWords = wordpiece;
    shortWords.insert(QStringLiteral("max_input_chars_per_word"), 5);
    addRule("wordpiece too long", tokenizerJson(shortWords), QStringLiteral("unaffable"), {"[UNK]"},
            {0, 9});
    addRule("wordpiece no split", tokenizerJson(wordpiece), QStringLiteral("unx"), {"[UNK]"},
            {0, 3});
    // Unigram: the segmentation with the highest total score (a + b = -2 beats ab = -3, loses
    // to ab = -1.5); an unknown run is one token, scored 10 below the lowest score.
    addRule("unigram pieces",
            tokenizerJson(unigram(scored({{"<unk>", 0}, {"a", -1}, {"b", -1}, {"ab", -3}}), 0)),
            QStringLiteral("ab"), {"a", "b"}, {0, 1, 1, 2});
    addRule("unigram whole",
            tokenizerJson(unigram(scored({{"<unk>", 0}, {"a", -1}, {"b", -1}, {"ab", -1.5}}), 0)),
            QStringLiteral("ab"), {"ab"}, {0, 2});
    addRule("unigram unknown fused",
            tokenizerJson(unigram(scored({{"<unk>", 0}, {"a", -1}, {"b", -1}}), 0)),
            QStringLiteral("axyb"), {"a", "xy", "b"}, {0, 1, 1, 3, 3, 4});
    addRule("unigram byte fallback",
            tokenizerJson(unigram(scored({{"<unk>", 0}, {"a", -1}, {"<0xC3>", -2}, {"<0xA9>", -2}}),
                                  0, true)),
            QString::fromUtf8("aé"), {"a", "<0xC3>", "<0xA9>"}, {0, 1, 1, 2, 1, 2});
    // ByteLevel: the GPT-2 split, a prefix space, and offsets trimmed of the spaces (Ġ).
    const QJsonObject byteVocab =
        wordLevel({QString::fromUtf8("Ġhi"), QString::fromUtf8("Ġthere")});
    const QJsonObject byteLevelPre =
        typed("ByteLevel", {{QStringLiteral("add_prefix_space"), true}});
    addRule("byte level trimmed offsets",
            tokenizerJson(byteVocab, {}, byteLevelPre,
                          typed("ByteLevel", {{QStringLiteral("trim_offsets"), true}})),
            QStringLiteral("hi there"), {"Ġhi", "Ġthere"}, {0, 2, 3, 8});
    addRule("byte level offsets with spaces",
            tokenizerJson(byteVocab, {}, byteLevelPre,
                          typed("ByteLevel", {{QStringLiteral("trim_offsets"), false}})),
            QStringLiteral("hi there"), {"Ġhi", "Ġthere"}, {0, 2, 2, 8});
}

} // namespace

void TestTokenizer::documentedRules_data()
{
    QTest::addColumn<QJsonObject>("tokenizer");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("tokens");
    QTest::addColumn<QList<qint64>>("offsets");

    // SplitDelimiterBehavior's documentation, on "the-final--countdown" split at '-'.
    const QString countdown = QStringLiteral("the-final--countdown");
    const QJsonObject pieces =
        wordLevel({QStringLiteral("the"), QStringLiteral("final"), QStringLiteral("countdown"),
                   QStringLiteral("-"), QStringLiteral("the-"), QStringLiteral("final-"),
                   QStringLiteral("-final"), QStringLiteral("-countdown"), QStringLiteral("--")});
    const auto split = [&](const QJsonObject &pre) { return tokenizerJson(pieces, {}, pre); };
    addRule("split removed", split(splitOn("Removed")), countdown, {"the", "final", "countdown"},
            {0, 3, 4, 9, 11, 20});
    addRule("split isolated", split(splitOn("Isolated")), countdown,
            {"the", "-", "final", "-", "-", "countdown"},
            {0, 3, 3, 4, 4, 9, 9, 10, 10, 11, 11, 20});
    addRule("split merged with previous", split(splitOn("MergedWithPrevious")), countdown,
            {"the-", "final-", "-", "countdown"}, {0, 4, 4, 10, 10, 11, 11, 20});
    addRule("split merged with next", split(splitOn("MergedWithNext")), countdown,
            {"the", "-final", "-", "-countdown"}, {0, 3, 3, 9, 9, 10, 10, 20});
    addRule("split contiguous", split(splitOn("Contiguous")), countdown,
            {"the", "-", "final", "--", "countdown"}, {0, 3, 3, 4, 4, 9, 9, 11, 11, 20});
    // invert: the regex matches the words, so the dashes between them are the delimiters.
    addRule("split regex inverted",
            split(splitOn("Removed", true, {{QStringLiteral("Regex"), QStringLiteral("[a-z]+")}})),
            countdown, {"the", "final", "countdown"}, {0, 3, 4, 9, 11, 20});

    // Digits: runs of digits, or each digit alone (individual_digits).
    const QJsonObject callPieces =
        wordLevel({QStringLiteral("Call "), QStringLiteral("123"), QStringLiteral(" please"),
                   QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")});
    addRule("digits", tokenizerJson(callPieces, {}, typed("Digits")),
            QStringLiteral("Call 123 please"), {"Call ", "123", " please"}, {0, 5, 5, 8, 8, 15});
    addRule("digits individual",
            tokenizerJson(callPieces, {},
                          typed("Digits", {{QStringLiteral("individual_digits"), true}})),
            QStringLiteral("Call 123 please"), {"Call ", "1", "2", "3", " please"},
            {0, 5, 5, 6, 6, 7, 7, 8, 8, 15});
    // Punctuation after a whitespace split: each punctuation mark on its own.
    const QJsonObject hey = wordLevel({QStringLiteral("Hey"), QStringLiteral(","),
                                       QStringLiteral("friend"), QStringLiteral("!")});
    addRule("punctuation",
            tokenizerJson(hey, {},
                          sequence("Sequence", "pretokenizers",
                                   {typed("WhitespaceSplit"), typed("Punctuation")})),
            QStringLiteral("Hey, friend!"), {"Hey", ",", "friend", "!"},
            {0, 3, 3, 4, 5, 11, 11, 12});
    // Whitespace: \w+|[^\w\s]+.
    const QJsonObject hello =
        wordLevel({QStringLiteral("Hello"), QStringLiteral(","), QStringLiteral("world"),
                   QStringLiteral("!"), QStringLiteral("123")});
    addRule("whitespace", tokenizerJson(hello, {}, typed("Whitespace")),
            QStringLiteral("Hello, world! 123"), {"Hello", ",", "world", "!", "123"},
            {0, 5, 5, 6, 7, 12, 12, 13, 14, 17});
    // WordLevel: a piece is a token or the unknown token.
    addRule("word level unknown", tokenizerJson(hello, {}, typed("WhitespaceSplit")),
            QStringLiteral("Hello big world"), {"Hello", "[UNK]", "world"}, {0, 5, 6, 9, 10, 15});

    // Normalizers keep each character's place in the original text.
    const QJsonObject words = wordLevel(
        {QStringLiteral("hello"), QStringLiteral("hello  "), QStringLiteral("creme"),
         QStringLiteral("brulee"), QStringLiteral("fi"), QStringLiteral("x2"), QStringLiteral("a"),
         QStringLiteral("b"), QStringLiteral("ab"), QStringLiteral("c"), QString::fromUtf8("中")});
    addRule("strip",
            tokenizerJson(words, typed("Strip", {{QStringLiteral("strip_left"), true},
                                                 {QStringLiteral("strip_right"), true}})),
            QStringLiteral("  hello  "), {"hello"}, {2, 7});
    addRule("strip left",
            tokenizerJson(words, typed("Strip", {{QStringLiteral("strip_left"), true},
                                                 {QStringLiteral("strip_right"), false}})),
            QStringLiteral("  hello  "), {"hello  "}, {2, 9});
    addRule("NFD, strip accents, lowercase",
            tokenizerJson(words,
                          sequence("Sequence", "normalizers",
                                   {typed("NFD"), typed("StripAccents"), typed("Lowercase")}),
                          typed("WhitespaceSplit")),
            QString::fromUtf8("Crème BRÛLÉE"), {"creme", "brulee"}, {0, 5, 6, 12});
    // NFKC: the ligature ﬁ is two letters, both from the one character.
    addRule("NFKC ligature", tokenizerJson(words, typed("NFKC")), QString::fromUtf8("ﬁ"), {"fi"},
            {0, 1});
    addRule("NFKC superscript", tokenizerJson(words, typed("NFKC")), QString::fromUtf8("x²"),
            {"x2"}, {0, 2});
    addRule("replace",
            tokenizerJson(
                words,
                typed("Replace", {{QStringLiteral("pattern"),
                                   QJsonObject{{QStringLiteral("String"), QStringLiteral("-")}}},
                                  {QStringLiteral("content"), QStringLiteral(" ")}}),
                typed("WhitespaceSplit")),
            QStringLiteral("a-b"), {"a", "b"}, {0, 1, 2, 3});
    // BertNormalizer puts spaces around CJK ideographs.
    addRule("bert chinese characters",
            tokenizerJson(words, typed("BertNormalizer"), typed("BertPreTokenizer")),
            QString::fromUtf8("ab中c"), {"ab", "中", "c"}, {0, 2, 2, 3, 3, 4});
    addMetaspaceRules();
    addAddedTokenRules();
    addModelRules();
}

void TestTokenizer::documentedRules()
{
    QFETCH(QJsonObject, tokenizer);
    QFETCH(QString, text);
    QFETCH(QStringList, tokens);
    QFETCH(QList<qint64>, offsets);
    QString error;
    const std::optional<Tokenizer> t = fromObject(tokenizer, &error);
    QVERIFY2(t, qPrintable(error));
    const std::optional<TokenEncoding> e = t->encode(text, false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->tokens, tokens);
    QList<qint64> flat;
    for (const auto &[start, end] : e->offsets)
        flat << start << end;
    QCOMPARE(flat, offsets);
}

void TestTokenizer::postProcessors_data()
{
    QTest::addColumn<QJsonObject>("processor");
    QTest::addColumn<QStringList>("texts");
    QTest::addColumn<bool>("addSpecialTokens");
    QTest::addColumn<QList<qint64>>("ids");
    QTest::addColumn<QList<qint64>>("typeIds");
    QTest::addColumn<QList<qint64>>("special");
    // Vocabulary: [CLS] 0, [SEP] 1, a 2, b 3. BertProcessing: [CLS] A [SEP] B [SEP], B's type 1;
    // RobertaProcessing: <s> A </s> </s> B </s>, every type 0; TemplateProcessing as written.
    const QJsonObject bert =
        typed("BertProcessing", {{QStringLiteral("sep"), QJsonArray{QStringLiteral("[SEP]"), 1}},
                                 {QStringLiteral("cls"), QJsonArray{QStringLiteral("[CLS]"), 0}}});
    const QJsonObject roberta =
        typed("RobertaProcessing", {{QStringLiteral("sep"), QJsonArray{QStringLiteral("[SEP]"), 1}},
                                    {QStringLiteral("cls"), QJsonArray{QStringLiteral("[CLS]"), 0}},
                                    {QStringLiteral("trim_offsets"), true},
                                    {QStringLiteral("add_prefix_space"), false}});
    const auto special = [](const char *id, int type) {
        return QJsonObject{{QStringLiteral("SpecialToken"),
                            QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)},
                                        {QStringLiteral("type_id"), type}}}};
    };
    const auto piece = [](const char *id, int type) {
        return QJsonObject{{QStringLiteral("Sequence"),
                            QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)},
                                        {QStringLiteral("type_id"), type}}}};
    };
    const QJsonObject specials{
        {QStringLiteral("[CLS]"),
         QJsonObject{{QStringLiteral("id"), QStringLiteral("[CLS]")},
                     {QStringLiteral("ids"), QJsonArray{0}},
                     {QStringLiteral("tokens"), QJsonArray{QStringLiteral("[CLS]")}}}},
        {QStringLiteral("[SEP]"),
         QJsonObject{{QStringLiteral("id"), QStringLiteral("[SEP]")},
                     {QStringLiteral("ids"), QJsonArray{1}},
                     {QStringLiteral("tokens"), QJsonArray{QStringLiteral("[SEP]")}}}}};
    const QJsonObject templ =
        typed("TemplateProcessing",
              {{QStringLiteral("single"),
                QJsonArray{special("[CLS]", 0), piece("A", 0), special("[SEP]", 0)}},
               {QStringLiteral("pair"),
                QJsonArray{special("[CLS]", 0), piece("A", 0), special("[SEP]", 0), piece("B", 1),
                           special("[SEP]", 1)}},
               {QStringLiteral("special_tokens"), specials}});
    const QStringList one{QStringLiteral("a")};
    const QStringList two{QStringLiteral("a"), QStringLiteral("b")};
    using L = QList<qint64>;
    QTest::newRow("bert single") << bert << one << true << L{0, 2, 1} << L{0, 0, 0} << L{1, 0, 1};
    QTest::newRow("bert pair") << bert << two << true << L{0, 2, 1, 3, 1} << L{0, 0, 0, 1, 1}
                               << L{1, 0, 1, 0, 1};
    QTest::newRow("bert pair without specials")
        << bert << two << false << L{2, 3} << L{0, 1} << L{0, 0};
    QTest::newRow("roberta pair") << roberta << two << true << L{0, 2, 1, 1, 3, 1}
                                  << L{0, 0, 0, 0, 0, 0} << L{1, 0, 1, 1, 0, 1};
    QTest::newRow("roberta pair without specials")
        << roberta << two << false << L{2, 3} << L{0, 0} << L{0, 0};
    QTest::newRow("template single")
        << templ << one << true << L{0, 2, 1} << L{0, 0, 0} << L{1, 0, 1};
    QTest::newRow("template pair")
        << templ << two << true << L{0, 2, 1, 3, 1} << L{0, 0, 0, 1, 1} << L{1, 0, 1, 0, 1};
    QTest::newRow("template pair without specials")
        << templ << two << false << L{2, 3} << L{0, 1} << L{0, 0};
    QTest::newRow("no processor pair")
        << QJsonObject() << two << true << L{2, 3} << L{0, 1} << L{0, 0};
}

void TestTokenizer::postProcessors()
{
    QFETCH(QJsonObject, processor);
    QFETCH(QStringList, texts);
    QFETCH(bool, addSpecialTokens);
    QFETCH(QList<qint64>, ids);
    QFETCH(QList<qint64>, typeIds);
    QFETCH(QList<qint64>, special);
    QString error;
    const std::optional<Tokenizer> t = fromObject(
        tokenizerJson(wordLevel({QStringLiteral("[CLS]"), QStringLiteral("[SEP]"),
                                 QStringLiteral("a"), QStringLiteral("b")}),
                      {}, {}, processor.isEmpty() ? QJsonValue() : QJsonValue(processor)),
        &error);
    QVERIFY2(t, qPrintable(error));
    const std::optional<TokenEncoding> e =
        texts.size() == 1 ? t->encode(texts[0], addSpecialTokens, &error)
                          : t->encodePair(texts[0], texts[1], addSpecialTokens, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(QList<qint64>(e->ids.begin(), e->ids.end()), ids);
    QCOMPARE(QList<qint64>(e->typeIds.begin(), e->typeIds.end()), typeIds);
    QList<qint64> mask;
    for (const bool s : e->special)
        mask << (s ? 1 : 0);
    QCOMPARE(mask, special);
    for (qsizetype i = 0; i < e->size(); ++i)
        if (e->special[std::size_t(i)])
            QCOMPARE(e->offsets[std::size_t(i)], (std::pair<qint64, qint64>(0, 0)));
}

void TestTokenizer::decoders_data()
{
    QTest::addColumn<QJsonValue>("decoder");
    QTest::addColumn<QStringList>("tokens");
    QTest::addColumn<QString>("text");
    const auto list = [](std::initializer_list<const char *> items) {
        QStringList out;
        for (const char *i : items)
            out.append(QString::fromUtf8(i));
        return out;
    };
    // decoders/wordpiece.rs: "##" joins, a space before every other token, then each token's
    // cleanup (" ." to ".", ...).
    QTest::newRow("wordpiece")
        << QJsonValue(typed("WordPiece", {{QStringLiteral("prefix"), QStringLiteral("##")},
                                          {QStringLiteral("cleanup"), true}}))
        << list({"i", "'", "m", "a", "##b", "."}) << QStringLiteral("i ' m ab.");
    // Metaspace: ▁ is a space, except in the first token when one was prepended.
    QTest::newRow("metaspace") << QJsonValue(metaspace("always")) << list({"▁hey", "▁you"})
                               << QStringLiteral("hey you");
    QTest::newRow("metaspace never")
        << QJsonValue(metaspace("never")) << list({"▁hey", "▁you"}) << QStringLiteral(" hey you");
    // ByteFallback: <0xNN> runs become their UTF-8 text (E2 82 AC is €), or U+FFFD per byte.
    const QJsonValue bytes =
        sequence("Sequence", "decoders", {typed("ByteFallback"), typed("Fuse")});
    QTest::newRow("byte fallback")
        << bytes << list({"<0xE2>", "<0x82>", "<0xAC>", "x"}) << QString::fromUtf8("€x");
    QTest::newRow("byte fallback invalid")
        << bytes << list({"<0xE2>", "<0x82>", "x"}) << QString::fromUtf8("\uFFFD\uFFFDx");
    QTest::newRow("strip") << QJsonValue(sequence(
                                  "Sequence", "decoders",
                                  {typed("Fuse"),
                                   typed("Strip", {{QStringLiteral("content"), QStringLiteral(" ")},
                                                   {QStringLiteral("start"), 1},
                                                   {QStringLiteral("stop"), 0}})}))
                           << list({"  a", " b"}) << QStringLiteral(" a b");
    QTest::newRow("replace")
        << QJsonValue(
               typed("Replace", {{QStringLiteral("pattern"),
                                  QJsonObject{{QStringLiteral("String"), QString::fromUtf8("▁")}}},
                                 {QStringLiteral("content"), QStringLiteral(" ")}}))
        << list({"▁a", "▁b"}) << QStringLiteral(" a b");
    // BPEDecoder: the end-of-word suffix is a space, except after the last token.
    QTest::newRow("bpe") << QJsonValue(typed("BPEDecoder",
                                             {{QStringLiteral("suffix"), QStringLiteral("</w>")}}))
                         << list({"hel", "lo</w>", "world</w>"}) << QStringLiteral("hello world");
    // CTC: repeats collapse, pads go, the word delimiter is a space.
    QTest::newRow("ctc")
        << QJsonValue(typed("CTC", {{QStringLiteral("pad_token"), QStringLiteral("<pad>")},
                                    {QStringLiteral("word_delimiter_token"), QStringLiteral("|")},
                                    {QStringLiteral("cleanup"), true}}))
        << list({"<pad>", "h", "h", "e", "<pad>", "l", "l", "<pad>", "l", "o", "|", "w"})
        << QStringLiteral("hello w");
    // ByteLevel: each character a byte (Ã© is C3 A9, é; Ġ a space).
    QTest::newRow("byte level") << QJsonValue(typed("ByteLevel")) << list({"h", "Ã©", "Ġx"})
                                << QString::fromUtf8("hé x");
    // An incomplete UTF-8 sequence (E2 82, "âĤ") is one U+FFFD, as Rust's from_utf8_lossy
    // makes it; a byte that starts nothing (FF, "ÿ") one of its own.
    QTest::newRow("byte level lossy") << QJsonValue(typed("ByteLevel")) << list({"âĤ", "x", "ÿ"})
                                      << QString::fromUtf8("\uFFFDx\uFFFD");
    QTest::newRow("none") << QJsonValue() << list({"a", "b"}) << QStringLiteral("a b");
}

void TestTokenizer::decoders()
{
    QFETCH(QJsonValue, decoder);
    QFETCH(QStringList, tokens);
    QFETCH(QString, text);
    QStringList vocab;
    for (const QString &token : tokens)
        if (!vocab.contains(token))
            vocab.append(token);
    QString error;
    const std::optional<Tokenizer> t =
        fromObject(tokenizerJson(wordLevel(vocab), {}, {}, {}, decoder), &error);
    QVERIFY2(t, qPrintable(error));
    std::vector<qint64> ids;
    for (const QString &token : tokens)
        ids.push_back(vocab.indexOf(token));
    QCOMPARE(t->decode(ids), text);
}

void TestTokenizer::refusals_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("message");
    const auto row = [](const char *name, const QJsonObject &o,
                        std::initializer_list<const char *> parts) {
        QStringList words;
        for (const char *p : parts)
            words.append(QString::fromUtf8(p));
        QTest::newRow(name) << QJsonDocument(o).toJson() << words;
    };
    const QJsonObject model = wordLevel({QStringLiteral("a")});
    const auto wordLevelVocab = [](const QJsonObject &vocab) {
        return typed("WordLevel", {{QStringLiteral("vocab"), vocab},
                                   {QStringLiteral("unk_token"), QStringLiteral("a")}});
    };
    row("unknown normalizer", tokenizerJson(model, typed("Foo")),
        {"test.json", "normalizer", "\"Foo\""});
    row("unknown pre-tokenizer in a sequence",
        tokenizerJson(
            model, {},
            sequence("Sequence", "pretokenizers", {typed("WhitespaceSplit"), typed("Bar")})),
        {"test.json", "pre_tokenizer.pretokenizers[1]", "\"Bar\""});
    row("unknown model", tokenizerJson(typed("Baz", {{QStringLiteral("vocab"), QJsonObject()}})),
        {"model", "\"Baz\""});
    row("unknown post-processor", tokenizerJson(model, {}, {}, typed("Qux")),
        {"post_processor", "\"Qux\""});
    row("unknown decoder", tokenizerJson(model, {}, {}, {}, typed("Quux")),
        {"decoder", "\"Quux\""});
    row("precompiled charsmap too short",
        tokenizerJson(model, typed("Precompiled", {{QStringLiteral("precompiled_charsmap"),
                                                    QStringLiteral("AAAA")}})),
        {"normalizer.precompiled_charsmap", "too short"});
    row("no model", QJsonObject{{QStringLiteral("version"), QStringLiteral("1.0")}},
        {"test.json", "model"});
    row("version",
        QJsonObject{{QStringLiteral("version"), QStringLiteral("2.0")},
                    {QStringLiteral("model"), model}},
        {"version", "1.0"});
    row("merge of an unknown token",
        tokenizerJson(bpe({QStringLiteral("a"), QStringLiteral("ab")}, {QStringLiteral("a b")})),
        {"model.merges[0]", "\"b\"", "not in the vocabulary"});
    row("merge into an unknown token",
        tokenizerJson(bpe({QStringLiteral("a"), QStringLiteral("b")}, {QStringLiteral("a b")})),
        {"model.merges[0]", "\"ab\"", "not in the vocabulary"});
    row("malformed merge", tokenizerJson(bpe({QStringLiteral("a")}, {QStringLiteral("a b c")})),
        {"model.merges[0]"});
    row("negative id", tokenizerJson(wordLevelVocab({{QStringLiteral("a"), -1}})),
        {"model.vocab[\"a\"]", "token id"});
    row("id too large", tokenizerJson(wordLevelVocab({{QStringLiteral("a"), 2147483648.0}})),
        {"model.vocab[\"a\"]", "token id"});
    row("fractional id", tokenizerJson(wordLevelVocab({{QStringLiteral("a"), 1.5}})),
        {"model.vocab[\"a\"]", "token id"});
    // Issue 35: numbers no integer type holds are refused, never cast.
    row("id 3.3e56", tokenizerJson(wordLevelVocab({{QStringLiteral("a"), 3.3e56}})),
        {"model.vocab[\"a\"]", "token id"});
    row("id -3.3e56", tokenizerJson(wordLevelVocab({{QStringLiteral("a"), -3.3e56}})),
        {"model.vocab[\"a\"]", "token id"});
    row("id 2^63", tokenizerJson(wordLevelVocab({{QStringLiteral("a"), 9223372036854775808.0}})),
        {"model.vocab[\"a\"]", "token id"});
    for (const double huge : {3.3e56, -3.3e56, 9223372036854775808.0, -1.0}) {
        const QJsonObject wordPiece = typed(
            "WordPiece", {{QStringLiteral("vocab"), QJsonObject{{QStringLiteral("[UNK]"), 0}}},
                          {QStringLiteral("max_input_chars_per_word"), huge}});
        row(qPrintable(QStringLiteral("max_input_chars_per_word %1").arg(huge)),
            tokenizerJson(wordPiece), {"model.max_input_chars_per_word", "whole number from 0"});
    }
    row("duplicate id",
        tokenizerJson(wordLevelVocab({{QStringLiteral("a"), 1}, {QStringLiteral("b"), 1}})),
        {"model.vocab", "same id 1"});
    row("regex that does not compile",
        tokenizerJson(
            model, {},
            splitOn("Isolated", false, {{QStringLiteral("Regex"), QStringLiteral("(a")}})),
        {"pre_tokenizer.pattern.Regex", "does not compile"});
    row("dropout",
        tokenizerJson(bpe({QStringLiteral("a")}, {}, {{QStringLiteral("dropout"), 0.1}})),
        {"model.dropout", "random"});
    row("unknown split behaviour", tokenizerJson(model, {}, splitOn("Sideways")),
        {"behavior", "Sideways"});
    row("unigram unk_id", tokenizerJson(unigram(scored({{"a", -1}}), 5)), {"model.unk_id", "5"});
    row("template without its special token",
        tokenizerJson(model, {}, {},
                      typed("TemplateProcessing",
                            {{QStringLiteral("single"),
                              QJsonArray{QJsonObject{
                                  {QStringLiteral("SpecialToken"),
                                   QJsonObject{{QStringLiteral("id"), QStringLiteral("<s>")},
                                               {QStringLiteral("type_id"), 0}}}}}},
                             {QStringLiteral("pair"), QJsonArray()},
                             {QStringLiteral("special_tokens"), QJsonObject()}})),
        {"post_processor", "\"<s>\""});
    // Nesting: a Sequence of Sequences 40 deep.
    QJsonObject deep = typed("Lowercase");
    for (int i = 0; i < 40; ++i)
        deep = sequence("Sequence", "normalizers", {deep});
    row("deep nesting", tokenizerJson(model, deep), {"test.json", "nested deeper"});
    // Truncated: the reference file cut in the middle.
    QFile file(dataPath(QStringLiteral("bpe-bytelevel/tokenizer.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QTest::newRow("truncated") << file.read(100000)
                               << QStringList{QStringLiteral("test.json"),
                                              QStringLiteral("invalid JSON")};
    QTest::newRow("not JSON") << QByteArray("\x00\xff garbage", 10)
                              << QStringList{QStringLiteral("test.json")};
}

void TestTokenizer::refusals()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, message);
    QString error;
    QVERIFY(!Tokenizer::fromJson(json, QStringLiteral("test.json"), &error));
    for (const QString &part : message)
        QVERIFY2(error.contains(part),
                 qPrintable(QStringLiteral("\"%1\" is not in: %2").arg(part, error)));
    QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
}

void TestTokenizer::encodeFailures()
{
    QString error;
    // A pattern that backtracks catastrophically gives up at the first position, with a
    // message, instead of running for hours: (a+)+$ on 40 a's and a '!'.
    const QString evilText = QString(40, QLatin1Char('a')) + QLatin1Char('!');
    for (const char *pattern : {"(a+)+$", "(*LIMIT_MATCH=1000000000)(a+)+$"}) {
        // The second cannot raise the limit with its own setting.
        const std::optional<Tokenizer> evil = fromObject(
            tokenizerJson(wordLevel({QStringLiteral("a")}), {},
                          splitOn("Isolated", false,
                                  {{QStringLiteral("Regex"), QString::fromLatin1(pattern)}})),
            &error);
        QVERIFY2(evil, qPrintable(error));
        QVERIFY(!evil->encode(evilText, false, &error));
        QVERIFY2(error.contains(QStringLiteral("gave up")), qPrintable(error));
    }
    // A WordPiece model whose unknown token is not in its vocabulary.
    const std::optional<Tokenizer> noUnk = fromObject(
        tokenizerJson(
            typed("WordPiece", {{QStringLiteral("vocab"), QJsonObject{{QStringLiteral("a"), 0}}},
                                {QStringLiteral("unk_token"), QStringLiteral("[UNK]")}})),
        &error);
    QVERIFY2(noUnk, qPrintable(error));
    QVERIFY(noUnk->encode(QStringLiteral("a"), false, &error));
    QVERIFY(!noUnk->encode(QStringLiteral("b"), false, &error));
    QVERIFY2(error.contains(QStringLiteral("[UNK]")), qPrintable(error));
    // A Unigram model without unk_id meeting a character it has no token for.
    const std::optional<Tokenizer> noUnkId =
        fromObject(tokenizerJson(unigram(scored({{"a", -1}}), QJsonValue())), &error);
    QVERIFY2(noUnkId, qPrintable(error));
    QVERIFY(!noUnkId->encode(QStringLiteral("ab"), false, &error));
    QVERIFY2(error.contains(QStringLiteral("unk_id")), qPrintable(error));
    // A text longer than the limit is refused before any work.
    const Tokenizer bytes = load(QStringLiteral("bpe-bytelevel"));
    QVERIFY(!bytes.encode(QString(Tokenizer::maxTextLength + 1, QLatin1Char('a')), true, &error));
    QVERIFY2(error.contains(QStringLiteral("characters long")), qPrintable(error));
    // A long word of one letter: one "a" token each, as the library gives (no merge "a a").
    const std::optional<TokenEncoding> word =
        bytes.encode(QString(100000, QLatin1Char('a')), false, &error);
    QVERIFY2(word, qPrintable(error));
    QCOMPARE(word->size(), 100000);
}

void TestTokenizer::foldersAndFiles()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto touch = [&](const QString &name) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x");
    };
    QString error;
    QVERIFY(!Tokenizer::fromPath(dir.path(), &error));
    QVERIFY2(error.contains(QStringLiteral("no tokenizer.json")), qPrintable(error));
    touch(QStringLiteral("vocab.txt"));
    QVERIFY(!Tokenizer::fromPath(dir.path(), &error));
    QVERIFY2(error.contains(QStringLiteral("vocab.txt")), qPrintable(error));
    touch(QStringLiteral("tokenizer.model"));
    QVERIFY(!Tokenizer::fromPath(dir.path(), &error));
    QVERIFY2(error.contains(QStringLiteral("SentencePiece")) && error.contains(dir.path()),
             qPrintable(error));
    QVERIFY(!Tokenizer::fromPath(dir.filePath(QStringLiteral("tokenizer.model")), &error));
    QVERIFY2(error.contains(QStringLiteral("SentencePiece")), qPrintable(error));
    // A file larger than the limit is refused from its size, unread (a sparse file here).
    QFile big(dir.filePath(QStringLiteral("tokenizer.json")));
    QVERIFY(big.open(QIODevice::WriteOnly));
    QVERIFY(big.resize(Tokenizer::maxFileBytes + 1));
    big.close();
    QVERIFY(!Tokenizer::fromPath(dir.path(), &error));
    QVERIFY2(error.contains(QStringLiteral("too large")), qPrintable(error));
    // Lookups and the summary of a reference file.
    const Tokenizer t = load(QStringLiteral("bpe-bytelevel"));
    QCOMPARE(t.tokenToId(QStringLiteral("<|endoftext|>")), std::optional<qint64>(0));
    QCOMPARE(t.idToToken(0), QStringLiteral("<|endoftext|>"));
    QCOMPARE(t.vocabularySize(), 3000);
    QVERIFY(t.idToToken(3000).isNull());
    QVERIFY2(t.summary().startsWith(QStringLiteral("BPE, 3000 tokens")), qPrintable(t.summary()));
}

namespace {

const char *const publishedFamilies[] = {"gpt2", "bert-base-uncased", "t5-small", "qwen3"};

QString publishedPath(const QString &relative)
{
    return QFINDTESTDATA(QStringLiteral("data/tokenizers-real/") + relative);
}

// The published tokenizer.json of `family`; Qwen 3's (11 MB) is kept compressed with xz, and
// read from xz's output (the large-file path: vocabulary and merges through simdjson).
std::optional<Tokenizer> loadPublished(const QString &family, QString *error)
{
    if (family != QLatin1StringView("qwen3"))
        return Tokenizer::fromPath(publishedPath(family + QStringLiteral("/tokenizer.json")),
                                   error);
    const QString packed = publishedPath(family + QStringLiteral("/tokenizer.json.xz"));
    QProcess xz;
    xz.start(QStringLiteral("xz"), {QStringLiteral("-dc"), packed});
    if (!xz.waitForFinished(120000) || xz.exitStatus() != QProcess::NormalExit ||
        xz.exitCode() != 0) {
        *error =
            QStringLiteral("xz -dc %1 failed (xz is in Debian's base system): %2 %3")
                .arg(packed, xz.errorString(), QString::fromLocal8Bit(xz.readAllStandardError()));
        return std::nullopt;
    }
    return Tokenizer::fromJson(xz.readAllStandardOutput(), packed, error);
}

QByteArray littleEndian(quint32 v)
{
    QByteArray out(4, '\0');
    for (int i = 0; i < 4; ++i)
        out[i] = char((v >> (8 * i)) & 0xFF);
    return out;
}

// A precompiled charsmap laid out as spm_precompiled reads one, from the format's description:
// a little-endian u32 with the trie's size in bytes, the trie, then the replacement strings
// each ended by NUL. The trie is a double array over the keys' UTF-8 bytes: a node's unit holds
// its label (bits 0-7), whether a key ends there (bit 8) and the XOR offset to its children's
// block (bits 10-31); the child with label c sits at base ^ c, and a key's value unit (bit 31
// set, the string's byte offset below) at base ^ 0. Every node gets a block of 256 units of its
// own at a multiple of 256, so base ^ c = base + c. `values` overrides a key's value (for
// hostile charsmaps); `rootOffset`, the root's offset.
QByteArray charsmapBlob(const std::vector<std::pair<QByteArray, QByteArray>> &rules,
                        const std::map<QByteArray, quint32> &values = {},
                        std::optional<quint32> rootOffset = std::nullopt)
{
    struct Node
    {
        std::map<unsigned char, std::size_t> children;
        std::optional<quint32> value;
        unsigned char label = 0;
        quint32 position = 0;
        quint32 base = 0;
    };
    QByteArray strings;
    std::vector<Node> nodes(1);
    for (const auto &[key, replacement] : rules) {
        std::size_t n = 0;
        for (const char ch : key) {
            const auto c = static_cast<unsigned char>(ch);
            auto it = nodes[n].children.find(c);
            if (it == nodes[n].children.end()) {
                nodes.push_back({});
                nodes.back().label = c;
                it = nodes[n].children.emplace(c, nodes.size() - 1).first;
            }
            n = it->second;
        }
        const auto given = values.find(key);
        nodes[n].value = given != values.end() ? given->second : quint32(strings.size());
        strings += replacement;
        strings += '\0';
    }
    std::vector<quint32> units(256, 0);
    std::vector<std::size_t> order{0};
    for (std::size_t i = 0; i < order.size(); ++i) {
        Node &node = nodes[order[i]];
        node.base = quint32(units.size());
        units.resize(units.size() + 256, 0);
        for (const auto &[c, child] : node.children) {
            nodes[child].position = node.base + c;
            order.push_back(child);
        }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Node &node = nodes[i];
        const quint32 offset = node.position ^ node.base;
        if (i == 0)
            units[0] = (rootOffset ? *rootOffset : offset) << 10;
        else
            units[node.position] = (offset << 10) | (node.value ? 1u << 8 : 0u) | node.label;
        if (node.value)
            units[node.base] = (1u << 31) | *node.value;
    }
    QByteArray blob = littleEndian(quint32(units.size() * 4));
    for (const quint32 u : units)
        blob += littleEndian(u);
    return blob + strings;
}

QJsonObject precompiledNormalizer(const QByteArray &blob)
{
    return typed("Precompiled",
                 {{QStringLiteral("precompiled_charsmap"), QString::fromLatin1(blob.toBase64())}});
}

// The rules the hand-made charsmaps hold, in UTF-8.
std::vector<std::pair<QByteArray, QByteArray>> handRules()
{
    return {
        {"A", "a"},                                    // one character for one
        {"\xEF\xAC\x81", "fi"},                        // U+FB01 LATIN SMALL LIGATURE FI: more
        {"\xC2\xAD", ""},                              // U+00AD SOFT HYPHEN: removed
        {"o\xCC\x88", "\xC3\xB6"},                     // o + U+0308, a whole grapheme: composed
        {"e", "E"},                                    // a key that prefixes the next one
        {"e\xCC\x81", "\xC3\xA9"},                     // e + U+0301: never reached, "e" is shorter
        {"\xE0\xA4\x95", "k"},                         // U+0915 alone
        {"\xE0\xA4\x95\xE0\xA5\x8D\xE0\xA4\xB7", "X"}, // a 9-byte grapheme: too long to look up
    };
}

} // namespace

void TestTokenizer::publishedFiles_data()
{
    QTest::addColumn<QString>("family");
    QTest::addColumn<QJsonObject>("expected");
    for (const char *family : publishedFamilies) {
        const QJsonArray list =
            readJson(publishedPath(QString::fromLatin1(family) + QStringLiteral("/cases.json")))
                .value(QStringLiteral("cases"))
                .toArray();
        QVERIFY2(list.size() >= 90, family);
        for (const QJsonValue c : list)
            QTest::addRow("%s/%s", family,
                          qPrintable(c.toObject().value(QStringLiteral("id")).toString()))
                << QString::fromLatin1(family) << c.toObject();
    }
}

void TestTokenizer::publishedFiles()
{
    // Published tokenizer.json files against tokenizers 0.23.2: ids, tokens and offsets with and
    // without special tokens.
    QFETCH(QString, family);
    QFETCH(QJsonObject, expected);
    static std::map<QString, Tokenizer> loaded;
    auto it = loaded.find(family);
    if (it == loaded.end()) {
        QString error;
        std::optional<Tokenizer> t = loadPublished(family, &error);
        QVERIFY2(t, qPrintable(error));
        it = loaded.emplace(family, *t).first;
    }
    const Tokenizer &t = it->second;
    const QString text = expected.value(QStringLiteral("text")).toString();
    for (const bool special : {false, true}) {
        const QString suffix = special ? QStringLiteral("_special") : QString();
        QString error;
        const std::optional<TokenEncoding> e = t.encode(text, special, &error);
        QVERIFY2(e, qPrintable(error));
        const QStringList tokens = stringsOf(expected.value(QStringLiteral("tokens") + suffix));
        if (e->tokens != tokens)
            qWarning("%s\n  expected %s", qPrintable(show(*e)), qPrintable(tokens.join(u' ')));
        QCOMPARE(e->tokens, tokens);
        QCOMPARE(e->ids, idsOf(expected.value(QStringLiteral("ids") + suffix)));
        if (e->offsets != offsetsOf(expected.value(QStringLiteral("offsets") + suffix)))
            qWarning("%s", qPrintable(show(*e)));
        QCOMPARE(e->offsets, offsetsOf(expected.value(QStringLiteral("offsets") + suffix)));
        // Tokenizer.decode: the plain ids with the special tokens shown, the special pass's
        // with them skipped.
        if (special)
            QCOMPARE(t.decode(e->ids, true),
                     expected.value(QStringLiteral("decode_special_skipped")).toString());
        else
            QCOMPARE(t.decode(e->ids, false), expected.value(QStringLiteral("decode")).toString());
    }
}

void TestTokenizer::byteOrderMark()
{
    // U+FEFF is a character like any other inside a text, at its start too (issue 37).
    QString error;
    const std::optional<Tokenizer> gpt2 =
        Tokenizer::fromPath(publishedPath(QStringLiteral("gpt2/tokenizer.json")), &error);
    QVERIFY2(gpt2, qPrintable(error));
    // Hugging Face's tokenizers 0.23.2 on GPT-2's file (the issue's figures): the three bytes
    // EF BB BF of U+FEFF as their byte-level characters.
    std::optional<TokenEncoding> e = gpt2->encode(QStringLiteral("a\uFEFFb"), false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->ids, (std::vector<qint64>{64, 171, 119, 123, 65}));
    e = gpt2->encode(QStringLiteral("x \uFEFFy"), false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->tokens,
             (QStringList{QStringLiteral("x"), QString::fromUtf8("Ġï"), QString::fromUtf8("»"),
                          QString::fromUtf8("¿"), QStringLiteral("y")}));
    // At the start: the same three tokens, then "hello" (GPT-2's 31373), offsets in the text.
    e = gpt2->encode(QStringLiteral("\uFEFFhello"), false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->ids, (std::vector<qint64>{171, 119, 123, 31373}));
    QCOMPARE(e->offsets, (Offsets{{0, 1}, {0, 1}, {0, 1}, {1, 6}}));
    QCOMPARE(gpt2->decode(e->ids), QStringLiteral("\uFEFFhello"));

    // Merges whose tokens are made of U+FEFF (Gemma 3 has ["\ufeff\ufeff", "\ufeff\ufeff"]),
    // written raw in the file's UTF-8 as transformers writes them, at the start of keys and
    // strings. Vocabulary keys "\ufeffa" and "a" are two tokens, not a duplicate.
    const QByteArray bom("\xEF\xBB\xBF");
    const QByteArray json = "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\", \"vocab\": {\"" +
                            bom + "\": 0, \"" + bom + bom + "\": 1, \"" + bom + bom + bom + bom +
                            "\": 2, \"a\": 3, \"" + bom + "a\": 4}, \"merges\": [[\"" + bom +
                            "\", \"" + bom + "\"], [\"" + bom + bom + "\", \"" + bom + bom +
                            "\"], [\"" + bom + "\", \"a\"]]}}";
    const std::optional<Tokenizer> bpeBom =
        Tokenizer::fromJson(json, QStringLiteral("bom.json"), &error);
    QVERIFY2(bpeBom, qPrintable(error));
    e = bpeBom->encode(QStringLiteral("\uFEFF\uFEFF\uFEFF\uFEFFa"), false, &error);
    QVERIFY2(e, qPrintable(error));
    // Ranks: FEFF+FEFF (0) first, everywhere; then the pairs of pairs (1); "a" stays alone.
    QCOMPARE(e->ids, (std::vector<qint64>{2, 3}));
    QCOMPARE(e->offsets, (Offsets{{0, 4}, {4, 5}}));
    e = bpeBom->encode(QStringLiteral("\uFEFFa"), false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->ids, (std::vector<qint64>{4}));
    QCOMPARE(bpeBom->tokenToId(QStringLiteral("\uFEFF\uFEFF")), std::optional<qint64>(1));
    QCOMPARE(bpeBom->idToToken(0), QStringLiteral("\uFEFF"));
}

void TestTokenizer::stripAccentsAsTokenizers_data()
{
    // The StripAccents normalizer removes unicode-normalization-alignments' combining marks,
    // General_Category=Mark of Unicode 9.0.0, not Qt's (later) marks: tokenizers 0.23.2's own
    // answers (stripAccentsNormalizer().normalizeString through its Node binding).
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("normalized");
    QTest::addRow("U+0301, Mn") << QStringLiteral("e\u0301") << QStringLiteral("e");
    QTest::addRow("U+0903, Mc") << QStringLiteral("a\u0903b") << QStringLiteral("ab");
    QTest::addRow("U+20DD, Me") << QStringLiteral("a\u20DDb") << QStringLiteral("ab");
    // Mc in Unicode 9.0, Lo since 10.0 (Qt's QChar::isMark says no): removed.
    QTest::addRow("U+1CF2, Mc in 9.0") << QStringLiteral("a\u1CF2b") << QStringLiteral("ab");
    QTest::addRow("U+1CF3, Mc in 9.0") << QStringLiteral("a\u1CF3b") << QStringLiteral("ab");
    // Marks assigned after 9.0 (Unicode 11 and 14; Qt's QChar::isMark says yes): kept.
    QTest::addRow("U+07FD, Mn since 11.0")
        << QStringLiteral("a\u07FDb") << QStringLiteral("a\u07FDb");
    QTest::addRow("U+0898, Mn since 14.0")
        << QStringLiteral("a\u0898b") << QStringLiteral("a\u0898b");
}

void TestTokenizer::stripAccentsAsTokenizers()
{
    QFETCH(QString, text);
    QFETCH(QString, normalized);
    const std::optional<Tokenizer> t =
        fromObject(tokenizerJson(wordLevel({QStringLiteral("a")}), typed("StripAccents")));
    QVERIFY(t);
    QString error;
    const std::optional<QString> out = t->normalized(text, &error);
    QVERIFY2(out, qPrintable(error));
    QCOMPARE(*out, normalized);
}

void TestTokenizer::largeFilesReadAsSmallOnes_data()
{
    // Files from 64 KiB on have their vocabulary and merges read with simdjson, outside Qt's
    // document; each of these is read small (Qt's document only) and grown past 64 KiB by a
    // member after everything else, which moves no byte offset: the same tokenizer, or the same
    // message, byte offsets included.
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("texts");
    const auto bpe = [](const QByteArray &vocab, const QByteArray &merges,
                        const QByteArray &more = {}) -> QByteArray {
        return "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\"" + more +
               ", \"vocab\": " + vocab + ", \"merges\": " + merges + "}}";
    };
    const QByteArray bom("\xEF\xBB\xBF");
    QTest::addRow("U+FEFF in tokens and merges")
        << bpe("{\"" + bom + "\": 0, \"" + bom + bom + "\": 1, \"" + bom + bom + bom + bom +
                   "\": 2, \"a\": 3, \"" + bom + "a\": 4}",
               "[[\"" + bom + "\", \"" + bom + "\"], [\"" + bom + bom + "\", \"" + bom + bom +
                   "\"], \"" + bom + " a\"]")
        << QStringList{QStringLiteral("\uFEFF\uFEFF\uFEFF\uFEFFa"), QStringLiteral("\uFEFFa")};
    QTest::addRow("escapes and characters beyond ASCII")
        << bpe(QByteArray(
                   "{\"\\u0041\": 0, \"\\\"\": 1, \"A\\\"\": 2, \"\\\\\": 3, \"\xC3\xA9\": 4, "
                   "\"\xF0\x9F\x98\x80\": 5, \"\xF0\x9F\x98\x80\xC3\xA9\": 6, "
                   "\"\\ud83d\\ude00\\u00e9\\\\\": 7}"),
               QByteArray("[\"A \\\"\", [\"\\ud83d\\ude00\", \"\\u00e9\"], [\"\xF0\x9F\x98\x80"
                          "\xC3\xA9\", \"\\\\\"]]"))
        << QStringList{QStringLiteral("A\""), QString::fromUtf8("\xF0\x9F\x98\x80\xC3\xA9\\A")};
    QTest::addRow("ids written 1.0 and 2e0")
        << bpe("{\"a\": 0, \"b\": 1.0, \"ab\": 2e0}", "[\"a b\"]")
        << QStringList{QStringLiteral("abba")};
    QTest::addRow("a listed pair keeps its last rank")
        << bpe("{\"a\": 0, \"b\": 1, \"ab\": 2, \"ba\": 3}", "[\"a b\", \"b a\", \"a b\"]")
        << QStringList{QStringLiteral("aba"), QStringLiteral("bab")};
    QTest::addRow("continuing-subword prefix")
        << bpe("{\"a\": 0, \"##b\": 1, \"ab\": 2}", "[\"a ##b\"]",
               ", \"continuing_subword_prefix\": \"##\"")
        << QStringList{QStringLiteral("ab")};
    QTest::addRow("no type, vocabulary after merges")
        << QByteArray("{\"model\": {\"merges\": [\"a b\"], \"vocab\": {\"a\": 0, \"b\": 1, "
                      "\"ab\": 2}}}")
        << QStringList{QStringLiteral("ab")};
    QTest::addRow("type after the vocabulary")
        << QByteArray("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": "
                      "[[\"a\", \"b\"]], \"type\": \"BPE\"}}")
        << QStringList{QStringLiteral("ab")};
    for (const auto &[name, id] :
         std::vector<std::pair<const char *, QByteArray>>{{"an id that is a string", "\"x\""},
                                                          {"a negative id", "-1"},
                                                          {"an id of 2^31", "2147483648"},
                                                          {"an id with a fraction", "0.5"}})
        QTest::addRow("%s", name) << bpe("{\"a\": 0, \"b\": " + id + "}", "[]") << QStringList{};
    QTest::addRow("two tokens with one id")
        << bpe("{\"a\": 0, \"b\": 1, \"c\": 1}", "[]") << QStringList{};
    QTest::addRow("a merge naming no token")
        << bpe("{\"a\": 0, \"b\": 1}", "[\"a c\"]") << QStringList{};
    QTest::addRow("a merged token not in the vocabulary")
        << bpe("{\"a\": 0, \"b\": 1}", "[\"a b\"]") << QStringList{};
    QTest::addRow("a merge with two spaces")
        << bpe("{\"a\": 0, \"b\": 1, \"ab\": 2}", "[\"a  b\"]") << QStringList{};
    QTest::addRow("a merge of three")
        << bpe("{\"a\": 0, \"b\": 1, \"ab\": 2}", "[[\"a\", \"b\", \"b\"]]") << QStringList{};
    QTest::addRow("a merge of a number")
        << bpe("{\"a\": 0, \"b\": 1, \"ab\": 2}", "[[\"a\", 1]]") << QStringList{};
    QTest::addRow("invalid JSON in the vocabulary")
        << bpe("{\"a\": 0 \"b\": 1}", "[]") << QStringList{};
    QTest::addRow("invalid JSON in the merges")
        << bpe("{\"a\": 0, \"b\": 1, \"ab\": 2}", "[\"a b\" \"a b\"]") << QStringList{};
    QTest::addRow("a repeated vocabulary key")
        << bpe("{\"a\": 0, \"b\": 1, \"a\": 2}", "[]") << QStringList{};
    QTest::addRow("invalid UTF-8 in a token")
        << bpe("{\"a\": 0, \"\xFF\": 1}", "[]") << QStringList{};
    QTest::addRow("a vocabulary that is an array") << bpe("[[\"a\", 0]]", "[]") << QStringList{};
    QTest::addRow("merges that are an object") << bpe("{\"a\": 0}", "{}") << QStringList{};
    const auto unigram = [](const QByteArray &vocab, int unk = 0) {
        return QByteArray("{\"model\": {\"type\": \"Unigram\", \"unk_id\": " +
                          QByteArray::number(unk) + ", \"vocab\": " + vocab + "}}");
    };
    QTest::addRow("Unigram")
        << unigram("[[\"<unk>\", 0], [\"a\", -1.5], [\"b\", -2], [\"ab\", -1.25e0], "
                   "[\"\\u00e9\", -3], [\"a\", -4]]")
        << QStringList{QStringLiteral("abba"), QStringLiteral("\u00e9ab")};
    QTest::addRow("Unigram, a score that is a string")
        << unigram("[[\"<unk>\", 0], [\"a\", \"x\"]]") << QStringList{};
    QTest::addRow("Unigram, an entry of three")
        << unigram("[[\"<unk>\", 0], [\"a\", 1, 2]]") << QStringList{};
    QTest::addRow("Unigram, a score too large")
        << unigram("[[\"<unk>\", 0], [\"a\", 1e999]]") << QStringList{};
    QTest::addRow("Unigram, an unk_id past the end") << unigram("[[\"a\", 0]]", 1) << QStringList{};
    QTest::addRow("WordPiece")
        << QByteArray("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"[UNK]\": 0, \"a\": 1, "
                      "\"##b\": 2}}}")
        << QStringList{QStringLiteral("ab"), QStringLiteral("ba")};
    QTest::addRow("WordLevel")
        << QByteArray("{\"model\": {\"type\": \"WordLevel\", \"unk_token\": \"?\", \"vocab\": "
                      "{\"?\": 0, \"ab\": 1}}, \"pre_tokenizer\": {\"type\": "
                      "\"Whitespace\"}}")
        << QStringList{QStringLiteral("ab ba")};
}

void TestTokenizer::largeFilesReadAsSmallOnes()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, texts);
    QVERIFY(json.endsWith('}'));
    const QByteArray large =
        json.chopped(1) + ", \"filler\": \"" + QByteArray(70 * 1024, 'x') + "\"}";
    QString smallError;
    QString largeError;
    const std::optional<Tokenizer> small =
        Tokenizer::fromJson(json, QStringLiteral("t.json"), &smallError);
    const std::optional<Tokenizer> big =
        Tokenizer::fromJson(large, QStringLiteral("t.json"), &largeError);
    QCOMPARE(largeError, smallError);
    QCOMPARE(bool(big), bool(small));
    if (!small) {
        QVERIFY(!smallError.isEmpty());
        return;
    }
    QVERIFY(!texts.isEmpty());
    QCOMPARE(big->vocabularySize(), small->vocabularySize());
    for (qint64 id = 0; id < small->vocabularySize(); ++id)
        QCOMPARE(big->idToToken(id), small->idToToken(id));
    for (const QString &text : texts) {
        QString error;
        const std::optional<TokenEncoding> a = small->encode(text, true, &error);
        QVERIFY2(a, qPrintable(error));
        const std::optional<TokenEncoding> b = big->encode(text, true, &error);
        QVERIFY2(b, qPrintable(error));
        QCOMPARE(b->ids, a->ids);
        QCOMPARE(b->tokens, a->tokens);
        QCOMPARE(b->offsets, a->offsets);
    }
}

void TestTokenizer::byteOrderMarksInJson()
{
    // Only a raw U+FEFF inside a string, not escaped, is kept through Qt's parser; elsewhere the
    // text stays invalid JSON as RFC 8259 has it (and Hugging Face's reader refuses it).
    const QByteArray bom("\xEF\xBB\xBF");
    QString error;
    std::optional<QJsonObject> o =
        parseJsonObject(QByteArray("{\"a\": \"" + bom + "x\", \"b\": \"\\\\" + bom + "\"}"),
                        QStringLiteral("t"), &error);
    QVERIFY2(o, qPrintable(error));
    QCOMPARE(o->value(QStringLiteral("a")).toString(), QStringLiteral("\uFEFFx"));
    QCOMPARE(o->value(QStringLiteral("b")).toString(), QStringLiteral("\\\uFEFF"));
    // A backslash then a raw U+FEFF is an invalid escape (serde_json: "invalid escape"), not the
    // six characters of "\ufeff".
    QVERIFY(
        !parseJsonObject(QByteArray("{\"a\": \"\\" + bom + "\"}"), QStringLiteral("t"), &error));
    QVERIFY2(error.contains(QStringLiteral("invalid JSON")), qPrintable(error));
    // A U+FEFF between tokens is not whitespace.
    QVERIFY(!parseJsonObject(QByteArray("{\"a\":" + bom + "1}"), QStringLiteral("t"), &error));
    QVERIFY2(error.contains(QStringLiteral("invalid JSON")), qPrintable(error));
    // The same file as the reviewer's bs.json: a vocabulary key "\<U+FEFF>" refused.
    const QByteArray vocab =
        "{\"version\": \"1.0\", \"model\": {\"type\": \"WordLevel\", \"vocab\": "
        "{\"a\": 0, \"[UNK]\": 1, \"\\" +
        bom + "\": 2}, \"unk_token\": \"[UNK]\"}}";
    QVERIFY(!Tokenizer::fromJson(vocab, QStringLiteral("bs.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("invalid JSON")), qPrintable(error));

    // Error offsets are bytes of the text as given: the same as with three ASCII bytes in
    // place of each U+FEFF before the error.
    const QByteArray tail = "\", \"b\": x}";
    const QByteArray withBoms = "{\"a\": \"" + bom + bom + "y" + bom + tail;
    const QByteArray withAscii = "{\"a\": \"" + QByteArray("abcabcyabc") + tail;
    QJsonParseError feffError, asciiError;
    jsonDocumentKeepingFeff(withBoms, &feffError);
    jsonDocumentKeepingFeff(withAscii, &asciiError);
    QVERIFY(asciiError.error != QJsonParseError::NoError);
    QCOMPARE(feffError.error, asciiError.error);
    QCOMPARE(feffError.offset, asciiError.offset);
    QVERIFY(asciiError.offset >= withAscii.indexOf('x'));
    QVERIFY(!parseJsonObject(withBoms, QStringLiteral("t"), &error));
    QVERIFY2(error.contains(QStringLiteral("byte %1").arg(asciiError.offset)), qPrintable(error));
}

void TestTokenizer::precompiled_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("normalized");
    // Each follows from spm_precompiled's normalize_string: per grapheme, the whole grapheme
    // looked up when it is under 6 UTF-8 bytes, else (or without a rule) each character.
    QTest::newRow("no rule") << QStringLiteral("xyz") << QStringLiteral("xyz");
    QTest::newRow("one for one") << QStringLiteral("ABA") << QStringLiteral("aBa");
    QTest::newRow("expansion") << QStringLiteral("\uFB01ne") << QStringLiteral("finE");
    QTest::newRow("removal") << QStringLiteral("co\u00ADop") << QStringLiteral("coop");
    QTest::newRow("whole grapheme") << QStringLiteral("o\u0308") << QStringLiteral("\u00F6");
    // "e" is the first prefix of the grapheme e + U+0301 with a value: the whole grapheme
    // becomes "E" and the accent goes with it.
    QTest::newRow("shortest prefix") << QStringLiteral("e\u0301") << QStringLiteral("E");
    // Nine bytes: not looked up whole; U+0915 alone has a rule, the others none.
    QTest::newRow("long grapheme")
        << QStringLiteral("\u0915\u094D\u0937") << QStringLiteral("k\u094D\u0937");
    // A NUL ends the key: no rule for it, whatever follows.
    QTest::newRow("nul") << QStringLiteral("A") + QChar(0) + QStringLiteral("A")
                         << QStringLiteral("a") + QChar(0) + QStringLiteral("a");
    QTest::newRow("astral, no rule")
        << QStringLiteral("\U0001F600A") << QStringLiteral("\U0001F600a");
    QTest::newRow("empty") << QString() << QString();
}

void TestTokenizer::precompiled()
{
    QFETCH(QString, text);
    QFETCH(QString, normalized);
    QString error;
    const std::optional<Tokenizer> t = fromObject(
        tokenizerJson(
            wordLevel({QStringLiteral("fine"), QStringLiteral("coop"), QStringLiteral("ab")}),
            precompiledNormalizer(charsmapBlob(handRules())), typed("WhitespaceSplit")),
        &error);
    QVERIFY2(t, qPrintable(error));
    const std::optional<QString> got = t->normalized(text, &error);
    QVERIFY2(got, qPrintable(error));
    QCOMPARE(*got, normalized);
}

void TestTokenizer::precompiledOffsets()
{
    // Offsets map back to the original text: an expansion's characters all come from the
    // ligature, a removed character's span joins the character before it.
    QString error;
    const std::optional<Tokenizer> t = fromObject(
        tokenizerJson(
            wordLevel({QStringLiteral("finE"), QStringLiteral("coop"), QStringLiteral("ab")}),
            precompiledNormalizer(charsmapBlob(handRules())), typed("WhitespaceSplit")),
        &error);
    QVERIFY2(t, qPrintable(error));
    std::optional<TokenEncoding> e =
        t->encode(QStringLiteral("\uFB01ne co\u00ADop \u00ADab"), false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->tokens,
             (QStringList{QStringLiteral("finE"), QStringLiteral("coop"), QStringLiteral("ab")}));
    QCOMPARE(e->offsets, (Offsets{{0, 3}, {4, 9}, {11, 13}}));
    // A removal at the very start has no character before it to join: precompiled.rs records a
    // replacement's change on the characters it pushes, and an empty one pushes none, so the
    // characters after it take the alignments one place early ("ab" at [0, 2) of "\u00ADab",
    // tokenizers 0.23.2's answer).
    e = t->encode(QStringLiteral("\u00ADab"), false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->offsets, (Offsets{{0, 2}}));
}

void TestTokenizer::precompiledRefusals_data()
{
    QTest::addColumn<QByteArray>("blob");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    const QByteArray good = charsmapBlob(handRules());
    QTest::newRow("too short") << QByteArray("\x01\x00", 2) << QString()
                               << QStringLiteral("too short");
    QTest::newRow("trie past the end") << littleEndian(4000) + QByteArray(8, '\0') << QString()
                                       << QStringLiteral("only 8 bytes follow");
    QTest::newRow("empty trie") << littleEndian(0) + QByteArray("a\0") << QString()
                                << QStringLiteral("empty");
    QTest::newRow("strings not UTF-8")
        << good + QByteArray("\xFF") << QString() << QStringLiteral("not valid UTF-8");
    // Read, then refused on the text that reaches the broken part.
    QTest::newRow("root offset outside") << charsmapBlob(handRules(), {}, 1u << 21)
                                         << QStringLiteral("A") << QStringLiteral("points to unit");
    QTest::newRow("value past the strings")
        << charsmapBlob(handRules(), {{"A", 100000}}) << QStringLiteral("A")
        << QStringLiteral("points to byte 100000");
    QTest::newRow("value inside a character")
        << charsmapBlob({{"A", "\xC3\xA9"}, {"B", "x"}}, {{"B", 1}}) << QStringLiteral("B")
        << QStringLiteral("middle of a character");
}

void TestTokenizer::precompiledRefusals()
{
    QFETCH(QByteArray, blob);
    QFETCH(QString, text);
    QFETCH(QString, message);
    QString error;
    const std::optional<Tokenizer> t = fromObject(
        tokenizerJson(wordLevel({QStringLiteral("a")}), precompiledNormalizer(blob)), &error);
    if (text.isNull()) {
        QVERIFY(!t);
        QVERIFY2(error.contains(QStringLiteral("normalizer.precompiled_charsmap")) &&
                     error.contains(message),
                 qPrintable(error));
        return;
    }
    QVERIFY2(t, qPrintable(error));
    QVERIFY(!t->encode(text, false, &error));
    QVERIFY2(error.contains(QStringLiteral("Precompiled")) && error.contains(message),
             qPrintable(error));
    // Not base64 at all.
    QVERIFY(!fromObject(tokenizerJson(wordLevel({QStringLiteral("a")}),
                                      typed("Precompiled", {{QStringLiteral("precompiled_charsmap"),
                                                             QStringLiteral("@@@@")}})),
                        &error));
    QVERIFY2(error.contains(QStringLiteral("base64")), qPrintable(error));
}

void TestTokenizer::boundedGrowth_data()
{
    // Files of a few KB whose steps grow a short text without bound: each refused with the step
    // named, long before the memory runs out (issue 37).
    QTest::addColumn<QJsonObject>("tokenizer");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    const QJsonObject model = wordLevel({QStringLiteral("a")});
    QJsonArray doubling;
    for (int i = 0; i < 40; ++i)
        doubling.append(
            typed("Replace", {{QStringLiteral("pattern"),
                               QJsonObject{{QStringLiteral("String"), QStringLiteral("a")}}},
                              {QStringLiteral("content"), QStringLiteral("aa")}}));
    // "a" doubles each step: 2^12 = 4096 fits in 64 x 1 + 4096, 2^13 does not.
    QTest::newRow("40 Replace a -> aa")
        << tokenizerJson(model, sequence("Sequence", "normalizers", doubling))
        << QStringLiteral("a") << QStringLiteral("normalizer 13 (Replace");
    QJsonArray spaces;
    for (int i = 0; i < 5; ++i)
        spaces.append(
            typed("Replace", {{QStringLiteral("pattern"),
                               QJsonObject{{QStringLiteral("String"), QStringLiteral(" ")}}},
                              {QStringLiteral("content"), QString(1000, QLatin1Char(' '))}}));
    QTest::newRow("5 Replace space -> 1000 spaces")
        << tokenizerJson(model, sequence("Sequence", "normalizers", spaces))
        << QStringLiteral("a b c") << QStringLiteral("Replace \" \"");
    QJsonArray prepends;
    for (int i = 0; i < 200; ++i)
        prepends.append(
            typed("Prepend", {{QStringLiteral("prepend"), QString(10000, QLatin1Char('p'))}}));
    QTest::newRow("200 Prepend of 10,000")
        << tokenizerJson(model, sequence("Sequence", "normalizers", prepends))
        << QStringLiteral("hello") << QStringLiteral("Prepend");
    QJsonArray byteLevels;
    for (int i = 0; i < 50; ++i)
        byteLevels.append(typed("ByteLevel", {{QStringLiteral("add_prefix_space"), false},
                                              {QStringLiteral("use_regex"), false}}));
    QTest::newRow("50 ByteLevel pre-tokenizers")
        << tokenizerJson(model, {}, sequence("Sequence", "pretokenizers", byteLevels))
        << QStringLiteral("\u00E9") << QStringLiteral("pre-tokenizer");
    // 8 times the text plus 4,096 characters: 1,000 "a" made 20,000 long is refused (it fitted
    // the earlier 64 times).
    QTest::newRow("Replace a -> 20 a on 1,000 characters")
        << tokenizerJson(
               model,
               typed("Replace", {{QStringLiteral("pattern"),
                                  QJsonObject{{QStringLiteral("String"), QStringLiteral("a")}}},
                                 {QStringLiteral("content"), QString(20, QLatin1Char('a'))}}))
        << QString(1000, QLatin1Char('a')) << QStringLiteral("Replace");
    QTest::newRow("Precompiled expansion")
        << tokenizerJson(model, precompiledNormalizer(charsmapBlob({{"a", QByteArray(5000, 'b')}})))
        << QStringLiteral("a") << QStringLiteral("Precompiled");
}

void TestTokenizer::boundedGrowth()
{
    QFETCH(QJsonObject, tokenizer);
    QFETCH(QString, text);
    QFETCH(QString, message);
    QString error;
    const std::optional<Tokenizer> t = fromObject(tokenizer, &error);
    QVERIFY2(t, qPrintable(error));
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!t->encode(text, true, &error));
    QVERIFY2(error.contains(message) && error.contains(QStringLiteral("without bound")),
             qPrintable(error));
    QVERIFY2(timer.elapsed() < 5000 * test::timeScale,
             qPrintable(QString::number(timer.elapsed())));
}

void TestTokenizer::bertKeepsUnassigned()
{
    // BertNormalizer's clean_text removes Cc, Cf and Co only: unassigned code points and
    // noncharacters stay, and WordPiece makes the word they are in [UNK] (tokenizers 0.23.2
    // on bert-base-uncased, the issue's figures).
    QString error;
    const std::optional<Tokenizer> bert = Tokenizer::fromPath(
        publishedPath(QStringLiteral("bert-base-uncased/tokenizer.json")), &error);
    QVERIFY2(bert, qPrintable(error));
    for (const char32_t c : {U'\uFFFF', U'\uFFFE', char32_t(0x0378), char32_t(0x1FAF8)}) {
        const QString text = QStringLiteral("a") + QString::fromUcs4(&c, 1) + QStringLiteral("b c");
        const std::optional<TokenEncoding> e = bert->encode(text, true, &error);
        QVERIFY2(e, qPrintable(error));
        QCOMPARE(e->tokens, (QStringList{QStringLiteral("[CLS]"), QStringLiteral("[UNK]"),
                                         QStringLiteral("c"), QStringLiteral("[SEP]")}));
    }
    // The classes come from the unicode_categories crate's Unicode 8.0 tables (tokenizers
    // 0.23.2's answers): characters made Cf (U+0890, U+08E2, U+13430) or Mn (U+0898) later stay
    // and make the word [UNK]; U+00AD (Cf) and U+0301 (Mn) in 8.0 go.
    for (const char32_t c :
         {char32_t(0x0890), char32_t(0x08E2), char32_t(0x13430), char32_t(0x0898)}) {
        const QString text = QStringLiteral("a") + QString::fromUcs4(&c, 1) + QStringLiteral("b c");
        const std::optional<TokenEncoding> e = bert->encode(text, false, &error);
        QVERIFY2(e, qPrintable(error));
        QCOMPARE(e->tokens, (QStringList{QStringLiteral("[UNK]"), QStringLiteral("c")}));
        QCOMPARE(e->ids, (std::vector<qint64>{100, 1039}));
    }
    for (const QString &text : {QStringLiteral("a\u00ADb c"), QStringLiteral("a\u0301b c")}) {
        const std::optional<TokenEncoding> e = bert->encode(text, false, &error);
        QVERIFY2(e, qPrintable(error));
        QCOMPARE(e->ids, (std::vector<qint64>{11113, 1039}));
        QCOMPARE(e->offsets, (Offsets{{0, 3}, {4, 5}}));
    }
    // BertPreTokenizer splits on Unicode 8.0's punctuation: U+2E42 (8.0) splits, U+2E43 (9.0)
    // and U+2E5D (14.0) do not.
    std::optional<TokenEncoding> split = bert->encode(QStringLiteral("a\u2E42b"), false, &error);
    QVERIFY2(split, qPrintable(error));
    QCOMPARE(split->ids, (std::vector<qint64>{1037, 100, 1038}));
    for (const QString &text : {QStringLiteral("a\u2E43b"), QStringLiteral("a\u2E5Db")}) {
        split = bert->encode(text, false, &error);
        QVERIFY2(split, qPrintable(error));
        QCOMPARE(split->ids, (std::vector<qint64>{100}));
        QCOMPARE(split->offsets, (Offsets{{0, 3}}));
    }
    // A format character (Cf) still goes: U+200B inside a word.
    const std::optional<TokenEncoding> e = bert->encode(QStringLiteral("a\u200Bb"), false, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->tokens, (QStringList{QStringLiteral("ab")}));
}

void TestTokenizer::loneSurrogates()
{
    // serde_json refuses a \u escape of half a surrogate pair, so tokenizers refuses the file;
    // a pair, and an escaped backslash before "ud800", are fine.
    const auto file = [](const QByteArray &vocabKey, const QByteArray &added) -> QByteArray {
        return "{\"version\": \"1.0\", \"added_tokens\": [{\"id\": 2, \"content\": \"" + added +
               "\", \"special\": true}], \"model\": {\"type\": \"WordLevel\", \"vocab\": {\"" +
               vocabKey + "\": 0, \"a\": 1}, \"unk_token\": \"a\"}}";
    };
    QString error;
    QVERIFY(!Tokenizer::fromJson(file("\\ud800", "<s>"), QStringLiteral("s.json"), &error));
    QVERIFY2(error.startsWith(QStringLiteral("s.json: byte 125:")) &&
                 error.contains(QStringLiteral("\\ud800")),
             qPrintable(error));
    QVERIFY(!Tokenizer::fromJson(file("x", "\\uDC00"), QStringLiteral("s.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("\\uDC00")), qPrintable(error));
    QVERIFY(!Tokenizer::fromJson(file("\\ud83d\\u0041", "<s>"), QStringLiteral("s.json"), &error));
    const std::optional<Tokenizer> pair =
        Tokenizer::fromJson(file("\\ud83d\\ude00", "\\\\ud800"), QStringLiteral("s.json"), &error);
    QVERIFY2(pair, qPrintable(error));
    QCOMPARE(pair->tokenToId(QStringLiteral("\U0001F600")), std::optional<qint64>(0));
    QCOMPARE(pair->tokenToId(QStringLiteral("\\ud800")), std::optional<qint64>(2));
}

void TestTokenizer::droppingPostProcessors()
{
    // A post-processor may add tokens, never lose the text's own: templates stacked in a
    // Sequence (tokenizers panics on those), a `single` template without $A or with $B.
    const auto special = [](const char *id) {
        return QJsonObject{{QStringLiteral("SpecialToken"),
                            QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)},
                                        {QStringLiteral("type_id"), 0}}}};
    };
    const auto piece = [](const char *id) {
        return QJsonObject{{QStringLiteral("Sequence"),
                            QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)},
                                        {QStringLiteral("type_id"), 0}}}};
    };
    const auto templ = [&](const QJsonArray &single) {
        return typed("TemplateProcessing",
                     {{QStringLiteral("single"), single},
                      {QStringLiteral("pair"), QJsonArray{special("<s>"), piece("A"), piece("B")}},
                      {QStringLiteral("special_tokens"),
                       QJsonObject{{QStringLiteral("<s>"),
                                    QJsonObject{{QStringLiteral("id"), QStringLiteral("<s>")},
                                                {QStringLiteral("ids"), QJsonArray{0}},
                                                {QStringLiteral("tokens"),
                                                 QJsonArray{QStringLiteral("<s>")}}}}}}});
    };
    const QJsonObject model =
        wordLevel({QStringLiteral("<s>"), QStringLiteral("Hello"), QStringLiteral("world")});
    const QJsonObject good = templ({special("<s>"), piece("A")});
    const QJsonObject stacked = sequence("Sequence", "processors", {good, good, good});
    for (const QJsonObject &processor :
         {stacked, templ({special("<s>"), piece("B")}), templ({special("<s>")})}) {
        QString error;
        const std::optional<Tokenizer> t =
            fromObject(tokenizerJson(model, {}, typed("WhitespaceSplit"), processor), &error);
        QVERIFY2(t, qPrintable(error));
        QVERIFY(!t->encode(QStringLiteral("Hello world"), true, &error));
        QVERIFY2(error.contains(QStringLiteral("post-processor")) &&
                     error.contains(QStringLiteral("of the text's 2 tokens")),
                 qPrintable(error));
    }
    QString error;
    const std::optional<Tokenizer> t =
        fromObject(tokenizerJson(model, {}, typed("WhitespaceSplit"), good), &error);
    QVERIFY2(t, qPrintable(error));
    const std::optional<TokenEncoding> e = t->encode(QStringLiteral("Hello world"), true, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->ids, (std::vector<qint64>{0, 1, 2}));
}

void TestTokenizer::repeatingPostProcessors()
{
    // A `single` template with $A 100 times: 100 words become 10,000 tokens, past 4 times the
    // text's tokens plus 1,024; refused with the post-processor named, directly and inside a
    // Sequence. $A twice stays within the bound.
    const auto piece = [] {
        return QJsonObject{
            {QStringLiteral("Sequence"), QJsonObject{{QStringLiteral("id"), QStringLiteral("A")},
                                                     {QStringLiteral("type_id"), 0}}}};
    };
    const auto templ = [&](int repeats) {
        QJsonArray single;
        for (int i = 0; i < repeats; ++i)
            single.append(piece());
        return typed("TemplateProcessing", {{QStringLiteral("single"), single},
                                            {QStringLiteral("pair"), single},
                                            {QStringLiteral("special_tokens"), QJsonObject{}}});
    };
    const QJsonObject model = wordLevel({QStringLiteral("a")});
    QStringList words;
    for (int i = 0; i < 100; ++i)
        words.append(QStringLiteral("a"));
    const QString text = words.join(QLatin1Char(' '));
    for (const QJsonObject &processor :
         {templ(100), sequence("Sequence", "processors", {typed("ByteLevel"), templ(100)})}) {
        QString error;
        const std::optional<Tokenizer> t =
            fromObject(tokenizerJson(model, {}, typed("WhitespaceSplit"), processor), &error);
        QVERIFY2(t, qPrintable(error));
        QVERIFY(!t->encode(text, true, &error));
        QVERIFY2(error.contains(QStringLiteral("post-processor")) &&
                     error.contains(QStringLiteral("TemplateProcessing")) &&
                     error.contains(QStringLiteral("1424 tokens of the text's 100")),
                 qPrintable(error));
    }
    QString error;
    const std::optional<Tokenizer> t =
        fromObject(tokenizerJson(model, {}, typed("WhitespaceSplit"), templ(2)), &error);
    QVERIFY2(t, qPrintable(error));
    const std::optional<TokenEncoding> e = t->encode(text, true, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->size(), 200);
}

void TestTokenizer::deadlineBetweenSteps()
{
    // 10,000 NFKC steps over 10,000 characters took about 25 s on this project's machine
    // without a check between them; the deadline (10 s plus 10 per million characters) stops
    // them, naming the step. 100,000 steps, so that no machine, however fast, gets through them
    // within the deadline (the check's result must not depend on the machine).
    QJsonArray steps;
    for (int i = 0; i < 100000; ++i)
        steps.append(typed("NFKC"));
    QString error;
    const std::optional<Tokenizer> t = fromObject(
        tokenizerJson(wordLevel({QStringLiteral("a")}), sequence("Sequence", "normalizers", steps)),
        &error);
    QVERIFY2(t, qPrintable(error));
    QString text;
    for (int i = 0; i < 2000; ++i)
        text += QStringLiteral("\u00C5ffi ");
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!t->encode(text, true, &error));
    QVERIFY2(error.contains(QStringLiteral("took longer than 10 s")) &&
                 error.contains(QStringLiteral("normalizer")) &&
                 error.contains(QStringLiteral("(NFKC)")) &&
                 !error.contains(QStringLiteral("pattern")),
             qPrintable(error));
    QVERIFY2(timer.elapsed() < 15000 * test::timeScale,
             qPrintable(QString::number(timer.elapsed())));
}

void TestTokenizer::boundedDecoders()
{
    // 40 Replace decoders "a" -> "aa" would make 2^40 characters of "a"; the chain stops at
    // the growth bound (8 times the tokens plus 4,096 characters): 2^12 = 4,096 "a".
    QJsonArray steps;
    for (int i = 0; i < 40; ++i)
        steps.append(
            typed("Replace", {{QStringLiteral("pattern"),
                               QJsonObject{{QStringLiteral("String"), QStringLiteral("a")}}},
                              {QStringLiteral("content"), QStringLiteral("aa")}}));
    QString error;
    std::optional<Tokenizer> t =
        fromObject(tokenizerJson(wordLevel({QStringLiteral("a")}), {}, {}, {},
                                 sequence("Sequence", "decoders", steps)),
                   &error);
    QVERIFY2(t, qPrintable(error));
    QCOMPARE(t->decode({0}), QString(4096, QLatin1Char('a')));
    // One Replace decoder of "a" by 10,000 characters: bounded against its own input.
    t = fromObject(
        tokenizerJson(
            wordLevel({QStringLiteral("a")}), {}, {}, {},
            typed("Replace", {{QStringLiteral("pattern"),
                               QJsonObject{{QStringLiteral("String"), QStringLiteral("a")}}},
                              {QStringLiteral("content"), QString(10000, QLatin1Char('b'))}})),
        &error);
    QVERIFY2(t, qPrintable(error));
    QCOMPARE(t->decode({0, 0}), QStringLiteral("aa"));
}

void TestTokenizer::utf8Reading()
{
    // The one UTF-8 reader: Unicode 15, chapter 3, table 3-8 (U+FFFD for each maximal subpart):
    // 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 reads as a, 3 x U+FFFD, b, U+FFFD, c, 2 x U+FFFD, d.
    const QByteArray mixed("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64");
    QCOMPARE(bytelevel::fromUtf8Lossy(mixed),
             QStringLiteral("a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd"));
    qsizetype invalid = -2;
    unicode::fromUtf8(mixed, &invalid);
    QCOMPARE(invalid, 1);
    // Table 3-7's edges: E0 needs A0..BF next, ED at most 9F (no surrogates), F4 at most 8F.
    for (const char *bad : {"\xE0\x9F\xBF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xC1\xBF"}) {
        const unicode::Utf8Sequence s = unicode::decodeUtf8(QByteArrayView(bad), 0);
        QCOMPARE(s.length, 0);
        QCOMPARE(s.prefix, 1);
    }
    const unicode::Utf8Sequence cut = unicode::decodeUtf8(QByteArrayView("\xF0\x9F\x98"), 0);
    QCOMPARE(cut.length, 0);
    QCOMPARE(cut.prefix, 3);
    // Encoding and lengths against Qt's UTF-8 for one code point of each length.
    for (const char32_t c : {U'a', U'\u00E9', U'\uFEFF', U'\U0001F600'}) {
        std::string out;
        unicode::appendUtf8(out, c);
        const QByteArray qt = unicode::fromU32(c).toUtf8();
        QCOMPARE(QByteArray::fromStdString(out), qt);
        QCOMPARE(unicode::utf8Length(c), qt.size());
        const unicode::Utf8Sequence back = unicode::decodeUtf8(qt, 0);
        QCOMPARE(back.c, c);
        QCOMPARE(back.length, qt.size());
    }
}

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"

// Which marker a tokenizer's decoder reads as a space, and the tokens shown with "␣" for it
// (issue 38): each token's display is what the file's own decoder makes of it after another
// token, its spaces drawn as "␣" (the tokens are Hugging Face's, from phrases.json).
void TestTokenizer::spaceMarks_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("marks");
    QTest::addColumn<QStringList>("shown"); // the first phrase's tokens; empty: not checked
    QTest::addRow("gpt2-tiny") << QStringLiteral("models/gpt2-tiny/tokenizer.json")
                               << int(SpaceMarks::ByteLevel)
                               << QStringList{
                                      QStringLiteral("The"),       QStringLiteral("\u2423c"),
                                      QStringLiteral("at"),        QStringLiteral("\u2423s"),
                                      QStringLiteral("at"),        QStringLiteral("\u2423on"),
                                      QStringLiteral("\u2423the"), QStringLiteral("\u2423mat"),
                                      QStringLiteral(".")};
    QTest::addRow("llama-tiny")
        << QStringLiteral("models/llama-tiny/tokenizer.json") << int(SpaceMarks::Metaspace)
        << QStringList{QStringLiteral("<s>"),       QStringLiteral("\u2423"),
                       QStringLiteral("The\u2423"), QStringLiteral("c"),
                       QStringLiteral("at\u2423"),  QStringLiteral("s"),
                       QStringLiteral("at\u2423"),  QStringLiteral("on\u2423the\u2423"),
                       QStringLiteral("mat"),       QStringLiteral(".")};
    QTest::addRow("bpe-bytelevel") << QStringLiteral("bpe-bytelevel/tokenizer.json")
                                   << int(SpaceMarks::ByteLevel) << QStringList();
    QTest::addRow("unigram-metaspace") << QStringLiteral("unigram-metaspace/tokenizer.json")
                                       << int(SpaceMarks::Metaspace) << QStringList();
    QTest::addRow("wordpiece-bert") << QStringLiteral("wordpiece-bert/tokenizer.json")
                                    << int(SpaceMarks::None) << QStringList();
}

void TestTokenizer::spaceMarks()
{
    QFETCH(QString, file);
    QFETCH(int, marks);
    QFETCH(QStringList, shown);
    QString error;
    const std::optional<Tokenizer> t = Tokenizer::fromPath(dataPath(file), &error);
    QVERIFY2(t, qPrintable(error));
    QCOMPARE(int(t->spaceMarks()), marks);
    if (shown.isEmpty())
        return;
    const QJsonObject ref =
        readJson(dataPath(QFileInfo(file).path() + QStringLiteral("/phrases.json")));
    const QJsonObject first = ref.value(QStringLiteral("cases")).toArray().at(0).toObject();
    const QStringList tokens = stringsOf(first.value(QStringLiteral("tokens")));
    QCOMPARE(tokens.size(), shown.size());
    for (qsizetype i = 0; i < tokens.size(); ++i)
        QCOMPARE(displayToken(tokens[i], SpaceMarks(marks)), shown[i]);
    // No marker is left to read as a letter ("Gthe"), and nothing changes without marks.
    for (const QString &token : tokens)
        QCOMPARE(displayToken(token, SpaceMarks::None), token);
    QCOMPARE(displayToken(QString::fromUtf8("\xc4\x8a"), SpaceMarks::ByteLevel),
             QString(QChar(0x21B5))); // GPT-2's newline
}
