// The one list of every view pescope draws, as core/schemes/schemelist.h lists the schemes: each
// entry names the view (its command-line and session name), its page, the compute job it needs,
// its data export, its help text and formula, what an animation of "position" moves, and which
// Schemes page settings it reads. Its builder is the entry of the same view in
// figures/viewfigures.cpp. A view is added by one enum value and one entry here, one builder line
// there, and the builder itself (docs/engineering.md, "How to add a view").
#pragma once

#include "fields/choicenames.h"

#include <QList>
#include <QString>

#include <array>
#include <optional>
#include <span>

namespace pe {

enum class Page { Encoding, Phrases, Schemes, Model };
inline constexpr ChoiceName pageNames[] = {
    choice(Page::Encoding, "encoding", "Encoding"),
    choice(Page::Phrases, "phrases", "Phrases"),
    choice(Page::Schemes, "schemes", "Schemes"),
    choice(Page::Model, "model", "Model"),
};

// Every view, in the list's order; several may be stacked top to bottom in one figure
// ("waves+heatmap" is Fig 16-9).
enum class FigureView {
    Heatmap,
    Waves,
    Phrases,
    PhraseDifference,
    TokenSimilarity,
    Spectrum,
    Rotation,
    Decay,
    Similarity,
    Alibi,
    T5,
    Compare,
    Pca,
    TableSimilarity,
    SinusoidFit,
    EngineCheck,
    // The Phrases page with the open model's own tokenizer (compute/phrasemodeldata.h).
    ModelTokens,
    ModelAttention,
    ModelEmbeddings,
    ModelTokenCosine,
    // The Schemes page's long-context report of configuration A (issue 49).
    ContextPairs,
    ContextBaseBound,
    ContextPrecision,
    // The Phrases page's layer views: phrase A through the model's whole forward pass
    // (compute/forwardviewdata.h).
    LayerAttention,
    DistanceProfiles,
    FrequencyAtlas,
    Sinks,
    HiddenNorms,
    PositionProbe,
};
inline constexpr std::size_t figureViewCount = 29; // the enum's values, checked by the lists

// The compute result a view draws (FigureData's member), and so the job that computes it.
enum class ViewJob {
    Encoding,     // the materialised encoding matrix
    Phrases,      // the Keras phrase embeddings
    Schemes,      // the Schemes page's numbers (compute/schemedata.h) for the views shown
    Table,        // a learned position table's analyses (compute/tabledata.h)
    EngineCheck,  // an engine's table against Hugging Face's: from a file, never computed
    ModelPhrases, // the compared phrases through the open model's tokenizer and layer 0
    ModelForward  // phrase A through the open model's whole forward pass, every layer
};

// What a view shows of its numbers beyond the state's parameters: the Phrases page's model
// figures draw phrase A or B, and one attention head or their mean; the attention grid every
// layer and head, or one layer's head enlarged.
struct ViewChoices
{
    static constexpr int meanOfHeads = -1;
    static constexpr int everyLayer = -1;
    int modelPhrase = 0; // 0: A, 1: B
    int modelHead = meanOfHeads;
    int modelLayer = everyLayer; // the attention grid: >= 0 with a head, that cell enlarged
    // The attention view's data: modelHead's three panels as drawn (with, without, with −
    // without) instead of every head with and without (`--attention-head` given).
    bool attentionPanels = false;
    bool operator==(const ViewChoices &) const = default;
};

// What an animation of "position" moves in the view; None: the view has no position to move.
enum class ViewMotion { None, Marker, RotationPosition, Token };

// What a view needs beyond its job's numbers: phrases to compare, a model opened. Checked by
// viewNeedsProblem() alone, for the window, the command line and Python.
struct ViewNeeds
{
    int phrases = 0;    // at least this many phrases (A and B: 2)
    bool model = false; // a model's tokenizer and weights (--model, File > Open model)
};

// What the views are given, for viewNeedsProblem().
struct ViewInputs
{
    qsizetype phrases = 0;
    bool model = false;
};

// The formula with the current parameters F1 appends to the entry's fixed formula text
// (dialogs/viewhelp.cpp writes them). Scheme: that of each of the Schemes page settings' schemes
// the view reads (its keys: "alibi", "t5").
enum class ViewFormula { None, Encoding, RopeA, RopeAB, Scheme };

struct ViewEntry
{
    FigureView view;
    const char *name;  // the command line's and sessions' name: "heatmap"
    const char *label; // for people, in lists and menus: "Heatmap"
    const char *title; // the figure's and its tab's heading: "RoPE spectrum"
    Page page;
    ViewJob job;
    ViewMotion motion = ViewMotion::None;
    ViewNeeds needs{};
    const char *help = "";           // F1: what the view shows and how to read it (HTML)
    const char *helpTitle = nullptr; // F1's heading when not the label
    const char *formula = "";        // F1: the formula (HTML), before the parameterised part
    ViewFormula parameters = ViewFormula::None;
    // What `pescope data --view NAME` (= `pescope export --view NAME --out X.npy`) and File >
    // Export data write, for the export dialog; empty: no data export. The function that writes
    // it is the view's line in compute/viewdata.cpp.
    const char *dataShape = "";
    // The Schemes page settings the view reads, by SchemeSettings' keys: its own fields
    // ("metric") and its schemes ("alibi", "t5", "compare": configuration B, drawn beside A); the
    // page shows only those, and the caption names B where a view reads it.
    std::array<const char *, 6> keys{};
    const char *tip = ""; // its tab's tooltip on its page
    // Another page that draws the view too, as a guest after its own views (the Model page
    // draws a rotary layer's spectrum, rotation and decay as the Schemes page does), and the
    // tooltip of its tab there.
    std::optional<Page> guestOn{};
    const char *guestTip = "";
    // Its tab's title on the Phrases page where shorter than the label ("Embeddings" beside the
    // tutorial's views, whose labels the model's views tell apart by "Model").
    const char *tab = nullptr;
};

// The list, in menu order (viewlist.cpp; an entry's view is its index).
std::span<const ViewEntry> viewList();
const ViewEntry &viewEntry(FigureView view);
QList<FigureView> allFigureViews();
QList<FigureView> viewsOf(Page page); // the page's views, in the list's order
// The views of other pages that `page` draws too (their entries' guestOn), in the list's order.
QList<FigureView> guestsOf(Page page);
// The tooltip of the view's tab on `page`: its entry's tip, or guestTip where it is a guest.
QString viewTabTip(FigureView view, Page page);
// The Schemes page's views as a name table (SchemeSettings' "view" field).
ChoiceNames schemeViewNames();
inline QString figureViewName(FigureView view)
{
    return QString::fromUtf8(viewEntry(view).name);
}
inline QString figureViewTitle(FigureView view)
{
    return QString::fromUtf8(viewEntry(view).title);
}
inline bool viewNeeds(FigureView view, ViewJob job)
{
    return viewEntry(view).job == job;
}
// The views among `views` that need `job`, in order.
QList<FigureView> viewsNeeding(const QList<FigureView> &views, ViewJob job);
bool anyViewNeeds(const QList<FigureView> &views, ViewJob job);
// Whether a view draws the open model's numbers for typed phrases (ModelPhrases or
// ModelForward): what --model and --text give on the command line.
bool viewReadsModelPhrases(FigureView view);
bool anyViewReadsModelPhrases(const QList<FigureView> &views);
// The first of the views' needs (their entries' `needs`) that `given` does not meet, as the one
// message the window, the command line and Python give ("the phrase-difference view needs two
// phrases"); empty when every need is met.
QString viewNeedsProblem(const QList<FigureView> &views, const ViewInputs &given);
QStringList schemeKeysReadBy(FigureView view);
// Whether any of `views` reads the Schemes page setting `key` (its entry's keys).
bool anyViewReads(const QList<FigureView> &views, const char *key);

} // namespace pe
