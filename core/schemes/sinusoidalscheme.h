// The sinusoidal encoding of "Attention Is All You Need" (every seed): column j, pair i = j/2 (or
// the [sin | cos] halves of tensor2tensor), angle p / base^(2i/d) with d = dims as given.
#pragma once

#include "scheme.h"

namespace pe {

enum class Layout { Interleaved, Split };
inline constexpr ChoiceName layoutNames[] = {
    choice(Layout::Interleaved, "interleaved", "Interleaved (sin, cos, sin, ...)"),
    choice(Layout::Split, "split", "Split ([sin | cos] halves)"),
};

struct SinusoidalScheme
{
    static constexpr SchemeInfo info{"sinusoidal", "Sinusoidal",
                                     "sin/cos of p / base^(2i/d), Vaswani et al. 2017"};
    double base = 10000.0;
    Layout layout = Layout::Interleaved;

    static FieldTable<SinusoidalScheme> fields();
    FieldProblem problem(const MatrixShape &) const { return {}; }
    MatrixPlan plan(const MatrixShape &shape) const;
    ValueRange valueRange(const MatrixShape &) const { return {-1.0, 1.0}; }
    SchemeAxes axes() const
    {
        return {QStringLiteral("position p"), QStringLiteral("dimension i"),
                QStringLiteral("PE(p, i)"), true};
    }
    ColumnInfo column(qint64 column, const MatrixShape &shape) const;
    QString caption(const MatrixShape &shape) const;
    QString legend() const
    {
        return QStringLiteral("sinusoidal %1, base %2")
            .arg(nameOf(layoutNames, layout), formatGrouped(base, 4));
    }
    QString formula(const MatrixShape &shape) const;
    QString cellFormula(qint64 p, qint64 j, double value, const MatrixShape &shape) const;
    std::vector<DataOutput> outputs(const MatrixShape &shape) const;
    bool operator==(const SinusoidalScheme &) const = default;
};

// omega_i = base^(-2i/d) in radians per position, d = dims as given (odd d allowed).
double angularFrequency(double base, qint64 pairIndex, qint64 dims);
// The 64-bit fixed-point step, in turns per position, of any angular frequency omega >= 0:
// 2^64 x frac(omega / 2 pi) (the phase is taken modulo one turn anyway).
std::uint64_t turnsStep(double omega);

} // namespace pe
