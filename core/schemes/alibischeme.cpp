#include "alibischeme.h"

#include "schemes/alibi.h"

#include <cmath>
#include <cstdlib>

namespace pe {

FieldTable<AlibiScheme> AlibiScheme::fields()
{
    using S = AlibiScheme;
    static const Field<S> table[] = {
        {.key = "heads",
         .flag = "heads",
         .label = "Heads",
         .help = "Attention heads; their slopes are 2^(-8h/n).",
         .kind = IntegerKind<S>{&S::heads, {1, limits::maxHeads}}},
        {.key = "head",
         .flag = "head",
         .label = "Head",
         .help = "The head whose bias the views show, counted from 0.",
         .kind = IntegerKind<S>{&S::head, {0, limits::maxHeads - 1}}},
        {.key = "causal",
         .flag = "causal",
         .label = "Causal",
         .help = "A decoder's view: keys after the query are masked with -inf.",
         .kind = BoolKind<S>{&S::causal}},
    };
    return table;
}

FieldProblem AlibiScheme::problem(const MatrixShape &) const
{
    if (head >= heads)
        return {QStringLiteral("head"),
                QStringLiteral("must be below the %1 heads (got %2)").arg(heads).arg(head)};
    return {};
}

double AlibiScheme::slope() const
{
    return alibiSlopes(heads)[std::size_t(head)];
}

MatrixPlan AlibiScheme::plan(const MatrixShape &shape) const
{
    const qint64 n = shape.positions;
    return RowsPlan{n, [n, m = slope(), causal = causal](qint64 first, qint64 count, float *out) {
                        alibiBiasRows(m, n, first, count, causal, out);
                    }};
}

ValueRange AlibiScheme::valueRange(const MatrixShape &shape) const
{
    return {-slope() * double(shape.positions - 1), 0.0};
}

QString AlibiScheme::caption(const MatrixShape &shape) const
{
    return QStringLiteral("ALiBi head %1 of %2 (slope %3)%4, %5 x %5 positions")
        .arg(head)
        .arg(heads)
        .arg(formatReal(slope()))
        .arg(causal ? QStringLiteral(", causal") : QString())
        .arg(shape.positions);
}

std::vector<DataOutput> AlibiScheme::outputs(const MatrixShape &shape) const
{
    const qint64 n = shape.positions;
    const std::vector<double> slopes = alibiSlopes(heads);
    DataOutput biases;
    biases.name = QStringLiteral("matrix");
    biases.help = QStringLiteral("heads x positions x positions float32 biases, every head");
    biases.shape = {heads, n, n};
    biases.rows = [n, slopes, causal = causal](qint64 first, qint64 count, void *out) {
        // Rows of the flattened heads x n array: row r is query r % n of head r / n.
        auto *values = static_cast<float *>(out);
        for (qint64 r = first; r < first + count;) {
            const qint64 h = r / n, i = r % n;
            const qint64 run = std::min(first + count - r, n - i);
            alibiBiasRows(slopes[std::size_t(h)], n, i, run, causal, values);
            values += run * n;
            r += run;
        }
    };
    DataOutput slopeOutput;
    slopeOutput.name = QStringLiteral("slopes");
    slopeOutput.help = QStringLiteral("the float64 slope of every head");
    slopeOutput.type = ElementType::Float64;
    slopeOutput.shape = {heads};
    slopeOutput.usesPositions = false;
    slopeOutput.rows = [slopes](qint64, qint64, void *out) {
        std::copy(slopes.begin(), slopes.end(), static_cast<double *>(out));
    };
    return {biases, slopeOutput};
}

QString AlibiScheme::formula(const MatrixShape &) const
{
    return QStringLiteral("bias(<i>i</i>, <i>j</i>) = −<i>m</i>·|<i>i</i> − <i>j</i>| for query "
                          "<i>i</i> and key <i>j</i>; head %1 of %2 has slope <i>m</i> = %3 "
                          "(2<sup>−8(<i>h</i>+1)/<i>n</i></sup> for <i>n</i> a power of two; Press "
                          "et al.)%4")
        .arg(head)
        .arg(heads)
        .arg(formulaValue(slope()),
             causal ? QStringLiteral("; causal: −∞ for keys after the query") : QString());
}

QString AlibiScheme::cellFormula(qint64 p, qint64 j, double value, const MatrixShape &) const
{
    if (std::isinf(value))
        return QStringLiteral("bias(%1, %2) = −∞: key %2 comes after query %1 (causal mask)")
            .arg(p)
            .arg(j);
    return QStringLiteral("bias(%1, %2) = −m·|%1 − %2| = −%3 × %4 = %5")
        .arg(p)
        .arg(j)
        .arg(formulaValue(slope()))
        .arg(std::abs(p - j))
        .arg(formulaValue(value));
}

} // namespace pe
