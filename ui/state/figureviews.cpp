#include "state/figureviews.h"

#include "fields/choicenames.h"

#include <QStringList>

namespace pe {

QString allFigureViewNames()
{
    QStringList names;
    for (FigureView view : allFigureViews())
        names.append(figureViewName(view));
    return names.join(QStringLiteral(", "));
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
