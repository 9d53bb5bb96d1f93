#include "state/figurestate.h"

namespace pe {

FigureState::FigureState(const ExplorerState &state) : m_v(state.values()) {}

qint64 FigureState::visibleDims() const
{
    const qint64 limit = m_v.view.heatmapDimLimit;
    return limit > 0 ? qMin(limit, m_v.spec.dims) : m_v.spec.dims;
}

QList<qint64> FigureState::plottedDims() const
{
    QList<qint64> dims;
    for (const qint64 d : m_v.view.waveDims)
        if (d < m_v.spec.dims && !dims.contains(d))
            dims.append(d);
    if (m_v.view.selection.dim < m_v.spec.dims && !dims.contains(m_v.view.selection.dim))
        dims.append(m_v.view.selection.dim);
    return dims;
}

} // namespace pe
