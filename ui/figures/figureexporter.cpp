#include "figures/figureexporter.h"

#include "backend.h"
#include "figures/figurebuilder.h"
#include "figures/pngencoder.h"
#include "figures/schemefigures.h"

#include "figures/qcpinclude.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QMutex>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QScreen>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace pe {

namespace {

// A QCustomPlot that lays itself out on request, so the exporter knows the axis rects' sizes
// (and the heatmap's pixel budget) before it draws.
class ExportPlot : public QCustomPlot
{
public:
    void layoutAt(int width, int height)
    {
        setViewport(QRect(0, 0, width, height));
        updateLayout();
    }
};

// Draws a colour map's cells as one image at full resolution (or more: an integer number of
// image pixels per cell), in place of QCPColorMap's own vector path, which rasterises the map to
// three times the plot's size and so loses cells of large matrices and blurs small ones.
class EmbeddedColorMap : public QCPLayerable
{
public:
    EmbeddedColorMap(QCPColorMap *map, bool interpolate, double deviceScale)
        : QCPLayerable(map->parentPlot(), map->layer()->name()), m_map(map),
          m_interpolate(interpolate), m_deviceScale(deviceScale)
    {
        // First on the map's layer: the overlay lines and dots drawn after the map stay on top.
        moveToLayer(map->layer(), true);
    }

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override
    {
        painter->setAntialiasing(false);
    }

    QRect clipRect() const override { return m_map->keyAxis()->axisRect()->rect(); }

    void draw(QCPPainter *painter) override
    {
        QCPColorMapData *data = m_map->data();
        const int nk = data->keySize();
        const int nv = data->valueSize();
        if (nk < 1 || nv < 1)
            return;
        QCPAxis *keyAxis = m_map->keyAxis();
        QCPAxis *valueAxis = m_map->valueAxis();
        const QCPRange kr = data->keyRange();
        const QCPRange vr = data->valueRange();
        // Cells are centred on the data range's ends, as QCPColorMap draws them.
        const double kHalf = nk > 1 ? 0.5 * (kr.upper - kr.lower) / (nk - 1) : 0.5;
        const double vHalf = nv > 1 ? 0.5 * (vr.upper - vr.lower) / (nv - 1) : 0.5;
        double x0 = keyAxis->coordToPixel(kr.lower - kHalf);
        double x1 = keyAxis->coordToPixel(kr.upper + kHalf);
        double y0 = valueAxis->coordToPixel(vr.lower - vHalf);
        double y1 = valueAxis->coordToPixel(vr.upper + vHalf);

        // Image column k is key cell k, image row v is value cell v; mirrored below so that
        // the target rectangle is normalised.
        QImage image(nk, nv, QImage::Format_RGB32);
        QCPColorGradient gradient = m_map->gradient();
        const bool logarithmic = m_map->dataScaleType() == QCPAxis::stLogarithmic;
        std::vector<double> row(std::size_t(nk), 0.0);
        for (int v = 0; v < nv; ++v) {
            for (int k = 0; k < nk; ++k)
                row[std::size_t(k)] = data->cell(k, v);
            gradient.colorize(row.data(), m_map->dataRange(),
                              reinterpret_cast<QRgb *>(image.scanLine(v)), nk, 1, logarithmic);
        }
        const bool mirrorX = x1 < x0;
        const bool mirrorY = y1 < y0;
        if (mirrorX)
            std::swap(x0, x1);
        if (mirrorY)
            std::swap(y0, y1);
        if (mirrorX || mirrorY)
            image = image.mirrored(mirrorX, mirrorY);
        const QRectF target(QPointF(x0, y0), QPointF(x1, y1));

        if (!m_interpolate) {
            // Viewers smooth images they enlarge (PDF readers ignore /Interpolate false); with
            // at least one image pixel per device pixel, smoothing cannot blur across cells.
            const auto factor = [&](double pixels, int cells) {
                return qBound(1, int(std::ceil(pixels * m_deviceScale / cells)), 64);
            };
            int fx = factor(target.width(), nk);
            int fy = factor(target.height(), nv);
            while ((fx > 1 || fy > 1) && qint64(nk) * fx * qint64(nv) * fy > (qint64(1) << 25)) {
                fx = qMax(1, fx / 2);
                fy = qMax(1, fy / 2);
            }
            if (fx > 1 || fy > 1)
                image =
                    image.scaled(nk * fx, nv * fy, Qt::IgnoreAspectRatio, Qt::FastTransformation);
        }

        // Crop to the axis rect by hand (not every vector engine honours the clip region), but
        // not the pixel the map's edge may overhang the rect's whole-pixel bounds by.
        const QRectF clip = QRectF(clipRect()).adjusted(-1, -1, 1, 1).intersected(target);
        if (clip.isEmpty())
            return;
        const double sx = image.width() / target.width();
        const double sy = image.height() / target.height();
        const QRectF source((clip.left() - target.left()) * sx, (clip.top() - target.top()) * sy,
                            clip.width() * sx, clip.height() * sy);
        painter->save();
        painter->setRenderHint(QPainter::SmoothPixmapTransform, m_interpolate);
        painter->setRenderHint(QPainter::LosslessImageRendering, true);
        painter->drawImage(clip, image, source);
        painter->restore();
    }

private:
    QCPColorMap *m_map;
    bool m_interpolate;
    double m_deviceScale;
};

QString viewList()
{
    QStringList names;
    for (FigureView view : allFigureViews())
        names.append(figureViewName(view));
    return names.join(QStringLiteral(", "));
}

QString formatNumber(double value)
{
    return QString::number(value, 'g', 12);
}

QString joinNumbers(const QList<qint64> &values)
{
    QStringList list;
    for (qint64 v : values)
        list.append(QString::number(v));
    return list.join(QStringLiteral(", "));
}

// The screen's logical DPI: the resolution the window lays plots out at, so a figure exported
// at this DPI has the window's text and line sizes.
double baseDpi()
{
    if (const QScreen *screen = QGuiApplication::primaryScreen())
        return screen->logicalDotsPerInchY();
    return 96.0;
}

// The figure's layout size in the window's logical pixels: the requested device pixels at the
// requested DPI, laid out as the screen would at its own DPI.
std::pair<int, int> logicalSize(const FigureOptions &options, double deviceScale)
{
    return {int(std::lround(options.width / deviceScale)),
            int(std::lround(options.height / deviceScale))};
}

QFont titleFont(const QFont &base)
{
    QFont font = base;
    font.setPointSizeF(base.pointSizeF() + 4.0);
    font.setBold(true);
    return font;
}

} // namespace

QString figureViewName(FigureView view)
{
    switch (view) {
    case FigureView::Heatmap:
        return QStringLiteral("heatmap");
    case FigureView::Waves:
        return QStringLiteral("waves");
    case FigureView::Phrases:
        return QStringLiteral("phrases");
    case FigureView::PhraseDifference:
        return QStringLiteral("phrase-difference");
    case FigureView::TokenSimilarity:
        return QStringLiteral("token-similarity");
    default:
        break;
    }
    if (const auto scheme = schemeViewOf(view))
        return schemeViewName(*scheme);
    return {};
}

QString figureViewTitle(FigureView view)
{
    switch (view) {
    case FigureView::Heatmap:
        return QStringLiteral("Heatmap");
    case FigureView::Waves:
        return QStringLiteral("Waves");
    case FigureView::Phrases:
        return QStringLiteral("Random vs fixed phrases");
    case FigureView::PhraseDifference:
        return QStringLiteral("Phrase difference");
    case FigureView::TokenSimilarity:
        return QStringLiteral("Token similarity");
    default:
        break;
    }
    if (const auto scheme = schemeViewOf(view))
        return SchemeFigures::viewTitle(*scheme);
    return {};
}

QList<FigureView> allFigureViews()
{
    QList<FigureView> views{FigureView::Heatmap, FigureView::Waves, FigureView::Phrases,
                            FigureView::PhraseDifference, FigureView::TokenSimilarity};
    for (SchemeView view : allSchemeViews())
        views.append(figureViewOf(view));
    return views;
}

std::optional<SchemeView> schemeViewOf(FigureView view)
{
    const int index = int(view) - int(FigureView::Spectrum);
    if (index < 0 || index >= int(allSchemeViews().size()))
        return std::nullopt;
    return allSchemeViews().at(index);
}

FigureView figureViewOf(SchemeView view)
{
    return FigureView(int(FigureView::Spectrum) + int(allSchemeViews().indexOf(view)));
}

bool viewNeedsSchemes(FigureView view)
{
    return schemeViewOf(view).has_value();
}

namespace {
QMutex schemeCacheMutex;
std::shared_ptr<const SchemeResult> schemeCache;

QList<SchemeView> schemeViewsIn(const QList<FigureView> &views)
{
    QList<SchemeView> out;
    for (FigureView view : views)
        if (const auto scheme = schemeViewOf(view))
            out.append(*scheme);
    return out;
}
} // namespace

void publishSchemeResult(std::shared_ptr<const SchemeResult> result)
{
    const QMutexLocker lock(&schemeCacheMutex);
    schemeCache = std::move(result);
}

std::shared_ptr<const SchemeResult> schemeResultFor(const ExplorerState &state,
                                                    const QList<SchemeView> &views, QString *error)
{
    const SchemeInputs inputs{state.spec(), state.schemeSettings()};
    {
        const QMutexLocker lock(&schemeCacheMutex);
        if (schemeCache && schemeResultMatches(*schemeCache, inputs, views))
            return schemeCache;
    }
    auto result = std::make_shared<SchemeResult>();
    if (!computeSchemeData(inputs, views, result.get(), error))
        return nullptr;
    publishSchemeResult(result);
    return result;
}

bool ensureSchemeData(const ExplorerState &state, const QList<FigureView> &views, FigureData *data,
                      QString *error)
{
    const QList<SchemeView> schemes = schemeViewsIn(views);
    if (schemes.isEmpty())
        return true;
    const SchemeInputs inputs{state.spec(), state.schemeSettings()};
    if (data->schemes && schemeResultMatches(*data->schemes, inputs, schemes))
        return true;
    data->schemes = schemeResultFor(state, schemes, error);
    return data->schemes != nullptr;
}

std::optional<QList<FigureView>> parseFigureViews(const QString &text, QString *error)
{
    QList<FigureView> views;
    const QStringList parts = text.split(QLatin1Char('+'));
    for (const QString &part : parts) {
        const QString name = part.trimmed().toLower();
        bool found = false;
        for (FigureView view : allFigureViews())
            if (figureViewName(view) == name) {
                views.append(view);
                found = true;
            }
        if (!found) {
            if (error)
                *error = QStringLiteral("unknown view \"%1\" (%2, or several joined by +, e.g. "
                                        "waves+heatmap)")
                             .arg(part.trimmed(), viewList());
            return std::nullopt;
        }
    }
    if (views.size() > 4) {
        if (error)
            *error = QStringLiteral("at most 4 views can be stacked in one figure (got %1)")
                         .arg(views.size());
        return std::nullopt;
    }
    return views;
}

QString figureViewsName(const QList<FigureView> &views)
{
    QStringList names;
    for (FigureView view : views)
        names.append(figureViewName(view));
    return names.join(QLatin1Char('+'));
}

bool viewNeedsEncoding(FigureView view)
{
    return view == FigureView::Heatmap || view == FigureView::Waves;
}

bool viewNeedsPhrases(FigureView view)
{
    return view == FigureView::Phrases || view == FigureView::PhraseDifference ||
           view == FigureView::TokenSimilarity;
}

QString figureFormatName(FigureFormat format)
{
    switch (format) {
    case FigureFormat::Png:
        return QStringLiteral("png");
    case FigureFormat::Svg:
        return QStringLiteral("svg");
    case FigureFormat::Pdf:
        return QStringLiteral("pdf");
    }
    return {};
}

std::optional<FigureFormat> figureFormatForPath(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    for (FigureFormat format : {FigureFormat::Png, FigureFormat::Svg, FigureFormat::Pdf})
        if (suffix == figureFormatName(format))
            return format;
    return std::nullopt;
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
        return QStringLiteral("no view chosen (%1)").arg(viewList());
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
    const double base = baseDpi();
    if (width * base / dpi < 100.0 || height * base / dpi < 80.0)
        return QStringLiteral("%1 x %2 pixels at %3 dpi is %4 x %5 inches, too small to lay out a "
                              "figure (at least %6 x %7 pixels at this dpi)")
            .arg(width)
            .arg(height)
            .arg(dpi)
            .arg(widthInches(), 0, 'f', 2)
            .arg(heightInches(), 0, 'f', 2)
            .arg(int(std::ceil(100.0 * dpi / base)))
            .arg(int(std::ceil(80.0 * dpi / base)));
    return {};
}

bool figureDataMatches(const ExplorerState &state, const QList<FigureView> &views,
                       const FigureData &data)
{
    const bool encoding = std::any_of(views.begin(), views.end(), viewNeedsEncoding);
    const bool phrases = std::any_of(views.begin(), views.end(), viewNeedsPhrases);
    if (encoding &&
        (!data.encoding || !data.encoding->matrix || data.encoding->spec != state.spec()))
        return false;
    if (phrases && (!data.phrases || data.phrases->settings != state.phraseSettings()))
        return false;
    const QList<SchemeView> schemes = schemeViewsIn(views);
    if (!schemes.isEmpty() &&
        (!data.schemes ||
         !schemeResultMatches(*data.schemes, SchemeInputs{state.spec(), state.schemeSettings()},
                              schemes)))
        return false;
    return true;
}

bool computeFigureData(const ExplorerState &state, const QList<FigureView> &views, Backend &backend,
                       FigureData *data, QString *error)
{
    const bool encoding = std::any_of(views.begin(), views.end(), viewNeedsEncoding);
    const bool phrases = std::any_of(views.begin(), views.end(), viewNeedsPhrases);
    if (encoding && !(data->encoding && data->encoding->spec == state.spec())) {
        auto result = std::make_shared<EncodingResult>();
        // The exporter samples its own grids from the matrix for the size it draws at; the
        // job's grid is kept minimal.
        GridRequest request;
        request.rowPixels = 1;
        request.colPixels = 1;
        request.visibleDims = state.heatmapDimLimit();
        if (computeEncoding(backend, state.spec(), request, {}, {}, result.get(), error) !=
            JobStatus::Done)
            return false;
        data->encoding = result;
    }
    if (phrases && !(data->phrases && data->phrases->settings == state.phraseSettings())) {
        auto result = std::make_shared<PhraseResult>();
        if (!computePhrases(backend, state.phraseSettings(), result.get(), error))
            return false;
        data->phrases = result;
    }
    return ensureSchemeData(state, views, data, error);
}

QString figureCaption(const ExplorerState &state, const QList<FigureView> &views)
{
    QStringList parts;
    if (std::any_of(views.begin(), views.end(), viewNeedsEncoding)) {
        const EncodingSpec &s = state.spec();
        const QString spec = s.caption();
        parts.append(spec);
        if (views.contains(FigureView::Heatmap)) {
            QStringList heat;
            const qint64 limit = state.heatmapDimLimit();
            if (limit > 0 && limit < s.dims)
                heat.append(QStringLiteral("first %1 dims").arg(limit));
            if (state.transposed())
                heat.append(QStringLiteral("transposed"));
            heat.append(colormapName(state.colormap()));
            parts.append(QStringLiteral("heatmap: ") + heat.join(QStringLiteral(", ")));
        }
        if (views.contains(FigureView::Waves)) {
            QString waves = QStringLiteral("waves: i = ") + joinNumbers(state.plottedDims());
            if (!state.markers().isEmpty())
                waves += QStringLiteral(", markers at p = ") + joinNumbers(state.markers());
            parts.append(waves);
        }
    }
    if (std::any_of(views.begin(), views.end(), viewNeedsPhrases)) {
        const PhraseSettings &p = state.phraseSettings();
        parts.append(QStringLiteral("%1 phrases, max_tokens %2, sequence length %3, dims %4, "
                                    "random seed %5")
                         .arg(p.phrases.size())
                         .arg(p.maxTokens)
                         .arg(p.sequenceLength)
                         .arg(p.dims)
                         .arg(p.seed));
    }
    if (std::any_of(views.begin(), views.end(), viewNeedsSchemes)) {
        const SchemeSettings &k = state.schemeSettings();
        const EncodingSpec a = ropeSpecA(state.spec());
        QStringList scheme{
            QStringLiteral("A: RoPE %1, %2 dims").arg(a.get<RopeScheme>()->configLabel()).arg(a.dims)};
        if (views.contains(FigureView::Spectrum) || views.contains(FigureView::Decay) ||
            views.contains(FigureView::Compare))
            scheme.append(QStringLiteral("B: ") + ropeSpecB(state.spec(), k).legend());
        if (views.contains(FigureView::Alibi))
            scheme.append(QStringLiteral("ALiBi %1 heads").arg(k.alibi.heads));
        if (views.contains(FigureView::T5))
            scheme.append(QStringLiteral("T5 %1 buckets, max distance %2")
                              .arg(k.t5.buckets)
                              .arg(k.t5.maxDistance));
        parts.append(scheme.join(QStringLiteral(", ")));
    }
    return parts.join(QStringLiteral("; "));
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

FigureExporter::FigureExporter(const ExplorerState &state, const FigureData &data,
                               const FigureOptions &options)
    : m_state(state), m_data(data), m_options(options)
{}

QString FigureExporter::check() const
{
    if (const QString problem = m_options.validate(); !problem.isEmpty())
        return problem;
    for (FigureView view : m_options.views) {
        if (viewNeedsEncoding(view) && (!m_data.encoding || !m_data.encoding->matrix))
            return QStringLiteral("the %1 view has no encoding to show").arg(figureViewName(view));
        if (viewNeedsPhrases(view) && !m_data.phrases)
            return QStringLiteral("the %1 view has no phrases to show").arg(figureViewName(view));
        if (viewNeedsSchemes(view) && !m_data.schemes)
            return QStringLiteral("the %1 view has nothing computed to show")
                .arg(figureViewName(view));
        if (view == FigureView::PhraseDifference && m_data.phrases->settings.phrases.size() < 2)
            return QStringLiteral("the phrase-difference view needs at least two phrases");
    }
    return {};
}

bool FigureExporter::paint(QCPPainter *painter, Target target, QString *error) const
{
    const double base = baseDpi();
    const double deviceScale = m_options.dpi / base;
    const auto [width, height] = logicalSize(m_options, deviceScale);
    const PlotTheme theme = m_options.printTheme ? printPlotTheme() : plotTheme(m_state.theme());
    const FigureBuilder builder(m_state, theme);

    painter->fillRect(QRectF(0, 0, width, height), theme.background);

    const QFont font = QApplication::font("QCustomPlot");
    const double margin = 8.0;
    double top = 0.0;
    double bottom = height;
    if (!m_options.title.isEmpty()) {
        const QFont f = titleFont(font);
        const QFontMetricsF metrics(f);
        const QRectF band(margin, 0, width - 2 * margin,
                          metrics.boundingRect(QRectF(0, 0, width - 2 * margin, height),
                                               Qt::TextWordWrap | Qt::AlignCenter, m_options.title)
                                  .height() +
                              metrics.height() * 0.8);
        painter->setFont(f);
        painter->setPen(theme.foreground);
        painter->drawText(band, Qt::TextWordWrap | Qt::AlignCenter, m_options.title);
        top = band.bottom();
    }
    if (m_options.caption || !m_options.captionText.isEmpty()) {
        const QString text = m_options.captionText.isEmpty()
                                 ? figureCaption(m_state, m_options.views)
                                 : m_options.captionText;
        const QFontMetricsF metrics(font);
        const double textHeight = metrics
                                      .boundingRect(QRectF(0, 0, width - 2 * margin, height),
                                                    Qt::TextWordWrap | Qt::AlignCenter, text)
                                      .height();
        const QRectF band(margin, height - textHeight - metrics.height() * 0.8, width - 2 * margin,
                          textHeight + metrics.height() * 0.4);
        painter->setFont(font);
        painter->setPen(theme.foreground);
        painter->drawText(band, Qt::TextWordWrap | Qt::AlignCenter, text);
        bottom = band.top();
    }
    if (bottom - top < 60.0) {
        *error = QStringLiteral("the title and caption leave no room for the figure at %1 x %2 "
                                "pixels")
                     .arg(m_options.width)
                     .arg(m_options.height);
        return false;
    }

    const int panels = int(m_options.views.size());
    std::vector<std::unique_ptr<ExportPlot>> plots;
    std::vector<HeatmapFigure> heatmaps(static_cast<std::size_t>(panels));
    std::vector<std::pair<int, int>> bands;
    for (int i = 0; i < panels; ++i) {
        const int y0 = int(std::lround(top + (bottom - top) * i / panels));
        const int y1 = int(std::lround(top + (bottom - top) * (i + 1) / panels));
        bands.emplace_back(y0, y1);
        auto &plot = plots.emplace_back(std::make_unique<ExportPlot>());
        plot->setFont(font);
        switch (m_options.views[i]) {
        case FigureView::Heatmap: {
            const EncodingResult &result = *m_data.encoding;
            // Built with a one-cell grid; the real one depends on the laid-out size.
            heatmaps[std::size_t(i)] = builder.buildHeatmap(
                plot.get(), result,
                sampleGrid(*result.matrix, fullWindow(result.spec, m_state.heatmapDimLimit()), 1,
                           1));
            break;
        }
        case FigureView::Waves:
            builder.buildWaves(plot.get(), *m_data.encoding);
            break;
        case FigureView::Phrases:
            builder.buildPhraseGrid(plot.get(), *m_data.phrases);
            break;
        case FigureView::PhraseDifference:
            builder.buildPhraseDifference(plot.get(), *m_data.phrases);
            break;
        case FigureView::TokenSimilarity:
            builder.buildTokenSimilarity(plot.get(), *m_data.phrases);
            break;
        default:
            if (const auto scheme = schemeViewOf(m_options.views[i]))
                SchemeFigures(m_state, theme).build(*scheme, plot.get(), *m_data.schemes);
            break;
        }
        plot->layoutAt(width, y1 - y0);
    }

    // Stacked panels with one axis rect each share their left and right edges, so positions
    // line up across them (Fig 16-9's waves over its heatmap).
    if (panels > 1) {
        int left = 0, right = width;
        for (const auto &plot : plots)
            if (plot->axisRectCount() == 1) {
                left = qMax(left, plot->axisRect()->rect().left());
                right = qMin(right, plot->axisRect()->rect().right());
            }
        for (int i = 0; i < panels; ++i) {
            ExportPlot &plot = *plots[std::size_t(i)];
            if (plot.axisRectCount() != 1)
                continue;
            QCPAxisRect *rect = plot.axisRect();
            const QMargins m = rect->margins();
            rect->setMinimumMargins(QMargins(m.left() + left - rect->rect().left(), 0,
                                             m.right() + rect->rect().right() - right, 0));
            plot.layoutAt(width, bands[std::size_t(i)].second - bands[std::size_t(i)].first);
        }
    }

    for (int i = 0; i < panels; ++i) {
        ExportPlot &plot = *plots[std::size_t(i)];
        const HeatmapFigure &heatmap = heatmaps[std::size_t(i)];
        if (heatmap.map) {
            const EncodingResult &result = *m_data.encoding;
            const CellWindow window = fullWindow(result.spec, m_state.heatmapDimLimit());
            qint64 rowPixels = window.rows(), colPixels = window.cols();
            if (target == Target::Raster) {
                // As the window does: one value per device pixel, each the mean of its cells.
                const QSize area = heatmap.rect->rect().size();
                const qint64 wide = qint64(std::ceil(area.width() * deviceScale));
                const qint64 high = qint64(std::ceil(area.height() * deviceScale));
                rowPixels = m_state.transposed() ? wide : high;
                colPixels = m_state.transposed() ? high : wide;
            } else {
                const double cells = double(window.rows()) * double(window.cols());
                if (cells > double(figurelimits::maxEmbeddedCells)) {
                    const double shrink = std::sqrt(double(figurelimits::maxEmbeddedCells) / cells);
                    rowPixels = qMax<qint64>(1, qint64(window.rows() * shrink));
                    colPixels = qMax<qint64>(1, qint64(window.cols() * shrink));
                }
            }
            builder.setHeatmapGrid(heatmap,
                                   sampleGrid(*result.matrix, window, rowPixels, colPixels));
        }
        for (int p = 0; p < plot.plottableCount(); ++p) {
            auto *map = qobject_cast<QCPColorMap *>(plot.plottable(p));
            if (!map)
                continue;
            map->setInterpolate(m_options.interpolate);
            if (target == Target::Vector && map->keyAxis()->orientation() == Qt::Horizontal) {
                // The axis rect fills its background on its own layer; moved below the map's
                // layer, it cannot cover the image drawn first on that layer.
                map->keyAxis()->axisRect()->setLayer(QStringLiteral("background"));
                new EmbeddedColorMap(map, m_options.interpolate, deviceScale);
                map->setVisible(false);
            }
        }
        painter->save();
        painter->translate(0, bands[std::size_t(i)].first);
        plot.toPainter(painter, width, bands[std::size_t(i)].second - bands[std::size_t(i)].first);
        painter->restore();
    }
    return true;
}

QImage FigureExporter::renderImage(QString *error) const
{
    if (const QString problem = check(); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    QImage image(m_options.width, m_options.height, QImage::Format_RGB32);
    if (image.isNull()) {
        *error = QStringLiteral("not enough memory for a %1 x %2 image")
                     .arg(m_options.width)
                     .arg(m_options.height);
        return {};
    }
    // Text is laid out at the screen's DPI (as the window does) and the painter scales it to
    // the requested DPI; the file records the requested DPI.
    const double base = baseDpi();
    const auto dotsPerMeter = [](double dpi) { return int(std::lround(dpi / 0.0254)); };
    image.setDotsPerMeterX(dotsPerMeter(base));
    image.setDotsPerMeterY(dotsPerMeter(base));
    {
        QCPPainter painter(&image);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.scale(m_options.dpi / base, m_options.dpi / base);
        if (!paint(&painter, Target::Raster, error))
            return {};
    }
    image.setDotsPerMeterX(dotsPerMeter(m_options.dpi));
    image.setDotsPerMeterY(dotsPerMeter(m_options.dpi));
    return image;
}

QByteArray FigureExporter::renderSvg(QString *error) const
{
    if (const QString problem = check(); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    const double base = baseDpi();
    const double deviceScale = m_options.dpi / base;
    const auto [width, height] = logicalSize(m_options, deviceScale);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        // User units are the window's logical pixels; width and height (in mm) give the page
        // size width / dpi x height / dpi inches.
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setResolution(int(std::lround(base)));
        generator.setSize(QSize(width, height));
        generator.setViewBox(QRect(0, 0, width, height));
        generator.setTitle(m_options.title.isEmpty() ? figureViewsName(m_options.views)
                                                     : m_options.title);
        generator.setDescription(QStringLiteral("pescope " PE_VERSION ": ") +
                                 figureCaption(m_state, m_options.views));
        QCPPainter painter;
        if (!painter.begin(&generator)) {
            *error = QStringLiteral("cannot start the SVG generator");
            return {};
        }
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setMode(QCPPainter::pmNonCosmetic);
        if (!paint(&painter, Target::Vector, error))
            return {};
        painter.end();
    }
    QByteArray svg = buffer.data();
    // QSvgGenerator marks unsmoothed images image-rendering="optimizeSpeed" (SVG 1.1); browsers
    // want the CSS property as well.
    if (!m_options.interpolate)
        svg.replace("<image ", "<image style=\"image-rendering:pixelated\" ");
    // The exact physical size, which QSvgGenerator rounds from whole logical pixels.
    const QString size = QStringLiteral("width=\"%1mm\" height=\"%2mm\"")
                             .arg(m_options.widthInches() * 25.4, 0, 'f', 3)
                             .arg(m_options.heightInches() * 25.4, 0, 'f', 3);
    static const QRegularExpression sizeAttributes(
        QStringLiteral("width=\"[0-9.]+mm\" height=\"[0-9.]+mm\""));
    QString text = QString::fromUtf8(svg);
    text.replace(text.indexOf(sizeAttributes), sizeAttributes.match(text).capturedLength(), size);
    return text.toUtf8();
}

QByteArray FigureExporter::renderPdf(QString *error) const
{
    if (const QString problem = check(); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    const double base = baseDpi();
    const double deviceScale = m_options.dpi / base;
    const auto [width, height] = logicalSize(m_options, deviceScale);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("pescope " PE_VERSION));
        writer.setTitle(m_options.title.isEmpty() ? figureViewsName(m_options.views)
                                                  : m_options.title);
        writer.setResolution(int(std::lround(base)));
        const QSizeF points(m_options.widthInches() * 72.0, m_options.heightInches() * 72.0);
        writer.setPageLayout(
            QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        QCPPainter painter;
        if (!painter.begin(&writer)) {
            *error = QStringLiteral("cannot start the PDF writer");
            return {};
        }
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setMode(QCPPainter::pmNonCosmetic);
        painter.setRenderHint(QPainter::LosslessImageRendering, true);
        // The page holds writer.width() device pixels; the figure is laid out in `width`.
        painter.scale(double(writer.width()) / width, double(writer.height()) / height);
        if (!paint(&painter, Target::Vector, error))
            return {};
        painter.end();
    }
    return buffer.data();
}

QByteArray FigureExporter::render(FigureFormat format, QString *error) const
{
    switch (format) {
    case FigureFormat::Png: {
        const QImage image = renderImage(error);
        if (image.isNull())
            return {};
        QList<PngText> texts{{QStringLiteral("Software"), QStringLiteral("pescope " PE_VERSION)}};
        if (!m_options.title.isEmpty())
            texts.append({QStringLiteral("Title"), m_options.title});
        return encodePng(image, texts, error);
    }
    case FigureFormat::Svg:
        return renderSvg(error);
    case FigureFormat::Pdf:
        return renderPdf(error);
    }
    return {};
}

bool FigureExporter::writeFile(const QString &path, QString *error) const
{
    const std::optional<FigureFormat> format = figureFormatForPath(path);
    if (!format) {
        *error = QStringLiteral("cannot tell the format of \"%1\": the name must end in .png, .svg "
                                "or .pdf")
                     .arg(path);
        return false;
    }
    const QByteArray bytes = render(*format, error);
    if (bytes.isEmpty())
        return false;
    return writeFileAtomically(path, bytes, error);
}

} // namespace pe
