#include "sinusoidalscheme.h"

#include "encodingspec.h"

#include <cmath>
#include <numbers>

namespace pe {

FieldTable<SinusoidalScheme> SinusoidalScheme::fields()
{
    using S = SinusoidalScheme;
    static const Field<S> table[] = {
        {.key = "base",
         .flag = "base",
         .label = "Base",
         .help = "Wavelengths grow geometrically from 2 pi to 2 pi x base.",
         .kind = RealKind<S>{&S::base, {1.0, limits::maxBase, true}}},
        {.key = "layout",
         .flag = "layout",
         .label = "Layout",
         .help = "Interleaved (sin, cos, sin, ...) as in the paper, or [sin | cos] halves as in "
                 "tensor2tensor.",
         .kind = choiceKind<&S::layout>(layoutNames)},
    };
    return table;
}

double angularFrequency(double base, qint64 pairIndex, qint64 dims)
{
    return std::pow(base, -2.0 * double(pairIndex) / double(dims));
}

std::uint64_t turnsStep(double omega)
{
    // The conversion keeps the 53 significant bits of the double; the phase error this leaves
    // at p = 2^24 is ~1e-9 turns.
    double turns = omega / (2.0 * std::numbers::pi);
    turns -= std::floor(turns);
    return std::uint64_t(std::ldexp(turns, 64));
}

MatrixPlan SinusoidalScheme::plan(const MatrixShape &shape) const
{
    const qint64 d = shape.dims;
    PhaseColumnsPlan plan;
    plan.columns.assign(std::size_t(d), kernels::ColumnPhase{});
    for (qint64 j = 0; j < d; ++j) {
        qint64 pair = 0;
        bool cosine = false;
        if (layout == Layout::Interleaved) {
            pair = j / 2;
            cosine = (j % 2) == 1;
        } else {
            const qint64 half = d / 2;
            if (j >= 2 * half)
                continue; // odd d: the last column stays 0 (step 0, offset 0 -> sin(0))
            pair = j < half ? j : j - half;
            cosine = j >= half;
        }
        plan.columns[std::size_t(j)].step = turnsStep(angularFrequency(base, pair, d));
        plan.columns[std::size_t(j)].offset = cosine ? kernels::quarterTurn : 0;
    }
    return plan;
}

ColumnInfo SinusoidalScheme::column(qint64 column, const MatrixShape &shape) const
{
    const qint64 half = shape.dims / 2;
    if (layout == Layout::Split && column >= 2 * half)
        return {QStringLiteral("i = %1 (zero pad)").arg(column), false};
    const bool cosine = layout == Layout::Interleaved ? column % 2 == 1 : column >= half;
    return {QStringLiteral("i = %1 (%2)")
                .arg(column)
                .arg(cosine ? QStringLiteral("cos") : QStringLiteral("sin")),
            cosine};
}

QString SinusoidalScheme::caption(const MatrixShape &shape) const
{
    return QStringLiteral("sinusoidal (%1), %2 positions × %3 dims, base %4")
        .arg(nameOf(layoutNames, layout))
        .arg(shape.positions)
        .arg(shape.dims)
        .arg(formatReal(base));
}

std::vector<DataOutput> SinusoidalScheme::outputs(const MatrixShape &shape) const
{
    return {matrixOutput(shape, shape.dims)};
}

} // namespace pe
