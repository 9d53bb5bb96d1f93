// FigureView: the registry of every figure the builders draw (the encoding, phrase and Schemes
// pages' views), their command-line names, what each needs computed, and the output formats.
#pragma once

#include "media/outputformats.h"  // FigureFormat
#include "state/schemesettings.h" // SchemeView

#include <QList>
#include <QString>

#include <optional>

namespace pe {

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
    Compare,
    // The Model page: a learned position table's analyses (compute/tabledata.h).
    TableSimilarity,
    Pca,
    SinusoidFit,
    // An engine's RoPE table against Hugging Face (enginecheckfigure.h): "verify".
    EngineCheck
};

QString figureViewName(FigureView view); // "heatmap", "waves", "phrases", ...
QList<FigureView> allFigureViews();
QString allFigureViewNames(); // "heatmap, waves, ..." for messages
// "heatmap", or panels joined by '+' ("waves+heatmap"); nullopt with *error for unknown names.
std::optional<QList<FigureView>> parseFigureViews(const QString &text, QString *error);
QString figureViewsName(const QList<FigureView> &views); // the inverse of parseFigureViews
bool viewNeedsEncoding(FigureView view);
bool viewNeedsPhrases(FigureView view);
bool viewNeedsSchemes(FigureView view);
bool viewNeedsTable(FigureView view);       // the learned-table views (TableResult)
bool viewNeedsEngineCheck(FigureView view); // the verify view (an EngineCheck)
// The Schemes page view a figure view shows, nullopt for the other pages' views.
std::optional<SchemeView> schemeViewOf(FigureView view);
FigureView figureViewOf(SchemeView view);
// The Schemes page views among `views`, in order.
QList<SchemeView> schemeViewsIn(const QList<FigureView> &views);

} // namespace pe
