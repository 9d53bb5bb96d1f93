// FigureState: the plain values a figure is drawn from - the parameters, the selection and the
// look, copied out of the window's ExplorerState or made as ExplorerValues by `pescope export`,
// the lesson exporter and Python without one. No QObject, no signals, no undo: figure builders,
// the exporter, the animation's frames and the data export read it, so drawing needs nothing of
// the window.
#pragma once

#include "state/explorervalues.h"

namespace pe {

class ExplorerState;

class FigureState : public ExplorerValuesReader<FigureState>
{
public:
    // The state's values now: a view or dialog passes its state where a FigureState is taken.
    FigureState(const ExplorerState &state); // NOLINT(google-explicit-constructor)
    explicit FigureState(ExplorerValues values) : m_v(std::move(values)) {}

    // The accessors (spec(), markers(), page()...) are ExplorerValuesReader's.

    // For an animation's frames, which move one value each (FigureAnimation::apply).
    ExplorerValues &values() { return m_v; }
    const ExplorerValues &values() const { return m_v; }

private:
    ExplorerValues m_v;
};

} // namespace pe
