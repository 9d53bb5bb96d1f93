#include "figures/fittedtext.h"

#include <QFontMetrics>
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <memory>

namespace pe {

QCPLayoutGrid *fittedTitledGrid(QCustomPlot *plot, const QString &title)
{
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() + 1.0);
    font.setBold(true);
    auto *text = new FittedTextElement(plot, title, font);
    text->setTextFlags(Qt::AlignCenter);
    plot->plotLayout()->addElement(0, 0, text);
    auto *grid = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, grid);
    plot->plotLayout()->setRowStretchFactor(0, 0.01);
    return grid;
}

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
    // A label's size along the axis: its line height (vertical), the widest label's width and a
    // character's gap (horizontal).
    const QFontMetrics metrics(m_axis->tickLabelFont());
    const bool vertical = m_axis->orientation() == Qt::Vertical;
    const QRect laidOut = m_axis->axisRect()->rect();
    const QRect figure = m_axis->parentPlot()->viewport();
    const int lines = vertical ? m_reservedLines * metrics.height() : 0;
    const int room =
        !laidOut.isEmpty()
            ? (vertical ? laidOut.height() : laidOut.width())
            : int(m_share * double((vertical ? figure.height() : figure.width()) - lines));
    const double label =
        vertical ? metrics.height() + 1.0
                 : metrics.horizontalAdvance(QString::number(qint64(std::ceil(range.upper)))) +
                       double(metrics.averageCharWidth());
    // Neighbouring labels at least a label apart: a step of at least label x range / room units,
    // rounded up to 1, 2 or 5 times a power of ten (QCPAxisTicker's own rounding goes below).
    // Ten labels at most, as matplotlib's locators keep to a handful.
    const double exact =
        qMax(room > 0 ? label * range.size() / double(room) : 0.0, range.size() / 10.0);
    if (!(exact > 1.0))
        return 1.0;
    const double power = std::pow(10.0, std::floor(std::log10(exact)));
    for (double mantissa : {1.0, 2.0, 5.0, 10.0})
        if (mantissa * power >= exact - 1e-9)
            return mantissa * power;
    return 10.0 * power;
}

double WholeStepTicker::getTickStep(const QCPRange &range)
{
    const double step = QCPAxisTicker::getTickStep(range);
    if (!(step > 1.0))
        return 1.0;
    const double power = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    for (double mantissa : {1.0, 2.0, 5.0, 10.0})
        if (mantissa * power >= step - 1e-9)
            return mantissa * power;
    return 10.0 * power;
}

double SpacedTicker::getTickStep(const QCPRange &range)
{
    const double step = QCPAxisTicker::getTickStep(range);
    const QCPAxisRect *rect = m_axis->axisRect();
    const bool vertical = m_axis->orientation() == Qt::Vertical;
    const int room = rect ? (vertical ? rect->rect().height() : rect->rect().width()) : 0;
    if (room <= 0 || !(range.size() > 0))
        return step;
    const QFontMetricsF metrics(m_axis->tickLabelFont());
    // As FittedAxis::labelGap: a line and a tenth, or the widest end's label and a character.
    const double label =
        vertical ? metrics.height() * 1.1
                 : std::max(metrics.horizontalAdvance(QString::number(range.lower, 'g', 4)),
                            metrics.horizontalAdvance(QString::number(range.upper, 'g', 4))) +
                       metrics.averageCharWidth();
    const double least = label * range.size() / double(room);
    if (step >= least)
        return step;
    const double power = std::pow(10.0, std::floor(std::log10(least)));
    for (double mantissa : {1.0, 2.0, 5.0, 10.0})
        if (mantissa * power >= least - 1e-12 * power)
            return mantissa * power;
    return 10.0 * power;
}

void useSpacedTicks(QCPAxis *axis)
{
    axis->setTicker(QSharedPointer<SpacedTicker>::create(axis));
}

void useIntegerTicks(QCPAxis *axis, double share, int reservedLines)
{
    axis->setTicker(QSharedPointer<IntegerTicker>::create(axis, share, reservedLines));
    axis->setSubTicks(false);
}

void relayTicksAfterLayout(QCustomPlot *plot)
{
    auto sizes = std::make_shared<QList<QSize>>();
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot, sizes] {
        QList<QSize> now;
        for (const QCPAxisRect *rect : plot->axisRects())
            now.append(rect->rect().size());
        if (now == *sizes)
            return;
        *sizes = now;
        plot->replot(QCustomPlot::rpQueuedReplot);
    });
}

} // namespace pe
