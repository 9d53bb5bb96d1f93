// Compares someone's RoPE numbers (inv_freq, attention factor, cos / sin tables) against the
// Hugging Face reference and, when they differ, names the known implementation mistake the
// difference matches: each hypothesis is recomputed and checked against the candidate.
#pragma once

#include "ropetables.h"

namespace pe {

enum class RopeQuantity { InverseFrequencies, AttentionFactor, Cos, Sin, CosSin };

inline constexpr ChoiceName ropeQuantityNames[] = {
    choice(RopeQuantity::InverseFrequencies, "inv-freq", "inverse frequencies"),
    choice(RopeQuantity::AttentionFactor, "attention-factor", "attention factor"),
    choice(RopeQuantity::Cos, "cos", "cos table"),
    choice(RopeQuantity::Sin, "sin", "sin table"),
    choice(RopeQuantity::CosSin, "cos-sin", "cos-sin table"),
};

// The default tolerance: what a correctly rounded float32 table of float64 values passes.
constexpr double ropeDefaultTolerance = 1e-6;

struct RopeVerifyOptions
{
    RopeQuantity what = RopeQuantity::Cos;
    // Tables: an element agrees when |candidate - reference| <= tolerance (absolute; the values
    // lie within +-attention factor). inv_freq and the attention factor: when |candidate -
    // reference| <= tolerance * |reference| (relative: frequencies span many decades; a zero
    // reference, proportional's tail, needs |candidate| <= tolerance). NaN never agrees.
    double tolerance = ropeDefaultTolerance;
    // Tables multiplied by the attention factor, as HF's forward returns them.
    bool scaled = true;
};

enum class RopeMistake {
    None,
    AttentionFactorDropped, // cos/sin not multiplied by the attention factor (or it is 1)
    AttentionFactorTwice,   // multiplied twice (attention factor squared)
    AttentionFactorFormula, // another attention factor: mscale ratio or explicit value ignored
    ScalingIgnored,         // the rope type's rule ignored: the default type's numbers
    FactorOnBase,           // factor applied to the base (base * s, or NTK's s^(r/(r-2)))
    PairingSwapped,         // half vs interleaved layout
    Float32Angles,          // float32 rounding of p * theta (or of theta)
};

struct RopeVerifyResult
{
    bool agrees = true;
    qint64 compared = 0;    // values compared
    qint64 differing = 0;   // values beyond the tolerance
    double maxAbsError = 0; // over all values
    double maxRelError = 0; // over values with a non-zero reference
    // The first value beyond the tolerance in row-major order (-1 where not applicable: no
    // difference; position for inv_freq and the attention factor; pair for the factor).
    qint64 position = -1;
    qint64 column = -1;
    qint64 pair = -1;
    double candidateValue = 0;
    double referenceValue = 0;
    RopeMistake mistake = RopeMistake::None;
    QString diagnosis; // one line when a known mistake matches the difference, else empty
};

// Compares `candidate` against the reference for (headDim, config): inv_freq as 1 x n (or n x 1)
// values, the attention factor as 1 x 1, tables as positions x ropeTableColumns() for position
// ids 0..rows-1 (the frequencies are the config's: set sequenceLength to the number of positions
// for what HF's forward sees), or, for cos-sin, also positions x headDim with the pass-through
// block of ropeColumnPhases(). nullopt with *error for invalid parameters or a candidate of the
// wrong shape (the message says the expected shape).
std::optional<RopeVerifyResult> ropeVerify(qint64 headDim, const RopeConfig &config,
                                           const RopeVerifyOptions &options,
                                           const RopeTable &candidate, QString *error);

// Lines for people: the errors, the first difference with both values, the diagnosis.
QStringList ropeVerifyReport(const RopeVerifyResult &result, const RopeVerifyOptions &options);

} // namespace pe
