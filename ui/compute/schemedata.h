// SchemeData: the numbers behind the Schemes page's views (RoPE spectra, rotation, decay curves,
// position similarity, ALiBi and T5 biases) as one job: plain inputs in, a SchemeResult out, on
// the backend it is given. The ComputeScheduler runs it on its worker; `pescope export` calls it
// on its own thread. The formulas are core's (analysis/).
#pragma once

#include "compute/computejobs.h" // JobStatus, CancelCheck

#include "analysis/ropeanalysis.h"
#include "analysis/ropeconfigdata.h"
#include "backends/backend.h"
#include "encodingspec.h"
#include "rope/contextreport.h"
#include "state/schemesettings.h"

#include <QList>
#include <QMetaType>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace pe {

struct SchemeInputs
{
    EncodingSpec spec;
    SchemeSettings settings;
    bool operator==(const SchemeInputs &) const = default;
};

struct DecayCurve
{
    QString label;
    std::vector<double> score; // one per SchemeResult::decayDistances
};

// One pair of the rotation view: its frequency, the trail of its vector up to the chosen
// position and the angle there.
struct RotationPanel
{
    qint64 pair = 0;
    double theta = 0.0;
    double angle = 0.0;               // p·θ in [0, 2π) at the chosen position p
    std::vector<RotationPoint> trail; // the last positions up to p; the vector at p is last
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
    QList<FigureView> views; // what was computed
    RopeConfigData a, b;
    QList<RotationPanel> rotation;
    std::vector<double> decayDistances;
    QList<DecayCurve> decay;
    SquareMatrix similarityA, similarityB; // B only for the compare view
    // The bias views' matrices by scheme part key (forEachSchemePart): "alibi", the chosen head,
    // -inf above the diagonal if causal; "t5", bucket ids. Only the parts the views read.
    std::map<QString, SquareMatrix> squares;
    // The part's matrix; an empty one when it was not computed.
    const SquareMatrix &square(const char *key) const;
    // The context views' numbers: configuration A's long-context report at its positions count
    // as the claimed context (core/rope/contextreport.h); `pescope context --out` sets its own.
    std::shared_ptr<const ContextFigureNumbers> context;
    QString backendId; // who encoded the similarity rows
    double totalMs = 0;
};

// The long-context views (context-pairs, context-base-bound, context-precision).
bool isContextView(FigureView view);
// Configuration A's report at the context it claims: its positions count (max_position_embeddings
// for a --config / --model spec). A spec that names neither max_position_embeddings nor an
// original context is taken to have been trained at those positions. Empty with *error.
std::optional<ContextFigureNumbers> contextNumbersForA(const EncodingSpec &a, QString *error);

// The pairs the rotation view draws: the chosen one, then up to three spread over the range,
// ascending.
QList<qint64> rotationPairs(qint64 chosen, qint64 pairCount);

// What `views` need; Failed with *error (a bad compare configuration, a matrix too large),
// Cancelled when `cancel` says stop. The similarity rows are encoded by `backend`.
JobStatus computeSchemeData(const SchemeInputs &inputs, const QList<FigureView> &views,
                            Backend &backend, const CancelCheck &cancel, SchemeResult *result,
                            QString *error);
// True when `result` holds `views` for `inputs`.
bool schemeResultMatches(const SchemeResult &result, const SchemeInputs &inputs,
                         const QList<FigureView> &views);

} // namespace pe

Q_DECLARE_METATYPE(std::shared_ptr<const pe::SchemeResult>)
