// PhraseModel without weights (issue 46 item 5): a published tokenizer.json alone, or a folder
// holding one but no config.json and weights, opens tokens only. Its ids for a phrase are Hugging
// Face's (tests/data/tokenizers-real/*/cases.json, made by the tokenizers library, with the
// special tokens the post-processor adds); what needs the weights (the embeddings, the
// attention) is refused with a sentence naming config.json and the safetensors weights. A
// tokenizer.json inside a model folder opens that model, and a tokenizer with ids past the
// model's rows is named by idProblem().
#include "model/phrasemodel.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace pe;

namespace {

QString realTokenizer(const char *family)
{
    return QFINDTESTDATA(
        QStringLiteral("data/tokenizers-real/%1/tokenizer.json").arg(QLatin1String(family)));
}

QString modelFolder(const char *name)
{
    return QFINDTESTDATA(QStringLiteral("data/models/") + QLatin1String(name));
}

// Hugging Face's answers for `family`: each case's text and ids with special tokens.
QJsonArray hfCases(const char *family)
{
    QFile file(QFINDTESTDATA(
        QStringLiteral("data/tokenizers-real/%1/cases.json").arg(QLatin1String(family))));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("cases")).toArray();
}

std::vector<qint64> idsOf(const QJsonValue &value)
{
    std::vector<qint64> ids;
    for (const QJsonValue id : value.toArray())
        ids.push_back(id.toInteger());
    return ids;
}

bool copyFile(const QString &from, const QString &to)
{
    return QFile::copy(from, to);
}

} // namespace

class TestPhraseModel : public QObject
{
    Q_OBJECT

private slots:
    void tokenizerFileAlone_data();
    void tokenizerFileAlone();
    void folderWithATokenizerOnly();
    void configWithoutWeights();
    void tokenizerFileInAModelFolder();
    void idsOutsideTheModelsRows();
};

void TestPhraseModel::tokenizerFileAlone_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QJsonArray>("cases");
    for (const char *family : {"gpt2", "bert-base-uncased", "t5-small"})
        QTest::newRow(family) << realTokenizer(family) << hfCases(family);
}

// The file alone: tokens as Hugging Face gives them, and the arrays refused by a sentence.
void TestPhraseModel::tokenizerFileAlone()
{
    QFETCH(QString, file);
    QFETCH(QJsonArray, cases);
    QVERIFY(!file.isEmpty());
    QVERIFY(cases.size() >= 30);
    QCOMPARE(PhraseModel::tokenizerAlone(file), QDir::toNativeSeparators(file));
    QString error;
    std::unique_ptr<PhraseModel> model = PhraseModel::open(file, &error);
    QVERIFY2(model, qPrintable(error));
    QVERIFY(!model->hasWeights());
    QCOMPARE(model->folder(), QDir::toNativeSeparators(QFileInfo(file).absolutePath()));
    const QString note = model->weightsNote();
    QVERIFY2(note.contains(QLatin1String("config.json")) &&
                 note.contains(QLatin1String("safetensors")) &&
                 note.contains(QLatin1String("embeddings")) &&
                 note.contains(QLatin1String("attention")),
             qPrintable(note));
    for (qsizetype i = 0; i < 10; ++i) {
        const QJsonObject c = cases[i].toObject();
        const std::optional<TokenEncoding> e =
            model->encode(c.value(QLatin1String("text")).toString(), &error);
        QVERIFY2(e, qPrintable(error));
        QCOMPARE(e->ids, idsOf(c.value(QLatin1String("ids_special"))));
        if (e->size() == 0)
            continue;
        QCOMPARE(model->problem(*e, PhraseArray::Embeddings), note);
        QCOMPARE(model->problem(*e, PhraseArray::Attention), note);
        QVERIFY(model->idProblem(*e).isEmpty());
        QString computeError;
        QVERIFY(!model->compute(*e, PhraseArray::Embeddings, true, &computeError));
        QCOMPARE(computeError, note);
    }
    // No model's limit on the tokens: the tokenizer's own.
    QCOMPARE(model->maxTokens(PhraseArray::Attention), Tokenizer::maxTextLength);
}

// A folder holding tokenizer.json and nothing of a model: the same, by the folder's name.
void TestPhraseModel::folderWithATokenizerOnly()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(copyFile(realTokenizer("gpt2"), dir.filePath(QStringLiteral("tokenizer.json"))));
    const QString expected =
        QDir::toNativeSeparators(dir.filePath(QStringLiteral("tokenizer.json")));
    QCOMPARE(PhraseModel::tokenizerAlone(dir.path()), expected);
    QString error;
    std::unique_ptr<PhraseModel> model = PhraseModel::open(dir.path(), &error);
    QVERIFY2(model, qPrintable(error));
    QVERIFY(!model->hasWeights());
    const std::optional<TokenEncoding> e = model->encode(QStringLiteral("Hello world"), &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->ids, (std::vector<qint64>{15496, 995})); // cases.json's "000-english"
    // An empty folder is still no model, and says so.
    QTemporaryDir empty;
    QVERIFY(PhraseModel::tokenizerAlone(empty.path()).isEmpty());
    QVERIFY(!PhraseModel::open(empty.path(), &error));
}

// config.json and tokenizer.json without weights: tokens, and why layer 0 cannot be computed.
void TestPhraseModel::configWithoutWeights()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char *name : {"config.json", "tokenizer.json"})
        QVERIFY(copyFile(modelFolder("gpt2-tiny") + QLatin1Char('/') + QLatin1String(name),
                         dir.filePath(QLatin1String(name))));
    QVERIFY(PhraseModel::tokenizerAlone(dir.path()).isEmpty()); // it has a layer map
    QString error;
    std::unique_ptr<PhraseModel> model = PhraseModel::open(dir.path(), &error);
    QVERIFY2(model, qPrintable(error));
    QVERIFY(!model->hasWeights());
    QVERIFY2(model->weightsNote().contains(QLatin1String("without weights")),
             qPrintable(model->weightsNote()));
}

// tokenizer.json of a whole model: the model, with its weights.
void TestPhraseModel::tokenizerFileInAModelFolder()
{
    const QString folder = modelFolder("gpt2-tiny");
    const QString file = folder + QStringLiteral("/tokenizer.json");
    QVERIFY(PhraseModel::tokenizerAlone(file).isEmpty());
    QCOMPARE(PhraseModel::modelOfTokenizerFile(file), QDir::toNativeSeparators(folder));
    QString error;
    std::unique_ptr<PhraseModel> model = PhraseModel::open(file, &error);
    QVERIFY2(model, qPrintable(error));
    QVERIFY(model->hasWeights());
    QVERIFY(model->weightsNote().isEmpty());
    const std::optional<TokenEncoding> e = model->encode(QStringLiteral("the cat"), &error);
    QVERIFY2(e, qPrintable(error));
    QVERIFY(model->compute(*e, PhraseArray::Embeddings, true, &error));
}

// GPT-2's published tokenizer (50,257 ids) with gpt2-tiny's weights (3,000 rows): "Hello world"
// is ids 15496 and 995 (cases.json), the first past the rows.
void TestPhraseModel::idsOutsideTheModelsRows()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char *name : {"config.json", "model.safetensors"})
        QVERIFY(copyFile(modelFolder("gpt2-tiny") + QLatin1Char('/') + QLatin1String(name),
                         dir.filePath(QLatin1String(name))));
    QVERIFY(copyFile(realTokenizer("gpt2"), dir.filePath(QStringLiteral("tokenizer.json"))));
    QString error;
    std::unique_ptr<PhraseModel> model = PhraseModel::open(dir.path(), &error);
    QVERIFY2(model, qPrintable(error));
    QVERIFY(model->hasWeights());
    const std::optional<TokenEncoding> e = model->encode(QStringLiteral("Hello world"), &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(e->ids, (std::vector<qint64>{15496, 995}));
    const QString problem = model->idProblem(*e);
    QVERIFY2(problem.contains(QLatin1String("id 15496")) &&
                 problem.contains(QLatin1String("3000 token rows")),
             qPrintable(problem));
    QCOMPARE(model->problem(*e, PhraseArray::Embeddings), problem);
}

QTEST_GUILESS_MAIN(TestPhraseModel)
#include "tst_phrasemodel.moc"
