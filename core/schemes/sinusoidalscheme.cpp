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

QString SinusoidalScheme::formula(const MatrixShape &shape) const
{
    const qint64 dims = shape.dims;
    const QString b = formulaParameter(base);
    const QString angle = QStringLiteral("<i>p</i> / %1<sup>2<i>i</i>/%2</sup>").arg(b).arg(dims);
    if (layout == Layout::Interleaved)
        return QStringLiteral("PE(<i>p</i>, 2<i>i</i>) = sin(%1), PE(<i>p</i>, 2<i>i</i> + 1) = "
                              "cos(%1)<br>(Vaswani et al.; base %2, <i>d</i> = %3)")
            .arg(angle, b)
            .arg(dims);
    return QStringLiteral("PE(<i>p</i>, <i>i</i>) = sin(%1), PE(<i>p</i>, %2 + <i>i</i>) = "
                          "cos(%1) for <i>i</i> &lt; %2 (the split layout: all sines, then all "
                          "cosines; base %3)")
        .arg(angle)
        .arg(dims / 2)
        .arg(b);
}

QString SinusoidalScheme::cellFormula(qint64 p, qint64 j, double value,
                                      const MatrixShape &shape) const
{
    const qint64 d = shape.dims;
    const qint64 half = d / 2;
    const bool interleaved = layout == Layout::Interleaved;
    if (!interleaved && j >= 2 * half)
        return QStringLiteral("PE(%1, %2) = 0: the padding column of an odd d").arg(p).arg(j);
    const qint64 pair = interleaved ? j / 2 : (j < half ? j : j - half);
    const bool cosine = interleaved ? j % 2 == 1 : j >= half;
    // The plan's own fixed-point step, so the text shows what the backends computed with.
    const MatrixPlan phases = plan(shape);
    const auto &columns = std::get<PhaseColumnsPlan>(phases).columns;
    const double omega =
        j >= 0 && j < qint64(columns.size())
            ? 2.0 * std::numbers::pi * std::ldexp(double(columns[std::size_t(j)].step), -64)
            : 0.0;
    return QStringLiteral("PE(%1, %2) = %3(%1 / %4^(%5/%6)) = %3(%1 × %7) = %8")
        .arg(p)
        .arg(j)
        .arg(cosine ? QStringLiteral("cos") : QStringLiteral("sin"), formulaParameter(base))
        .arg(2 * pair)
        .arg(d)
        .arg(formulaValue(omega), formulaValue(value));
}

std::vector<DataOutput> SinusoidalScheme::outputs(const MatrixShape &shape) const
{
    return {matrixOutput(shape, shape.dims)};
}

} // namespace pe
