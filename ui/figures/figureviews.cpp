#include "figures/figureviews.h"

#include <QFileInfo>
#include <QStringList>

namespace pe {

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

} // namespace pe
