#include "compute/viewdata.h"

#include "analysis/attentionheads.h"
#include "analysis/phraseanalysis.h"
#include "io/atomicfile.h"
#include "io/matrixwriter.h"

#include <QDir>
#include <QFileInfo>

#include <limits>
#include <numbers>

namespace pe {

namespace {

// Why `view` has no data to export in `data`; empty when it has.
QString missingData(const FigureData &data, FigureView view)
{
    if (!hasViewData(view))
        return noDataExport(view);
    const ViewEntry &entry = viewEntry(view);
    bool held = true;
    const char *what = "";
    switch (entry.job) {
    case ViewJob::Encoding:
        held = data.encoding && data.encoding->matrix, what = "encoding";
        break;
    case ViewJob::Phrases:
        held = bool(data.phrases), what = "phrases";
        break;
    case ViewJob::Table:
        held = bool(data.table), what = "learned table";
        break;
    case ViewJob::ModelPhrases:
        held = bool(data.modelPhrases), what = "model phrases";
        break;
    case ViewJob::ModelForward:
        held = bool(data.modelForward), what = "forward pass";
        break;
    case ViewJob::Schemes:
    case ViewJob::EngineCheck:
        break;
    }
    if (!held)
        return QStringLiteral("the %1 view has no %2 to export")
            .arg(figureViewName(view), QLatin1String(what));
    return {};
}

// The heatmap's window of the matrix, transposed as shown.
void heatmapArray(const FigureState &state, const EncodingResult &encoding, ViewArray *out)
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
void wavesArray(const FigureState &state, const Matrix &m, ViewArray *out)
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

void phrasesArray(const PhraseResult &r, ViewArray *out)
{
    const qint64 n = r.settings.phrases.size();
    out->shape = {2, n, r.settings.sequenceLength, r.settings.dims};
    for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
        const std::vector<float> &v = r.embedding(mode).values;
        out->values.insert(out->values.end(), v.begin(), v.end());
    }
}

bool phraseDifferenceArray(const FigureState &state, const PhraseResult &r, ViewArray *out,
                           QString *error)
{
    if (QString why = viewNeedsProblem({FigureView::PhraseDifference},
                                       {.phrases = r.settings.phrases.size()});
        !why.isEmpty()) {
        *error = why;
        return false;
    }
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

bool tokenSimilarityArray(const FigureState &state, const PhraseResult &r, ViewArray *out,
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

// Each view's data function: its numbers as one array, false with *error.
namespace viewdata {

bool heatmap(const FigureState &state, const FigureData &data, const ViewChoices &, ViewArray *out,
             QString *)
{
    heatmapArray(state, *data.encoding, out);
    return true;
}

bool waves(const FigureState &state, const FigureData &data, const ViewChoices &, ViewArray *out,
           QString *)
{
    wavesArray(state, *data.encoding->matrix, out);
    return true;
}

bool phrases(const FigureState &, const FigureData &data, const ViewChoices &, ViewArray *out,
             QString *)
{
    phrasesArray(*data.phrases, out);
    return true;
}

bool phraseDifference(const FigureState &state, const FigureData &data, const ViewChoices &,
                      ViewArray *out, QString *error)
{
    return phraseDifferenceArray(state, *data.phrases, out, error);
}

bool tokenSimilarity(const FigureState &state, const FigureData &data, const ViewChoices &,
                     ViewArray *out, QString *error)
{
    return tokenSimilarityArray(state, *data.phrases, out, error);
}

bool tableSimilarity(const FigureState &, const FigureData &data, const ViewChoices &,
                     ViewArray *out, QString *)
{
    const SquareMatrix &m = data.table->similarity;
    out->shape = {m.size, m.size};
    out->values = m.values;
    return true;
}

bool pca(const FigureState &, const FigureData &data, const ViewChoices &, ViewArray *out,
         QString *)
{
    const PositionPca &pca = data.table->pca;
    out->shape = {data.table->positions, pca.components};
    out->values.assign(pca.scores.begin(), pca.scores.end());
    return true;
}

bool sinusoidFit(const FigureState &, const FigureData &data, const ViewChoices &, ViewArray *out,
                 QString *)
{
    const std::vector<SinusoidFit> &fits = data.table->fits;
    out->shape = {qint64(fits.size()), 3};
    for (const SinusoidFit &f : fits)
        out->values.insert(out->values.end(),
                           {float(f.angularFrequency), float(f.phase), float(f.rSquared)});
    return true;
}

// The chosen phrase of the model's result; false with *error when there is none.
const ModelPhrase *chosenPhrase(const FigureData &data, const ViewChoices &choices, QString *error)
{
    const std::vector<ModelPhrase> &phrases = data.modelPhrases->phrases;
    if (choices.modelPhrase < 0 || choices.modelPhrase >= int(phrases.size())) {
        *error = QStringLiteral("the model's phrase %1 is not there (%2 phrases computed)")
                     .arg(QChar(u'A' + choices.modelPhrase))
                     .arg(phrases.size());
        return nullptr;
    }
    return &phrases[std::size_t(choices.modelPhrase)];
}

// False with *error when the result has tokens but no arrays (a tokenizer without weights).
bool hasArrays(const FigureData &data, const char *view, QString *error)
{
    *error = data.modelPhrases->arraysProblem(QLatin1String(view));
    return error->isEmpty();
}

// With positions, then without: arrays of one shape stacked on a leading axis of 2.
void stackPositions(const ByPositions<LayerZeroArray> &arrays, ViewArray *out)
{
    const LayerZeroArray &with = arrays[at(Positions::With)];
    out->shape = {2};
    out->shape.insert(out->shape.end(), with.shape.begin(), with.shape.end());
    for (const Positions p : {Positions::With, Positions::Without}) {
        const std::vector<float> &v = arrays[at(p)].values;
        out->values.insert(out->values.end(), v.begin(), v.end());
    }
}

bool modelTokens(const FigureState &, const FigureData &data, const ViewChoices &choices,
                 ViewArray *out, QString *error)
{
    const ModelPhrase *phrase = chosenPhrase(data, choices, error);
    if (!phrase)
        return false;
    out->shape = {qint64(phrase->tokens.ids.size())};
    for (const qint64 id : phrase->tokens.ids)
        out->values.push_back(float(id));
    return true;
}

bool modelEmbeddings(const FigureState &, const FigureData &data, const ViewChoices &choices,
                     ViewArray *out, QString *error)
{
    const ModelPhrase *phrase = chosenPhrase(data, choices, error);
    if (!phrase || !hasArrays(data, "embeddings", error))
        return false;
    stackPositions(phrase->embeddings, out);
    return true;
}

bool modelTokenCosine(const FigureState &, const FigureData &data, const ViewChoices &,
                      ViewArray *out, QString *error)
{
    if (!hasArrays(data, "token-cosine", error))
        return false;
    const ByPositions<ValueGrid> &cosine = data.modelPhrases->tokenCosine;
    if (QString why = viewNeedsProblem(
            {FigureView::ModelTokenCosine},
            {.phrases = qsizetype(data.modelPhrases->phrases.size()), .model = true});
        !why.isEmpty()) {
        *error = why;
        return false;
    }
    out->shape = {2, cosine[0].rows, cosine[0].cols};
    for (const ValueGrid &g : cosine)
        out->values.insert(out->values.end(), g.values.begin(), g.values.end());
    return true;
}

// The attention figure's three panels of `head` (or the mean of the heads): with positions,
// without, with − without, each tokens x tokens (core's headAttention and attentionDifference).
bool attentionPanels(const ModelPhrase &phrase, int head, ViewArray *out, QString *error)
{
    const LayerZeroArray &withArray = phrase.attention[at(Positions::With)];
    const qint64 heads = withArray.shape[0], tokens = withArray.shape[1];
    if (head < meanOfAttentionHeads || head >= heads) {
        *error =
            QStringLiteral("head %1 is not a head of layer 0 (it has %2)").arg(head).arg(heads);
        return false;
    }
    const std::vector<float> with = headAttention(withArray.values, heads, tokens, head);
    const std::vector<float> without =
        headAttention(phrase.attention[at(Positions::Without)].values, heads, tokens, head);
    const std::vector<float> difference = attentionDifference(with, without);
    if (with.empty() || without.empty() || difference.empty()) {
        *error = QStringLiteral("the attention with and without positions differ in shape");
        return false;
    }
    out->shape = {3, tokens, tokens};
    for (const std::vector<float> *panel : {&with, &without, &difference})
        out->values.insert(out->values.end(), panel->begin(), panel->end());
    return true;
}

bool modelAttention(const FigureState &, const FigureData &data, const ViewChoices &choices,
                    ViewArray *out, QString *error)
{
    const ModelPhrase *phrase = chosenPhrase(data, choices, error);
    if (!phrase || !hasArrays(data, "attention", error))
        return false;
    if (choices.attentionPanels)
        return attentionPanels(*phrase, choices.modelHead, out, error);
    stackPositions(phrase->attention, out);
    return true;
}

// The context views' numbers (core's report), or *error when the result holds none.
const ContextFigureNumbers *contextNumbers(const FigureData &data, QString *error)
{
    if (!data.schemes || !data.schemes->context) {
        *error = QStringLiteral("the context views' report was not computed");
        return nullptr;
    }
    return data.schemes->context.get();
}

bool contextPairs(const FigureState &, const FigureData &data, const ViewChoices &, ViewArray *out,
                  QString *error)
{
    const ContextFigureNumbers *numbers = contextNumbers(data, error);
    if (!numbers)
        return false;
    const std::vector<ContextPair> &pairs = numbers->report.pairs;
    constexpr double twoPi = 2.0 * std::numbers::pi;
    out->shape = {qint64(pairs.size()), 5};
    for (const ContextPair &p : pairs) {
        const double unscaled =
            p.unscaled > 0 ? twoPi / p.unscaled : std::numeric_limits<double>::infinity();
        out->values.insert(out->values.end(), {float(p.index), float(unscaled), float(p.wavelength),
                                               float(p.ratio), float(int(p.treatment))});
    }
    return true;
}

bool contextBaseBound(const FigureState &, const FigureData &data, const ViewChoices &,
                      ViewArray *out, QString *error)
{
    const ContextFigureNumbers *numbers = contextNumbers(data, error);
    if (!numbers)
        return false;
    const ContextBoundCurve &curve = numbers->bound;
    out->shape = {qint64(curve.distances.size()), 2};
    for (std::size_t k = 0; k < curve.distances.size(); ++k)
        out->values.insert(out->values.end(), {float(curve.distances[k]), float(curve.values[k])});
    return true;
}

bool contextPrecision(const FigureState &, const FigureData &data, const ViewChoices &,
                      ViewArray *out, QString *error)
{
    const ContextFigureNumbers *numbers = contextNumbers(data, error);
    if (!numbers)
        return false;
    const std::vector<ContextPair> &pairs = numbers->report.pairs;
    out->shape = {qint64(pairs.size()), 4};
    for (std::size_t k = 0; k < pairs.size(); ++k)
        out->values.insert(out->values.end(),
                           {float(pairs[k].index), float(pairs[k].float32ErrorTurns),
                            float(numbers->bfloat16Collisions[k]),
                            float(numbers->float16Collisions[k])});
    return true;
}

// The layer views' arrays: what forwardviewdata.h computed, as it is.
bool copyArray(const LayerZeroArray &array, const QString &problem, ViewArray *out, QString *error)
{
    if (array.values.empty()) {
        *error = problem.isEmpty() ? QStringLiteral("the forward pass gave no numbers") : problem;
        return false;
    }
    out->shape = array.shape;
    out->values = array.values;
    return true;
}

bool layerAttention(const FigureState &, const FigureData &data, const ViewChoices &,
                    ViewArray *out, QString *error)
{
    const ForwardViewResult &r = *data.modelForward;
    if (!r.inputs.ablation.any())
        return copyArray(r.attentions, {}, out, error);
    // With an ablation, as `pescope data --compare`: with, ablated, with - ablated stacked.
    if (r.ablatedAttentions.values.size() != r.attentions.values.size()) {
        *error = r.ablationProblem.isEmpty() ? QStringLiteral("the ablated pass gave no numbers")
                                             : r.ablationProblem;
        return false;
    }
    out->shape = r.attentions.shape;
    out->shape.insert(out->shape.begin(), 3);
    out->values = r.attentions.values;
    out->values.insert(out->values.end(), r.ablatedAttentions.values.begin(),
                       r.ablatedAttentions.values.end());
    for (std::size_t i = 0; i < r.attentions.values.size(); ++i)
        out->values.push_back(r.attentions.values[i] - r.ablatedAttentions.values[i]);
    return true;
}

bool distanceProfiles(const FigureState &, const FigureData &data, const ViewChoices &,
                      ViewArray *out, QString *error)
{
    return copyArray(data.modelForward->distance, {}, out, error);
}

bool frequencyAtlas(const FigureState &, const FigureData &data, const ViewChoices &,
                    ViewArray *out, QString *error)
{
    return copyArray(data.modelForward->atlas, data.modelForward->atlasProblem, out, error);
}

// Column FirstToken of the head scores.
bool sinks(const FigureState &, const FigureData &data, const ViewChoices &, ViewArray *out,
           QString *error)
{
    const LayerZeroArray &scores = data.modelForward->headScores;
    if (scores.shape.size() != 3) {
        *error = QStringLiteral("the forward pass gave no head scores");
        return false;
    }
    out->shape = {scores.shape[0], scores.shape[1]};
    for (qint64 i = 0; i < scores.shape[0] * scores.shape[1]; ++i)
        out->values.push_back(
            scores.values[std::size_t(i * scores.shape[2] + analysis::FirstToken)]);
    return true;
}

bool hiddenNorms(const FigureState &, const FigureData &data, const ViewChoices &, ViewArray *out,
                 QString *error)
{
    return copyArray(data.modelForward->norms, {}, out, error);
}

bool positionProbe(const FigureState &, const FigureData &data, const ViewChoices &, ViewArray *out,
                   QString *error)
{
    return copyArray(data.modelForward->probe, data.modelForward->probeProblem, out, error);
}

} // namespace viewdata

using ViewDataFn = bool (*)(const FigureState &, const FigureData &, const ViewChoices &,
                            ViewArray *, QString *);

struct ViewData
{
    FigureView view;
    ViewDataFn data = nullptr; // none: a figure only
};

using V = FigureView;

// One line a view, in the view list's order (state/viewlist.h), as figures/viewfigures.cpp
// names its builders: the list, below compute, names no function of it (tests/layering.py).
constexpr ViewData dataFunctions[] = {
    {V::Heatmap, viewdata::heatmap},
    {V::Waves, viewdata::waves},
    {V::Phrases, viewdata::phrases},
    {V::PhraseDifference, viewdata::phraseDifference},
    {V::TokenSimilarity, viewdata::tokenSimilarity},
    {V::Spectrum},
    {V::Rotation},
    {V::Decay},
    {V::Similarity},
    {V::Alibi},
    {V::T5},
    {V::Compare},
    {V::Pca, viewdata::pca},
    {V::TableSimilarity, viewdata::tableSimilarity},
    {V::SinusoidFit, viewdata::sinusoidFit},
    {V::EngineCheck},
    {V::ModelTokens, viewdata::modelTokens},
    {V::ModelAttention, viewdata::modelAttention},
    {V::ModelEmbeddings, viewdata::modelEmbeddings},
    {V::ModelTokenCosine, viewdata::modelTokenCosine},
    {V::ContextPairs, viewdata::contextPairs},
    {V::ContextBaseBound, viewdata::contextBaseBound},
    {V::ContextPrecision, viewdata::contextPrecision},
    {V::LayerAttention, viewdata::layerAttention},
    {V::DistanceProfiles, viewdata::distanceProfiles},
    {V::FrequencyAtlas, viewdata::frequencyAtlas},
    {V::Sinks, viewdata::sinks},
    {V::HiddenNorms, viewdata::hiddenNorms},
    {V::PositionProbe, viewdata::positionProbe},
};
constexpr bool inOrder()
{
    for (std::size_t i = 0; i < std::size(dataFunctions); ++i)
        if (std::size_t(dataFunctions[i].view) != i)
            return false;
    return std::size(dataFunctions) == figureViewCount;
}
static_assert(inOrder(), "viewdata.cpp: one line for each view of state/viewlist.h, in order");

ViewDataFn dataFunction(FigureView view)
{
    return dataFunctions[std::size_t(view)].data;
}

} // namespace

bool hasViewData(FigureView view)
{
    return dataFunction(view) != nullptr;
}

QString noDataExport(FigureView view)
{
    if (hasViewData(view))
        return {};
    if (viewEntry(view).job == ViewJob::Schemes)
        return QStringLiteral("the %1 view has no data export; export it as a figure, or use "
                              "`pescope data --scheme rope|alibi|t5`")
            .arg(figureViewName(view));
    return QStringLiteral("the %1 view has no data export").arg(figureViewName(view));
}

QString viewDataDescription(FigureView view)
{
    return QString::fromUtf8(viewEntry(view).dataShape);
}

bool writeViewData(const FigureState &state, const FigureData &data, FigureView view,
                   const QString &path, QString *error, const ViewChoices &choices)
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
    ViewArray array;
    if (const QString missing = missingData(data, view); !missing.isEmpty()) {
        *error = missing;
        return false;
    }
    if (!dataFunction(view)(state, data, choices, &array, error))
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
