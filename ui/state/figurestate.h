// FigureState: the plain values a figure is drawn from - the parameters, the selection and the
// look, copied out of the window's ExplorerState or made as ExplorerValues by `pescope export`,
// the lesson exporter and Python without one. No QObject, no signals, no undo: figure builders,
// the exporter, the animation's frames and the data export read it, so drawing needs nothing of
// the window.
#pragma once

#include "state/explorervalues.h"

namespace pe {

class ExplorerState;

class FigureState
{
public:
    // The state's values now: a view or dialog passes its state where a FigureState is taken.
    FigureState(const ExplorerState &state); // NOLINT(google-explicit-constructor)
    explicit FigureState(ExplorerValues values) : m_v(std::move(values)) {}

    const EncodingSpec &spec() const { return m_v.spec; }
    const ViewOptions &viewOptions() const { return m_v.view; }
    BackendChoice backendChoice() const { return m_v.window.backend; }
    Colormap colormap() const { return m_v.view.colormap; }
    bool transposed() const { return m_v.view.transposed; }
    qint64 heatmapDimLimit() const { return m_v.view.heatmapDimLimit; }
    qint64 visibleDims() const { return m_v.visibleDims(); }
    const Selection &selection() const { return m_v.view.selection; }
    const QList<qint64> &waveDims() const { return m_v.view.waveDims; }
    // As ExplorerState::plottedDims: the wave dims inside the matrix, then the selected dim.
    QList<qint64> plottedDims() const { return m_v.plottedDims(); }
    const QList<qint64> &markers() const { return m_v.view.markers; }
    const QList<CrossMarker> &crosses() const { return m_v.view.crosses; }
    double shareTolerance() const { return m_v.view.shareTolerance; }
    const PhraseSettings &phraseSettings() const { return m_v.phrases; }
    const PhraseSelection &phraseSelection() const { return m_v.phraseSelection; }
    const PhrasePage &phrasePage() const { return m_v.phrasePage; }
    const PhraseSource &phraseSource() const { return m_v.phraseSource; }
    PhraseWindow phraseWindow() const { return m_v.phraseWindow(); }
    int compareA() const { return m_v.compareA; }
    int compareB() const { return m_v.compareB; }
    Theme theme() const { return m_v.window.theme; }
    Page page() const { return m_v.window.page; }
    const SchemeSettings &schemeSettings() const { return m_v.schemes; }
    const FigureStyle &figureStyle() const { return m_v.figure; }

    // For an animation's frames, which move one value each (FigureAnimation::apply).
    ExplorerValues &values() { return m_v; }
    const ExplorerValues &values() const { return m_v; }

private:
    ExplorerValues m_v;
};

} // namespace pe
