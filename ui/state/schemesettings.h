// SchemeSettings: the Schemes page's parameters (which view, rotation pair, decay range, ALiBi and
// T5 options, the compare configuration B) with validation and JSON for sessions and presets.
#pragma once

#include "encodingspec.h"
#include "t5buckets.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace pe {

// The Schemes page's views, in tab order.
enum class SchemeView { Spectrum, Rotation, Decay, Similarity, Alibi, T5, Compare };
QList<SchemeView> allSchemeViews();
QString schemeViewName(SchemeView view); // "spectrum", "rotation", ... (the export view names)
std::optional<SchemeView> parseSchemeView(const QString &name);

enum class SimilarityMetric { Dot, Cosine };
QString similarityMetricName(SimilarityMetric metric);
std::optional<SimilarityMetric> parseSimilarityMetric(const QString &name);

namespace limits {
// Square views (similarity, ALiBi, T5) hold at most this many positions per side.
constexpr qint64 maxSchemeSquare = 2048;
constexpr qint64 maxDecayDistance = qint64(1) << 24;
} // namespace limits

struct SchemeSettings
{
    SchemeView view = SchemeView::Spectrum;
    qint64 rotationPair = 0;      // the pair the rotation view follows first
    qint64 rotationPosition = 12; // the vector is drawn at this position, the trail up to it
    qint64 decayDistance = 4096;  // the decay curve runs over relative distances 0..this
    SimilarityMetric metric = SimilarityMetric::Cosine;
    qint64 squarePositions = 128; // side of the similarity, ALiBi and T5 heatmaps
    qint64 alibiHeads = 8;
    qint64 alibiHead = 0; // 0-based head whose bias is shown
    bool alibiCausal = false;
    T5BucketParameters t5;
    // Configuration B of the compare mode (RoPE): its base and parameters; dims as A's.
    double compareBase = 500000.0;
    RopeParameters compareRope;
    bool operator==(const SchemeSettings &) const = default;

    // Empty when valid for an encoding of `dims` columns; else one sentence naming the field.
    QString validate(qint64 dims) const;
    QJsonObject toJson() const;
    // Reads the keys `json` has on top of *this; false with *error naming the bad key.
    bool readJson(const QJsonObject &json, QString *error);
};

QJsonObject ropeParametersToJson(const RopeParameters &rope);
bool readRopeParametersJson(const QJsonObject &json, RopeParameters *rope, QString *error);

// Configuration A as a RoPE spec: the spec itself when it is RoPE, else RoPE with the spec's
// base and dims, unscaled (the sinusoid's frequencies are RoPE's).
EncodingSpec ropeSpecA(const EncodingSpec &spec);
// Configuration B: A's dims and positions with the compare base and parameters.
EncodingSpec ropeSpecB(const EncodingSpec &spec, const SchemeSettings &settings);

} // namespace pe
