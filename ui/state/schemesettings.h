// SchemeSettings: the Schemes page's parameters (which view, rotation pair, decay range, metric,
// the ALiBi and T5 views' schemes and the compare configuration B) with its field table; the
// ALiBi, T5 and RoPE parameters use those schemes' own tables.
#pragma once

#include "analysis/similarity.h" // SimilarityMetric
#include "encodingspec.h"
#include "state/viewlist.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace pe {

namespace limits {
// Square views (similarity, ALiBi, T5) hold at most this many positions per side.
constexpr qint64 maxSchemeSquare = 2048;
constexpr qint64 maxDecayDistance = qint64(1) << 24;
} // namespace limits

struct SchemeSettings
{
    FigureView view = FigureView::Spectrum; // one of the Schemes page's views
    qint64 rotationPair = 0;                // the pair the rotation view follows first
    qint64 rotationPosition = 12; // the vector is drawn at this position, the trail up to it
    qint64 decayDistance = 4096;  // the decay curve runs over relative distances 0..this
    bool decayReferences = false; // also the three published bases, unscaled
    bool decayEnvelope = false;   // each curve as its envelope: max |score| at or beyond d
    bool decayLog = false;        // distance on a log axis (1..N)
    SimilarityMetric metric = SimilarityMetric::Cosine;
    qint64 squarePositions = 128; // side of the similarity, ALiBi and T5 heatmaps
    AlibiScheme alibi;
    T5Scheme t5;
    // Configuration B of the compare mode (RoPE); dims as A's.
    RopeScheme compare = defaultCompare();
    bool operator==(const SchemeSettings &) const = default;

    static FieldTable<SchemeSettings> fields();
    static RopeScheme defaultCompare();
    // Empty when valid for an encoding of `dims` columns; else the first problem.
    FieldProblem problem(qint64 dims) const;
    QString validate(qint64 dims) const;
    // The table's keys plus one object per part (forEachSchemePart) in that scheme's keys.
    QJsonObject toJson() const;
    FieldProblem readJson(const QJsonObject &json);
};

// One of the settings' own schemes (ALiBi's and T5's for their views, RoPE's configuration B): a
// member with that scheme's field table, written as a JSON object under `key`. A view reads it by
// naming `key` among its entry's keys (state/viewlist.cpp): the Schemes page then shows its form.
template <class P> struct SchemePart
{
    using Scheme = P;
    P SchemeSettings::*member;
    const char *key;    // "alibi"
    const char *title;  // the Schemes page's box: "ALiBi"
    const char *change; // undo's name for it: "ALiBi view", as in "Set Heads to 4 (ALiBi view)"
    // The shape its problem() checks: the square views' side and the encoding's dims.
    MatrixShape (*shape)(qint64 side, qint64 dims);
    // Its words in a figure's caption when a view shown reads it: "ALiBi 8 heads".
    QString (*caption)(const P &scheme);
};

namespace schemeparts {
inline MatrixShape square(qint64 side, qint64)
{
    return {side, side};
}
// Configuration B has A's dims, made even.
inline MatrixShape rotary(qint64 side, qint64 dims)
{
    return {side, qMax<qint64>(2, dims - dims % 2)};
}
} // namespace schemeparts

// Calls f(part) for each of the settings' schemes, in the Schemes page's order: a new view with a
// scheme of its own adds its member above and one line here.
template <class F> void forEachSchemePart(F &&f)
{
    f(SchemePart<AlibiScheme>{
        &SchemeSettings::alibi, "alibi", "ALiBi", "ALiBi view", schemeparts::square,
        [](const AlibiScheme &s) { return QStringLiteral("ALiBi %1 heads").arg(s.heads); }});
    f(SchemePart<T5Scheme>{&SchemeSettings::t5, "t5", "T5 buckets", "T5 view", schemeparts::square,
                           [](const T5Scheme &s) {
                               return QStringLiteral("T5 %1 buckets, max distance %2")
                                   .arg(s.buckets)
                                   .arg(s.maxDistance);
                           }});
    f(SchemePart<RopeScheme>{
        &SchemeSettings::compare, "compare", "Compare: configuration B", "B", schemeparts::rotary,
        [](const RopeScheme &s) -> QString { return QStringLiteral("B: ") + s.legend(); }});
}

// The parts' keys, in that order.
QStringList schemePartKeys();

// Configuration A as a RoPE spec: the spec itself when it is RoPE, else RoPE with the spec's
// base (a sinusoid's frequencies are RoPE's) and its dims made even.
EncodingSpec ropeSpecA(const EncodingSpec &spec);
// Configuration B: A's dims and positions with the compare parameters.
EncodingSpec ropeSpecB(const EncodingSpec &spec, const SchemeSettings &settings);

} // namespace pe
