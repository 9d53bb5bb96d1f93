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

// Ticks at whole numbers only: steps of 1, 2 or 5 times a power of ten, never below 1.
class IntegerTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override;
};

void useIntegerTicks(QCPAxis *axis);

} // namespace pe
