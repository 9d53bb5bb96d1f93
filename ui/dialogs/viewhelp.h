// ViewHelp: what each view of the window shows and the formula behind it, in one table beside the
// view registry (state/figureviews.h): Help > What am I looking at? (F1) reads it, and the
// heatmap's hover puts the encoding's formula with one cell's numbers in the status bar.
#pragma once

#include "state/explorerstate.h"
#include "state/figureviews.h"

#include <QList>
#include <QString>

namespace pe {

struct ViewHelp
{
    QString title;   // "Heatmap"
    QString text;    // what the view shows and how to read it (HTML)
    QString formula; // its formula with the current parameters (HTML), empty when none
};

ViewHelp viewHelp(FigureView view, const ExplorerState &state);

// The formula of the spec's matrix with its parameters filled in (HTML): the scheme's own
// (EncodingSpec::formula()), which its descriptor writes.
QString encodingFormula(const EncodingSpec &spec);

// The help pages of `views` as one HTML document.
QString viewHelpHtml(const QList<FigureView> &views, const ExplorerState &state);

} // namespace pe
