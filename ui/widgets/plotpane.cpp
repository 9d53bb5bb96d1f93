#include "widgets/plotpane.h"

#include "figures/qcpinclude.h"
#include "widgets/wheelcoalescer.h"

#include <QLabel>
#include <QVBoxLayout>
#include <QVariant>

namespace pe {

void setUpPlotPane(QWidget *view, QCustomPlot *plot, QLabel *readout, QSize plotMinimum,
                   const PlotPaneText &text)
{
    auto *layout = new QVBoxLayout(view);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(plot, 1);
    layout->addWidget(readout);
    plot->setObjectName(text.plotName);
    plot->setToolTip(text.plotToolTip);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    WheelCoalescer::install(plot); // one replot per burst of wheel turns
    plot->setMinimumSize(plotMinimum);
    readout->setObjectName(text.readoutName);
    readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readout->setToolTip(text.readoutToolTip);
    markAsWindowControl(readout);
}

namespace {
constexpr char windowControlProperty[] = "peWindowControl";
} // namespace

void markAsWindowControl(QWidget *widget)
{
    widget->setProperty(windowControlProperty, true);
}

bool isWindowControl(const QWidget *widget)
{
    return widget->property(windowControlProperty).toBool();
}

} // namespace pe
