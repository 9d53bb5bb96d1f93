#include "figures/fittedtext.h"

#include <QFontMetrics>

#include <cmath>

namespace pe {

FittedTextElement::FittedTextElement(QCustomPlot *plot, const QString &text, const QFont &font)
    : QCPTextElement(plot, text, font)
{}

QString FittedTextElement::shownText() const
{
    const QFontMetrics metrics(mSelected ? mSelectedFont : mFont);
    const int width = qMax(1, mRect.width());
    QStringList lines = mText.split(QLatin1Char('\n'));
    for (QString &line : lines)
        line = metrics.elidedText(line, Qt::ElideRight, width);
    return lines.join(QLatin1Char('\n'));
}

void FittedTextElement::draw(QCPPainter *painter)
{
    painter->setFont(mainFont());
    painter->setPen(QPen(mainTextColor()));
    painter->drawText(mRect, mTextFlags, shownText(), &mTextBoundingRect);
}

QSize FittedTextElement::minimumOuterSizeHint() const
{
    const QFontMetrics metrics(mFont);
    QSize size = metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip, mText).size();
    size.setWidth(qMin(size.width(), 4 * metrics.averageCharWidth()));
    size.rwidth() += mMargins.left() + mMargins.right();
    size.rheight() += mMargins.top() + mMargins.bottom();
    return size;
}

double IntegerTicker::getTickStep(const QCPRange &range)
{
    const double step = QCPAxisTicker::getTickStep(range);
    if (!(step > 1.0))
        return 1.0;
    const double power = std::pow(10.0, std::floor(std::log10(step)));
    for (double mantissa : {1.0, 2.0, 5.0, 10.0})
        if (mantissa * power >= step - 1e-9)
            return mantissa * power;
    return 10.0 * power;
}

void useIntegerTicks(QCPAxis *axis)
{
    axis->setTicker(QSharedPointer<IntegerTicker>::create());
    axis->setSubTicks(false);
}

} // namespace pe
