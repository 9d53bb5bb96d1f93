// FigurePlot: the window's plots (issue 46). QCustomPlot answers minimumSizeHint() and
// sizeHint() with its figure's own layout: a legend laid out in one row at full screen (a lesson
// presented) asked for 1433 px, and Qt made that the window's minimum size, so the window came
// back wider than a 1280 px screen and could neither shrink nor maximize. A figure adapts to the
// plot's size (its builders read the viewport), never the other way round: the plot's minimum
// is a fixed small size (or what its view sets with setMinimumSize), and its preferred size is
// bounded.
#pragma once

#include "figures/qcpinclude.h"

namespace pe {

class FigurePlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit FigurePlot(QWidget *parent = nullptr);

    // The least size any figure is drawn at, whatever its legend or labels would like.
    static constexpr QSize smallest{160, 120};
    // The most a figure asks for when there is room; more is given by the layout's stretch.
    static constexpr QSize largestHint{480, 360};

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;
};

} // namespace pe
