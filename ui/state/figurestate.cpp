#include "state/figurestate.h"

#include "state/explorerstate.h"

namespace pe {

FigureState::FigureState(const ExplorerState &state) : m_v(state.values()) {}

} // namespace pe
