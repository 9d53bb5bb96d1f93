// The caption line of an exported figure: the parameters behind its views, in words.
#pragma once

#include "state/figurestate.h"
#include "state/figureviews.h"

#include <QList>
#include <QString>

namespace pe {

// "sinusoidal (interleaved), 201 positions × 512 dims, base 10000 · first 150 dims, transposed"
// The waves' dims are those drawn: with `showSelection` the selected dim's wave is among them.
QString figureCaption(const FigureState &state, const QList<FigureView> &views, bool showSelection);

} // namespace pe
