// The tokenizer.json reader (issue 28) against Hugging Face's own answers: every case of the four
// tokenizers in tests/data/tokenizers (ids, tokens, offsets, ids with special tokens, decoded
// text, the pair), the model folders' phrases, then small files written here whose expected
// tokens follow by hand from the documented rules of each component, and hostile files.
#include "text/tokenizer.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

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
    return QJsonDocument::fromJson(file.readAll()).object();
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

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
