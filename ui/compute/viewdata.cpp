#include "compute/viewdata.h"

#include "analysis/phraseanalysis.h"
#include "io/atomicfile.h"
#include "io/matrixwriter.h"

#include <QDir>
#include <QFileInfo>

namespace pe {

namespace {

struct Array
{
    std::vector<qint64> shape;
    std::vector<float> values;
};

// Why `view` has no data to export in `data`; empty when it has.
QString missingData(const FigureData &data, FigureView view)
{
    if (viewNeedsEncoding(view) && (!data.encoding || !data.encoding->matrix))
        return QStringLiteral("the %1 view has no encoding to export").arg(figureViewName(view));
    if (viewNeedsPhrases(view) && !data.phrases)
        return QStringLiteral("the %1 view has no phrases to export").arg(figureViewName(view));
    if (viewNeedsSchemes(view))
        return QStringLiteral("the %1 view has no data export; export it as a figure, or use "
                              "`pescope data --scheme rope|alibi|t5`")
            .arg(figureViewName(view));
    if (viewNeedsTable(view) && !data.table)
        return QStringLiteral("the %1 view has no learned table to export")
            .arg(figureViewName(view));
    return {};
}

// The learned table's similarity, PCA scores or sinusoid fits (frequency, phase, R²).
bool tableArray(const TableResult &table, FigureView view, Array *out)
{
    switch (view) {
    case FigureView::TableSimilarity: {
        const SquareMatrix &m = table.similarity;
        out->shape = {m.size, m.size};
        out->values = m.values;
        return true;
    }
    case FigureView::Pca: {
        const PositionPca &pca = table.pca;
        out->shape = {table.positions, pca.components};
        out->values.assign(pca.scores.begin(), pca.scores.end());
        return true;
    }
    case FigureView::SinusoidFit: {
        const std::vector<SinusoidFit> &fits = table.fits;
        out->shape = {qint64(fits.size()), 3};
        for (const SinusoidFit &f : fits)
            out->values.insert(out->values.end(),
                               {float(f.angularFrequency), float(f.phase), float(f.rSquared)});
        return true;
    }
    default:
        return false;
    }
}

// The heatmap's window of the matrix, transposed as shown.
void heatmapArray(const ExplorerState &state, const EncodingResult &encoding, Array *out)
{
    const Matrix &m = *encoding.matrix;
    const CellWindow w = fullWindow(encoding.spec, state.heatmapDimLimit());
    const bool t = state.transposed();
    out->shape =
        t ? std::vector<qint64>{w.cols(), w.rows()} : std::vector<qint64>{w.rows(), w.cols()};
    out->values.reserve(std::size_t(w.rows() * w.cols()));
    if (t) {
        for (qint64 c = w.col0; c < w.col1; ++c)
            for (qint64 r = w.row0; r < w.row1; ++r)
                out->values.push_back(m.at(r, c));
    } else {
        for (qint64 r = w.row0; r < w.row1; ++r)
            for (qint64 c = w.col0; c < w.col1; ++c)
                out->values.push_back(m.at(r, c));
    }
}

// Column 0 the position, then one column per plotted dim.
void wavesArray(const ExplorerState &state, const Matrix &m, Array *out)
{
    const QList<qint64> dims = state.plottedDims();
    const qint64 cols = 1 + dims.size();
    out->shape = {m.rows, cols};
    out->values.reserve(std::size_t(m.rows * cols));
    for (qint64 p = 0; p < m.rows; ++p) {
        out->values.push_back(float(p));
        for (qint64 d : dims)
            out->values.push_back(d < m.cols ? m.at(p, d) : 0.0f);
    }
}

void phrasesArray(const PhraseResult &r, Array *out)
{
    const qint64 n = r.settings.phrases.size();
    out->shape = {2, n, r.settings.sequenceLength, r.settings.dims};
    for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
        const std::vector<float> &v = r.embedding(mode).values;
        out->values.insert(out->values.end(), v.begin(), v.end());
    }
}

bool phraseDifferenceArray(const ExplorerState &state, const PhraseResult &r, Array *out,
                           QString *error)
{
    const int a = state.compareA(), b = state.compareB();
    if (a < 0 || b < 0 || a >= r.settings.phrases.size() || b >= r.settings.phrases.size()) {
        *error = QStringLiteral("the phrase-difference view needs two phrases to compare");
        return false;
    }
    out->shape = {2, r.settings.sequenceLength, r.settings.dims};
    for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
        const std::vector<float> d = phraseDifference(r.embedding(mode), a, b).values;
        out->values.insert(out->values.end(), d.begin(), d.end());
    }
    return true;
}

bool tokenSimilarityArray(const ExplorerState &state, const PhraseResult &r, Array *out,
                          QString *error)
{
    const PhraseSelection sel = state.phraseSelection();
    if (sel.phrase < 0 || sel.phrase >= r.settings.phrases.size()) {
        *error = QStringLiteral("the token-similarity view needs a selected token");
        return false;
    }
    const int other = sel.phrase == state.compareB() ? state.compareA() : state.compareB();
    const qint64 length = r.settings.sequenceLength;
    out->shape = {2, length};
    for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
        const std::vector<double> cosines =
            tokenSimilarity(r.embedding(mode), sel.phrase, sel.token, other);
        if (qint64(cosines.size()) != length) {
            *error = QStringLiteral("the token-similarity view needs a selected token");
            return false;
        }
        for (double cosine : cosines)
            out->values.push_back(float(cosine));
    }
    return true;
}

bool collect(const ExplorerState &state, const FigureData &data, FigureView view, Array *out,
             QString *error)
{
    if (const QString missing = missingData(data, view); !missing.isEmpty()) {
        *error = missing;
        return false;
    }
    switch (view) {
    case FigureView::TableSimilarity:
    case FigureView::Pca:
    case FigureView::SinusoidFit:
        return tableArray(*data.table, view, out);
    case FigureView::Heatmap:
        heatmapArray(state, *data.encoding, out);
        return true;
    case FigureView::Waves:
        wavesArray(state, *data.encoding->matrix, out);
        return true;
    case FigureView::Phrases:
        phrasesArray(*data.phrases, out);
        return true;
    case FigureView::PhraseDifference:
        return phraseDifferenceArray(state, *data.phrases, out, error);
    case FigureView::TokenSimilarity:
        return tokenSimilarityArray(state, *data.phrases, out, error);
    default:
        return false;
    }
}

} // namespace

QString viewDataDescription(const ExplorerState &state, FigureView view)
{
    switch (view) {
    case FigureView::Heatmap:
        return state.transposed() ? QStringLiteral("dims x positions float32, as shown")
                                  : QStringLiteral("positions x dims float32, as shown");
    case FigureView::Waves:
        return QStringLiteral("positions x (1 + plotted dims) float32; column 0 is p");
    case FigureView::Phrases:
        return QStringLiteral("2 x phrases x sequence length x dims float32 (random, fixed)");
    case FigureView::PhraseDifference:
        return QStringLiteral("2 x sequence length x dims float32: B - A (random, fixed)");
    case FigureView::TokenSimilarity:
        return QStringLiteral("2 x sequence length float32 cosines (random, fixed)");
    case FigureView::TableSimilarity:
        return QStringLiteral("positions x positions float32 cosines of the table's rows");
    case FigureView::Pca:
        return QStringLiteral("positions x components float32 principal component scores");
    case FigureView::SinusoidFit:
        return QStringLiteral("dims x 3 float32: angular frequency, phase, R^2 of each dim's fit");
    default:
        break;
    }
    return {};
}

bool writeViewData(const ExplorerState &state, const FigureData &data, FigureView view,
                   const QString &path, QString *error)
{
    const std::optional<MatrixFormat> format = matrixFormatForPath(path);
    if (!format) {
        *error = QStringLiteral("cannot tell the data format of \"%1\": the name must end in .npy "
                                "or .csv")
                     .arg(path);
        return false;
    }
    if (const QString problem = outputPathProblem(path); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    Array array;
    if (!collect(state, data, view, &array, error))
        return false;
    MatrixWriter writer(path, *format, array.shape);
    if (!writer.open(error) ||
        !writer.write(array.values.data(), qint64(array.values.size()), error) ||
        !writer.commit(error)) {
        writer.cancel();
        return false;
    }
    return true;
}

} // namespace pe
