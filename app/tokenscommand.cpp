// `pescope tokens (--model PATH | --tokenizer FILE) [--no-special-tokens] [--json]
// [--file PATH [--lines]] TEXT...`:
// each text's token ids, tokens and offsets (code points into the text) as the model's own
// tokenizer.json gives them, read by core/text exactly as Hugging Face's tokenizers does.
#include "commandline.h"

#include "formats/hfcache.h"
#include "text/tokenizer.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace pe::cli {

namespace {

// --model: a model folder; the folder of a file in one; a models--ORG--NAME folder of the
// Hugging Face cache, or a repo id cached there, as its snapshot.
QString modelFolder(const QString &path)
{
    const QFileInfo info(path);
    QString error;
    std::optional<CachedModel> cached;
    if (info.isDir() && info.fileName().startsWith(QLatin1StringView("models--")))
        cached = HfCache::snapshotOf(path, &error);
    else if (info.isDir())
        return path;
    else if (info.exists())
        return info.absolutePath();
    else
        cached = HfCache().find(path, &error);
    if (!cached)
        throw UsageError{error};
    return cached->snapshot;
}

Tokenizer tokenizerFromOptions(const QCommandLineParser &parser)
{
    const bool model = parser.isSet(QStringLiteral("model"));
    const bool file = parser.isSet(QStringLiteral("tokenizer"));
    if (model == file)
        throw UsageError{model ? QStringLiteral("give --model or --tokenizer, not both")
                               : QStringLiteral("name the tokenizer: --model PATH or "
                                                "--tokenizer FILE")};
    const QString option = model ? QStringLiteral("model") : QStringLiteral("tokenizer");
    const QString path = parser.value(option);
    if (path.isEmpty())
        throw UsageError{QStringLiteral("--%1 is empty").arg(option)};
    return readTokenizer(path, file);
}

QJsonArray idsJson(const TokenEncoding &e)
{
    QJsonArray out;
    for (const qint64 id : e.ids)
        out.append(id);
    return out;
}

QJsonArray offsetsJson(const TokenEncoding &e)
{
    QJsonArray out;
    for (const auto &[start, end] : e.offsets)
        out.append(QJsonArray{start, end});
    return out;
}

QByteArray compact(const QJsonArray &a)
{
    return QJsonDocument(a).toJson(QJsonDocument::Compact);
}

// A string as JSON writes it, quoted and escaped.
QByteArray jsonString(const QString &s)
{
    return compact(QJsonArray{s}).chopped(1).mid(1);
}

} // namespace

Tokenizer readTokenizer(const QString &path, bool file)
{
    QString error;
    std::optional<Tokenizer> tokenizer =
        Tokenizer::fromPath(file ? path : modelFolder(path), &error);
    if (!tokenizer)
        throw UsageError{error};
    return *tokenizer;
}

int runTokens(const QStringList &args)
{
    const QString command = QStringLiteral("tokens");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints each text's token ids, tokens and offsets (Unicode code points into the text, "
        "[start, end)) as the model's tokenizer.json gives them, the way Hugging Face's "
        "tokenizers library does. Special tokens are added as the tokenizer's post-processor "
        "adds them unless --no-special-tokens. Nothing is downloaded."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("model"),
         QStringLiteral("A model folder with a tokenizer.json, a file in one, or a Hugging Face "
                        "cache repo id (gpt2, org/name)."),
         QStringLiteral("PATH")},
        {QStringLiteral("tokenizer"), QStringLiteral("A tokenizer.json file."),
         QStringLiteral("FILE")},
        {QStringLiteral("no-special-tokens"),
         QStringLiteral("Leave out the special tokens the post-processor adds "
                        "(add_special_tokens=False).")},
        {QStringLiteral("json"),
         QStringLiteral("One JSON array on stdout: {\"text\", \"ids\", \"tokens\", "
                        "\"offsets\"} per text, in order.")},
        {QStringLiteral("file"),
         QStringLiteral("A text from a UTF-8 file, read exactly as it is (\"-\": standard "
                        "input), after the TEXTs; may be given more than once. For texts of any "
                        "length (an argument holds at most 128 KiB)."),
         QStringLiteral("PATH")},
        {QStringLiteral("lines"),
         QStringLiteral("With --file: one text per line of the file (\"\\n\" or \"\\r\\n\" "
                        "ends a line; empty lines are texts too).")},
    });
    parser.addPositionalArgument(QStringLiteral("text"), QStringLiteral("The texts to tokenize."),
                                 QStringLiteral("TEXT..."));
    parseCommand(parser, args, true);
    QStringList texts = parser.positionalArguments();
    const bool lines = parser.isSet(QStringLiteral("lines"));
    if (lines && !parser.isSet(QStringLiteral("file")))
        throw UsageError{QStringLiteral("--lines reads the lines of --file PATH; give --file")};
    const Tokenizer tokenizer = tokenizerFromOptions(parser);
    for (const QString &path : parser.values(QStringLiteral("file"))) {
        const QString text = readTextFile(path, QStringLiteral("file"));
        if (lines)
            texts += textLines(text);
        else
            texts += text;
    }
    if (texts.isEmpty() && !parser.isSet(QStringLiteral("file")))
        throw UsageError{QStringLiteral("give at least one TEXT to tokenize (or --file PATH)")};

    const bool addSpecial = !parser.isSet(QStringLiteral("no-special-tokens"));
    if (const QStringList unapplied = tokenizer.unappliedSettings(); !unapplied.isEmpty())
        report(command, QStringLiteral("the tokenizer.json's %1 settings are not applied (as "
                                       "transformers' tokenizer(text) does by default)")
                            .arg(unapplied.join(QStringLiteral(" and "))));
    // Written by hand rather than by QJsonDocument, which would sort each object's keys and put
    // every number on a line of its own: one object per text, keys in the documented order.
    QByteArray json = "[\n";
    QByteArray text;
    for (qsizetype i = 0; i < texts.size(); ++i) {
        QString error;
        const std::optional<TokenEncoding> e = tokenizer.encode(texts[i], addSpecial, &error);
        if (!e) {
            report(command, QStringLiteral("text %1: %2").arg(i + 1).arg(error));
            return Failure;
        }
        const QByteArray ids = compact(idsJson(*e));
        const QByteArray tokens = compact(QJsonArray::fromStringList(e->tokens));
        const QByteArray offsets = compact(offsetsJson(*e));
        json += "  {\"text\": " + jsonString(texts[i]) + ", \"ids\": " + ids +
                ", \"tokens\": " + tokens + ", \"offsets\": " + offsets +
                (i + 1 < texts.size() ? "},\n" : "}\n");
        text += (i > 0 ? "\n" : "") + QByteArray("text:    ") + jsonString(texts[i]) +
                "\nids:     " + ids + "\ntokens:  " + tokens + "\noffsets: " + offsets + '\n';
    }
    writeOut(parser.isSet(QStringLiteral("json")) ? json + "]\n" : text);
    return Success; // main() checks that the output was written
}

} // namespace pe::cli
