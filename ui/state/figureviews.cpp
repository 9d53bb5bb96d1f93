#include "state/figureviews.h"

#include "fields/choicenames.h"

#include <QStringList>

namespace pe {

namespace {

// The encoding and phrase pages' views; the Schemes page's are named by schemeViewNames.
constexpr ChoiceName pageViewNames[] = {
    choice(FigureView::Heatmap, "heatmap", "Heatmap"),
    choice(FigureView::Waves, "waves", "Waves"),
    choice(FigureView::Phrases, "phrases", "Phrases"),
    choice(FigureView::PhraseDifference, "phrase-difference", "Phrase difference"),
    choice(FigureView::TokenSimilarity, "token-similarity", "Token similarity"),
    choice(FigureView::TableSimilarity, "table-similarity", "Table: position similarity"),
    choice(FigureView::Pca, "pca", "Table: PCA"),
    choice(FigureView::SinusoidFit, "sinusoid-fit", "Table: sinusoid fit"),
    choice(FigureView::EngineCheck, "verify", "Engine check"),
};

} // namespace

QString figureViewName(FigureView view)
{
    if (const auto scheme = schemeViewOf(view))
        return schemeViewName(*scheme);
    return nameOf(pageViewNames, view);
}

QString allFigureViewNames()
{
    QStringList names;
    for (FigureView view : allFigureViews())
        names.append(figureViewName(view));
    return names.join(QStringLiteral(", "));
}

QList<FigureView> allFigureViews()
{
    QList<FigureView> views{FigureView::Heatmap, FigureView::Waves, FigureView::Phrases,
                            FigureView::PhraseDifference, FigureView::TokenSimilarity};
    for (SchemeView view : allSchemeViews())
        views.append(figureViewOf(view));
    views.append({FigureView::TableSimilarity, FigureView::Pca, FigureView::SinusoidFit});
    views.append(FigureView::EngineCheck);
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

QList<SchemeView> schemeViewsIn(const QList<FigureView> &views)
{
    QList<SchemeView> out;
    for (FigureView view : views)
        if (const auto scheme = schemeViewOf(view))
            out.append(*scheme);
    return out;
}

bool viewNeedsSchemes(FigureView view)
{
    return schemeViewOf(view).has_value();
}

bool viewNeedsTable(FigureView view)
{
    return view == FigureView::TableSimilarity || view == FigureView::Pca ||
           view == FigureView::SinusoidFit;
}

bool viewNeedsEngineCheck(FigureView view)
{
    return view == FigureView::EngineCheck;
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
                             .arg(part.trimmed(), allFigureViewNames());
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

} // namespace pe
