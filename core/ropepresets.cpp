#include "ropepresets.h"

namespace pe {

QList<RopePreset> ropePresets()
{
    // All of these rotate with rotate_half, i.e. the half-split pairing, over 128-dim heads.
    RopeParameters plain;
    plain.pairing = RopePairing::Half;

    RopeParameters llama31 = plain; // Llama 3.1 config.json: rope_type "llama3"
    llama31.scaling = RopeScaling::Llama3;
    llama31.factor = 8.0;
    llama31.lowFreqFactor = 1.0;
    llama31.highFreqFactor = 4.0;
    llama31.originalContext = 8192;

    RopeParameters qwenYarn = plain; // Qwen 2.5 model card: {"type": "yarn", "factor": 4.0, ...}
    qwenYarn.scaling = RopeScaling::Yarn;
    qwenYarn.factor = 4.0;
    qwenYarn.originalContext = 32768;

    return {
        {QStringLiteral("llama2"), QStringLiteral("Llama 2 (base 10,000)"), 10000.0, 128, 4096,
         plain},
        {QStringLiteral("llama3"), QStringLiteral("Llama 3 (base 500,000)"), 500000.0, 128, 8192,
         plain},
        {QStringLiteral("llama3.1"),
         QStringLiteral("Llama 3.1 (base 500,000, llama3 scaling s = 8)"), 500000.0, 128, 131072,
         llama31},
        {QStringLiteral("qwen2.5"), QStringLiteral("Qwen 2.5 (base 1,000,000)"), 1000000.0, 128,
         32768, plain},
        {QStringLiteral("qwen2.5-yarn"),
         QStringLiteral("Qwen 2.5 with YaRN (base 1,000,000, s = 4 from 32,768)"), 1000000.0, 128,
         131072, qwenYarn},
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
