#include "analysis/ropeconfigdata.h"

#include "rope/ropefrequencies.h"

#include <algorithm>

namespace pe {

RopeConfigData ropeConfigData(const EncodingSpec &ropeSpec)
{
    RopeConfigData data;
    data.spec = ropeSpec;
    data.label = ropeSpec.get<RopeScheme>()->configLabel();
    const RopeScheme &rope = *ropeSpec.get<RopeScheme>();
    const RopeConfig config = rope.config(ropeSpec.shape());
    // The same rotation without the context-extension rule (proportional's zero tail stays).
    RopeConfig plain = config;
    plain.ropeType =
        rope.ropeType == RopeType::Proportional ? RopeType::Proportional : RopeType::Default;
    plain.factor.reset();
    data.original = ropeInverseFrequencies(ropeSpec.dims, plain).inverseFrequencies;
    const RopeFrequencies f = ropeInverseFrequencies(ropeSpec.dims, config);
    data.scaled = f.inverseFrequencies;
    data.attentionFactor = f.attentionFactor;
    if (rope.ropeType == RopeType::Longrope) {
        RopeConfig shortSet = config, longSet = config;
        shortSet.sequenceLength = 0; // seq_len None: short_factor
        longSet.sequenceLength = std::max<qint64>(config.originalMaxPositionEmbeddings + 1, 1);
        data.shortScaled = ropeInverseFrequencies(ropeSpec.dims, shortSet).inverseFrequencies;
        data.longScaled = ropeInverseFrequencies(ropeSpec.dims, longSet).inverseFrequencies;
        data.longApplies = ropeUsesLongFactors(config);
    }
    if (!config.mropeSection.isEmpty() && ropeMropeProblem(ropeSpec.dims, config).isEmpty())
        data.mropeAxes = ropeMropeAxes(ropeSpec.dims, config);
    data.originalContext = ropeScalingContext(rope);
    return data;
}

} // namespace pe
