// "Will this context length work?": what a RoPE configuration's numbers mean at the context it
// claims (issue 49). Per rotary pair: the frequency before and after the scaling rule, its
// wavelength, its turns within the training and the claimed context, and how the rule treats it;
// the base bound of Men et al. 2024; where the dtype the angles are formed in breaks; the
// RoFormer decay scaled against unscaled. Plain float64, no GUI; `pescope context` prints it.
//
// Papers: Liu et al. 2023, "Scaling Laws of RoPE-based Extrapolation" (the critical dimension:
// pairs that never complete a turn in training); Men et al. 2024, "Base of RoPE Bounds Context
// Length" (B(m) = Σᵢ cos(m θᵢ) must stay >= 0 up to the context; their Figure 1); Su et al.,
// RoFormer §3.4.3 (long-term decay).
#pragma once

#include "fields/choicenames.h"
#include "ropeconfig.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <span>
#include <vector>

namespace pe {

// The dtype a model's rotary embedding forms positions and angles in.
enum class ContextDtype { Float32, BFloat16, Float16 };
inline constexpr ChoiceName contextDtypeNames[] = {
    choice(ContextDtype::Float32, "float32", "float32", "fp32,f32"),
    choice(ContextDtype::BFloat16, "bfloat16", "bfloat16", "bf16"),
    choice(ContextDtype::Float16, "float16", "float16", "fp16,f16,half"),
};

// Significand bits (the implicit one included) of the dtype: 24, 8, 11.
int contextDtypeSignificandBits(ContextDtype dtype);
// x rounded to the dtype, round to nearest even, subnormals and overflow (inf) as IEEE 754 /
// bfloat16 do them. float32 is static_cast<float>.
double roundToDtype(double x, ContextDtype dtype);

// How the scaling rule treats a pair, from the ratio unscaled θ / scaled θ: 1 unchanged
// (extrapolated as trained), the rule's full factor (or more) interpolated, between the two
// blended (llama3's middle band, YaRN's ramp, dynamic's and NTK's new base, longrope's factors
// below the scale), below 1 sped up (a factor < 1); Fixed: a pair that does not rotate.
enum class PairTreatment { Unchanged, Blended, Interpolated, SpedUp, Fixed };
inline constexpr ChoiceName pairTreatmentNames[] = {
    choice(PairTreatment::Unchanged, "unchanged", "unchanged"),
    choice(PairTreatment::Blended, "blended", "blended"),
    choice(PairTreatment::Interpolated, "interpolated", "interpolated"),
    choice(PairTreatment::SpedUp, "sped-up", "sped up (factor < 1)"),
    choice(PairTreatment::Fixed, "fixed", "not rotated"),
};

struct ContextPair
{
    qint64 index = 0;
    double unscaled = 0;   // θᵢ of rope_theta without the rule (radians per position)
    double scaled = 0;     // θᵢ the rule gives at the claimed context
    double ratio = 1;      // unscaled / scaled: the pair's interpolation factor
    double wavelength = 0; // 2π / scaled θᵢ, tokens (inf when θᵢ = 0)
    // Turns (2π each) the pair makes: the unscaled θ over the training context, the scaled θ
    // over the claimed context; full turns are their floor.
    double turnsTraining = 0;
    double turnsClaimed = 0;
    // Liu et al.'s critical dimension: in training the pair never completes a turn (its
    // wavelength exceeds the training context), so it never saw all its angles.
    bool beyondCritical = false;
    PairTreatment treatment = PairTreatment::Unchanged;
    // Angles formed in the chosen dtype (angle = round(round(p) · round(θ))): the first position
    // p whose angle equals that of p + 1 (-1: none up to the scan's end, precisionScanEnd).
    qint64 firstCollision = -1;
    // HF's float32 forward, float32(p) · float32(θ) in float32, against p · θ in float64 at the
    // last position (context − 1): radians, and as a fraction of a turn.
    double float32Error = 0;
    double float32ErrorTurns = 0;
};

// Men et al.'s B(m) over the model's own θ: the first integer distance 1 <= m <= scanEnd where
// it is negative (0: none), and the smallest base (on the grid 2^(k/100), searched upward) for
// which B >= 0 for every m up to the distance limit, for this head size with the default rule.
struct ContextBaseBound
{
    qint64 distanceLimit = 0; // the claimed context, or a sliding window's size
    qint64 scanEnd = 0;       // the scan went this far (beyond the limit, to say by how much)
    qint64 firstNegative = 0;
    double minimumBase = 0; // 0: not computed (the limit is above baseSearchMaxDistance)
};

// The RoFormer decay (ropeRelativeScore) at sampled distances up to context − 1.
struct ContextDecay
{
    std::vector<double> distances;
    std::vector<double> scaled;
    std::vector<double> unscaled;
};

struct ContextReport
{
    QString source;     // "config.json, layer 0 (full_attention): rope"
    RopeConfig config;  // as read (sequenceLength: the claimed context)
    qint64 headDim = 0; // the head's columns, rotated or not
    qint64 rotaryDims = 0;
    qint64 trainingContext = 0; // the context the rule scales from (see contextTrainingLength)
    QString trainingContextOrigin;
    qint64 context = 0;   // claimed
    qint64 window = 0;    // sliding window or attention chunk of this layer; 0 for full attention
    bool chunked = false; // the window is an attention chunk (Llama 4), not a sliding window
    ContextDtype dtype = ContextDtype::Float32;
    double attentionFactor = 1;
    double softmaxScaleFactor = 1; // DeepSeek's get_mscale(factor, mscale_all_dim)^2, else 1
    std::vector<ContextPair> pairs;
    ContextBaseBound bound;
    // Position ids: exact integers up to exactPositions (2^significand bits); the dtype merges
    // position exactPositions + 1 into its neighbour.
    qint64 exactPositions = 0;
    qint64 precisionScanEnd = 0;
    double float32TurnLimit = 1.0 / 1000.0; // the stated fraction of a turn
    ContextDecay decay;
    QStringList verdict;
    QStringList notes;
};

// The context the rule scales from: original_max_position_embeddings for llama3 / yarn /
// longrope (and whenever the config gives one), max_position_embeddings for dynamic and the
// default rule, and for linear / proportional / NTK without one max_position_embeddings / factor.
// `origin` names where it came from.
qint64 contextTrainingLength(const RopeConfig &config, QString *origin);

// B(m) = Σᵢ cos(m θᵢ) over the pairs that rotate (θ > 0): the first integer m in 1..end where it
// is < 0, else 0. float64; each pair's (cos, sin) advanced by one rotation per step and
// recomputed with std::cos / std::sin every 1024 steps, so the drift stays near 1e-13.
qint64 ropeBaseBoundFirstNegative(std::span<const double> theta, qint64 end);
// θᵢ = base^(−2i/d), d = rotaryDims: the default rule's frequencies.
std::vector<double> ropeDefaultFrequencies(double base, qint64 rotaryDims);
// The bases the search walks: 2^(k/100), k = 100, 101, ...
double ropeBaseGridValue(int k);
// The smallest base on that grid with B(m) >= 0 for every m in 1..distance (default rule,
// rotaryDims columns); 0 when distance > baseSearchMaxDistance or no grid base up to 1e12 does.
// B >= 0 is not monotone in the base (a few bases above a passing one fail), so the first
// passing base on the grid is the answer, as the paper's figure reads. Exact: a failing base is
// shown one negative B(m) (looked for from the distance down), a passing one the whole scan.
constexpr qint64 baseSearchMaxDistance = qint64(1) << 20;
double ropeMinimumBase(qint64 rotaryDims, qint64 distance);
// The same for every distance of `distances` (ascending) in one upward walk: Men et al.'s
// Figure 1 is ropeMinimumBases(128, {1024, 2048, ..., 1048576}).
std::vector<double> ropeMinimumBases(qint64 rotaryDims, std::span<const qint64> distances);

// The report for one rotary layer: `config` as read (its sequenceLength is set to `context`),
// headDim its rotated head. Empty source and one sentence in *error when ropeConfigProblem()
// refuses the parameters at that context.
struct ContextRequest
{
    RopeConfig config;
    qint64 headDim = 0;
    qint64 context = 0;   // claimed; must be 1..ropeMaxContext
    qint64 window = 0;    // a sliding window or attention chunk, tokens; 0 for full attention
    bool chunked = false; // an attention chunk
    ContextDtype dtype = ContextDtype::Float32;
    QString source;
};
std::optional<ContextReport> contextReport(const ContextRequest &request, QString *error);

// The first position p in 0..end-1 whose angle p·θ, formed in `dtype` as HF forms it (θ held
// in float32, then cast to the dtype; round(round(p + 1) · round(θ))), equals that of p: -1 when
// none does.
qint64 contextFirstCollision(double theta, ContextDtype dtype, qint64 end);

// B(m) = Σᵢ cos(m θᵢ) sampled for drawing: distances 0..end, every integer up to `samples` of
// them, else `samples` spread evenly, with the first negative m (when drawn) among them.
struct ContextBoundCurve
{
    std::vector<double> distances;
    std::vector<double> values;
};
// Plain float64 cosines (no recurrence) over the report's scaled θ that rotate; `end` is the
// distance limit, or the first negative m and an eighth more when that lies within four limits.
ContextBoundCurve contextBaseBoundCurve(const ContextReport &report, qint64 samples);

// What the report's figures draw beyond the report (the Schemes page's context views and
// `pescope context --out report.pdf`): the sampled B(m) and each pair's first angle collision
// in bfloat16 and float16 (scanned to the context's end or the dtype's last exact id + 1).
struct ContextFigureNumbers
{
    ContextReport report;
    ContextBoundCurve bound;
    std::vector<qint64> bfloat16Collisions;
    std::vector<qint64> float16Collisions;
};
constexpr qint64 contextBoundSamples = 4096;
ContextFigureNumbers contextFigureNumbers(ContextReport report);

// The report as people read it (verdict first) and as JSON (every number).
QStringList contextReportText(const ContextReport &report);
QJsonObject contextReportJson(const ContextReport &report);

} // namespace pe
