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
// --shift, --scale, --theta, --rope-scaling, --no-positions: layer-attention's ablation, refused
// by name for the other views and, unless `dataOut`, for the grid's figure (the enlarged head
// draws it). Throws UsageError naming them.
ForwardAblation forwardAblationFromOptions(const QCommandLineParser &parser,
                                           const FigureOptions &figure, bool dataOut);
// The layer views' model (a tokenizer.json beside the weights names its folder, as every other
// command reads it) opened once before any work: a file that cannot be read as the model it
// claims to be, a tensor missing included, is bad input. Throws UsageError with its sentence.
void checkForwardModel(const FigureRequest &request);
// What the layer views' pass found the views cannot draw, as bad input: the atlas of a model
// without RoPE, the probe of a phrase shorter than its folds, an ablation the model cannot take,
// a layer or head past the model's. Throws UsageError with the full sentence naming the view.
void checkForwardData(const FigureData &data, const FigureOptions &figure);

} // namespace pe::cli
