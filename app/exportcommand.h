// The figure `pescope export` renders, read from its options in three steps (the views, the
// figure's size and look, then the state and the backend), so that the command checks --out and
// the animation between them in the order its contract gives; pescope.figure() in the Python
// module (python/) reads the same options through the same steps.
#pragma once

#include "compute/figuredata.h"

#include "commandline.h"

#include "figures/figureoptions.h"
#include "state/explorervalues.h"

namespace pe::cli {

struct FigureRequest
{
    FigureOptions figure; // views, size, dpi, title, caption, style
    // Defaults, a preset or a session, options on top: plain values, no undo, no signals.
    ExplorerValues state = ExplorerValues::defaults();
    BackendChoice backend = BackendChoice::Auto;
    // The model phrase views': --model and the --text phrases (A, B), not the state's.
    PhraseModelInputs modelPhrases;
    // layer-attention's --shift, --scale, --theta, --rope-scaling or --no-positions.
    ForwardAblation forwardAblation;
    // What the figure's numbers depend on: the state's, with the model phrases above.
    FigureInputs inputs() const;
};

// --view, first in --help.
QCommandLineOption figureViewOption();
// Every other option of `pescope export` but --out, --dry-run and the animation's.
void addFigureOptions(OptionSet &options);
// --view: required, a view name or views joined by +. Throws UsageError naming it.
QList<FigureView> figureViewsFromOptions(const QCommandLineParser &parser);
// The figure's views, size, DPI, title and caption; throws UsageError naming the option.
FigureOptions figureOptionsFromOptions(const QCommandLineParser &parser,
                                       const QList<FigureView> &views);
// The state the figure shows (--preset or --session, then every option on top), the figure's
// style on top of the state's, and the backend; the checks that need the state (the matrix fits
// in memory, the phrase views have phrases). Throws UsageError naming the option.
FigureRequest figureRequestFromOptions(const QCommandLineParser &parser, FigureOptions figure);

} // namespace pe::cli
