#include "analysis/forwardanalysis.h"

#include <algorithm>

namespace pe {

ForwardOptions forwardOptionsFor(LayerAnalysis what, bool withPositions)
{
    ForwardOptions options;
    options.withPositions = withPositions;
    options.logits = false;
    const bool fromAttention = what == LayerAnalysis::Distance ||
                               what == LayerAnalysis::HeadScores || what == LayerAnalysis::Sinks;
    options.attentions = fromAttention;
    options.queriesKeys = what == LayerAnalysis::FrequencyAtlas;
    options.hiddenStates = !fromAttention && !options.queriesKeys;
    return options;
}

std::optional<LayerZeroArray> computeLayerAnalysis(const ForwardPass &pass,
                                                   const ForwardResult &result, LayerAnalysis what,
                                                   const LayerAnalysisOptions &options,
                                                   QString *error)
{
    const auto missing = [&](const char *array) {
        *error = QStringLiteral("the forward pass was run without the %1 that %2 reads")
                     .arg(QLatin1String(array), nameOf(layerAnalysisNames, what));
        return std::nullopt;
    };
    switch (what) {
    case LayerAnalysis::Distance:
    case LayerAnalysis::HeadScores:
    case LayerAnalysis::Sinks:
        if (result.attentions.shape.size() != 4)
            return missing("attentions");
        if (what == LayerAnalysis::Distance)
            return analysis::distanceProfile(result.attentions);
        if (what == LayerAnalysis::Sinks)
            return analysis::sinkRate(analysis::headScores(result.attentions, options.window));
        return analysis::headScores(result.attentions, options.window);
    case LayerAnalysis::FrequencyAtlas:
        if (result.queries.shape.size() != 4)
            return missing("queries and keys");
        if (pass.rotaryDims() <= 0) {
            *error = QStringLiteral("%1 has no rotary positions: the frequency atlas is of RoPE "
                                    "models")
                         .arg(pass.architecture());
            return std::nullopt;
        }
        return analysis::frequencyAtlas(
            result.queries, result.keys,
            analysis::rotaryPairs(pass.rotaryDims(), pass.interleavedRotary()), pass.causal());
    case LayerAnalysis::Norms:
    case LayerAnalysis::TopActivations:
    case LayerAnalysis::Probe:
        if (result.hiddenStates.shape.size() != 3)
            return missing("hidden states");
        if (what == LayerAnalysis::Norms)
            return analysis::hiddenNorms(result.hiddenStates);
        if (what == LayerAnalysis::TopActivations)
            return analysis::topActivations(result.hiddenStates, options.topK);
        if (result.hiddenStates.shape[1] < std::max(options.folds, 2)) {
            *error = QStringLiteral("the probe's %1-fold cross-validation needs at least %1 "
                                    "tokens (the text has %2): give a longer text")
                         .arg(std::max(options.folds, 2))
                         .arg(result.hiddenStates.shape[1]);
            return std::nullopt;
        }
        return analysis::positionProbe(result.hiddenStates, options.ridge, options.folds);
    }
    return std::nullopt;
}

} // namespace pe
