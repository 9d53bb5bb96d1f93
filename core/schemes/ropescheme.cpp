#include "ropescheme.h"

#include "encodingspec.h"
#include "rope/ropefields.h"
#include "rope/ropepresets.h"
#include "rope/roperules.h"
#include "rope/ropetables.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pe {

FieldTable<RopeScheme> RopeScheme::fields()
{
    return ropeFieldTable<RopeScheme>();
}

RopeConfig RopeScheme::config(const MatrixShape &shape) const
{
    RopeConfig c = *this;
    c.sequenceLength = lengthAsLoaded ? 0 : shape.positions;
    return c;
}

void RopeScheme::fillNeeded()
{
    static_cast<RopeConfig &>(*this) = ropeWithNeededValues(*this);
}

FieldProblem RopeScheme::problem(const MatrixShape &shape) const
{
    if (shape.dims % 2 != 0)
        return {QStringLiteral("dims"),
                QStringLiteral("must be even for rope: each rotation turns a pair of columns "
                               "(got %1)")
                    .arg(shape.dims)};
    if (const QString problem = ropeConfigProblem(shape.dims, config(shape)); !problem.isEmpty())
        return {QString(), problem};
    return {};
}

MatrixPlan RopeScheme::plan(const MatrixShape &shape) const
{
    return PhaseColumnsPlan{ropeColumnPhases(shape.dims, config(shape))};
}

QString RopeScheme::configLabel() const
{
    QString label = QStringLiteral("base %1").arg(formatGrouped(ropeTheta));
    const QString type = ropeTypeName(ropeType);
    const std::optional<double> s = ropeEffectiveFactor(*this);
    const QString factorText = s ? formatGrouped(*s) : QStringLiteral("?");
    // llama.cpp's rope_freqs.weight (llama3's rule as per-pair divisors, formats/ggufconfig.cpp)
    // arrives as longrope with short_factor = long_factor: longrope's "s = 1" would say nothing
    // true about it; the divisors' range does (the file keeps no factor or frequency bounds).
    if (ropeType == RopeType::Longrope && !shortFactor.empty() && shortFactor == longFactor) {
        const auto [low, high] = std::minmax_element(shortFactor.begin(), shortFactor.end());
        label += QStringLiteral(", llama3 divisors %1 to %2 (rope_freqs)")
                     .arg(formatGrouped(*low), formatGrouped(*high));
    } else if (const qint64 context = ropeScalingContext(*this); context > 0)
        label += QStringLiteral(", %1 s = %2 from %3")
                     .arg(type, factorText, formatGrouped(double(context)));
    else if (ropeType != RopeType::Default)
        label += QStringLiteral(", %1 s = %2").arg(type, factorText);
    if (partialRotaryFactor != 1.0)
        label += QStringLiteral(", partial %1").arg(partialRotaryFactor);
    return label;
}

QString RopeScheme::caption(const MatrixShape &shape) const
{
    return QStringLiteral("rope (%1 pairs, scaling %2), %3 positions × %4 dims, base %5")
        .arg(nameOf(ropePairingNames, pairing), ropeTypeName(ropeType))
        .arg(shape.positions)
        .arg(shape.dims)
        .arg(formatReal(ropeTheta));
}

QString RopeScheme::formula(const MatrixShape &shape) const
{
    const RopeConfig c = config(shape);
    const qint64 rotary = ropeTableColumns(shape.dims, c);
    const QString pairs = pairing == RopePairing::Interleaved
                              ? QStringLiteral("(2<i>i</i>, 2<i>i</i> + 1)")
                              : QStringLiteral("(<i>i</i>, <i>i</i> + %1)").arg(rotary / 2);
    return QStringLiteral("Pair <i>i</i> of columns %1 turns by <i>p</i>·θ<sub><i>i</i></sub>: "
                          "cos(<i>p</i>·θ<sub><i>i</i></sub>) in its first column, "
                          "sin(<i>p</i>·θ<sub><i>i</i></sub>) in its second (Su et al., "
                          "RoFormer).<br>%2")
        .arg(pairs, ropeScalingRule(c, rotary));
}

QString RopeScheme::cellFormula(qint64 p, qint64 j, double value, const MatrixShape &shape) const
{
    const RopeConfig c = config(shape);
    const std::vector<double> theta = ropeInverseFrequencies(shape.dims, c).inverseFrequencies;
    const qint64 count = qint64(theta.size());
    if (j >= 2 * count)
        return QStringLiteral("RoPE(%1, %2) = %3: a column that does not rotate (partial rotary "
                              "factor %4)")
            .arg(p)
            .arg(j)
            .arg(formulaValue(value))
            .arg(partialRotaryFactor);
    const RopeColumn column = ropeTableColumn(RopeTableKind::CosSin, pairing, count, j);
    const QString type = c.ropeType == RopeType::Default
                             ? QString()
                             : QStringLiteral(", %1 scaling").arg(ropeTypeName(c.ropeType));
    return QStringLiteral("RoPE(%1, %2) = %3(%1·θ_%4) with θ_%4 = %5 (base %6%7) = %8")
        .arg(p)
        .arg(j)
        .arg(column.cosine ? QStringLiteral("cos") : QStringLiteral("sin"))
        .arg(column.pair)
        .arg(formulaValue(theta[std::size_t(column.pair)]), formulaParameter(ropeTheta), type,
             formulaValue(value));
}

std::vector<DataOutput> RopeScheme::outputs(const MatrixShape &shape) const
{
    DataOutput table = matrixOutput(shape, shape.dims);
    table.help = QStringLiteral("the positions x dims cos/sin table, float32 (not multiplied by "
                                "the attention factor)");
    const RopeFrequencies frequencies = ropeInverseFrequencies(shape.dims, config(shape));
    // HF's seq_len, here --positions.
    const bool readsLength = ropeReadsSequenceLength(ropeType);
    DataOutput inverse;
    inverse.name = QStringLiteral("inv-freq");
    inverse.help = QStringLiteral("the float64 inverse frequencies theta_i after the rope type");
    inverse.type = ElementType::Float64;
    inverse.shape = {qint64(frequencies.inverseFrequencies.size())};
    inverse.usesPositions = readsLength;
    inverse.rows = [theta = frequencies.inverseFrequencies](qint64, qint64, void *out) {
        std::copy(theta.begin(), theta.end(), static_cast<double *>(out));
    };
    DataOutput attention;
    attention.name = QStringLiteral("attention-factor");
    attention.help = QStringLiteral("HF's attention_scaling: cos and sin are multiplied by it");
    attention.type = ElementType::Float64;
    attention.shape = {1};
    attention.usesPositions = readsLength;
    attention.rows = [factor = frequencies.attentionFactor](qint64, qint64, void *out) {
        *static_cast<double *>(out) = factor;
    };
    // HF's forward outputs, in its layout (cat(freqs, freqs)), float64: the golden tables an
    // implementation is checked against (`pescope verify`). Unscaled; `data --scaled-table`
    // multiplies them by the attention factor, as HF's forward does.
    const auto hfTable = [&](RopeTableKind kind) {
        DataOutput out;
        out.name = nameOf(ropeTableKindNames, kind);
        out.help = QStringLiteral("HF's %1 table, positions x rotated dims, float64").arg(out.name);
        out.type = ElementType::Float64;
        out.shape = {shape.positions, ropeTableColumns(shape.dims, config(shape))};
        out.rows = [kind, dims = shape.dims, cfg = config(shape)](qint64 first, qint64 count,
                                                                  void *values) {
            std::vector<qint64> ids(static_cast<std::size_t>(count));
            std::iota(ids.begin(), ids.end(), first);
            const RopeTable rows = ropeTableRows(dims, cfg, kind, ids, false);
            std::copy(rows.values.begin(), rows.values.end(), static_cast<double *>(values));
        };
        return out;
    };
    return {table, inverse, attention, hfTable(RopeTableKind::Cos), hfTable(RopeTableKind::Sin)};
}

} // namespace pe
