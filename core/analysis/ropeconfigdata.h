// One RoPE configuration as the Schemes page's RoPE views draw it: its inverse frequencies
// without the context-extension rule and with it, longrope's two factor sets, mrope's axis per
// pair and the context the rule scales from. Plain values computed by core/rope's formulas, so
// that the window, `pescope export` and the data writers read the same numbers.
#pragma once

#include "encodingspec.h"
#include "rope/ropetables.h" // MropeAxis

#include <QString>

#include <vector>

namespace pe {

// One RoPE configuration: its label and its inverse frequencies, unscaled and scaled.
struct RopeConfigData
{
    QString label;     // "base 500,000, llama3 s = 8 from 8192"
    EncodingSpec spec; // a RopeScheme
    const RopeScheme &rope() const { return *spec.get<RopeScheme>(); }
    std::vector<double> original; // base^(-2i/r)
    std::vector<double> scaled;   // after the rope_type
    double attentionFactor = 1.0;
    qint64 originalContext = 0; // the context the scaling extends (0: none)
    // longrope: the frequencies with short_factor (HF's seq_len up to the original context) and
    // with long_factor (beyond it); `scaled` is the set the positions select. Empty otherwise.
    std::vector<double> shortScaled, longScaled;
    bool longApplies = false;
    // mrope: the position id (t, h, w) each pair turns with; empty without mrope_section.
    std::vector<MropeAxis> mropeAxes;
};

// The numbers of `ropeSpec`, whose scheme must be RoPE. `original` is the same rotation without
// the context-extension rule (the default type, with proportional's zero tail kept).
RopeConfigData ropeConfigData(const EncodingSpec &ropeSpec);

} // namespace pe
