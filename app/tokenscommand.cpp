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

#include <algorithm>
#include <new>

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

QByteArray compact(const QJsonArray &a)
{
    return QJsonDocument(a).toJson(QJsonDocument::Compact);
}

// One list of an encoding as compact JSON ("[1,2,3]") appended to `out`, made in blocks of
// `block` entries: a QJsonArray of every token of a long text took about 150 bytes a token (an
// offset pair is an array of its own), several times the text; each block's text is what
// QJsonDocument writes for it, so the whole reads exactly as one document would have written it.
template <class Append> void appendJsonList(QByteArray &out, qsizetype count, Append append)
{
    constexpr qsizetype block = 4096;
    out += '[';
    for (qsizetype first = 0; first < count; first += block) {
        QJsonArray part;
        for (qsizetype i = first; i < std::min(count, first + block); ++i)
            append(part, std::size_t(i));
        if (first > 0)
            out += ',';
        const QByteArray text = compact(part);
        out.append(text.constData() + 1, text.size() - 2); // without its brackets
    }
    out += ']';
}

void appendIds(QByteArray &out, const TokenEncoding &e)
{
    appendJsonList(out, e.size(), [&](QJsonArray &a, std::size_t i) { a.append(e.ids[i]); });
}

void appendTokenTexts(QByteArray &out, const TokenEncoding &e)
{
    appendJsonList(out, e.size(),
                   [&](QJsonArray &a, std::size_t i) { a.append(e.tokens[qsizetype(i)]); });
}

void appendOffsets(QByteArray &out, const TokenEncoding &e)
{
    appendJsonList(out, e.size(), [&](QJsonArray &a, std::size_t i) {
        a.append(QJsonArray{e.offsets[i].first, e.offsets[i].second});
    });
}

// A string as JSON writes it, quoted and escaped.
QByteArray jsonString(const QString &s)
{
    return compact(QJsonArray{s}).chopped(1).mid(1);
}

QString outOfMemory(const QString &text)
{
    return QStringLiteral("out of memory while writing the tokens of a text of %1 UTF-16 units")
        .arg(text.size());
}

// One text's entry: a JSON object, or the four lines of the plain format.
void appendTokens(QByteArray &output, const QString &text, const TokenEncoding &e, bool asJson,
                  qsizetype index, qsizetype count)
{
    const QByteArray quoted = jsonString(text);
    if (asJson) {
        output += "  {\"text\": " + quoted + ", \"ids\": ";
        appendIds(output, e);
        output += ", \"tokens\": ";
        appendTokenTexts(output, e);
        output += ", \"offsets\": ";
        appendOffsets(output, e);
        output += index + 1 < count ? "},\n" : "}\n";
        return;
    }
    output += (index > 0 ? "\n" : "") + QByteArray("text:    ") + quoted + "\nids:     ";
    appendIds(output, e);
    output += "\ntokens:  ";
    appendTokenTexts(output, e);
    output += "\noffsets: ";
    appendOffsets(output, e);
    output += '\n';
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
    // Only the format asked for is made, one text's lists at a time.
    const bool asJson = parser.isSet(QStringLiteral("json"));
    QByteArray output = asJson ? "[\n" : "";
    for (qsizetype i = 0; i < texts.size(); ++i) {
        QString error;
        std::optional<TokenEncoding> e;
        try {
            e = tokenizer.encode(texts[i], addSpecial, &error);
            if (e)
                appendTokens(output, texts[i], *e, asJson, i, texts.size());
        } catch (const std::bad_alloc &) {
            // Tokenizer::encode says so itself; this is the output's own memory.
            error = outOfMemory(texts[i]);
            e.reset();
        }
        if (!e) {
            report(command, QStringLiteral("text %1: %2").arg(i + 1).arg(error));
            return Failure;
        }
    }
    if (asJson)
        output += "]\n";
    writeOut(output);
    return Success; // main() checks that the output was written
}

} // namespace pe::cli
