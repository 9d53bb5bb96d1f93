// Compares someone's RoPE numbers (inv_freq, attention factor, cos / sin tables in any layout HF
// and the engines emit) against the Hugging Face reference, says how closely they agree (exactly,
// up to the rounding of the values, or up to float32 angles as HF's own float32 forward computes
// them) and, when they differ, names the known implementation mistake the difference matches:
// each hypothesis is recomputed and checked against the candidate (ropediagnosis.cpp).
#pragma once

#include "formats/tensorinfo.h"
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

// How a table's columns hold the pairs (n = frequency count, the rotary dims' half).
//  Half: n * 2 columns, cat(f, f): columns i and i + n hold pair i (every HF rotary embedding's
//    cos / sin; for cos-sin, cos in the first n columns, sin in the last n).
//  Interleaved: n * 2 columns, repeat_interleave(f, 2): columns 2i and 2i + 1 hold pair i (GPT-J,
//    llama.cpp; for cos-sin, cos and sin alternate).
//  PerPair: n columns, one per pair (gpt-oss's rotary forward returns freqs.cos() unrepeated).
//  Complex: n pairs x 2, each pair's (cos, sin) as real and imaginary part (Llama 4's freqs_cis,
//    torch.view_as_real); the candidate holds them flattened, n * 2 columns of cos-sin.
enum class RopeLayout { Auto, Half, Interleaved, PerPair, Complex };

inline constexpr ChoiceName ropeLayoutNames[] = {
    choice(RopeLayout::Auto, "auto", "detected from the table"),
    choice(RopeLayout::Half, "half", "half: cat(f, f), columns i and i + n hold pair i"),
    choice(RopeLayout::Interleaved, "interleaved",
           "interleaved: columns 2i and 2i + 1 hold pair i"),
    choice(RopeLayout::PerPair, "pairs", "one column per pair"),
    choice(RopeLayout::Complex, "complex", "(cos, sin) of each pair as a complex number"),
};

// "half: cat(f, f), columns i and i + 32 hold pair i (HF's rotary embeddings)", for reports.
QString ropeLayoutDescription(RopeLayout layout, qint64 pairs);

// The default tolerance: what a correctly rounded float32 table of float64 values passes.
constexpr double ropeDefaultTolerance = 1e-6;

struct RopeVerifyOptions
{
    RopeQuantity what = RopeQuantity::Cos;
    // An element agrees exactly when |candidate - reference| <= tolerance, the reference rounded
    // to the candidate's precision first. Tables: absolute (the values lie within +-attention
    // factor); inv_freq and the attention factor: relative, tolerance * |reference|
    // (frequencies span many decades; a zero reference, proportional's tail, needs |candidate|
    // <= tolerance). NaN never agrees.
    double tolerance = ropeDefaultTolerance;
    // Tables multiplied by the attention factor, as HF's forward returns them.
    bool scaled = true;
    // How the table's columns hold the pairs; Auto detects it (ropeVerify says which it found).
    RopeLayout layout = RopeLayout::Auto;
    // The candidate's element type as stored: the reference is rounded to it before comparing.
    TensorDType precision = TensorDType::F64;
    // Float64 exactness: a table that agrees only up to float32 rounding (of the values or of the
    // angles) differs, with that diagnosis. Without it such a table agrees, and says so.
    bool strict = false;
    // Tables: > 0 fills RopeVerifyResult::errors with at most this many rows (row bins).
    qint64 errorGridRows = 0;
};

enum class RopeMistake {
    None,
    AttentionFactorDropped, // cos/sin not multiplied by the attention factor (or it is 1)
    AttentionFactorTwice,   // multiplied twice (attention factor squared)
    AttentionFactorFormula, // another attention factor: mscale ratio or explicit value ignored
    ScalingIgnored,         // the rope type's rule ignored: the default type's numbers
    ScalingRuleSwapped,     // another rope type's rule (linear, dynamic, yarn, llama3, ntk)
    LongropeFactorSet,      // short_factor beyond the original context, long_factor within it
    FactorOnBase,           // factor applied to the base (base * s, or NTK's s^(r/(r-2)))
    BaseChanged,            // another rope_theta
    RotaryWidth,            // another rotary width: partial_rotary_factor or head_dim
    PositionsShifted,       // row p holds position p + k, k != 0
    PairingSwapped,         // half vs interleaved layout (against an explicit --layout)
    Float32Values,          // values rounded to float32 (or the file's type) once too often
    Float32Angles,          // float32 rounding of p * theta (or of theta)
    HalfPrecisionValues,    // values rounded to float16 / bfloat16, stored in a wider type
    ConfigIgnored,          // the config ignored: default rope_theta 10000 and no scaling
};

// How closely the candidate agrees with the reference.
enum class RopeAgreement {
    Exact,         // within the tolerance of the reference rounded to the candidate's precision
    RoundedValues, // within one unit of float32 (or of the candidate's coarser type) more
    RoundedAngles, // within what float32 angles p * theta give (HF's own float32 forward)
    // Within what float32 angles accumulated by repeated multiplication give (ggml-cpu's
    // theta *= theta_scale, ggml-cuda's p * powf(theta_scale, i)).
    AccumulatedAngles,
    // Within what fast approximate sine and cosine of float32 angles give (CUDA's __sinf / __cosf
    // under -use_fast_math, with the __powf and __fdividef that make those angles).
    ApproximateTrig,
    Differs,
};

// |candidate - reference| per position and pair, for the engine-check figure.
struct RopeErrorGrid
{
    qint64 rows = 0;       // row bins
    qint64 rowsPerBin = 1; // candidate rows (positions) per bin; each bin holds their maximum
    qint64 pairs = 0;
    std::vector<float> error; // rows x pairs, over the pair's columns, against the float64 values

    float at(qint64 row, qint64 pair) const { return error[std::size_t(row * pairs + pair)]; }
};

// One cell of the candidate: where it is and both values.
struct RopeCell
{
    qint64 position = -1; // -1: not applicable (inv_freq, the attention factor) or none
    qint64 column = -1;
    qint64 pair = -1; // -1 for pescope's pass-through columns
    double candidate = 0;
    double reference = 0;
};

struct RopeVerifyResult
{
    bool agrees = true;
    RopeAgreement agreement = RopeAgreement::Exact;
    qint64 compared = 0;    // values compared
    qint64 differing = 0;   // values beyond the tolerance of the reference at their precision
    double maxAbsError = 0; // against the float64 reference, over all values
    // inv_freq and the attention factor: over values with a non-zero reference. Tables: relative
    // to the pair's magnitude (the attention factor: sqrt(cos^2 + sin^2) of a pair), which a
    // zero crossing does not blow up.
    double maxRelError = 0;
    // Tables holding both cos and sin of a pair (cos-sin): the largest angle error, |atan2 of the
    // candidate's (sin, cos) - atan2 of the reference's| in radians; -1 when not measured.
    double maxAngleError = -1;
    // The first value beyond the tolerance in row-major order (position -1 when none), and the
    // value farthest from the float64 reference. inv_freq: the pair; the attention factor: -1.
    RopeCell first;
    RopeCell worst;
    // The value farthest beyond (or nearest to) what the verdict's computation allows, as a
    // multiple of that allowance (worstAllowance at that cell): the agreeing computation, or,
    // when the table differs, the widest (ApproximateTrig), or the tolerance alone with --strict.
    RopeCell worstAllowed;
    double worstAllowance = 0;
    double worstRatio = 0;
    // Any agreement short of Exact (RoundedValues, RoundedAngles, AccumulatedAngles,
    // ApproximateTrig): what that computation allows at the worst value, less the tolerance: the
    // size of the float32 (or the candidate's type's) error the verdict accepts.
    double roundingAllowance = 0;
    // Tables: the layout compared, detected when the options said Auto; the pairs it holds.
    RopeLayout layout = RopeLayout::Half;
    bool layoutDetected = false;
    qint64 pairs = 0;
    RopeMistake mistake = RopeMistake::None;
    // Differs: the mistake's description, or "no known mistake explains this" when none fits.
    // Agrees up to float32 under --strict: the float32 rounding.
    QString diagnosis;
    RopeErrorGrid errors; // filled when options.errorGridRows > 0 and the widths match
};

// Compares `candidate` against the reference for (headDim, config): inv_freq as 1 x n (or n x 1)
// values, the attention factor as 1 x 1, tables as positions x columns in options.layout (Auto:
// the layout that fits the shape and the values, see RopeLayout) for position ids 0..rows-1 (the
// frequencies are the config's: set sequenceLength to the number of positions for what HF's
// forward sees), cos-sin also positions x headDim with the pass-through block of
// ropeColumnPhases(). A candidate whose width matches only another rotary width differs, with
// that diagnosis. nullopt with *error for invalid parameters or a candidate no layout and no
// known width explains (the message says the expected shapes).
std::optional<RopeVerifyResult> ropeVerify(qint64 headDim, const RopeConfig &config,
                                           const RopeVerifyOptions &options,
                                           const RopeTable &candidate, QString *error);

// Lines for people: the verdict with the errors (and the rounding a verdict accepted), the first
// difference with both values, the diagnosis.
QStringList ropeVerifyReport(const RopeVerifyResult &result, const RopeVerifyOptions &options);

// The error grid of candidate frequencies (a GGUF's rope_freqs, an engine's inv_freq) against the
// reference's over positions 0..positions-1: max(|cos p theta' - cos p theta|, |sin ... |) per
// pair, in at most `maxRows` row bins. Empty when the counts differ.
RopeErrorGrid ropeFrequencyErrorGrid(std::span<const double> candidate,
                                     std::span<const double> reference, qint64 positions,
                                     qint64 maxRows);

} // namespace pe
