// The caption line of an exported figure: the parameters behind its views, in words.
#pragma once

#include "figures/figureviews.h"
#include "state/explorerstate.h"

#include <QList>
#include <QString>

namespace pe {

// "sinusoidal (interleaved), 201 positions × 512 dims, base 10000 · first 150 dims, transposed"
QString figureCaption(const ExplorerState &state, const QList<FigureView> &views);

} // namespace pe
