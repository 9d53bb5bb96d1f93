// Figure text that fits its panel: a title element whose lines are elided ("…") to the width the
// layout gives it instead of widening its column past the figure (a long title was cut on both
// sides at scale factor 2), and an axis ticker that puts ticks on whole numbers only (tokens and
// dims are counted, never 2.5). Used by the phrase figures.
#pragma once

#include "figures/qcpinclude.h"

namespace pe {

class FittedTextElement : public QCPTextElement
{
public:
    FittedTextElement(QCustomPlot *plot, const QString &text, const QFont &font);

    // The text as drawn at the element's current width (lines elided where they do not fit).
    QString shownText() const;

protected:
    void draw(QCPPainter *painter) override;
    // As tall as all its lines, and no wider than a few characters: the column's width comes
    // from the plots, and each line is elided to it.
    QSize minimumOuterSizeHint() const override;
};

// A figure's layout: a bold title row (the figure's font one point larger, FittedTextElement),
// then a grid the builder fills. Used by the model figures (table and attention).
QCPLayoutGrid *fittedTitledGrid(QCustomPlot *plot, const QString &title);

// Ticks at whole numbers only: steps of 1, 2 or 5 times a power of ten, never below 1; no more
// ticks than the axis has room for labels (a short heatmap's "0 5 10 15" overlapped).
// QCustomPlot places ticks before it lays a figure out, so the first time (a new figure, an
// export) a vertical axis' length is taken as `share` of the figure's height less
// `reservedLines` lines of text (titles, tick labels), a horizontal one's as `share` of its width.
class IntegerTicker : public QCPAxisTicker
{
public:
    IntegerTicker(QCPAxis *axis, double share, int reservedLines)
        : m_axis(axis), m_share(share), m_reservedLines(reservedLines)
    {}

protected:
    double getTickStep(const QCPRange &range) override;

private:
    QCPAxis *m_axis;
    double m_share;
    int m_reservedLines;
};

void useIntegerTicks(QCPAxis *axis, double share, int reservedLines = 0);

// QCustomPlot's own tick spacing (its tick count, no layout needed) on an axis of indices: a
// step below 1 becomes 1 and 2.5 x 10^k becomes 5 x 10^k, so that no tick falls between two
// positions or dims (the heatmap's "2.5 7.5 12.5" at 150% zoom, issue 46.8).
class WholeStepTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override;
};

// QCustomPlot's own tick steps (1, 2, 2.5 or 5 times a power of ten), widened to 1, 2 or 5 times
// a power of ten where its labels would come closer than a line (vertical) or than their widths
// (horizontal) at the axis' laid-out length: a colour bar as short as a slide's phrase heatmap
// drew "2 1 0 -1" on top of each other (issue 46). The length is the one the last layout gave;
// exports lay a figure out before they paint it, and window plots relay (relayTicksAfterLayout)
// or replot on the next resize.
class SpacedTicker : public QCPAxisTicker
{
public:
    explicit SpacedTicker(QCPAxis *axis) : m_axis(axis) {}

protected:
    double getTickStep(const QCPRange &range) override;

private:
    QCPAxis *m_axis;
};

// Puts a SpacedTicker on `axis` (a colour bar's, a wave plot's values).
void useSpacedTicks(QCPAxis *axis);

// A window's plot drawn once more whenever a layout changed its axis rects' sizes (a new figure,
// a resize), so that ticks placed before that layout (IntegerTicker) follow the new lengths.
void relayTicksAfterLayout(QCustomPlot *plot);

} // namespace pe
