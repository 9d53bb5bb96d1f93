#include "enginecheck.h"

#include "formats/hfcache.h"
#include "formats/modeltensors.h"

#include <QFileInfo>

#include <cmath>

namespace pe {

namespace {

// FILE or FILE:TENSOR; a path that exists as given wins over a split at its last colon.
std::pair<QString, QString> splitAgainst(const QString &text)
{
    const int colon = int(text.lastIndexOf(QLatin1Char(':')));
    if (QFileInfo::exists(text) || colon <= 0)
        return {text, QString()};
    return {text.left(colon), text.mid(colon + 1)};
}

QString shapeText(const std::vector<qint64> &shape)
{
    QStringList parts;
    for (qint64 n : shape)
        parts << QString::number(n);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

const QString ggufFactors = QStringLiteral("rope_freqs.weight");
const QString ggufLongFactors = QStringLiteral("rope_factors_long.weight");
const QString ggufShortFactors = QStringLiteral("rope_factors_short.weight");

// The tensor to read: the one named, a GGUF's rope_freqs.weight (or the longrope set llama.cpp
// uses at that context: long beyond the original context), or a file's only tensor.
std::optional<QString> chooseTensor(const ModelTensors &tensors, ModelSourceKind kind,
                                    const QString &path, const QString &named, bool longContext,
                                    QString *error)
{
    if (!named.isEmpty())
        return named;
    const QStringList names = tensors.tensorNames();
    if (kind == ModelSourceKind::Gguf) {
        const QString set = longContext ? ggufLongFactors : ggufShortFactors;
        return !names.contains(ggufFactors) && names.contains(set) ? set : ggufFactors;
    }
    if (names.size() == 1)
        return names.constFirst();
    *error = QStringLiteral("%1 holds %2 tensors; name one as %1:NAME (%3%4)")
                 .arg(path)
                 .arg(names.size())
                 .arg(names.mid(0, 8).join(QStringLiteral(", ")),
                      names.size() > 8 ? QStringLiteral(", ...") : QString());
    return std::nullopt;
}

// What a refusal calls the candidate: "tensor cos of /path/engine.npy", or "table" for an array
// in memory (pescope.verify).
QString subject(const RopeCandidate &c)
{
    return c.file.isEmpty() ? QStringLiteral("table")
                            : QStringLiteral("tensor %1 of %2").arg(c.tensor, c.file);
}

} // namespace

// The table a shape holds: leading dimensions of 1 dropped (HF's forward returns batch x
// positions x dims), a trailing 2 read as complex pairs (Llama 4's freqs_cis, view_as_real).
bool ropeCandidateShape(RopeCandidate *c, QString *error)
{
    std::vector<qint64> s = c->shape;
    while (s.size() > 2 && s.front() == 1)
        s.erase(s.begin());
    c->complexPairs = s.size() == 3 && s.back() == 2;
    if (c->complexPairs) {
        c->values.rows = s[0];
        c->values.columns = 2 * s[1];
    } else if (s.size() > 2) {
        *error = QStringLiteral("%1 is %2: a RoPE table has 2 dimensions (positions x columns; "
                                "leading dimensions of 1 are dropped), complex pairs 3 (positions "
                                "x pairs x 2), inv_freq 1")
                     .arg(subject(*c), shapeText(c->shape));
        return false;
    } else {
        c->values.rows = s.size() == 2 ? s[0] : 1;
        c->values.columns = s.empty() ? 1 : s.back();
    }
    if (c->values.rows < 1 || c->values.columns < 1) {
        *error = QStringLiteral("%1 is %2: an empty table (no positions or no columns), "
                                "nothing to verify")
                     .arg(subject(*c), shapeText(c->shape));
        return false;
    }
    return true;
}

namespace {

QString layoutLine(const EngineCheck &check)
{
    const RopeVerifyResult &r = check.result;
    QString how = QStringLiteral("as given");
    if (r.layoutDetected)
        how = QStringLiteral("detected");
    else if (check.request.options.layout == RopeLayout::Auto)
        how = QStringLiteral("from the tensor's shape");
    return QStringLiteral("layout:    %1 (%2)").arg(ropeLayoutDescription(r.layout, r.pairs), how);
}

// A detected layout whose pairing is not the model's: right only with q and k laid out alike.
QString pairingNote(const EngineCheck &check)
{
    const RopeLayout layout = check.result.layout;
    const RopePairing model = check.config.pairing;
    const bool half = layout == RopeLayout::Half;
    const bool adjacent = layout == RopeLayout::Interleaved || layout == RopeLayout::Complex;
    if (!check.result.layoutDetected && check.request.options.layout != RopeLayout::Auto)
        return {};
    if (!(half && model == RopePairing::Interleaved) && !(adjacent && model == RopePairing::Half))
        return {};
    return QStringLiteral("note:      the model pairs its columns %1; a table in the %2 layout is "
                          "right where the engine lays out q and k the same way (HF's DeepSeek-V3 "
                          "permutes q and k into the half layout; llama.cpp permutes Llama's "
                          "weights into the interleaved one)")
        .arg(model == RopePairing::Half ? QStringLiteral("half (rotate_half)")
                                        : QStringLiteral("interleaved (consecutive pairs)"),
             half ? QStringLiteral("half") : QStringLiteral("interleaved"));
}

} // namespace

QString RopeCandidate::description(bool brief) const
{
    if (file.isEmpty()) // an array in memory (pescope.verify)
        return QStringLiteral("a %1 array %2").arg(typeName, shapeText(shape));
    return QStringLiteral("%1 of %2, %3 %4")
        .arg(tensor, brief ? QFileInfo(file).fileName() : file, typeName, shapeText(shape));
}

std::optional<RopeCandidate> readRopeCandidate(const QString &against, QString *error,
                                               bool longContext)
{
    const auto fail = [&](const QString &message) -> std::optional<RopeCandidate> {
        *error = message;
        return std::nullopt;
    };
    const auto [path, tensorName] = splitAgainst(against);
    if (!QFileInfo(path).isFile())
        return fail(QStringLiteral("%1 is not a file").arg(path));
    const std::optional<ModelLocation> location = resolveModel(path, error);
    if (!location)
        return std::nullopt;
    if (location->kind == ModelSourceKind::ConfigOnly ||
        location->kind == ModelSourceKind::ShardedSafetensors)
        return fail(QStringLiteral("%1 is not a .npy, .safetensors or .gguf file").arg(path));
    ModelTensors tensors;
    if (!tensors.open(location->weightsPath, location->kind, error))
        return std::nullopt;
    RopeCandidate c;
    c.file = tensors.path();
    const std::optional<QString> name =
        chooseTensor(tensors, location->kind, path, tensorName, longContext, error);
    if (!name)
        return std::nullopt;
    c.tensor = *name;
    const bool gguf = location->kind == ModelSourceKind::Gguf;
    c.ggufFrequencyFactors = gguf && (c.tensor == ggufFactors || c.tensor == ggufLongFactors ||
                                      c.tensor == ggufShortFactors);
    if (gguf && c.tensor == ggufLongFactors)
        c.factorSet = RopeFactorSet::Long;
    else if (gguf && c.tensor == ggufShortFactors)
        c.factorSet = RopeFactorSet::Short;
    const std::optional<TensorInfo> info = tensors.find(c.tensor, error);
    if (!info)
        return std::nullopt;
    c.typeName = info->typeName;
    c.dtype = info->dtype;
    c.shape = info->shape;
    if (const QString reason = tensorUnreadableReason(*info); !reason.isEmpty())
        return fail(QStringLiteral("%1: %2").arg(c.file, reason));
    if (info->elementCount() > maxRopeCandidateValues)
        return fail(QStringLiteral("tensor %1 of %2 has %3 values; at most %4 are compared "
                                   "(fewer positions will do)")
                        .arg(c.tensor, path)
                        .arg(info->elementCount())
                        .arg(maxRopeCandidateValues));
    if (!ropeCandidateShape(&c, error))
        return std::nullopt;
    // At the file's own precision: F64 stays F64, F32 / F16 / BF16 are widened exactly.
    if (!tensors.readRows(c.tensor, 0, -1, &c.values.values, error))
        return std::nullopt;
    return c;
}

RopeQuantity guessRopeQuantity(const RopeCandidate &candidate)
{
    const RopeTable &t = candidate.values;
    if (candidate.complexPairs)
        return RopeQuantity::CosSin;
    if (candidate.ggufFrequencyFactors || (t.rows == 1 && t.columns > 1))
        return RopeQuantity::InverseFrequencies;
    if (t.rows == 1 && t.columns == 1)
        return RopeQuantity::AttentionFactor;
    // Position 0 of a table holding cos and sin (vLLM's cos_sin_cache, cat(cos, sin); ggml's
    // cache, (cos, sin) per pair): half its columns are sin 0 = 0, the others cos 0, all equal.
    if (t.rows >= 1 && t.columns >= 2 && t.columns % 2 == 0) {
        qint64 zeros = 0;
        std::optional<double> scale;
        bool equal = true;
        for (qint64 c = 0; c < t.columns; ++c) {
            const double v = t.at(0, c);
            if (std::abs(v) <= 1e-6) {
                ++zeros;
            } else if (!scale) {
                scale = v;
            } else {
                equal = equal && std::abs(v - *scale) <= 1e-3 * std::abs(*scale);
            }
        }
        if (equal && scale && 2 * zeros == t.columns)
            return RopeQuantity::CosSin;
    }
    return RopeQuantity::Cos;
}

QString EngineCheck::verdict() const
{
    // ropeVerifyReport()'s first line: "cos agrees with ..." or "cos differs from ...".
    for (const QString &line : lines)
        if (line.contains(QLatin1String(" agrees with Hugging Face")) ||
            line.contains(QLatin1String(" differs from Hugging Face")))
            return line;
    return {};
}

QString EngineCheck::diagnosis() const
{
    return result.agrees && result.diagnosis.isEmpty()
               ? QString()
               : QStringLiteral("diagnosis: ") + result.diagnosis;
}

std::optional<EngineCheck> runEngineCheck(const EngineCheckRequest &request, QString *error)
{
    // llama.cpp's longrope choice: the long factors where the context exceeds the original one
    // (HF's forward: seq_len > original_max_position_embeddings).
    const bool longContext = request.sequenceLength &&
                             *request.sequenceLength > request.config.originalMaxPositionEmbeddings;
    std::optional<RopeCandidate> candidate = readRopeCandidate(request.against, error, longContext);
    if (!candidate)
        return std::nullopt;
    return checkRopeCandidate(request, std::move(*candidate), error);
}

std::optional<EngineCheck> checkRopeCandidate(const EngineCheckRequest &request,
                                              RopeCandidate candidateValue, QString *error)
{
    const auto fail = [&](const QString &message) -> std::optional<EngineCheck> {
        *error = message;
        return std::nullopt;
    };
    RopeCandidate *candidate = &candidateValue;
    EngineCheck check;
    check.request = request;
    check.candidate = candidate->description();
    check.candidateBrief = candidate->description(true);
    RopeVerifyOptions &options = check.options;
    options = request.options;
    const RopeTable &values = candidate->values;
    if (values.rows < 1 || values.columns < 1 ||
        qint64(values.values.size()) != values.rows * values.columns)
        return fail(QStringLiteral("%1 holds no values to verify (an empty table)")
                        .arg(candidate->description()));
    options.what = request.what ? *request.what : guessRopeQuantity(*candidate);
    options.precision = candidate->dtype;
    options.errorGridRows = request.errorGridRows;
    const QString whatName = nameOf(ropeQuantityNames, options.what);
    if (candidate->complexPairs) {
        if (options.what != RopeQuantity::CosSin)
            return fail(QStringLiteral("%1 holds complex pairs (a trailing dimension of 2): "
                                       "--what must be cos-sin (got %2)")
                            .arg(candidate->description(), whatName));
        if (options.layout == RopeLayout::Auto)
            options.layout = RopeLayout::Complex;
    }
    const bool table = options.what == RopeQuantity::Cos || options.what == RopeQuantity::Sin ||
                       options.what == RopeQuantity::CosSin;
    check.config = request.config;
    check.config.sequenceLength =
        request.sequenceLength.value_or(table ? candidate->values.rows : 0);
    // A GGUF's long factors are llama.cpp's beyond the original context: compared there unless
    // --positions says another length (the short ones: at seq_len None, HF's as loaded).
    const bool longSet = candidate->factorSet == RopeFactorSet::Long;
    if (longSet && !request.sequenceLength)
        check.config.sequenceLength = request.config.originalMaxPositionEmbeddings + 1;
    if (candidate->ggufFrequencyFactors) {
        if (options.what != RopeQuantity::InverseFrequencies)
            return fail(QStringLiteral("--what must be inv-freq for a GGUF file's %1 (got %2)")
                            .arg(candidate->tensor, whatName));
        // llama.cpp's per-pair divisors of the default frequencies, as inv_freq.
        candidate->values.values =
            ropeFrequenciesFromFactors(request.headDim, check.config, candidate->values.values);
    }
    const std::optional<RopeVerifyResult> result =
        ropeVerify(request.headDim, check.config, options, candidate->values, error);
    if (!result)
        return fail(QStringLiteral("%1 (%2)").arg(*error, candidate->description()));
    check.result = *result;
    if (options.what == RopeQuantity::InverseFrequencies) {
        check.candidateFrequencies = candidate->values.values;
        // The figure's grid: the cos / sin error these frequencies cause over the context.
        const std::vector<double> reference =
            ropeInverseFrequencies(request.headDim, check.config).inverseFrequencies;
        const qint64 context =
            check.config.maxPositionEmbeddings > 0
                ? check.config.maxPositionEmbeddings
                : 2 * std::max<qint64>(check.config.originalMaxPositionEmbeddings, 2048);
        if (request.errorGridRows > 0)
            check.result.errors = ropeFrequencyErrorGrid(check.candidateFrequencies, reference,
                                                         std::min<qint64>(context, qint64(1) << 20),
                                                         request.errorGridRows);
    }

    check.lines << QStringLiteral("reference: %1").arg(request.reference)
                << QStringLiteral("checked:   %1, as %2").arg(check.candidate, whatName);
    if (table)
        check.lines << layoutLine(check);
    if (const QString note = pairingNote(check); !note.isEmpty())
        check.lines << note;
    QString origin = request.sequenceLength
                         ? QStringLiteral("--positions")
                         : (table ? QStringLiteral("the table's rows: HF's forward over "
                                                   "positions 0..%1")
                                        .arg(candidate->values.rows - 1)
                                  : QStringLiteral("none given"));
    if (longSet && !request.sequenceLength)
        origin = QStringLiteral("rope_factors_long: llama.cpp's set beyond the original context");
    if (const QString note = ropeSequenceLengthNote(request.headDim, check.config, origin);
        !note.isEmpty())
        check.lines << QStringLiteral("length:    ") + note;
    check.lines << ropeVerifyReport(check.result, options);
    return check;
}

} // namespace pe
