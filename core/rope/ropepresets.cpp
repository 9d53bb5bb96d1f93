#include "rope/ropepresets.h"

namespace pe {

QList<RopePreset> ropePresets()
{
    // All of these rotate with rotate_half, i.e. the half-split pairing, over 128-dim heads.
    RopeConfig plain;
    plain.pairing = RopePairing::Half;

    RopeConfig llama31 = plain; // Llama 3.1 config.json: rope_type "llama3"
    llama31.ropeType = RopeType::Llama3;
    llama31.factor = 8.0;
    llama31.lowFreqFactor = 1.0;
    llama31.highFreqFactor = 4.0;
    llama31.originalMaxPositionEmbeddings = 8192;
    llama31.maxPositionEmbeddings = 131072;

    RopeConfig qwenYarn = plain; // Qwen 2.5 model card: {"type": "yarn", "factor": 4.0, ...}
    qwenYarn.ropeType = RopeType::Yarn;
    qwenYarn.factor = 4.0;
    qwenYarn.originalMaxPositionEmbeddings = 32768;
    qwenYarn.maxPositionEmbeddings = 131072;

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
