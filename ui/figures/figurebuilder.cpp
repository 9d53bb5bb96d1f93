#include "figures/figurebuilder.h"

#include "figures/qcpinclude.h"

#include <QFontMetrics>

namespace pe {

namespace {

// Room between a legend placed outside the plot and the page's edge.
constexpr int legendEdgeRoom = 4;

// `text` broken at spaces into lines no wider than `width` pixels in `font` (a title must not
// run off a narrow panel, nor a legend entry off the page); a single word wider than that stays
// whole, and the text's own line breaks stay.
QString wrapText(const QString &text, const QFont &font, int width)
{
    const QFontMetrics metrics(font);
    QStringList lines;
    for (const QString &paragraph : text.split(QLatin1Char('\n'))) {
        QString line;
        for (const QString &word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (!line.isEmpty() && metrics.horizontalAdvance(candidate) > width) {
                lines.append(line);
                line = word;
            } else {
                line = candidate;
            }
        }
        if (!line.isEmpty())
            lines.append(line);
    }
    return lines.join(QLatin1Char('\n'));
}

// An element that keeps `element` at its minimum size, centred in the cell it gets: QCPLayoutGrid
// stretches elements to their cells, and a stretched legend draws a stretched frame.
QCPLayoutGrid *centred(QCustomPlot *plot, QCPLayoutElement *element, Qt::Orientation along)
{
    auto *grid = new QCPLayoutGrid;
    // QCPLegend strokes its frame on its outer rect, one pixel past its right and bottom
    // edges: at the page's edge (the last cell of the layout) that line was clipped.
    // Below the plot, that one pixel only: the panel is short on small pages.
    grid->setMargins(along == Qt::Vertical ? QMargins(0, 0, legendEdgeRoom, 0)
                                           : QMargins(0, 0, 0, 1));
    const QSize hint = element->minimumOuterSizeHint();
    element->setMaximumSize(hint);
    for (int i = 0; i < 3; ++i) {
        QCPLayoutElement *cell = i == 1 ? element : new QCPLayoutElement(plot);
        if (along == Qt::Vertical)
            grid->addElement(i, 0, cell);
        else
            grid->addElement(0, i, cell);
    }
    if (along == Qt::Vertical)
        grid->setRowStretchFactor(1, 0.01);
    else
        grid->setColumnStretchFactor(1, 0.01);
    return grid;
}

} // namespace

void placeLegend(QCustomPlot *plot, QCPAxisRect *rect, QCPLegend *legend,
                 std::optional<LegendPlace> requested)
{
    // The window: entries in a row under the plot, where they never hide the curves (inside,
    // at 1280 x 720 they covered the waves from p ≈ 170) and leave the x axis as wide as the
    // heatmap's below it.
    LegendPlace place = requested.value_or(LegendPlace::Below);
    if (place == LegendPlace::None || legend->itemCount() == 0) {
        legend->setVisible(false);
        return;
    }
    const int width = plot->viewport().width();
    if (place == LegendPlace::Auto)
        place = legend->minimumOuterSizeHint().width() <= 0.3 * width ? LegendPlace::OutsideRight
                                                                      : LegendPlace::Below;
    QCPLayoutInset *inset = rect->insetLayout();
    const auto corner = [&](Qt::Alignment alignment) {
        inset->setInsetAlignment(0, alignment);
        inset->setMargins(QMargins(12, 12, 12, 12));
    };
    switch (place) {
    case LegendPlace::UpperRight:
        corner(Qt::AlignRight | Qt::AlignTop);
        return;
    case LegendPlace::UpperLeft:
        corner(Qt::AlignLeft | Qt::AlignTop);
        return;
    case LegendPlace::LowerLeft:
        corner(Qt::AlignLeft | Qt::AlignBottom);
        return;
    case LegendPlace::LowerRight:
        corner(Qt::AlignRight | Qt::AlignBottom);
        return;
    default:
        break;
    }
    inset->take(legend);
    inset->simplify();
    // Beside or below `rect` in the grid that holds it (the plot's, or a figure's own grid of
    // several rects).
    auto *main = qobject_cast<QCPLayoutGrid *>(rect->layout());
    if (!main)
        main = plot->plotLayout();
    int row = 0, column = 0;
    for (int r = 0; r < main->rowCount(); ++r)
        for (int c = 0; c < main->columnCount(); ++c)
            if (main->element(r, c) == rect)
                row = r, column = c;
    if (place == LegendPlace::OutsideRight) {
        if (main->hasElement(row, column + 1))
            main->insertColumn(column + 1);
        main->addElement(row, column + 1, centred(plot, legend, Qt::Vertical));
        main->setColumnStretchFactor(column + 1, 0.01);
        return;
    }
    // Below: entries side by side, as many per row as the width holds.
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
    int itemWidth = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        itemWidth = qMax(itemWidth, legend->item(i)->minimumOuterSizeHint().width());
    const int perRow =
        qBound(1, (width - 40) / qMax(1, itemWidth + legend->columnSpacing()), legend->itemCount());
    legend->setWrap(perRow);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    if (main->hasElement(row + 1, column))
        main->insertRow(row + 1);
    main->addElement(row + 1, column, centred(plot, legend, Qt::Horizontal));
    main->setRowStretchFactor(row + 1, 0.01);
}

namespace {

// The width a laid-out legend may take: its axis rect's inside for a legend in a corner, the
// page for one beside or below the plot.
int legendRoom(QCustomPlot *plot, QCPLegend *legend)
{
    if (auto *inset = qobject_cast<QCPLayoutInset *>(legend->layout())) {
        const QMargins m = inset->margins();
        return inset->rect().width() - m.left() - m.right();
    }
    return plot->viewport().width() - 2 * legendEdgeRoom;
}

} // namespace

bool fitLegends(QCustomPlot *plot)
{
    bool changed = false;
    for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
        if (!legend->visible() || legend->itemCount() == 0)
            continue;
        const int room =
            legendRoom(plot, legend) - legend->margins().left() - legend->margins().right();
        for (int i = 0; i < legend->itemCount(); ++i) {
            auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i));
            // Through the base class: QCPPlottableLegendItem makes it protected.
            const QCPLayoutElement *element = item;
            if (!item || element->minimumOuterSizeHint().width() <= room)
                continue;
            QCPAbstractPlottable *plottable = item->plottable();
            const int text = QFontMetrics(item->font())
                                 .boundingRect(0, 0, 0, 0, Qt::TextDontClip, plottable->name())
                                 .width();
            const int rest = element->minimumOuterSizeHint().width() - text;
            plottable->setName(wrapText(plottable->name(), item->font(), qMax(1, room - rest)));
            changed = true;
        }
        if (changed) // centred() held it at its size before
            legend->setMaximumSize(legend->minimumOuterSizeHint());
        // QCPLayoutGrid rounds each row's and column's size, which can take a pixel more than
        // the page has: the frame of a legend outside the plot moves in by that much.
        const QRect page(QPoint(0, 0), plot->viewport().size());
        const QRect frame = legend->outerRect().adjusted(0, 0, 1, 1); // drawRect's extra pixel
        auto *holder = qobject_cast<QCPLayoutGrid *>(legend->layout());
        if (holder && !page.contains(frame)) {
            QMargins m = holder->margins();
            m.setRight(m.right() + qMax(0, frame.right() - page.right()));
            m.setBottom(m.bottom() + qMax(0, frame.bottom() - page.bottom()));
            holder->setMargins(m);
            changed = true;
        }
    }
    return changed;
}

QCPLegend *addFigureLegend(QCPAxisRect *rect)
{
    QCustomPlot *plot = rect->parentPlot();
    auto *legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignRight | Qt::AlignTop);
    legend->setFont(plot->font());
    legend->setLayer(QStringLiteral("legend"));
    legend->setVisible(true);
    plot->legend = legend;
    return legend;
}

FigureBuilder::FigureBuilder(const FigureState &state, const PlotTheme &theme)
    : m_state(state), m_theme(theme)
{}

QList<qint64> FigureBuilder::plottedDims() const
{
    QList<qint64> all = m_state.plottedDims();
    if (m_showSelection)
        return all;
    QList<qint64> dims;
    for (qint64 d : all)
        if (m_state.waveDims().contains(d))
            dims.append(d);
    return dims.isEmpty() ? all : dims;
}

QString FigureBuilder::tokenLabel(const PhraseResult &result, int phrase, qint64 token)
{
    const PhraseEmbedding &e = result.fixed;
    if (phrase < 0 || phrase >= int(e.ids.size()) || token < 0 ||
        token >= qint64(e.ids[std::size_t(phrase)].size()))
        return {};
    const qint64 id = e.ids[std::size_t(phrase)][std::size_t(token)];
    if (id == 0)
        return QStringLiteral("‹pad›");
    return id < e.vocabulary.size() ? e.vocabulary[id] : QStringLiteral("[UNK]");
}

QPen FigureBuilder::markerPen(int index) const
{
    // Géron's notebook draws p = 22 "k--" and p = 60 "k--" with alpha 0.5: the first marker
    // stands out, the others are faded.
    QColor colour = m_theme.marker;
    if (index > 0)
        colour.setAlphaF(0.5);
    return QPen(colour, 1.5, Qt::DashLine);
}

} // namespace pe
