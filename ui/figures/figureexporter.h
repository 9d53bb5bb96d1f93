// FigureExporter: renders figures built by the window's FigureBuilder into PNG (exact pixel
// size, any DPI), SVG and PDF (lines, markers and text as vector elements; heatmaps embedded at
// full resolution, nearest neighbour), for File → Export figure and `pescope export` alike.
#pragma once

#include "compute/computejobs.h"
#include "compute/schemedata.h"
#include "figures/plottheme.h"
#include "io/atomicfile.h" // outputPathProblem, writeFileAtomically
#include "state/explorerstate.h"

#include <QByteArray>
#include <QImage>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QCPPainter;

namespace pe {

class Backend;

// Every figure the builders offer; several may be stacked top to bottom ("waves+heatmap" is
// Fig 16-9).
enum class FigureView {
    Heatmap,
    Waves,
    Phrases,
    PhraseDifference,
    TokenSimilarity,
    // The Schemes page (schemefigures.h), in SchemeView's order.
    Spectrum,
    Rotation,
    Decay,
    Similarity,
    Alibi,
    T5,
    Compare
};

QString figureViewName(FigureView view);  // "heatmap", "waves", "phrases", ...
QString figureViewTitle(FigureView view); // "Heatmap", "Waves", "Random vs fixed phrases", ...
QList<FigureView> allFigureViews();
// "heatmap", or panels joined by '+' ("waves+heatmap"); nullopt with *error for unknown names.
std::optional<QList<FigureView>> parseFigureViews(const QString &text, QString *error);
QString figureViewsName(const QList<FigureView> &views); // the inverse of parseFigureViews
bool viewNeedsEncoding(FigureView view);
bool viewNeedsPhrases(FigureView view);
bool viewNeedsSchemes(FigureView view);
// The Schemes page view a figure view shows, nullopt for the other pages' views.
std::optional<SchemeView> schemeViewOf(FigureView view);
FigureView figureViewOf(SchemeView view);

enum class FigureFormat { Png, Svg, Pdf };
QString figureFormatName(FigureFormat format); // "png", "svg", "pdf"
// By extension, case-insensitive; nullopt for anything else.
std::optional<FigureFormat> figureFormatForPath(const QString &path);

// Limits on what an export may ask for, checked by FigureOptions::validate().
namespace figurelimits {
constexpr int minSide = 16;               // pixels
constexpr int maxSide = 30000;            // pixels
constexpr qint64 maxPixels = 100'000'000; // width x height
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

    // width, height, dpi, title, caption, caption text, print theme, interpolate.
    static FieldTable<FigureOptions> fields();
    // Empty when usable; else one sentence naming the bad value.
    QString validate() const;
    double widthInches() const { return double(width) / dpi; }
    double heightInches() const { return double(height) / dpi; }
};

// The compute results the views need; views without their result are refused with a message.
struct FigureData
{
    std::shared_ptr<const EncodingResult> encoding;
    std::shared_ptr<const PhraseResult> phrases;
    std::shared_ptr<const SchemeResult> schemes;
};

// The Schemes page's result for the state's parameters: the last one the window computed when
// it matches (publishSchemeResult), else computed here on the calling thread. Null with *error.
std::shared_ptr<const SchemeResult> schemeResultFor(const ExplorerState &state,
                                                    const QList<SchemeView> &views, QString *error);
void publishSchemeResult(std::shared_ptr<const SchemeResult> result);
// Fills data->schemes when `views` need it (the window's export paths); false with *error.
bool ensureSchemeData(const ExplorerState &state, const QList<FigureView> &views, FigureData *data,
                      QString *error);

// Computes what `views` need from `state` on the calling thread (the CLI, or the window when its
// scheduler's results are stale).
bool computeFigureData(const ExplorerState &state, const QList<FigureView> &views, Backend &backend,
                       FigureData *data, QString *error);
// True when `data` holds results for the state's current parameters.
bool figureDataMatches(const ExplorerState &state, const QList<FigureView> &views,
                       const FigureData &data);

// "sinusoidal (interleaved), 201 positions × 512 dims, base 10000 · first 150 dims, transposed"
QString figureCaption(const ExplorerState &state, const QList<FigureView> &views);

// The print theme: black text and axes on white, light grey grid, the light curve colours.
PlotTheme printPlotTheme();

class FigureExporter
{
public:
    FigureExporter(const ExplorerState &state, const FigureData &data,
                   const FigureOptions &options);

    // Exactly options.width x options.height pixels, the DPI recorded in the image.
    QImage renderImage(QString *error) const;
    QByteArray renderSvg(QString *error) const;
    QByteArray renderPdf(QString *error) const;
    // PNG bytes for PNG; the document for SVG and PDF. Empty with *error on failure.
    QByteArray render(FigureFormat format, QString *error) const;
    // The format follows the extension; written through AtomicFile, so a failure leaves no file.
    bool writeFile(const QString &path, QString *error) const;

private:
    enum class Target { Raster, Vector };
    QString check() const;
    bool paint(QCPPainter *painter, Target target, QString *error) const;

    const ExplorerState &m_state;
    FigureData m_data;
    FigureOptions m_options;
};

} // namespace pe
