// An axis rect whose axes fit their text to the length the layout gives them (issue 38 item 11:
// at --font-scale 3 the spectrum's tick labels "1 1/2 1/4 1/8" overlapped and its two rotated
// axis titles ran into each other and into the figure's title). Once the rect is laid out, each
// axis keeps every k-th tick, the smallest k that leaves neighbouring labels apart, and its title
// is elided ("…") to the axis' length. Margins are computed from all the labels before, so the
// thinned labels always have room.
#pragma once

#include "figures/qcpinclude.h"

namespace pe {

class FittedAxis : public QCPAxis
{
public:
    using QCPAxis::QCPAxis;

    // The ticks of the current range, thinned to those whose labels stay apart at the axis'
    // current length in pixels.
    void fitTicks();
    // The title as drawn at the axis' current length: the label where it fits, else the first
    // of the shorter forms that fits, else the shortest elided ("θ scaled / …" said nothing).
    QString shownLabel() const;
    void setShorterLabels(const QStringList &labels) { m_shorter = labels; }
    // The room one tick label needs along the axis, next to a neighbour: its line height
    // (vertical axes) or half of each label's width and a character's gap (horizontal).
    double labelGap(const QString &a, const QString &b) const;

protected:
    void draw(QCPPainter *painter) override;

private:
    QStringList m_shorter;
};

class FittedAxisRect : public QCPAxisRect
{
public:
    // Four FittedAxis, set up as QCPAxisRect's default axes are (bottom and left shown with
    // their grids, top and right hidden).
    explicit FittedAxisRect(QCustomPlot *plot);

protected:
    void update(UpdatePhase phase) override;
};

} // namespace pe
