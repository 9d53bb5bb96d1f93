#include "figures/figurebuilder.h"

#include "analysis/phraseanalysis.h"
#include "figures/figureparts.h"
#include "figures/fittedtext.h"

#include "figures/qcpinclude.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pe {

namespace {

// Token labels, rotated 60°, thinned when the axis is laid out: each needs about its line height
// / sin 60° of axis, so every step-th token is labelled, step following the axis' length then
// (issue 38 item 8: labels overlapped once the undo dock narrowed the plot).
class ThinnedTextTicker : public QCPAxisTickerText
{
public:
    // `reserved`: the viewport's width beside the axis (margins, the legend), to estimate the
    // axis' length before the first layout.
    ThinnedTextTicker(QCPAxis *axis, int reserved) : m_axis(axis), m_reserved(reserved) {}

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override
    {
        QVector<double> all = QCPAxisTickerText::createTickVector(tickStep, range);
        if (mTicks.isEmpty() || range.size() <= 0)
            return all;
        const double labelSpan =
            QFontMetricsF(m_axis->tickLabelFont()).height() / std::sin(std::numbers::pi / 3) + 2;
        // Ticks are set up before the layout: the axis' length from the last layout while that
        // was of this viewport, else the estimate.
        QCustomPlot *plot = m_axis->parentPlot();
        const bool laidOut =
            plot->plotLayout()->outerRect() == plot->viewport() && m_axis->axisRect()->width() > 1;
        const double length = laidOut
                                  ? double(m_axis->axisRect()->width())
                                  : std::max(60.0, double(plot->viewport().width() - m_reserved));
        const double perToken = length / range.size();
        const qint64 step = std::max<qint64>(1, qint64(std::ceil(labelSpan / perToken)));
        const double first = mTicks.firstKey();
        QVector<double> kept;
        for (double key : all)
            if (qint64(std::llround(key - first)) % step == 0)
                kept.append(key);
        return kept;
    }

private:
    QCPAxis *m_axis;
    int m_reserved;
};

} // namespace

int FigureBuilder::otherPhrase() const
{
    const int clicked = m_state.phraseSelection().phrase;
    return clicked == m_state.compareB() ? m_state.compareA() : m_state.compareB();
}

void FigureBuilder::buildTokenSimilarity(QCustomPlot *plot, const PhraseResult &result) const
{
    resetFigure(plot, m_theme);
    const PhraseSettings &s = result.settings;
    const PhraseSelection sel = m_state.phraseSelection();
    // The other phrase's tokens of the current token page.
    const PhraseWindow w = m_state.phrasePage().window(s);
    auto *main = plot->plotLayout();
    const bool valid =
        sel.phrase >= 0 && sel.phrase < s.phrases.size() && sel.token < s.sequenceLength;
    const int other = otherPhrase();
    // Two lines at most, each elided to the panel's width: wrapped word by word, the title took
    // five lines of a narrow panel and squashed the axis below it.
    const QString title =
        valid ? QStringLiteral("Cosine similarity to %1\nof “%2” (%3, token %4)")
                        .arg(shortText(s.title(other), 24),
                             shortText(tokenLabel(result, sel.phrase, sel.token), 24),
                             shortText(s.title(sel.phrase), 24))
                        .arg(sel.token) +
                    (w.tokens() < s.sequenceLength ? QStringLiteral(", tokens %1–%2 of %3")
                                                         .arg(w.firstToken)
                                                         .arg(w.endToken - 1)
                                                         .arg(s.sequenceLength)
                                                   : QString())
              : QStringLiteral("Click a token in the grid\nto compare it with another phrase");
    addTitle(plot, main, 0, 0, title, 1.5, true);
    auto *rect = new QCPAxisRect(plot, true);
    main->addElement(1, 0, rect);
    main->setRowStretchFactor(0, 0.01);
    QCPAxis *x = rect->axis(QCPAxis::atBottom);
    QCPAxis *y = rect->axis(QCPAxis::atLeft);
    y->setLabel(QStringLiteral("cosine similarity"));
    y->setRange(-1.05, 1.05);
    x->setRange(double(w.firstToken) - 0.7, double(w.endToken) - 0.3);
    int legendWidth = 0;
    if (valid) {
        auto *group = new QCPBarsGroup(plot);
        group->setSpacing(1);
        int colour = 0;
        // The legend stands beside the plot, one entry above the other: inside the plot it
        // covered the bars, and in a row of its own it took the height a short panel needs
        // for the axis.
        auto *legendColumn = new QCPLayoutGrid;
        main->addElement(1, 1, legendColumn);
        main->setColumnStretchFactor(1, 0.01);
        auto *legend = new QCPLegend;
        legend->setFont(plot->font()); // the figure's, scaled: QCPLegend starts in the app's
        // Plain elements as spacers (an empty QCPLayoutGrid has a maximum height of 0).
        legendColumn->addElement(0, 0, new QCPLayoutElement(plot));
        legendColumn->addElement(1, 0, legend);
        legendColumn->addElement(2, 0, new QCPLayoutElement(plot));
        legendColumn->setRowStretchFactor(1, 0.01);
        legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
        legend->setLayer(QStringLiteral("legend"));
        plot->legend = legend;
        for (EmbeddingMode mode : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
            auto *bars = new QCPBars(x, y);
            bars->setBarsGroup(group);
            bars->setWidth(0.4);
            const QColor c = m_theme.curve(colour++ == 0 ? 4 : 0);
            bars->setPen(QPen(c.darker(120)));
            bars->setBrush(c);
            bars->setName(mode == EmbeddingMode::Random ? QStringLiteral("random")
                                                        : QStringLiteral("fixed"));
            const std::vector<double> cosines = tokenSimilarity(
                result.embedding(mode), sel.phrase, sel.token, other, w.firstToken, w.tokens());
            for (qint64 q = 0; q < qint64(cosines.size()); ++q)
                bars->addData(double(w.firstToken + q), cosines[std::size_t(q)]);
            bars->addToLegend(legend);
        }
        // Bar swatches smaller than QCustomPlot's 32 x 18 px, and narrower margins: beside a plot
        // at its least width (the Phrases page at 1024 x 600 with the Lesson panel open) the
        // legend was squeezed and cut its text, "rando" for "random" (issue 46).
        legend->setIconSize(QSize(12, 10));
        legend->setIconTextPadding(4);
        legend->setMargins(QMargins(4, 3, 4, 3));
        legend->setMaximumSize(legend->minimumOuterSizeHint());
        legendWidth = legend->minimumOuterSizeHint().width();
    }
    useSpacedTicks(y); // "1 0.5 0 -0.5 -1" a line apart on a short panel
    // Every token's label, thinned when drawn (ThinnedTextTicker) so that they fit the axis'
    // length then: a dock opened beside the plot narrows it after the figure was built.
    auto ticker = QSharedPointer<ThinnedTextTicker>::create(x, 100 + legendWidth);
    // Labels of 10 characters at most: rotated, their length is the axis' height.
    for (qint64 q = w.firstToken; q < w.endToken; ++q)
        ticker->addTick(double(q), shortText(tokenLabel(result, other, q), 10));
    x->setTicker(ticker);
    x->setTickLabelRotation(60);
    x->setSubTicks(false);
    x->grid()->setVisible(false);
    applyPlotTheme(plot, m_theme);
}

} // namespace pe
