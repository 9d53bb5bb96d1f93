// Internal to the RoPE verifier (ropeverify.cpp, ropediagnosis.cpp): what each column of a
// candidate table holds, the values one hypothesis about its computation predicts, and how far
// float32 arithmetic may move a value from them.
#pragma once

#include "ropeverify.h"

#include <functional>

namespace pe::verifymodel {

// What one candidate column holds: its pair (-1: pescope's pass-through block) and cos or sin.
struct ColumnRole
{
    qint64 pair = -1;
    bool cosine = true;
};

// The pairs `layout` puts in `columns` columns of `what` (0 when the width does not fit).
qint64 pairsInColumns(RopeQuantity what, RopeLayout layout, qint64 columns);
// Each column's role; `columns` may exceed the rotary block only for cos-sin (the pass-through
// columns, laid out as ropeColumnPhases() does).
std::vector<ColumnRole> columnRoles(RopeQuantity what, RopeLayout layout, qint64 pairs,
                                    qint64 columns);

// The spacing of `dtype` values at magnitude `magnitude` (F64: 0, what the comparison ignores).
double precisionSpacing(TensorDType dtype, double magnitude);
// `x` rounded to `dtype` (nearest, ties to even), as a file of that type stores it.
double roundTo(TensorDType dtype, double x);

// One hypothesis: the table computed from these frequencies, times `scale`, row r holding
// position r + shift.
struct TableModel
{
    std::vector<double> theta;
    double scale = 1.0;
    qint64 shift = 0;
    std::vector<ColumnRole> roles;

    double angle(qint64 row, qint64 pair) const
    {
        return double(row + shift) * theta[std::size_t(pair)];
    }
    double value(qint64 row, qint64 column) const;
};

// The float32 computations of a table the error model knows, each allowing what the ones before
// it allow and more (docs/fidelity.md derives each bound):
//  Values: the float64 values rounded once to float32 (or to the candidate's coarser type).
//  Product: HF's float32 forward, float32(p) * float32(inv_freq) as one product, inv_freq from
//    float32 pow (also exp2(x * log2f(base)), MLX's, and fused multiply-adds).
//  Recurrence: the angle accumulated by i float32 multiplications, theta *= theta_scale from a
//    float32 theta_scale = powf(base, -2/n_dims) (ggml-cpu's ggml_rope_cache_init), or
//    p * powf(theta_scale, i) (ggml-cuda).
//  FastTrig: ggml-cuda under -use_fast_math: its angles p * __powf(theta_scale, i) (__log2f's
//    2^-22 absolute, i times, through exp2), the division by a frequency factor __fdividef,
//    through fast approximate sine and cosine (__sinf / __cosf: 2^-21.41 absolute in [-pi, pi],
//    and the float32 range reduction beyond).
enum class Float32Method { None, Values, Product, Recurrence, FastTrig };

// How far a candidate value may lie from a model's and still match it.
struct Allowance
{
    double tolerance = 0;
    TensorDType precision = TensorDType::F64; // one unit of it (at least float32's) when rounded
    Float32Method method = Float32Method::None;
    // theta's float32 error in units: thetaSlope * pair + 6 (the exponent 2i/d rounded, times
    // ln base and ln s; pow, the division and the type's rule a few more).
    double thetaSlope = 0;

    // The same allowance for another computation.
    Allowance with(Float32Method other) const
    {
        Allowance a = *this;
        a.method = other;
        return a;
    }
    double bound(const TableModel &model, qint64 row, qint64 column) const;
};

// The computations a diagnosis tries, tightest first (a hypothesis is computed in float64: the
// candidate's own rounding is at least Values).
inline constexpr Float32Method float32Methods[] = {Float32Method::Values, Float32Method::Product,
                                                   Float32Method::Recurrence,
                                                   Float32Method::FastTrig};

// True when every value of `candidate` lies within `allowance` of `model`; stops at the first
// value that does not.
bool tableMatches(const RopeTable &candidate, const TableModel &model, const Allowance &allowance);

// The tightest computation under which `candidate` matches `model` (None: not even the widest).
Float32Method tableMethod(const RopeTable &candidate, const TableModel &model,
                          const Allowance &allowance);

// The same for a vector (inv_freq): relative to each reference value.
bool vectorMatches(std::span<const double> candidate, std::span<const double> model,
                   const Allowance &allowance);
// The relative allowance of inv_freq value `index` of `count`.
double vectorBound(const Allowance &allowance, double reference, qint64 index);
Float32Method vectorMethod(std::span<const double> candidate, std::span<const double> model,
                           const Allowance &allowance);

// What the diagnoses work from.
struct Context
{
    qint64 headDim = 0;
    RopeConfig config;
    RopeVerifyOptions options;
    RopeFrequencies reference;
    RopeLayout layout = RopeLayout::Half; // tables: the layout compared
    qint64 candidatePairs = 0;            // tables: the pairs the candidate holds
    double referenceScale = 1.0;          // tables: the attention factor, or 1 unscaled
    Allowance allowance;                  // tolerance, precision, slope (any method)
};

struct Diagnosis
{
    RopeMistake mistake = RopeMistake::None;
    QString text;
    // The tightest float32 computation under which the mistake explains the candidate: the
    // hypotheses are ranked by it, so a mistake is named in a table as noisy as ggml's.
    Float32Method method = Float32Method::Values;
};

// The known mistake that explains the candidate under the tightest float32 computation (ties:
// the most specific, tried first); nullopt when none does under any.
std::optional<Diagnosis> diagnoseTable(const Context &context, const RopeTable &candidate);
std::optional<Diagnosis> diagnoseFrequencies(const Context &context,
                                             std::span<const double> candidate);
std::optional<Diagnosis> diagnoseAttentionFactor(const Context &context, double candidate);

// theta's float32 error slope for `config` (see Allowance::thetaSlope).
double thetaSlope(qint64 headDim, const RopeConfig &config);

} // namespace pe::verifymodel
