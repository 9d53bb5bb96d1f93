// `pescope phrases --text T [--text T ...] ... --out FILE.npy`: seed 001's phrase embeddings.
#include "commandline.h"

#include "io/atomicfile.h"
#include "io/matrixwriter.h"
#include "state/explorervalues.h"
#include "text/phrases.h"

#include <QFile>

namespace pe::cli {

namespace {

const QString command = QStringLiteral("phrases");

// This command's options are the phrase table's, in its own short spelling (--dims, --seed);
// titles are for figures only.
const FlagRenames phraseFlags = {{QStringLiteral("phrase-dims"), QStringLiteral("dims")},
                                 {QStringLiteral("phrase-seed"), QStringLiteral("seed")},
                                 {QStringLiteral("phrase-title"), QString()}};

QString pythonList(const QStringList &tokens)
{
    QStringList quoted;
    for (const QString &token : tokens)
        quoted += QLatin1Char('\'') + token + QLatin1Char('\'');
    return QLatin1Char('[') + quoted.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString idMatrix(const std::vector<std::vector<qint64>> &ids)
{
    QStringList rows;
    for (const auto &row : ids) {
        QStringList cells;
        for (qint64 id : row)
            cells += QString::number(id);
        rows += QLatin1Char('[') + cells.join(QLatin1Char(' ')) + QLatin1Char(']');
    }
    return QLatin1Char('[') + rows.join(QStringLiteral("\n ")) + QLatin1Char(']');
}

// "1 phrase", "3 phrases".
QString phraseCount(qsizetype count)
{
    return count == 1 ? QStringLiteral("1 phrase") : QStringLiteral("%1 phrases").arg(count);
}

// The phrases x L x D float32 embeddings' writer.
MatrixWriter embeddingsWriter(const PhraseSpec &spec, const QString &path, MatrixFormat format)
{
    return MatrixWriter(path, format,
                        {qint64(spec.phrases.size()), spec.sequenceLength, spec.dims});
}

// The command's description and options, in the order --help lists them.
void addPhrasesOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Vectorises phrases as Keras TextVectorization does and embeds them (word + position).\n"
        "Prints the vocabulary and token ids; with --out also writes the phrases x L x D "
        "float32 embeddings. Without --text: the window's example phrases."));
    parser.addHelpOption();
    OptionSet options;
    options.add(PhraseSpec::fields(), QString(), phraseFlags);
    options.addPlain(backendOption());
    options.addPlain({QStringLiteral("out"), QStringLiteral("Embeddings: .npy or .csv."),
                      QStringLiteral("FILE")});
    options.addPlain({QStringLiteral("vocab-out"), QStringLiteral("Vocabulary, one token a line."),
                      QStringLiteral("FILE")});
    options.addPlain(formatOption());
    options.addPlain(dryRunOption());
    options.addTo(parser);
}

// The phrases, the window's examples without --text; throws UsageError naming the option.
PhraseSpec phraseSpecFromOptions(const QCommandLineParser &parser)
{
    PhraseSpec spec;
    if (const FieldProblem problem =
            readOptions(PhraseSpec::fields(), parser, &spec, QString(), phraseFlags))
        throw UsageError{describe(PhraseSpec::fields(), problem, FieldNaming::Flag)};
    if (spec.phrases.isEmpty()) // no --text: the window's example phrases
        spec.phrases = examplePhrases();
    if (const QString problem = spec.validate(); !problem.isEmpty())
        throw UsageError{problem};
    return spec;
}

// Where the command writes: the embeddings (--out, empty for none) in their format, and the
// vocabulary (--vocab-out, empty for none).
struct PhrasesOutput
{
    QString path;
    MatrixFormat format = MatrixFormat::Npy;
    QString vocabPath;
};

// What --dry-run reports, with the problems the files would meet.
int reportPhrasesDryRun(const PhraseSpec &spec, BackendChoice choice, const PhrasesOutput &out)
{
    QStringList problems;
    QString action = QStringLiteral("embed %1 (%2 tokens x %3 dims, backend: %4)")
                         .arg(phraseCount(spec.phrases.size()))
                         .arg(spec.sequenceLength)
                         .arg(spec.dims)
                         .arg(backendChoiceName(choice));
    if (!out.path.isEmpty()) {
        problems.append(embeddingsWriter(spec, out.path, out.format).problem());
        action += QStringLiteral(" and write them to ") + out.path;
    }
    if (!out.vocabPath.isEmpty()) {
        problems.append(outputPathProblem(out.vocabPath));
        action += QStringLiteral("; the vocabulary to ") + out.vocabPath;
    }
    return reportDryRun(command, action, problems);
}

// The vocabulary and the embeddings, both written and flushed before either is committed, so
// a failure leaves neither behind. False with *error set on failure.
bool writePhraseFiles(const PhraseSpec &spec, const PhraseEmbedding &embedding,
                      const PhrasesOutput &out, QString *error)
{
    AtomicFile vocabFile(out.vocabPath);
    if (!out.vocabPath.isEmpty()) {
        const QByteArray text = embedding.vocabulary.join(QLatin1Char('\n')).toUtf8() + '\n';
        if (!vocabFile.open(error) || !vocabFile.write(text, error) || !vocabFile.flush(error))
            return false;
    }
    if (!out.path.isEmpty()) {
        MatrixWriter writer = embeddingsWriter(spec, out.path, out.format);
        if (!writer.open(error) ||
            !writer.write(embedding.values.data(), qint64(embedding.values.size()), error) ||
            !writer.commit(error))
            return false; // vocabFile's destructor discards its temporary file
    }
    if (!out.vocabPath.isEmpty() && !vocabFile.commit(error)) {
        // Only the rename can still fail here; the embeddings were committed a moment ago.
        if (!out.path.isEmpty() && !AtomicFile::writesInPlace(out.path))
            QFile::remove(out.path);
        return false;
    }
    return true;
}

} // namespace

int runPhrases(const QStringList &args)
{
    QCommandLineParser parser;
    addPhrasesOptions(parser);
    parseCommand(parser, args);

    const PhraseSpec spec = phraseSpecFromOptions(parser);
    const BackendChoice choice = backendFromOptions(parser);
    PhrasesOutput out;
    if (parser.isSet(QStringLiteral("out"))) {
        out.path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
        out.format = matrixFormatFromOptions(parser, out.path);
    }
    out.vocabPath = parser.value(QStringLiteral("vocab-out"));
    if (parser.isSet(QStringLiteral("dry-run")))
        return reportPhrasesDryRun(spec, choice, out);

    QString error;
    const std::unique_ptr<Backend> backend = makeBackend(choice, &error);
    if (!backend) {
        report(command, QStringLiteral("the %1 backend cannot start: %2")
                            .arg(backendChoiceName(choice), error));
        return Failure;
    }
    PhraseEmbedding embedding;
    const bool embedded = embedPhrases(*backend, spec, &embedding, &error);
    if (const QString notice = backend->notice(); !notice.isEmpty())
        report(command, notice); // e.g. the GPU failed and the CPU took over
    if (!embedded) {
        report(command, error);
        return Failure;
    }

    printOut(QStringLiteral("Vocabulary: ") + pythonList(embedding.vocabulary) +
             QStringLiteral("\nToken ids: ") + idMatrix(embedding.ids) + QLatin1Char('\n'));
    flushOut(); // before the files, which may be /dev/stdout too
    if (!writePhraseFiles(spec, embedding, out, &error)) {
        report(command, error);
        return Failure;
    }
    QString summary = QStringLiteral("%1 embedded (%2, %3 tokens x %4 dims) by the %5 backend")
                          .arg(phraseCount(spec.phrases.size()))
                          .arg(nameOf(embeddingModeNames, spec.mode))
                          .arg(spec.sequenceLength)
                          .arg(spec.dims)
                          .arg(backend->id());
    if (!out.path.isEmpty())
        summary += QStringLiteral("; written to ") + out.path;
    report(command, summary);
    return Success;
}

} // namespace pe::cli
