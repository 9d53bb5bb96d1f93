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

// The formula of the spec's matrix with its parameters filled in: "PE(p, 2i) = sin(p / 10000^(2i
// / 128))"; for RoPE also θᵢ and the scaling rule in use. HTML.
QString encodingFormula(const EncodingSpec &spec);
// RoPE's θᵢ under the config's rope type ("θᵢ = base^(−2i/d) / s"), with its numbers. HTML.
QString ropeScalingRule(const RopeConfig &config, qint64 rotaryDims);

// The formula of cell (position, column) with its numbers and `value`, the computed value, as one
// plain-text line for the status bar: "PE(50, 100) = sin(50 / 10000^(100/128)) = sin(50 ×
// 0.000748) = 0.036".
QString cellFormula(const EncodingSpec &spec, qint64 position, qint64 column, double value);

// The help pages of `views` as one HTML document.
QString viewHelpHtml(const QList<FigureView> &views, const ExplorerState &state);

} // namespace pe
