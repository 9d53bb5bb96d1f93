// FigureOptions: how an exported figure looks (views, size, DPI, title, caption, print theme,
// interpolation) with its field table and limits, for File → Export figure and `pescope export`.
#pragma once

#include "state/figurestyle.h"
#include "state/figureviews.h"

#include "fields/field.h"

#include <QList>
#include <QString>

namespace pe {

// Limits on what an export may ask for, checked by FigureOptions::validate().
namespace figurelimits {
constexpr int minSide = 16;               // pixels
constexpr int maxSide = 30000;            // pixels
constexpr qint64 maxPixels = 100'000'000; // width x height
// The smallest layout, in the window's logical pixels (width x dpi / screen dpi): room for the
// axes, tick labels and a legend beside two stacked panels.
constexpr int minLayoutWidth = 320;
constexpr int minLayoutHeight = 240;
constexpr double minDpi = 10.0;
constexpr double maxDpi = 2400.0;
// Heatmaps up to this many cells are embedded in SVG / PDF at full resolution (one image pixel
// or more per cell); larger ones are box-filtered down to it.
constexpr qint64 maxEmbeddedCells = qint64(1) << 24;
} // namespace figurelimits

struct FigureOptions
{
    QList<FigureView> views{FigureView::Heatmap};
    qint64 width = 1200; // device pixels of the PNG; with dpi, the page size of SVG and PDF
    qint64 height = 800;
    double dpi = 96.0; // 96 draws text and lines as large as the window shows them
    bool printTheme =
        false; // black on white with print-friendly greys, whatever the window's theme
    bool interpolate = false; // smooth heatmap cells instead of nearest neighbour
    QString title;            // drawn above the figure when not empty
    bool caption = false;     // a line below the figure with the parameters
    QString captionText;      // replaces the generated caption when not empty
    FigureStyle style;        // its own table (FigureStyle::fields()), saved with sessions
    ViewChoices choices;      // the model phrase figures' phrase and head

    // width, height, dpi, title, caption, caption text, print theme, interpolate.
    static FieldTable<FigureOptions> fields();
    // Empty when usable; else one sentence naming the bad value.
    QString validate() const;
    double widthInches() const { return double(width) / dpi; }
    double heightInches() const { return double(height) / dpi; }
};

// The screen's logical DPI: the resolution the window lays plots out at, so a figure exported at
// this DPI has the window's text and line sizes (96 without a screen).
double figureBaseDpi();

} // namespace pe
