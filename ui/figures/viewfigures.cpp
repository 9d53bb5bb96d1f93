#include "figures/viewfigures.h"

#include "figures/attentionfigures.h"
#include "figures/enginecheckfigure.h"
#include "figures/layerfigures.h"
#include "figures/plottheme.h"
#include "figures/schemefigures.h"
#include "figures/tablefigures.h"

#include "figures/qcpinclude.h"

namespace pe {

namespace {

HeatmapFigure heatmap(const ViewPanel &p)
{
    const EncodingResult &result = *p.data.encoding;
    return p.builder.buildHeatmap(
        p.plot, result,
        sampleGrid(*result.matrix, fullWindow(result.spec, p.state.heatmapDimLimit()), 1, 1));
}

HeatmapFigure waves(const ViewPanel &p)
{
    p.builder.buildWaves(p.plot, *p.data.encoding);
    return {};
}

HeatmapFigure phrases(const ViewPanel &p)
{
    p.builder.buildPhraseGrid(p.plot, *p.data.phrases);
    return {};
}

HeatmapFigure phraseDifference(const ViewPanel &p)
{
    p.builder.buildPhraseDifference(p.plot, *p.data.phrases);
    return {};
}

HeatmapFigure tokenSimilarity(const ViewPanel &p)
{
    p.builder.buildTokenSimilarity(p.plot, *p.data.phrases);
    return {};
}

HeatmapFigure scheme(const ViewPanel &p)
{
    buildSchemeView(p.view, SchemeFigures(p.state, p.theme), p.plot, *p.data.schemes);
    return {};
}

HeatmapFigure table(const ViewPanel &p)
{
    TableFigures figures(p.state, p.theme);
    figures.setLegendPlace(p.options.style.legend);
    buildTableView(p.view, figures, p.plot, *p.data.table);
    return {};
}

HeatmapFigure engineCheck(const ViewPanel &p)
{
    EngineCheckFigure(p.state, p.theme).build(p.plot, *p.data.engineCheck);
    return {};
}

// The chosen phrase of the model's result, clamped to those computed.
int modelPhrase(const ViewPanel &p)
{
    return qBound(0, p.options.choices.modelPhrase, int(p.data.modelPhrases->phrases.size()) - 1);
}

HeatmapFigure modelTokens(const ViewPanel &p)
{
    AttentionFigures(p.state, p.theme).buildTokens(p.plot, *p.data.modelPhrases);
    return {};
}

HeatmapFigure modelEmbeddings(const ViewPanel &p)
{
    AttentionFigures(p.state, p.theme)
        .buildEmbeddings(p.plot, *p.data.modelPhrases, modelPhrase(p));
    return {};
}

HeatmapFigure modelTokenCosine(const ViewPanel &p)
{
    AttentionFigures(p.state, p.theme).buildTokenCosine(p.plot, *p.data.modelPhrases);
    return {};
}

HeatmapFigure modelAttention(const ViewPanel &p)
{
    const int head = p.options.choices.modelHead;
    const bool oneHead = head >= 0 && head < int(p.data.modelPhrases->heads);
    AttentionFigures(p.state, p.theme)
        .buildAttention(p.plot, *p.data.modelPhrases, modelPhrase(p),
                        oneHead ? head : ViewChoices::meanOfHeads);
    return {};
}

HeatmapFigure layerAttention(const ViewPanel &p)
{
    LayerFigures(p.state, p.theme, p.window)
        .buildAttentionGrid(p.plot, *p.data.modelForward, p.options.choices.modelLayer,
                            p.options.choices.modelHead);
    return {};
}

// A layer view drawn by one LayerFigures method.
template <void (LayerFigures::*build)(QCustomPlot *, const ForwardViewResult &) const>
HeatmapFigure layerView(const ViewPanel &p)
{
    (LayerFigures(p.state, p.theme).*build)(p.plot, *p.data.modelForward);
    return {};
}

using V = FigureView;
using S = SchemeFigures;
using T = TableFigures;

// One line a view, in the view list's order.
constexpr ViewFigure figures[] = {
    {V::Heatmap, heatmap},
    {V::Waves, waves},
    {V::Phrases, phrases},
    {V::PhraseDifference, phraseDifference},
    {V::TokenSimilarity, tokenSimilarity},
    {V::Spectrum, scheme, &S::buildSpectrum},
    {V::Rotation, scheme, &S::buildRotation},
    {V::Decay, scheme, &S::buildDecay},
    {V::Similarity, scheme, &S::buildSimilarity},
    {V::Alibi, scheme, &S::buildAlibi},
    {V::T5, scheme, &S::buildT5},
    {V::Compare, scheme, &S::buildCompare},
    {V::Pca, table, nullptr, &T::buildPca},
    {V::TableSimilarity, table, nullptr, &T::buildSimilarity},
    {V::SinusoidFit, table, nullptr, &T::buildSinusoidFit},
    {V::EngineCheck, engineCheck},
    {V::ModelTokens, modelTokens},
    {V::ModelAttention, modelAttention},
    {V::ModelEmbeddings, modelEmbeddings},
    {V::ModelTokenCosine, modelTokenCosine},
    {V::ContextPairs, scheme, &S::buildContextPairs},
    {V::ContextBaseBound, scheme, &S::buildContextBaseBound},
    {V::ContextPrecision, scheme, &S::buildContextPrecision},
    {V::LayerAttention, layerAttention},
    {V::DistanceProfiles, layerView<&LayerFigures::buildDistanceProfiles>},
    {V::FrequencyAtlas, layerView<&LayerFigures::buildFrequencyAtlas>},
    {V::Sinks, layerView<&LayerFigures::buildSinks>},
    {V::HiddenNorms, layerView<&LayerFigures::buildHiddenNorms>},
    {V::PositionProbe, layerView<&LayerFigures::buildPositionProbe>},
};
constexpr bool inOrder()
{
    for (std::size_t i = 0; i < std::size(figures); ++i)
        if (std::size_t(figures[i].view) != i)
            return false;
    return std::size(figures) == figureViewCount;
}
static_assert(inOrder(),
              "viewfigures.cpp: one builder for each view of state/viewlist.h, in order");

} // namespace

const ViewFigure &viewFigure(FigureView view)
{
    return figures[std::size_t(view)];
}

void buildSchemeView(FigureView view, const SchemeFigures &figures, QCustomPlot *plot,
                     const SchemeResult &result)
{
    if (const auto builder = viewFigure(view).scheme)
        (figures.*builder)(plot, result);
}

void buildTableView(FigureView view, const TableFigures &figures, QCustomPlot *plot,
                    const TableResult &result)
{
    if (const auto builder = viewFigure(view).table)
        (figures.*builder)(plot, result);
}

HeatmapFigure buildInWindow(FigureView view, QCustomPlot *plot, const FigureState &state,
                            const FigureData &data, const ViewChoices &choices)
{
    const PlotTheme theme = plotTheme(state.theme());
    FigureBuilder builder(state, theme);
    FigureOptions options;
    options.views = {view};
    // Where a figure of the window puts its legend when nothing asks otherwise (placeLegend).
    options.style.legend = LegendPlace::Below;
    options.choices = choices;
    return viewFigure(view).build({view, plot, builder, state, theme, data, options});
}

} // namespace pe
