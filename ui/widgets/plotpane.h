// A view's plot above its readout line, as the heatmap and the waves views lay them out: the
// plot takes the space, drags and zooms (one replot per burst of wheel turns), and the readout's
// text can be selected and copied.
#pragma once

#include <QSize>
#include <QString>

class QCustomPlot;
class QLabel;
class QWidget;

namespace pe {

struct PlotPaneText
{
    QString plotName; // object names, for tests and style sheets
    QString plotToolTip;
    QString readoutName;
    QString readoutToolTip;
};

// Lays out `plot` over `readout` in `view` (which has no layout yet) with the texts given.
void setUpPlotPane(QWidget *view, QCustomPlot *plot, QLabel *readout, QSize plotMinimum,
                   const PlotPaneText &text);

// A widget of the window beside a figure, not part of it (a hover readout, a view's hint): a
// presentation hides it with the control panels (issue 46.7). setUpPlotPane marks its readout.
void markAsWindowControl(QWidget *widget);
bool isWindowControl(const QWidget *widget);

} // namespace pe
