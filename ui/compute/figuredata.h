// FigureData: the compute results a set of figure views needs (encoding, phrases, Schemes page
// numbers), and the one job that fills in what is missing for given parameters. The
// ComputeScheduler runs it for the export dialog; `pescope export` calls it on its own thread.
#pragma once

#include "compute/computejobs.h"
#include "compute/forwardviewdata.h"
#include "compute/phrasemodeldata.h"
#include "compute/schemedata.h"
#include "compute/tabledata.h"
#include "rope/enginecheck.h"
#include "state/figurestate.h"
#include "state/figureviews.h"

#include <QList>
#include <QMetaType>

#include <memory>

namespace pe {

class Backend;

// The parameters a figure's numbers depend on, copied out of the state so that a worker thread
// can use them.
struct FigureInputs
{
    EncodingSpec spec;
    PhraseSettings phrases;
    SchemeSettings schemes;
    qint64 tableDim = 0;            // the selected dim: the sinusoid-fit view's
    PhraseModelInputs modelPhrases; // the open model and the compared phrases
    // The layer-attention view's ablation: the state's (LayerAblation), or `pescope export
    // --shift K ...`'s.
    ForwardAblation forwardAblation;
    bool operator==(const FigureInputs &) const = default;
    TableInputs table() const { return tableInputs(spec, tableDim); }
    static FigureInputs of(const FigureState &state);
};

// The compute results the views need; views without their result are refused with a message.
// The encoding is materialised (the exporter draws every cell).
struct FigureData
{
    std::shared_ptr<const EncodingResult> encoding;
    std::shared_ptr<const PhraseResult> phrases;
    std::shared_ptr<const SchemeResult> schemes;
    std::shared_ptr<const TableResult> table;
    std::shared_ptr<const PhraseModelResult> modelPhrases;
    std::shared_ptr<const ForwardViewResult> modelForward; // phrase A, every layer
    // The verify view's: made from a file the parameters do not name (the window's File > Check
    // engine table, `pescope export --against`), so never computed here.
    std::shared_ptr<const EngineCheck> engineCheck;
};

// True when `data` holds what `views` need for `inputs`.
bool figureDataMatches(const FigureInputs &inputs, const QList<FigureView> &views,
                       const FigureData &data);
inline bool figureDataMatches(const FigureState &state, const QList<FigureView> &views,
                              const FigureData &data)
{
    return figureDataMatches(FigureInputs::of(state), views, data);
}

// Computes what `views` need for `inputs` on `backend`, keeping the members of *data that
// already match. Failed with *error; Cancelled when `cancel` says stop.
JobStatus computeFigureData(const FigureInputs &inputs, const QList<FigureView> &views,
                            Backend &backend, const CancelCheck &cancel, FigureData *data,
                            QString *error);
// FigureInputs::of(state) with the ablation only where `views` drawn with `choices` show it
// (drawnAblation): what an exported figure needs (lessons, animations).
FigureInputs drawnFigureInputs(const FigureState &state, const QList<FigureView> &views,
                               const ViewChoices &choices);
// computeFigureData for drawnFigureInputs, on the calling thread.
bool computeFigureData(const FigureState &state, const QList<FigureView> &views,
                       const ViewChoices &choices, Backend &backend, FigureData *data,
                       QString *error);

} // namespace pe

Q_DECLARE_METATYPE(pe::FigureData)
Q_DECLARE_METATYPE(std::shared_ptr<const pe::EngineCheck>)
