// `pescope tokens` (issue 28) through the executable: ids, tokens and offsets against Hugging
// Face's answers in tests/data/tokenizers, --json, --no-special-tokens, --model with a model
// folder, and the exit codes and one-line messages of bad usage and bad files.
#include "formats/safejson.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

using pe::test::runPescope;

namespace {

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

// The cases of one reference tokenizer.
QJsonArray cases(const char *family)
{
    return readJson(dataPath(QStringLiteral("%1/cases.json").arg(QLatin1String(family))))
        .value(QStringLiteral("cases"))
        .toArray();
}

QString tokenizerFile(const char *family)
{
    return dataPath(QStringLiteral("%1/tokenizer.json").arg(QLatin1String(family)));
}

// stderr is one line naming the problem.
void checkOneLine(const QByteArray &err, const QString &part)
{
    const QString text = QString::fromUtf8(err);
    QVERIFY2(text.startsWith(QStringLiteral("pescope tokens: ")), qPrintable(text));
    QVERIFY2(text.count(QLatin1Char('\n')) == 1, qPrintable(text));
    QVERIFY2(text.contains(part), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(part, text)));
}

} // namespace

class TestTokenizerCli : public QObject
{
    Q_OBJECT

private slots:
    void jsonMatchesTheLibrary_data();
    void jsonMatchesTheLibrary();
    void textOutput();
    void modelFolder();
    void cachedRepoId();
    void usage_data();
    void usage();
    void badFiles();
    void encodeFailure();
    void help();
    // Issue 37.
    void byteOrderMarkInArguments();
    void invalidUtf8Argument();
    void textFromFile();
    void linesAndStandardInput();
    void invalidUtf8File();
    void unappliedSettings();
    // Issue 45.
    void longTextWithinMemory();
};

void TestTokenizerCli::jsonMatchesTheLibrary_data()
{
    QTest::addColumn<QString>("family");
    QTest::addColumn<bool>("special");
    for (const char *family :
         {"bpe-bytelevel", "wordpiece-bert", "unigram-metaspace", "bpe-bytefallback"}) {
        QTest::addRow("%s", family) << QString::fromLatin1(family) << true;
        QTest::addRow("%s no special tokens", family) << QString::fromLatin1(family) << false;
    }
}

void TestTokenizerCli::jsonMatchesTheLibrary()
{
    // Every case of the family in one run, in order; not the one with a NUL character, which
    // no command-line argument can hold.
    QFETCH(QString, family);
    QFETCH(bool, special);
    QJsonArray expected;
    for (const QJsonValue c : cases(family.toLatin1().constData()))
        if (!c.toObject().value(QStringLiteral("text")).toString().contains(QChar(0)))
            expected.append(c);
    QVERIFY(expected.size() >= 30);
    QStringList args{QStringLiteral("tokens"), QStringLiteral("--tokenizer"),
                     tokenizerFile(family.toLatin1().constData()), QStringLiteral("--json")};
    if (!special)
        args << QStringLiteral("--no-special-tokens");
    args << QStringLiteral("--");
    for (const QJsonValue c : expected)
        args << c.toObject().value(QStringLiteral("text")).toString();
    const pe::test::RunResult r = runPescope(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.isEmpty());
    QJsonParseError parseError;
    const QJsonArray got = QJsonDocument::fromJson(r.out, &parseError).array();
    QVERIFY2(parseError.error == QJsonParseError::NoError, qPrintable(parseError.errorString()));
    QCOMPARE(got.size(), expected.size());
    for (qsizetype i = 0; i < got.size(); ++i) {
        const QJsonObject g = got[i].toObject();
        const QJsonObject e = expected[i].toObject();
        QCOMPARE(g.value(QStringLiteral("text")), e.value(QStringLiteral("text")));
        QCOMPARE(g.value(QStringLiteral("ids")),
                 e.value(special ? QStringLiteral("ids_special") : QStringLiteral("ids")));
        if (!special) {
            QCOMPARE(g.value(QStringLiteral("tokens")), e.value(QStringLiteral("tokens")));
            QCOMPARE(g.value(QStringLiteral("offsets")), e.value(QStringLiteral("offsets")));
        }
    }
}

void TestTokenizerCli::textOutput()
{
    // cases.json's first case of the BERT tokenizer: "Hello world".
    const pe::test::RunResult r =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--tokenizer"),
                    tokenizerFile("wordpiece-bert"), QStringLiteral("Hello world")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(QString::fromUtf8(r.out),
             QStringLiteral("text:    \"Hello world\"\n"
                            "ids:     [2,608,410,814,1078,3]\n"
                            "tokens:  [\"[CLS]\",\"hel\",\"##lo\",\"wor\",\"##ld\",\"[SEP]\"]\n"
                            "offsets: [[0,0],[0,3],[3,5],[6,9],[9,11],[0,0]]\n"));
}

void TestTokenizerCli::modelFolder()
{
    // The Llama folder's phrases, with the model's special tokens (BOS), as transformers gives.
    const QString folder =
        QFileInfo(dataPath(QStringLiteral("models/llama-tiny/tokenizer.json"))).path();
    const QJsonObject ref = readJson(dataPath(QStringLiteral("models/llama-tiny/phrases.json")));
    QStringList args{QStringLiteral("tokens"), QStringLiteral("--model"), folder,
                     QStringLiteral("--json")};
    const QJsonArray phrases = ref.value(QStringLiteral("cases")).toArray();
    for (const QJsonValue p : phrases)
        args << p.toObject().value(QStringLiteral("text")).toString();
    const pe::test::RunResult r = runPescope(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonArray got = QJsonDocument::fromJson(r.out).array();
    QCOMPARE(got.size(), phrases.size());
    for (qsizetype i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].toObject().value(QStringLiteral("ids")),
                 phrases[i].toObject().value(QStringLiteral("ids")));
        QCOMPARE(got[i].toObject().value(QStringLiteral("tokens")),
                 phrases[i].toObject().value(QStringLiteral("tokens")));
    }
}

void TestTokenizerCli::cachedRepoId()
{
    // A repo id of the Hugging Face cache ($HF_HUB_CACHE): its snapshot's tokenizer.json, even
    // without config.json or weights beside it.
    QTemporaryDir hub;
    const QString snapshot = hub.filePath(QStringLiteral("models--org--tiny/snapshots/abc123"));
    QVERIFY(QDir().mkpath(snapshot));
    QVERIFY(QFile::copy(dataPath(QStringLiteral("models/llama-tiny/tokenizer.json")),
                        snapshot + QStringLiteral("/tokenizer.json")));
    const QByteArray previous = qgetenv("HF_HUB_CACHE");
    qputenv("HF_HUB_CACHE", hub.path().toLocal8Bit());
    const pe::test::RunResult byId =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--model"), QStringLiteral("org/tiny"),
                    QStringLiteral("Hi")});
    const pe::test::RunResult byFolder =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--model"),
                    hub.filePath(QStringLiteral("models--org--tiny")), QStringLiteral("Hi")});
    const pe::test::RunResult missing =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--model"),
                    QStringLiteral("org/absent"), QStringLiteral("Hi")});
    qputenv("HF_HUB_CACHE", previous);
    QVERIFY2(byId.exitCode == 0, byId.err.constData());
    // The same as the model folder it was copied from (checked against transformers above).
    const pe::test::RunResult original =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--model"),
                    QFileInfo(dataPath(QStringLiteral("models/llama-tiny/tokenizer.json"))).path(),
                    QStringLiteral("Hi")});
    QVERIFY(!original.out.isEmpty());
    QCOMPARE(byId.out, original.out);
    QCOMPARE(byFolder.out, original.out);
    QCOMPARE(missing.exitCode, 2);
    checkOneLine(missing.err, QStringLiteral("org/absent"));
}

void TestTokenizerCli::usage_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString file = tokenizerFile("bpe-bytelevel");
    QTest::newRow("no tokenizer") << QStringList{QStringLiteral("x")}
                                  << QStringLiteral("--model PATH or --tokenizer FILE");
    QTest::newRow("both") << QStringList{QStringLiteral("--model"), file,
                                         QStringLiteral("--tokenizer"), file, QStringLiteral("x")}
                          << QStringLiteral("not both");
    QTest::newRow("no text") << QStringList{QStringLiteral("--tokenizer"), file}
                             << QStringLiteral("TEXT");
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("--tokenizer"), file, QStringLiteral("--frobnicate"),
                       QStringLiteral("x")}
        << QStringLiteral("frobnicate");
    QTest::newRow("missing file") << QStringList{QStringLiteral("--tokenizer"),
                                                 QStringLiteral("/nonexistent/tokenizer.json"),
                                                 QStringLiteral("x")}
                                  << QStringLiteral("/nonexistent/tokenizer.json");
    QTest::newRow("empty model") << QStringList{QStringLiteral("--model="), QStringLiteral("x")}
                                 << QStringLiteral("--model");
}

void TestTokenizerCli::usage()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const pe::test::RunResult r = runPescope(QStringList{QStringLiteral("tokens")} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    checkOneLine(r.err, message);
}

void TestTokenizerCli::badFiles()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const QString &name, const QByteArray &bytes) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    };
    // A component pescope does not know: refused, naming it and the file.
    write(QStringLiteral("unknown.json"),
          R"({"version": "1.0", "pre_tokenizer": {"type": "Mystery"},
              "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}})");
    pe::test::RunResult r =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--tokenizer"),
                    dir.filePath(QStringLiteral("unknown.json")), QStringLiteral("a")});
    QCOMPARE(r.exitCode, 2);
    checkOneLine(r.err, QStringLiteral("\"Mystery\""));
    checkOneLine(r.err, dir.filePath(QStringLiteral("unknown.json")));
    // A folder with a SentencePiece model only.
    write(QStringLiteral("tokenizer.model"), "\x0a\x05");
    r = runPescope(
        {QStringLiteral("tokens"), QStringLiteral("--model"), dir.path(), QStringLiteral("a")});
    QCOMPARE(r.exitCode, 2);
    checkOneLine(r.err, QStringLiteral("SentencePiece"));
    // Truncated JSON.
    write(QStringLiteral("cut.json"),
          R"({"version": "1.0", "model": {"type": "BPE", "vocab": {"a")");
    r = runPescope({QStringLiteral("tokens"), QStringLiteral("--tokenizer"),
                    dir.filePath(QStringLiteral("cut.json")), QStringLiteral("a")});
    QCOMPARE(r.exitCode, 2);
    checkOneLine(r.err, QStringLiteral("invalid JSON"));
}

void TestTokenizerCli::encodeFailure()
{
    // A readable file that cannot encode this text (its unknown token is missing): a failure
    // while working, exit 1, naming the text.
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("tokenizer.json")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"version": "1.0", "model": {"type": "WordPiece", "vocab": {"a": 0}, "unk_token": "[UNK]"}})");
    f.close();
    const pe::test::RunResult r =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--model"), dir.path(),
                    QStringLiteral("a"), QStringLiteral("b")});
    QCOMPARE(r.exitCode, 1);
    checkOneLine(r.err, QStringLiteral("text 2"));
}

void TestTokenizerCli::help()
{
    const pe::test::RunResult r = runPescope({QStringLiteral("tokens"), QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("Usage: pescope tokens"));
    QVERIFY(r.out.contains("--no-special-tokens"));
}

namespace {

QString publishedFile(const char *family)
{
    return QFINDTESTDATA(
        QStringLiteral("data/tokenizers-real/%1/tokenizer.json").arg(QLatin1String(family)));
}

// Hugging Face's ids for a case text of a published file.
QJsonArray publishedIds(const char *family, const QString &text)
{
    QFile file(QFINDTESTDATA(
        QStringLiteral("data/tokenizers-real/%1/cases.json").arg(QLatin1String(family))));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QJsonArray all = pe::jsonDocumentKeepingFeff(file.readAll())
                               .object()
                               .value(QStringLiteral("cases"))
                               .toArray();
    for (const QJsonValue c : all)
        if (c.toObject().value(QStringLiteral("text")).toString() == text)
            return c.toObject().value(QStringLiteral("ids")).toArray();
    return {};
}

// `pescope tokens --json` output, U+FEFF at a string's start kept.
QJsonArray jsonOutput(const QByteArray &out)
{
    return pe::jsonDocumentKeepingFeff(out).array();
}

pe::test::RunResult runWithInput(const QStringList &args, const QByteArray &input)
{
    QProcess process;
    process.start(QStringLiteral(PE_EXECUTABLE), args);
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

} // namespace

void TestTokenizerCli::byteOrderMarkInArguments()
{
    // U+FEFF reaches the tokenizer as typed, at an argument's start too: GPT-2's ids from
    // tokenizers 0.23.2 ("a\ufeffb" the issue's figures; "\ufeffhello": EF BB BF's byte-level
    // tokens 171 119 123, then "hello").
    const pe::test::RunResult r = runPescope(
        {QStringLiteral("tokens"), QStringLiteral("--tokenizer"), publishedFile("gpt2"),
         QStringLiteral("--json"), QStringLiteral("--no-special-tokens"), QStringLiteral("--"),
         QStringLiteral("a\uFEFFb"), QStringLiteral("\uFEFFhello")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonArray got = jsonOutput(r.out);
    QCOMPARE(got.size(), 2);
    QCOMPARE(got[0].toObject().value(QStringLiteral("text")).toString(),
             QStringLiteral("a\uFEFFb"));
    QCOMPARE(got[0].toObject().value(QStringLiteral("ids")),
             QJsonValue(QJsonArray{64, 171, 119, 123, 65}));
    QCOMPARE(got[1].toObject().value(QStringLiteral("text")).toString(),
             QStringLiteral("\uFEFFhello"));
    QCOMPARE(got[1].toObject().value(QStringLiteral("ids")),
             QJsonValue(QJsonArray{171, 119, 123, 31373}));
}

void TestTokenizerCli::invalidUtf8Argument()
{
    // Bytes that are not UTF-8 in an argument: refused, naming the argument and the byte, not
    // tokenized as U+FFFD. QProcess passes QStrings, so a shell writes the raw bytes.
    QProcess process;
    process.start(QStringLiteral("/bin/sh"),
                  {QStringLiteral("-c"),
                   QStringLiteral("exec \"$0\" tokens --tokenizer \"$1\" \"$(printf 'ab\\377c')\""),
                   QStringLiteral(PE_EXECUTABLE), publishedFile("gpt2")});
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(process.readAllStandardOutput().isEmpty());
    checkOneLine(process.readAllStandardError(),
                 QStringLiteral("argument 4 is not valid UTF-8 (byte 2"));
}

void TestTokenizerCli::textFromFile()
{
    // A text of over 1 MB, far past what one argument holds: "Hello world\n" repeated. GPT-2's
    // pre-tokenizer splits it into "Hello", " world", "\n" each time, so its ids are
    // tokenizers' ids of "Hello world" and of "\n" repeated.
    const QJsonArray hello = publishedIds("gpt2", QStringLiteral("Hello world"));
    const QJsonArray newline = publishedIds("gpt2", QStringLiteral("\n"));
    QCOMPARE(hello.size(), 2);
    QCOMPARE(newline.size(), 1);
    const int repeats = 90000;
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("big.txt")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray("Hello world\n").repeated(repeats));
    f.close();
    QVERIFY(f.size() > 1000000);
    // From the file, then the same bytes from standard input (a pipe gives them 64 KiB at a
    // time).
    for (const bool standardInput : {false, true}) {
        const QStringList args{QStringLiteral("tokens"),
                               QStringLiteral("--tokenizer"),
                               publishedFile("gpt2"),
                               QStringLiteral("--json"),
                               QStringLiteral("--no-special-tokens"),
                               QStringLiteral("--file"),
                               standardInput ? QStringLiteral("-") : f.fileName()};
        const pe::test::RunResult r =
            standardInput ? runWithInput(args, QByteArray("Hello world\n").repeated(repeats))
                          : runPescope(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray got = jsonOutput(r.out);
        QCOMPARE(got.size(), 1);
        const QJsonArray ids = got[0].toObject().value(QStringLiteral("ids")).toArray();
        QCOMPARE(ids.size(), qsizetype(3) * repeats);
        for (qsizetype i = 0; i < ids.size(); i += 3) {
            QCOMPARE(ids[i], hello[0]);
            QCOMPARE(ids[i + 1], hello[1]);
            QCOMPARE(ids[i + 2], newline[0]);
        }
        const QJsonArray offsets = got[0].toObject().value(QStringLiteral("offsets")).toArray();
        QCOMPARE(offsets.last(), QJsonValue(QJsonArray{12 * repeats - 1, 12 * repeats}));
    }
}

void TestTokenizerCli::linesAndStandardInput()
{
    // One text per line (CRLF too), then the same from standard input; each line's ids are
    // tokenizers' for that case text. Texts given as arguments come first.
    const QStringList texts{QStringLiteral("Hello world"),
                            QStringLiteral("The quick brown fox jumps over the lazy dog."),
                            QStringLiteral("a\u3000b ideographic space")};
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("lines.txt")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    const QByteArray body =
        texts[0].toUtf8() + "\r\n" + texts[1].toUtf8() + "\n" + texts[2].toUtf8() + "\n";
    f.write(body);
    f.close();
    const QStringList common{
        QStringLiteral("tokens"), QStringLiteral("--tokenizer"),         publishedFile("gpt2"),
        QStringLiteral("--json"), QStringLiteral("--no-special-tokens"), QStringLiteral("--lines")};
    for (const bool standardInput : {false, true}) {
        const pe::test::RunResult r =
            standardInput
                ? runWithInput(common + QStringList{QStringLiteral("--file"), QStringLiteral("-"),
                                                    QStringLiteral("hello")},
                               body)
                : runPescope(common + QStringList{QStringLiteral("--file"), f.fileName(),
                                                  QStringLiteral("hello")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray got = jsonOutput(r.out);
        QCOMPARE(got.size(), 4);
        QCOMPARE(got[0].toObject().value(QStringLiteral("ids")).toArray(),
                 publishedIds("gpt2", QStringLiteral("hello")));
        for (qsizetype i = 0; i < texts.size(); ++i) {
            const QJsonObject g = got[i + 1].toObject();
            QCOMPARE(g.value(QStringLiteral("text")).toString(), texts[i]);
            QCOMPARE(g.value(QStringLiteral("ids")).toArray(), publishedIds("gpt2", texts[i]));
        }
    }
    // --lines without --file.
    const pe::test::RunResult r =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--tokenizer"), publishedFile("gpt2"),
                    QStringLiteral("--lines"), QStringLiteral("x")});
    QCOMPARE(r.exitCode, 2);
    checkOneLine(r.err, QStringLiteral("--lines"));
}

void TestTokenizerCli::invalidUtf8File()
{
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("bad.txt")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("ok\nab\xC3(");
    f.close();
    pe::test::RunResult r =
        runPescope({QStringLiteral("tokens"), QStringLiteral("--tokenizer"), publishedFile("gpt2"),
                    QStringLiteral("--file"), f.fileName()});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    checkOneLine(r.err, QStringLiteral("byte 5 (line 2) is 0xc3"));
    checkOneLine(r.err, f.fileName());
    r = runPescope({QStringLiteral("tokens"), QStringLiteral("--tokenizer"), publishedFile("gpt2"),
                    QStringLiteral("--file"), dir.filePath(QStringLiteral("missing.txt"))});
    QCOMPARE(r.exitCode, 2);
    checkOneLine(r.err, QStringLiteral("missing.txt"));
}

void TestTokenizerCli::unappliedSettings()
{
    // A file that sets truncation and padding (as sentence-transformers' do): tokenized
    // without them, as transformers' tokenizer(text) does, and stderr says so.
    QFile source(tokenizerFile("wordpiece-bert"));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QJsonObject o = QJsonDocument::fromJson(source.readAll()).object();
    o.insert(QStringLiteral("truncation"),
             QJsonObject{{QStringLiteral("max_length"), 2},
                         {QStringLiteral("stride"), 0},
                         {QStringLiteral("strategy"), QStringLiteral("LongestFirst")},
                         {QStringLiteral("direction"), QStringLiteral("Right")}});
    o.insert(QStringLiteral("padding"),
             QJsonObject{{QStringLiteral("strategy"), QJsonObject{{QStringLiteral("Fixed"), 16}}},
                         {QStringLiteral("pad_id"), 0}});
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("tokenizer.json")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(o).toJson());
    f.close();
    const pe::test::RunResult r = runPescope({QStringLiteral("tokens"), QStringLiteral("--model"),
                                              dir.path(), QStringLiteral("Hello world")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("ids:     [2,608,410,814,1078,3]"), r.out.constData());
    checkOneLine(r.err, QStringLiteral("truncation and padding settings are not applied"));
}

namespace {

// pescope tokens on `file` with T5's published tokenizer, its data segment (heap and anonymous
// mappings: RLIMIT_DATA, which unlike `ulimit -v` leaves out the libraries' mappings) limited
// to `megabytes`.
pe::test::RunResult tokensUnderLimit(const QString &file, qint64 megabytes)
{
    QProcess process;
    process.setChildProcessModifier([megabytes] {
        const rlimit limit{rlim_t(megabytes) << 20, rlim_t(megabytes) << 20};
        setrlimit(RLIMIT_DATA, &limit);
    });
    process.start(QStringLiteral(PE_EXECUTABLE),
                  {QStringLiteral("tokens"), QStringLiteral("--json"),
                   QStringLiteral("--tokenizer"),
                   QFINDTESTDATA("data/tokenizers-real/t5-small/tokenizer.json"),
                   QStringLiteral("--file"), file});
    return pe::test::finishRun(process, 300000);
}

} // namespace

void TestTokenizerCli::longTextWithinMemory()
{
    // T5's Precompiled + Unigram path held about 300 bytes a character of a text without
    // spaces (one piece of 2 Mi characters, one token each, copied at every stage and again as
    // JSON objects): over 620 MiB of data, and std::bad_alloc (exit 134) under a limit. Now the
    // pieces move through the stages and the output is made in blocks: the text fits in 400
    // MiB (it needs about 260 on the 2-core VM), with the same tokens as a short run of "a".
    if (pe::test::underSanitizer)
        QSKIP("AddressSanitizer's shadow memory counts against RLIMIT_DATA: the limits measure "
              "the release build");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("long.txt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    const qsizetype characters = qsizetype(2) << 20;
    file.write(QByteArray(characters, 'a'));
    file.close();
    const pe::test::RunResult r = tokensUnderLimit(path, 400);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // T5's vocabulary has no run of "a" longer than one: "▁" (3), then "a" (9) for every
    // character, "</s>" (1); offsets (0, 1) for the "▁", then (k, k + 1).
    QByteArray ids = "\"ids\": [3,";
    QByteArray offsets = "\"offsets\": [[0,1],";
    for (qsizetype k = 0; k < characters; ++k) {
        ids += "9,";
        offsets += '[' + QByteArray::number(k) + ',' + QByteArray::number(k + 1) + "],";
    }
    ids += "1]";
    offsets += "[0,0]]";
    QVERIFY(r.out.startsWith("[\n  {\"text\": \"aaaa"));
    QVERIFY(r.out.contains(ids));
    QVERIFY(r.out.endsWith(QByteArray(offsets + "}\n]\n")));

    // Under a limit too small for the text, a sentence and exit 1, never an abort.
    const pe::test::RunResult small = tokensUnderLimit(path, 120);
    QCOMPARE(small.exitCode, 1);
    checkOneLine(small.err, QStringLiteral("text 1: out of memory while"));
}

QTEST_GUILESS_MAIN(TestTokenizerCli)
#include "tst_tokenizercli.moc"
