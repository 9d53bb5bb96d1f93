#include "figures/figureoptions.h"

#include <QGuiApplication>
#include <QScreen>

#include <cmath>

namespace pe {

double figureBaseDpi()
{
    if (const QScreen *screen = QGuiApplication::primaryScreen())
        return screen->logicalDotsPerInchY();
    return 96.0;
}

FieldTable<FigureOptions> FigureOptions::fields()
{
    using S = FigureOptions;
    using namespace figurelimits;
    static const Field<S> table[] = {
        {.key = "width",
         .flag = "width",
         .label = "Width",
         .help = "Width in pixels; with --dpi, the page width of SVG and PDF.",
         .kind = IntegerKind<S>{&S::width, {minSide, maxSide}},
         .unit = "px"},
        {.key = "height",
         .flag = "height",
         .label = "Height",
         .help = "Height in pixels.",
         .kind = IntegerKind<S>{&S::height, {minSide, maxSide}},
         .unit = "px"},
        {.key = "dpi",
         .flag = "dpi",
         .label = "DPI",
         .help = "Dots per inch: 96 draws text as large as the window does; 300 for print.",
         .kind = RealKind<S>{&S::dpi, {minDpi, maxDpi}}},
        {.key = "title",
         .flag = "title",
         .label = "Title",
         .help = "A title above the figure.",
         .kind = TextKind<S>{&S::title, 500}},
        {.key = "caption",
         .flag = "caption",
         .label = "Caption",
         .help = "A caption below the figure with the parameters.",
         .kind = BoolKind<S>{&S::caption}},
        {.key = "captionText",
         .flag = "caption-text",
         .label = "Caption text",
         .help = "A caption of your own instead of the parameters.",
         .kind = TextKind<S>{&S::captionText, 2000}},
        {.key = "printTheme",
         .flag = "print-theme",
         .label = "Print theme",
         .help = "Black on white for print, whatever the window's theme.",
         .kind = BoolKind<S>{&S::printTheme}},
        {.key = "interpolate",
         .flag = "interpolate",
         .label = "Interpolate",
         .help = "Smooth heatmap cells (default: nearest neighbour, one block per cell).",
         .kind = BoolKind<S>{&S::interpolate}},
    };
    return table;
}

QString FigureOptions::validate() const
{
    using namespace figurelimits;
    if (views.isEmpty())
        return QStringLiteral("no view chosen (%1)").arg(allFigureViewNames());
    for (const auto &[name, value] :
         {std::pair{QStringLiteral("width"), width}, std::pair{QStringLiteral("height"), height}})
        if (value < minSide || value > maxSide)
            return QStringLiteral("%1 must be between %2 and %3 pixels (got %4)")
                .arg(name)
                .arg(minSide)
                .arg(maxSide)
                .arg(value);
    if (qint64(width) * height > maxPixels)
        return QStringLiteral("%1 x %2 pixels is %3 megapixels; the limit is %4 megapixels")
            .arg(width)
            .arg(height)
            .arg(double(width) * height / 1e6, 0, 'f', 1)
            .arg(maxPixels / 1000000);
    if (!std::isfinite(dpi) || dpi < minDpi || dpi > maxDpi)
        return QStringLiteral("dpi must be between %1 and %2 (got %3)")
            .arg(minDpi)
            .arg(maxDpi)
            .arg(dpi);
    // The figure is laid out at the screen's DPI: too few inches leave no room for axes.
    const double base = figureBaseDpi();
    if (width * base / dpi < minLayoutWidth || height * base / dpi < minLayoutHeight)
        return QStringLiteral("%1 x %2 pixels at %3 dpi is %4 x %5 inches, too small to lay out a "
                              "figure (at least %6 x %7 pixels at this dpi)")
            .arg(width)
            .arg(height)
            .arg(dpi)
            .arg(widthInches(), 0, 'f', 2)
            .arg(heightInches(), 0, 'f', 2)
            .arg(int(std::ceil(minLayoutWidth * dpi / base)))
            .arg(int(std::ceil(minLayoutHeight * dpi / base)));
    return {};
}

} // namespace pe
