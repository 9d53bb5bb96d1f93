#include "tablescheme.h"

#include "analysis/positionanalysis.h"
#include "encodingspec.h"

#include <algorithm>
#include <optional>

namespace pe {

FieldTable<TableScheme> TableScheme::fields()
{
    using S = TableScheme;
    // No command-line flags: `--model`, `--tensor` and `--table-offset` choose a model (and with
    // it the scheme) for every command that takes a spec.
    static const Field<S> table[] = {
        {.key = "source",
         .label = "Model",
         .help = "A model folder, a .safetensors, .gguf or .npy file, or a Hugging Face cache "
                 "repo id (gpt2, openai-community/gpt2).",
         .kind = TextKind<S>{&S::source, 4096}},
        {.key = "tensor",
         .label = "Tensor",
         .help = "The tensor to show; empty: the model's learned position table.",
         .kind = TextKind<S>{&S::tensor, 1024}},
        {.key = "offset",
         .label = "Offset",
         .help = "Table rows before position 0 (RoBERTa, OPT: 2); -1: as config.json says.",
         .kind = IntegerKind<S>{&S::offset, {-1, limits::maxPositions}}},
    };
    return table;
}

bool TableScheme::resolve(QString *error)
{
    if (table && table->source == source && (tensor.isEmpty() || table->tensor == tensor) &&
        (offset < 0 || table->offset == offset))
        return true;
    if (source.isEmpty()) {
        *error = QStringLiteral("no model is named: open a model, or give --model");
        return false;
    }
    table = loadPositionTable(source, tensor, offset, error);
    return table != nullptr;
}

void TableScheme::normalizeShape(MatrixShape *shape) const
{
    if (table)
        shape->dims = table->columns;
}

FieldProblem TableScheme::problem(const MatrixShape &shape) const
{
    // Parameters edited after the table was read (a form's Model field) name other data: they
    // take effect when the model is opened again, which reads the file.
    const bool stale =
        table && (table->source != source || (!tensor.isEmpty() && table->tensor != tensor) ||
                  (offset >= 0 && table->offset != offset));
    if (!table || stale)
        return {QStringLiteral("source"),
                source.isEmpty() ? QStringLiteral("names no model")
                                 : QStringLiteral("%1 is not loaded: open it with File > Open "
                                                  "model (or --model)")
                                       .arg(source)};
    if (shape.dims != table->columns)
        return {QStringLiteral("dims"), QStringLiteral("must be the table's %1 columns (got %2)")
                                            .arg(table->columns)
                                            .arg(shape.dims)};
    if (shape.positions > table->positions())
        return {QStringLiteral("positions"),
                QStringLiteral("must be at most the table's %1 positions (got %2)")
                    .arg(table->positions())
                    .arg(shape.positions)};
    return {};
}

MatrixPlan TableScheme::plan(const MatrixShape &shape) const
{
    if (!table) // problem() refuses this spec; zeros rather than a null table if asked anyway
        return PhaseColumnsPlan{std::vector<kernels::ColumnPhase>(std::size_t(shape.dims))};
    return RowsPlan{shape.dims, [t = table](qint64 first, qint64 count, float *out) {
                        std::copy(t->row(first), t->row(first + count), out);
                    }};
}

ValueRange TableScheme::valueRange(const MatrixShape &) const
{
    return table ? ValueRange{table->minimum, table->maximum} : ValueRange{};
}

QString TableScheme::legend() const
{
    return table ? QStringLiteral("%1 of %2").arg(table->tensor, source) : source;
}

QString TableScheme::caption(const MatrixShape &shape) const
{
    QString text = QStringLiteral("%1, %2 positions × %3 dims")
                       .arg(legend())
                       .arg(shape.positions)
                       .arg(shape.dims);
    if (table && table->offset > 0)
        text += QStringLiteral(", from row %1").arg(table->offset);
    return text;
}

std::vector<DataOutput> TableScheme::outputs(const MatrixShape &shape) const
{
    std::vector<DataOutput> outputs{matrixOutput(shape, shape.dims)};
    outputs.front().help = QStringLiteral("the table's positions x dims, from its offset row");
    if (!table)
        return outputs;
    const auto t = table;
    DataOutput stored;
    stored.name = QStringLiteral("positions");
    stored.help = QStringLiteral("the learned table's positions as stored, from its offset row "
                                 "(OPT's and RoBERTa's first rows are no positions), float32");
    stored.shape = {t->positions(), t->columns};
    stored.usesPositions = false;
    stored.rows = [t](qint64 first, qint64 count, void *out) {
        std::copy(t->row(first), t->row(first + count), static_cast<float *>(out));
    };
    outputs.push_back(stored);
    const qint64 n = shape.positions;
    DataOutput similarity;
    similarity.name = QStringLiteral("similarity");
    similarity.help = QStringLiteral("cosine similarity of every pair of positions, float32");
    similarity.shape = {n, n};
    similarity.rows = [t, n](qint64 first, qint64 count, void *out) {
        positionCosineRows(t->row(0), n, t->columns, first, count, static_cast<float *>(out));
    };
    outputs.push_back(similarity);
    DataOutput pca;
    pca.name = QStringLiteral("pca");
    pca.help = QStringLiteral("each position's first three principal components, float64");
    pca.type = ElementType::Float64;
    const qint64 k = std::min<qint64>({3, n, shape.dims});
    pca.shape = {n, k};
    // Computed on the first chunk, once (outputs() itself computes nothing).
    pca.rows = [t, n, k, result = std::make_shared<std::optional<PositionPca>>()](
                   qint64 first, qint64 count, void *out) {
        if (!*result)
            *result = positionPca(t->row(0), n, t->columns, int(k));
        const std::vector<double> &scores = (*result)->scores;
        std::copy(scores.begin() + first * k, scores.begin() + (first + count) * k,
                  static_cast<double *>(out));
    };
    outputs.push_back(pca);
    DataOutput fit;
    fit.name = QStringLiteral("sinusoid-fit");
    fit.help = QStringLiteral("per dim the best-fitting sinusoid: angular frequency, phase, "
                              "R^2 (float64)");
    fit.type = ElementType::Float64;
    fit.shape = {shape.dims, 3};
    fit.rows = [t, n](qint64 first, qint64 count, void *out) {
        auto *values = static_cast<double *>(out);
        for (qint64 j = first; j < first + count; ++j) {
            const SinusoidFit f = fitSinusoid(t->row(0) + j, n, t->columns);
            *values++ = f.angularFrequency;
            *values++ = f.phase;
            *values++ = f.rSquared;
        }
    };
    outputs.push_back(fit);
    return outputs;
}

} // namespace pe
