// SchemeData: the numbers behind the Schemes page's views (RoPE spectra, decay curves, position
// similarity, ALiBi and T5 biases), computed from plain inputs so a worker thread can run it.
#pragma once

#include "encodingspec.h"
#include "state/schemesettings.h"

#include <QList>
#include <QString>

#include <memory>
#include <vector>

namespace pe {

struct SchemeInputs
{
    EncodingSpec spec;
    SchemeSettings settings;
    bool operator==(const SchemeInputs &) const = default;
};

// One RoPE configuration: its label and its inverse frequencies, unscaled and scaled.
struct RopeConfigData
{
    QString label;                // "base 500,000, llama3 s = 8 from 8192"
    EncodingSpec spec;            // a RopeScheme
    const RopeScheme &rope() const { return *spec.get<RopeScheme>(); }
    std::vector<double> original; // base^(-2i/r)
    std::vector<double> scaled;   // after the rope_type
    double attentionFactor = 1.0;
    qint64 originalContext = 0; // the context the scaling extends (0: none)
};

struct DecayCurve
{
    QString label;
    std::vector<double> score; // one per SchemeResult::decayDistances
};

// A square matrix (row = query / position p, column = key / position q), row-major.
struct SquareMatrix
{
    qint64 size = 0;
    std::vector<float> values;
    double minimum = 0, maximum = 0; // finite values only
    float at(qint64 row, qint64 col) const { return values[std::size_t(row * size + col)]; }
};

struct SchemeResult
{
    SchemeInputs inputs;
    QList<SchemeView> views; // what was computed
    RopeConfigData a, b;
    std::vector<double> decayDistances;
    QList<DecayCurve> decay;
    SquareMatrix similarityA, similarityB; // B only for the compare view
    SquareMatrix alibi;                    // the chosen head; -inf above the diagonal if causal
    double alibiSlope = 0;
    SquareMatrix t5; // bucket ids
    double totalMs = 0;
};

RopeConfigData ropeConfigData(const EncodingSpec &ropeSpec);

// RoFormer section 3.4.3 with q = k = all ones: the score at relative distance `distance`
// divided by the score at 0, [(d - r) + 2 sum_i cos(distance theta_i)] / d.
double ropeRelativeScore(const std::vector<double> &theta, qint64 dims, double distance);

// What `views` need; false with *error (a bad compare configuration, a matrix too large).
bool computeSchemeData(const SchemeInputs &inputs, const QList<SchemeView> &views,
                       SchemeResult *result, QString *error);
// True when `result` holds `views` for `inputs`.
bool schemeResultMatches(const SchemeResult &result, const SchemeInputs &inputs,
                         const QList<SchemeView> &views);

} // namespace pe
