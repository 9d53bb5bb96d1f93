#include "rope/ropepresets.h"

namespace pe {

namespace {

// The published configurations the presets and ropeWithNeededValues() share.
RopeConfig llama31Scaling()
{
    RopeConfig c; // Llama 3.1 config.json: rope_type "llama3"
    c.ropeType = RopeType::Llama3;
    c.factor = 8.0;
    c.lowFreqFactor = 1.0;
    c.highFreqFactor = 4.0;
    c.originalMaxPositionEmbeddings = 8192;
    c.maxPositionEmbeddings = 131072;
    return c;
}

RopeConfig qwenYarnScaling()
{
    RopeConfig c; // Qwen 2.5 model card: {"type": "yarn", "factor": 4.0, ...}
    c.ropeType = RopeType::Yarn;
    c.factor = 4.0;
    c.originalMaxPositionEmbeddings = 32768;
    c.maxPositionEmbeddings = 131072;
    return c;
}

} // namespace

RopeConfig ropeWithNeededValues(RopeConfig config)
{
    const auto needFactor = [&](double typical) {
        if (!config.factor)
            config.factor = typical;
    };
    const auto needOriginal = [&](qint64 typical) {
        if (config.originalMaxPositionEmbeddings < 1)
            config.originalMaxPositionEmbeddings = typical;
    };
    // yarn and longrope infer a missing factor as max_position_embeddings / original: kept
    // where the context gives one that extends the original context.
    const auto inferable = [&] {
        return config.maxPositionEmbeddings > 0 &&
               config.maxPositionEmbeddings >= config.originalMaxPositionEmbeddings;
    };
    switch (config.ropeType) {
    case RopeType::Default:
    case RopeType::Proportional: // factor None is 1; rope_theta always has a value
        break;
    case RopeType::Linear:
    case RopeType::Ntk:
        needFactor(2.0);
        break;
    case RopeType::Dynamic:
        needFactor(2.0);
        if (config.maxPositionEmbeddings < 1)
            config.maxPositionEmbeddings = 4096;
        break;
    case RopeType::Llama3: {
        const RopeConfig typical = llama31Scaling();
        needFactor(*typical.factor);
        needOriginal(typical.originalMaxPositionEmbeddings);
        // low_freq_factor and high_freq_factor always hold a number (1 and 4 by default).
        break;
    }
    case RopeType::Yarn: {
        const RopeConfig typical = qwenYarnScaling();
        needOriginal(typical.originalMaxPositionEmbeddings);
        if (!inferable())
            needFactor(*typical.factor);
        break;
    }
    case RopeType::Longrope:
        needOriginal(4096);
        if (config.maxPositionEmbeddings < 1)
            config.maxPositionEmbeddings = 131072;
        if (!inferable())
            needFactor(32.0); // 131,072 / 4,096
        // One value stands for every pair (_compute_longrope_parameters broadcasts it).
        if (config.shortFactor.empty())
            config.shortFactor = {1.0};
        if (config.longFactor.empty())
            config.longFactor = {1.0};
        break;
    }
    return config;
}

QList<RopePreset> ropePresets()
{
    // All of these rotate with rotate_half, i.e. the half-split pairing, over 128-dim heads.
    RopeConfig plain;
    plain.pairing = RopePairing::Half;

    RopeConfig llama31 = llama31Scaling();
    llama31.pairing = RopePairing::Half;
    RopeConfig qwenYarn = qwenYarnScaling();
    qwenYarn.pairing = RopePairing::Half;

    const auto withTheta = [](RopeConfig rope, double theta) {
        rope.ropeTheta = theta;
        return rope;
    };
    return {
        {QStringLiteral("llama2"), QStringLiteral("Llama 2 (base 10,000)"), 128, 4096,
         withTheta(plain, 10000.0)},
        {QStringLiteral("llama3"), QStringLiteral("Llama 3 (base 500,000)"), 128, 8192,
         withTheta(plain, 500000.0)},
        {QStringLiteral("llama3.1"),
         QStringLiteral("Llama 3.1 (base 500,000, llama3 scaling s = 8)"), 128, 131072,
         withTheta(llama31, 500000.0)},
        {QStringLiteral("qwen2.5"), QStringLiteral("Qwen 2.5 (base 1,000,000)"), 128, 32768,
         withTheta(plain, 1000000.0)},
        {QStringLiteral("qwen2.5-yarn"),
         QStringLiteral("Qwen 2.5 with YaRN (base 1,000,000, s = 4 from 32,768)"), 128, 131072,
         withTheta(qwenYarn, 1000000.0)},
    };
}

std::optional<RopePreset> findRopePreset(const QString &id)
{
    for (const RopePreset &preset : ropePresets())
        if (preset.id == id)
            return preset;
    return std::nullopt;
}

} // namespace pe
