#include "figures/plottheme.h"

#include "figures/qcpinclude.h"

namespace pe {

PlotTheme plotTheme(Theme theme)
{
    PlotTheme t;
    if (theme == Theme::Dark) {
        t.background = QColor(0x1f, 0x22, 0x26);
        t.foreground = QColor(0xd8, 0xdc, 0xe0);
        t.grid = QColor(0x3a, 0x3f, 0x46);
        t.subGrid = QColor(0x2a, 0x2e, 0x33);
        t.zeroLine = QColor(0x6a, 0x70, 0x78);
        t.marker = QColor(0xe8, 0xe8, 0xe8);
        t.selection = QColor(0xff, 0xc1, 0x07);
        t.legendBackground = QColor(0x2a, 0x2e, 0x33, 235);
        // Lighter, less saturated versions of matplotlib's "b" and "r", then tab10's rest.
        t.curves = {QColor(0x5c, 0x9d, 0xff), QColor(0xff, 0x6b, 0x6b), QColor(0x5f, 0xd3, 0x8d),
                    QColor(0xc7, 0x92, 0xea), QColor(0xff, 0xb8, 0x6c), QColor(0x4d, 0xd0, 0xe1),
                    QColor(0xf7, 0x8c, 0xc8), QColor(0xcf, 0xcf, 0x7a)};
    } else {
        t.background = Qt::white;
        t.foreground = QColor(0x20, 0x20, 0x20);
        t.grid = QColor(0xdd, 0xdd, 0xdd);
        t.subGrid = QColor(0xf0, 0xf0, 0xf0);
        t.zeroLine = QColor(0xa0, 0xa0, 0xa0);
        t.marker = Qt::black;
        t.selection = QColor(0xff, 0x8c, 0x00);
        t.legendBackground = QColor(255, 255, 255, 242);
        // matplotlib's "b" and "r" (Fig 16-9), then tab10.
        t.curves = {QColor(0, 0, 255),        QColor(255, 0, 0),        QColor(0x2c, 0xa0, 0x2c),
                    QColor(0x94, 0x67, 0xbd), QColor(0xff, 0x7f, 0x0e), QColor(0x17, 0xbe, 0xcf),
                    QColor(0xe3, 0x77, 0xc2), QColor(0xbc, 0xbd, 0x22)};
    }
    return t;
}

QPalette applicationPalette(Theme theme)
{
    if (theme == Theme::Light)
        return QPalette(QColor(0xef, 0xef, 0xef)); // Fusion's light defaults
    QPalette p;
    const QColor window(0x2b, 0x2e, 0x33), base(0x1f, 0x22, 0x26), text(0xe0, 0xe3, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x90, 0x98));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Link, QColor(0x5c, 0x9d, 0xff));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x6f, 0xb6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x3a, 0x3f, 0x46));
    p.setColor(QPalette::Midlight, QColor(0x34, 0x38, 0x3e));
    p.setColor(QPalette::Mid, QColor(0x24, 0x27, 0x2b));
    p.setColor(QPalette::Dark, QColor(0x18, 0x1a, 0x1d));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x7a, 0x80, 0x88));
    return p;
}

void styleAxis(QCPAxis *axis, const PlotTheme &theme)
{
    const QPen pen(theme.foreground, 1);
    axis->setBasePen(pen);
    axis->setTickPen(pen);
    axis->setSubTickPen(pen);
    axis->setTickLabelColor(theme.foreground);
    axis->setLabelColor(theme.foreground);
    axis->grid()->setPen(QPen(theme.grid, 1, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(theme.subGrid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(QPen(theme.zeroLine, 1));
}

void styleColorScale(QCPColorScale *scale, const PlotTheme &theme)
{
    styleAxis(scale->axis(), theme);
    scale->axis()->grid()->setVisible(false);
}

void applyPlotTheme(QCustomPlot *plot, const PlotTheme &theme)
{
    plot->setBackground(QBrush(theme.background));
    for (QCPAxisRect *rect : plot->axisRects()) {
        rect->setBackground(QBrush(theme.background));
        for (QCPAxis *axis : rect->axes())
            styleAxis(axis, theme);
    }
    const QList<QCPLayoutElement *> elements = plot->plotLayout()->elements(true);
    for (QCPLayoutElement *element : elements) {
        if (auto *scale = qobject_cast<QCPColorScale *>(element))
            styleColorScale(scale, theme);
        else if (auto *text = qobject_cast<QCPTextElement *>(element))
            text->setTextColor(theme.foreground);
    }
    if (plot->legend) {
        plot->legend->setBrush(QBrush(theme.legendBackground));
        plot->legend->setTextColor(theme.foreground);
        plot->legend->setBorderPen(QPen(theme.grid));
    }
}

void resetFigure(QCustomPlot *plot, const PlotTheme &theme)
{
    plot->clearItems();
    plot->clearPlottables();
    plot->plotLayout()->clear();
    const auto groups = plot->findChildren<QCPMarginGroup *>(QString(), Qt::FindDirectChildrenOnly);
    qDeleteAll(groups);
    plot->plotLayout()->simplify();
    plot->legend = nullptr;
    plot->setAutoAddPlottableToLegend(false);
    plot->setBackground(QBrush(theme.background));
}

PlotTheme printPlotTheme()
{
    PlotTheme t = plotTheme(Theme::Light);
    t.background = Qt::white;
    t.foreground = Qt::black;
    t.grid = QColor(0xd0, 0xd0, 0xd0);
    t.subGrid = QColor(0xe8, 0xe8, 0xe8);
    t.zeroLine = QColor(0x80, 0x80, 0x80);
    t.marker = Qt::black;
    t.legendBackground = Qt::white;
    return t;
}

} // namespace pe
