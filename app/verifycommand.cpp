// `pescope verify (--config FILE | --model PATH) --against FILE[:TENSOR] [--what QUANTITY]`:
// compares someone's RoPE numbers (an inference engine's inv_freq, cos / sin tables, attention
// factor, or a GGUF file's rope_freqs) with what Hugging Face's rotary embedding computes for
// that model (core/rope/ropeverify.h), and names the known mistake a difference matches.
// Exit 0: agrees within the tolerance; 4: differs; 2: bad input.
#include "commandline.h"

#include "formats/hfcache.h"
#include "formats/modeltensors.h"
#include "rope/ropeverify.h"

#include <QFileInfo>

#include <cstdio>

namespace pe::cli {

namespace {

const QString verifyCommand = QStringLiteral("verify");

// Largest candidate compared (values; the reference and each hypothesis are as large, float64).
constexpr qint64 maxCandidateValues = qint64(1) << 25;

struct Candidate
{
    QString file;
    QString tensor;
    RopeTable values;
    bool ggufFrequencyFactors = false; // llama.cpp's rope_freqs.weight: divisors of theta_i
};

// FILE or FILE:TENSOR; a path that exists as given wins over a split at its last colon.
std::pair<QString, QString> splitAgainst(const QString &text)
{
    const int colon = int(text.lastIndexOf(QLatin1Char(':')));
    if (QFileInfo::exists(text) || colon <= 0)
        return {text, QString()};
    return {text.left(colon), text.mid(colon + 1)};
}

Candidate readCandidate(const QString &against)
{
    const auto [path, tensorName] = splitAgainst(against);
    if (!QFileInfo(path).isFile())
        throw UsageError{QStringLiteral("--against: %1 is not a file").arg(path)};
    QString error;
    const std::optional<ModelLocation> location = resolveModel(path, &error);
    if (!location)
        throw UsageError{QStringLiteral("--against: %1").arg(error)};
    if (location->kind == ModelSourceKind::ConfigOnly ||
        location->kind == ModelSourceKind::ShardedSafetensors)
        throw UsageError{
            QStringLiteral("--against: %1 is not a .npy, .safetensors or .gguf file").arg(path)};
    ModelTensors tensors;
    if (!tensors.open(location->weightsPath, location->kind, &error))
        throw UsageError{error};
    Candidate candidate;
    candidate.file = tensors.path();
    candidate.tensor = tensorName;
    const QStringList names = tensors.tensorNames();
    if (candidate.tensor.isEmpty()) {
        if (location->kind == ModelSourceKind::Gguf) {
            candidate.tensor = QStringLiteral("rope_freqs.weight");
        } else if (names.size() == 1) {
            candidate.tensor = names.constFirst();
        } else {
            throw UsageError{QStringLiteral("--against: %1 holds %2 tensors; name one as "
                                            "%1:NAME (%3%4)")
                                 .arg(path)
                                 .arg(names.size())
                                 .arg(names.mid(0, 8).join(QStringLiteral(", ")),
                                      names.size() > 8 ? QStringLiteral(", ...") : QString())};
        }
    }
    candidate.ggufFrequencyFactors = location->kind == ModelSourceKind::Gguf &&
                                     candidate.tensor == QLatin1String("rope_freqs.weight");
    const std::optional<TensorInfo> info = tensors.find(candidate.tensor, &error);
    if (!info)
        throw UsageError{QStringLiteral("--against: %1").arg(error)};
    if (info->shape.size() > 2)
        throw UsageError{QStringLiteral("--against: tensor %1 of %2 has %3 dimensions; a RoPE "
                                        "table has 2, inv_freq 1")
                             .arg(candidate.tensor, path)
                             .arg(info->shape.size())};
    if (info->elementCount() > maxCandidateValues)
        throw UsageError{QStringLiteral("--against: tensor %1 of %2 has %3 values; verify "
                                        "compares at most %4 (fewer positions will do)")
                             .arg(candidate.tensor, path)
                             .arg(info->elementCount())
                             .arg(maxCandidateValues)};
    std::vector<float> values;
    if (!tensors.readRows(candidate.tensor, 0, -1, &values, &error))
        throw UsageError{error};
    RopeTable &table = candidate.values;
    table.rows = info->shape.size() == 2 ? info->shape[0] : 1;
    table.columns = info->shape.empty() ? 1 : info->shape.back();
    table.values.assign(values.begin(), values.end());
    return candidate;
}

// What the candidate holds when --what is not given: a GGUF's rope_freqs and 1-D arrays are
// inverse frequencies, one value the attention factor, a matrix HF's cos table.
RopeQuantity guessQuantity(const Candidate &candidate)
{
    const RopeTable &t = candidate.values;
    if (candidate.ggufFrequencyFactors || (t.rows == 1 && t.columns > 1))
        return RopeQuantity::InverseFrequencies;
    if (t.rows == 1 && t.columns == 1)
        return RopeQuantity::AttentionFactor;
    return RopeQuantity::Cos;
}

} // namespace

int runVerify(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Compares RoPE numbers (inv_freq, cos / sin tables, the attention factor, a GGUF file's "
        "rope_freqs) with Hugging Face's rotary embedding for a model's config, prints the "
        "largest errors and the first difference, and names the known mistake a difference "
        "matches. Exit 0: agrees; 4: differs; 2: bad input."));
    parser.addHelpOption();
    OptionSet options;
    addModelOptions(options);
    options.addPlain({QStringLiteral("against"),
                      QStringLiteral("The numbers to check: a .npy file, FILE.safetensors:TENSOR, "
                                     "or a .gguf file (its rope_freqs.weight)."),
                      QStringLiteral("FILE[:TENSOR]")});
    options.addPlain({QStringLiteral("what"),
                      QStringLiteral("What the file holds: %1 (default: inv-freq for 1-D arrays "
                                     "and GGUF rope_freqs, attention-factor for one value, cos "
                                     "for a table).")
                          .arg(choiceList(ropeQuantityNames)),
                      QStringLiteral("NAME")});
    options.addPlain({QStringLiteral("positions"),
                      QStringLiteral("The sequence length HF's rules see (dynamic, longrope); "
                                     "default: the table's rows, or none for inv-freq."),
                      QStringLiteral("N")});
    options.addPlain({QStringLiteral("tolerance"),
                      QStringLiteral("Largest difference that agrees: absolute for tables, "
                                     "relative for inv-freq and the attention factor (default "
                                     "%1).")
                          .arg(ropeDefaultTolerance),
                      QStringLiteral("T")});
    options.addPlain({QStringLiteral("unscaled"),
                      QStringLiteral("The tables are not multiplied by the attention factor "
                                     "(HF's forward multiplies them).")});
    options.addTo(parser);
    parseOrThrow(parser, args);
    if (parser.isSet(QStringLiteral("help")))
        requestHelp(parser, args);

    const std::optional<ModelConfig> config = modelConfigFromOptions(parser);
    if (!config)
        throw UsageError{QStringLiteral("--config or --model is required")};
    if (!parser.isSet(QStringLiteral("against")))
        throw UsageError{QStringLiteral("--against is required")};
    QString error;
    const int layer =
        int(integerOption(parser, QStringLiteral("layer"), 0, limits::maxLayers - 1, -1));
    const std::optional<ModelLayerSpec> model = modelLayerSpec(*config, layer, &error);
    if (!model)
        throw UsageError{error};
    const RopeScheme *rope = model->spec.get<RopeScheme>();
    if (!rope)
        throw UsageError{QStringLiteral("%1 has no rotation to verify").arg(model->description)};

    RopeVerifyOptions verify;
    Candidate candidate = readCandidate(parser.value(QStringLiteral("against")));
    verify.what = guessQuantity(candidate);
    if (parser.isSet(QStringLiteral("what"))) {
        const QString name = parser.value(QStringLiteral("what"));
        const auto what = parseAs<RopeQuantity>(ropeQuantityNames, name);
        if (!what)
            throw UsageError{QStringLiteral("--what must be %1 (got \"%2\")")
                                 .arg(choiceList(ropeQuantityNames), name)};
        verify.what = *what;
    }
    verify.tolerance = numberOption(parser, QStringLiteral("tolerance"), ropeDefaultTolerance);
    if (verify.tolerance < 0)
        throw UsageError{
            QStringLiteral("--tolerance must be at least 0 (got %1)").arg(verify.tolerance)};
    verify.scaled = !parser.isSet(QStringLiteral("unscaled"));
    const bool table = verify.what == RopeQuantity::Cos || verify.what == RopeQuantity::Sin ||
                       verify.what == RopeQuantity::CosSin;
    RopeConfig reference = *rope;
    reference.sequenceLength = integerOption(parser, QStringLiteral("positions"), 1, ropeMaxContext,
                                             table ? candidate.values.rows : 0);
    if (candidate.ggufFrequencyFactors) {
        if (verify.what != RopeQuantity::InverseFrequencies)
            throw UsageError{QStringLiteral("--what must be inv-freq for a GGUF file's "
                                            "rope_freqs.weight (got %1)")
                                 .arg(nameOf(ropeQuantityNames, verify.what))};
        // llama.cpp's per-pair divisors of the default frequencies, as inv_freq.
        candidate.values.values =
            ropeFrequenciesFromFactors(model->spec.dims, reference, candidate.values.values);
    }

    const std::optional<RopeVerifyResult> result =
        ropeVerify(model->spec.dims, reference, verify, candidate.values, &error);
    if (!result)
        throw UsageError{
            QStringLiteral("%1 (%2 of %3)").arg(error, candidate.tensor, candidate.file)};
    std::printf(
        "%s\n",
        qPrintable(QStringLiteral("reference: %1 (%2)").arg(model->description, config->source)));
    std::printf("%s\n", qPrintable(QStringLiteral("checked:   %1 of %2, %3 x %4, as %5")
                                       .arg(candidate.tensor, candidate.file)
                                       .arg(candidate.values.rows)
                                       .arg(candidate.values.columns)
                                       .arg(nameOf(ropeQuantityNames, verify.what))));
    for (const QString &line : ropeVerifyReport(*result, verify))
        std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
    return result->agrees ? Success : Differs;
}

} // namespace pe::cli
