// Figure views by name (one view, or panels joined by '+'), and the output formats. The views
// themselves are listed in state/viewlist.h.
#pragma once

#include "media/outputformats.h" // FigureFormat
#include "state/viewlist.h"

#include <QList>
#include <QString>

#include <optional>

namespace pe {

QString allFigureViewNames(); // "heatmap, waves, ..." for messages
// "heatmap", or panels joined by '+' ("waves+heatmap"); nullopt with *error for unknown names.
std::optional<QList<FigureView>> parseFigureViews(const QString &text, QString *error);
QString figureViewsName(const QList<FigureView> &views); // the inverse of parseFigureViews

} // namespace pe
