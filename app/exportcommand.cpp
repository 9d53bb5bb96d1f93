// `pescope export --view NAME [SPEC] [view options] --out FIG.png|FIG.svg|FIG.pdf`: a figure
// built by the window's figure builders from plain values (ExplorerValues, the window's state
// without its signals and undo), rendered without a display.
#include "exportcommand.h"

#include "exportanimation.h"

#include "compute/forwardviewdata.h"
#include "compute/phrasemodeldata.h"
#include "compute/viewdata.h"
#include "figures/figureexporter.h"
#include "io/atomicfile.h"
#include "media/outputformats.h"
#include "model/forwardpass.h"
#include "model/phrasemodel.h"
#include "state/presets.h"
#include "state/sessionfile.h"
#include "state/viewlist.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <functional>

namespace pe::cli {

namespace {

const QString exportCommand = QStringLiteral("export");

// `pescope export` offers the phrase page's fields under these names; --embedding means nothing
// here (figures show both embeddings).
const FlagRenames phraseFlags = {{QStringLiteral("embedding"), QString()}};

template <class P> void throwIf(FieldTable<P> table, const FieldProblem &problem)
{
    if (problem)
        throw UsageError{describe(table, problem, FieldNaming::Flag)};
}

// Phrase page options that are not parameters of a struct: the compared pair and the token.
void applyPhraseChoices(const QCommandLineParser &parser, ExplorerValues &state)
{
    if (parser.isSet(QStringLiteral("compare"))) {
        QList<qint64> pair;
        const QString problem = fieldvalue::parseIntegerList(
            parser.value(QStringLiteral("compare")), {1, limits::maxPhrases}, 2, &pair);
        if (!problem.isEmpty() || pair.size() != 2)
            throw UsageError{QStringLiteral("--compare must be A,B, two phrase numbers from 1")};
        QString error;
        if (!state.setCompare(int(pair[0]) - 1, int(pair[1]) - 1, &error))
            throw UsageError{QStringLiteral("--compare: ") + error};
    }
    // New phrases from the command line have no clicked token (no outline) unless --token says.
    if (parser.isSet(QStringLiteral("text")) && !parser.isSet(QStringLiteral("token")))
        state.setPhraseSelection(PhraseSelection{});
    if (parser.isSet(QStringLiteral("token"))) {
        const QStringList parts = parser.value(QStringLiteral("token")).split(QLatin1Char(','));
        bool okP = false, okT = false;
        PhraseSelection sel;
        sel.phrase = parts.value(0).trimmed().toInt(&okP) - 1;
        sel.token = parts.value(1).trimmed().toLongLong(&okT);
        if (parts.size() == 3) {
            const auto mode = parseAs<EmbeddingMode>(embeddingModeNames, parts[2].trimmed());
            okT = okT && mode.has_value();
            sel.mode = mode.value_or(EmbeddingMode::Fixed);
        }
        if (!okP || !okT || parts.size() < 2 || parts.size() > 3 || sel.phrase < 0 ||
            sel.phrase >= state.phrases.phrases.size() || sel.token < 0 ||
            sel.token >= state.phrases.sequenceLength)
            throw UsageError{QStringLiteral("--token must be PHRASE,TOKEN[,random|fixed] with a "
                                            "phrase from 1 to %1 and a token from 0 to %2 (got "
                                            "\"%3\")")
                                 .arg(state.phrases.phrases.size())
                                 .arg(state.phrases.sequenceLength - 1)
                                 .arg(parser.value(QStringLiteral("token")))};
        state.setPhraseSelection(sel);
    }
}

// The tutorial's phrases: --text and the phrase options, the compared pair and token, the page.
void applyPhraseOptions(const QCommandLineParser &parser, ExplorerValues &state)
{
    QString error;
    PhraseSettings phrases = state.phrases;
    if (parser.isSet(QStringLiteral("text")))
        phrases.titles.clear(); // new phrases start without the old titles
    throwIf(PhraseSettings::fields(),
            readOptions(PhraseSettings::fields(), parser, &phrases, QString(), phraseFlags));
    if (anyOptionSet(PhraseSettings::fields(), parser, phraseFlags) &&
        !state.setPhraseSettings(phrases, &error))
        throw UsageError{QStringLiteral("phrase options: %1").arg(error)};
    applyPhraseChoices(parser, state);
    // Many or long phrases are drawn a page at a time: these pick the page.
    PhrasePage page = state.phrasePage;
    throwIf(PhrasePage::fields(), readOptions(PhrasePage::fields(), parser, &page, QString()));
    throwIf(PhrasePage::fields(), page.problem(state.phrases));
    state.setPhrasePage(page);
}

// The state: defaults, a preset or a session, then every option on top of it.
// `modelPhrases`: the --text phrases are the model phrase views' (FigureRequest::modelPhrases),
// not the tutorial's.
void applyOptions(const QCommandLineParser &parser, ExplorerValues &state, bool modelPhrases)
{
    QString error;
    // --model / --config: the model's learned table or one of its layers, options on top. A
    // tokenizer.json given to the model phrase views has no layer map to read.
    const bool tokenizerFile =
        modelPhrases && parser.isSet(QStringLiteral("model")) &&
        (!PhraseModel::tokenizerAlone(parser.value(QStringLiteral("model"))).isEmpty() ||
         PhraseModel::modelOfTokenizerFile(parser.value(QStringLiteral("model"))) !=
             parser.value(QStringLiteral("model")));
    const std::optional<ModelLayerSpec> model =
        tokenizerFile ? std::nullopt : modelSpecFromOptions(parser);
    EncodingSpec spec = model ? model->spec : specFromOptions(parser, state.spec);
    if (!state.setSpec(spec, &error))
        throw UsageError{error};

    ViewOptions view = state.view;
    throwIf(ViewOptions::fields(), readOptions(ViewOptions::fields(), parser, &view, QString()));
    // The wave view also plots the selected dim; with dims named and no --select, the
    // selection moves onto them so the figure shows exactly the dims asked for.
    if (parser.isSet(QStringLiteral("mark-dims")) && !parser.isSet(QStringLiteral("select")) &&
        !view.waveDims.isEmpty())
        view.selection = {view.markers.isEmpty() ? view.selection.position
                                                 : view.markers.constFirst(),
                          view.waveDims.constFirst()};
    if (parser.isSet(QStringLiteral("select"))) {
        const Selection cell = view.selection;
        if (cell.position >= spec.positions || cell.dim >= spec.dims)
            throw UsageError{QStringLiteral("--select: cell %1 is outside the %2 x %3 matrix")
                                 .arg(fieldvalue::formatCross(cell))
                                 .arg(spec.positions)
                                 .arg(spec.dims)};
    }
    throwIf(ViewOptions::fields(), view.resolved(spec).problem(spec));
    if (!state.setViewOptions(view, &error))
        throw UsageError{error};

    if (!modelPhrases)
        applyPhraseOptions(parser, state);

    SchemeSettings schemes = state.schemes;
    throwIf(SchemeSettings::fields(),
            readOptions(SchemeSettings::fields(), parser, &schemes, QString()));
    if (!state.setSchemeSettings(schemes, &error))
        throw UsageError{error};
}

// The verify view's check: the --config / --model layer (or a --scheme rope spec) against
// --against, with error rows for the figure.
EngineCheckRequest engineCheckFor(const QCommandLineParser &parser, const FigureState &state)
{
    std::optional<ModelLayerSpec> model = modelSpecFromOptions(parser);
    QString source = QStringLiteral("the command line");
    if (const std::optional<ModelConfig> config = modelConfigFromOptions(parser))
        source = config->source;
    if (!model) {
        const RopeScheme *rope = state.spec().get<RopeScheme>();
        if (!rope)
            throw UsageError{QStringLiteral("the verify view needs a rotary spec: --config, "
                                            "--model or --scheme rope")};
        model = ModelLayerSpec{
            state.spec(), -1,
            QStringLiteral("rope, %1, %2 dims").arg(rope->configLabel()).arg(state.spec().dims)};
    }
    model->spec = state.spec(); // --positions and rope options on top, as the figure shows
    EngineCheckRequest request =
        engineCheckRequest(parser, *model, source, VerifyOptionSet::Export);
    request.errorGridRows = 2048;
    return request;
}

} // namespace

FigureInputs FigureRequest::inputs() const
{
    FigureInputs inputs = FigureInputs::of(FigureState(state));
    if (!modelPhrases.model.isEmpty())
        inputs.modelPhrases = modelPhrases;
    // The command line's ablation, else the session's (FigureInputs::of read it from the state).
    if (forwardAblation.any())
        inputs.forwardAblation = forwardAblation;
    return inputs;
}

QCommandLineOption figureViewOption()
{
    return {QStringLiteral("view"),
            QStringLiteral("The figure: a view name, or views joined by +."),
            QStringLiteral("NAME")};
}

void addFigureOptions(OptionSet &options)
{
    options.addPlain(
        {QStringLiteral("preset"),
         QStringLiteral("Start from a preset: %1.").arg(presetIds().join(QStringLiteral(", "))),
         QStringLiteral("NAME")});
    options.addPlain({QStringLiteral("session"),
                      QStringLiteral("Start from a saved session (JSON)."),
                      QStringLiteral("FILE")});
    options.add(FigureOptions::fields());
    options.add(FigureStyle::fields());
    addSpecOptions(options);
    addModelOptions(options);
    options.add(ViewOptions::fields());
    options.add(PhraseSettings::fields(), QStringLiteral("phrases"), phraseFlags);
    options.addPlain({QStringLiteral("compare"),
                      QStringLiteral("phrases: the pair phrase-difference compares, A,B (from 1)."),
                      QStringLiteral("A,B")});
    options.addPlain({QStringLiteral("token"),
                      QStringLiteral("phrases: the clicked token of token-similarity, "
                                     "PHRASE,TOKEN[,random|fixed]."),
                      QStringLiteral("P,T")});
    options.add(PhrasePage::fields());
    options.add(SchemeSettings::fields(), QStringLiteral("schemes"));
    options.addPlain({QStringLiteral("model-phrase"),
                      QStringLiteral("The model's phrase figures: the phrase the embeddings and "
                                     "attention show, A or B (default A)."),
                      QStringLiteral("A|B")});
    options.addPlain({QStringLiteral("phrase-file"),
                      QStringLiteral("The model phrase and layer views: phrase A read from a UTF-8 "
                                     "text file (a long text for the position probe), instead of "
                                     "--text."),
                      QStringLiteral("PATH")});
    options.addPlain({QStringLiteral("attention-head"),
                      QStringLiteral("The attention view: the head of layer 0 drawn, from 0, or "
                                     "mean (default: the mean of the heads). Its data is then "
                                     "that head's 3 x tokens x tokens: with positions, without, "
                                     "with - without (default: every head, with and without)."),
                      QStringLiteral("N|mean")});
    options.addPlain({QStringLiteral("attention-layer"),
                      QStringLiteral("The layer-attention view: the layer whose --attention-head "
                                     "is enlarged, from 0, or all for the grid of every layer "
                                     "and head (default all)."),
                      QStringLiteral("N|all")});
    // The layer-attention view's ablation, parsed as `pescope data --phrase` parses it.
    options.addPlain({QStringLiteral("no-positions"),
                      QStringLiteral("layer-attention with --attention-layer: the head also "
                                     "without positions in every layer, and the difference.")});
    options.addPlain({QStringLiteral("shift"),
                      QStringLiteral("layer-attention: the head also with position ids K .. K "
                                     "+ L - 1 in every layer, and the difference."),
                      QStringLiteral("K")});
    options.addPlain({QStringLiteral("scale"),
                      QStringLiteral("layer-attention: the head also with RoPE positions p / S "
                                     "(linear interpolation), and the difference."),
                      QStringLiteral("S")});
    options.addPlain({QStringLiteral("theta"),
                      QStringLiteral("layer-attention: the head also with rope_theta B in "
                                     "every RoPE layer, and the difference."),
                      QStringLiteral("B")});
    options.addPlain({QStringLiteral("rope-scaling"),
                      QStringLiteral("layer-attention: the head also under another RoPE rule, "
                                     "a rope_scaling JSON object, and the difference."),
                      QStringLiteral("JSON")});
}

ForwardAblation forwardAblationFromOptions(const QCommandLineParser &parser,
                                           const FigureOptions &figure, bool dataOut)
{
    const QStringList names = {QStringLiteral("shift"), QStringLiteral("scale"),
                               QStringLiteral("theta"), QStringLiteral("rope-scaling"),
                               QStringLiteral("no-positions")};
    if (std::none_of(names.begin(), names.end(),
                     [&](const QString &name) { return parser.isSet(name); }))
        return {};
    if (figure.views != QList<FigureView>{FigureView::LayerAttention})
        throw UsageError{QStringLiteral("--shift, --scale, --theta, --rope-scaling and "
                                        "--no-positions apply to --view layer-attention (got "
                                        "%1)")
                             .arg(figureViewsName(figure.views))};
    if (!dataOut && figure.choices.modelLayer < 0)
        throw UsageError{QStringLiteral("--shift, --scale, --theta, --rope-scaling and "
                                        "--no-positions draw one head: give --attention-layer N "
                                        "and --attention-head N")};
    return {parser.isSet(QStringLiteral("no-positions")), positionAblationFromOptions(parser)};
}

namespace {

// --attention-layer and --attention-head where they draw nothing: the layer is layer-attention's
// alone (the other layer views show every layer), and its head needs a layer to be enlarged in
// (the grid shows every head). Throws UsageError naming the option.
void refuseLayerChoices(const QCommandLineParser &parser, const QList<FigureView> &views,
                        const ViewChoices &choices)
{
    const bool grid = views.contains(FigureView::LayerAttention);
    const bool layerZero = views.contains(FigureView::ModelAttention);
    const QString layer = parser.value(QStringLiteral("attention-layer")).trimmed();
    if (parser.isSet(QStringLiteral("attention-layer")) && !grid)
        throw UsageError{QStringLiteral("--attention-layer applies to --view layer-attention (the "
                                        "layer whose head is enlarged), not to %1")
                             .arg(figureViewsName(views))};
    if (parser.isSet(QStringLiteral("attention-head")) && !grid && !layerZero)
        throw UsageError{QStringLiteral("--attention-head applies to --view attention and "
                                        "layer-attention (with --attention-layer), not to %1")
                             .arg(figureViewsName(views))};
    if (grid && !layerZero && parser.isSet(QStringLiteral("attention-head")) &&
        choices.modelLayer < 0)
        throw UsageError{QStringLiteral("--attention-head %1: give the layer whose head is "
                                        "enlarged with --attention-layer N (the grid of every "
                                        "layer shows every head)")
                             .arg(parser.value(QStringLiteral("attention-head")))};
    if (choices.modelLayer >= 0 && choices.modelHead < 0)
        throw UsageError{QStringLiteral("--attention-layer %1: give the head to enlarge with "
                                        "--attention-head N")
                             .arg(layer)};
}

} // namespace

// --model-phrase and --attention-head: what the model phrase figures draw. Throws UsageError naming
// them.
ViewChoices viewChoicesFromOptions(const QCommandLineParser &parser, const QList<FigureView> &views)
{
    ViewChoices choices;
    if (!anyViewReadsModelPhrases(views)) {
        refuseOptions(parser,
                      {QStringLiteral("model-phrase"), QStringLiteral("attention-head"),
                       QStringLiteral("attention-layer")},
                      QStringLiteral("--view %1 (only the model phrase views take them)")
                          .arg(figureViewsName(views)));
        return choices;
    }
    if (parser.isSet(QStringLiteral("model-phrase")) && !anyViewNeeds(views, ViewJob::ModelPhrases))
        throw UsageError{QStringLiteral("--model-phrase: the %1 view draws phrase A (the first "
                                        "--text)")
                             .arg(figureViewsName(views))};
    if (parser.isSet(QStringLiteral("model-phrase"))) {
        const QString phrase = parser.value(QStringLiteral("model-phrase")).trimmed().toUpper();
        if (phrase != QLatin1String("A") && phrase != QLatin1String("B"))
            throw UsageError{QStringLiteral("--model-phrase must be A or B (got \"%1\")")
                                 .arg(parser.value(QStringLiteral("model-phrase")))};
        choices.modelPhrase = phrase == QLatin1String("B") ? 1 : 0;
    }
    if (parser.isSet(QStringLiteral("attention-head"))) {
        const QString head = parser.value(QStringLiteral("attention-head")).trimmed();
        bool ok = true;
        choices.modelHead =
            head == QLatin1String("mean") ? ViewChoices::meanOfHeads : head.toInt(&ok);
        if (!ok || choices.modelHead < ViewChoices::meanOfHeads)
            throw UsageError{
                QStringLiteral("--attention-head must be a head number from 0 or mean (got "
                               "\"%1\")")
                    .arg(head)};
        choices.attentionPanels = true; // data: that head's panels, as the figure draws them
    }
    if (parser.isSet(QStringLiteral("attention-layer"))) {
        const QString layer = parser.value(QStringLiteral("attention-layer")).trimmed();
        const bool every = layer == QLatin1String("all");
        bool ok = true;
        choices.modelLayer = every ? ViewChoices::everyLayer : layer.toInt(&ok);
        // "all" is the grid; a number is a layer, so -1 is refused as -5 is.
        if (!ok || (!every && choices.modelLayer < 0))
            throw UsageError{QStringLiteral("--attention-layer must be a layer number from 0 or "
                                            "all (got \"%1\")")
                                 .arg(layer)};
    }
    refuseLayerChoices(parser, views, choices);
    return choices;
}

QList<FigureView> figureViewsFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("view")))
        throw UsageError{QStringLiteral("--view is required (%1, or several joined by +)")
                             .arg(allFigureViewNames())};
    QString error;
    const std::optional<QList<FigureView>> views =
        parseFigureViews(parser.value(QStringLiteral("view")), &error);
    if (!views)
        throw UsageError{QStringLiteral("--view: ") + error};
    return *views;
}

FigureOptions figureOptionsFromOptions(const QCommandLineParser &parser,
                                       const QList<FigureView> &views)
{
    FigureOptions figure;
    figure.views = views;
    figure.choices = viewChoicesFromOptions(parser, views);
    throwIf(FigureOptions::fields(),
            readOptions(FigureOptions::fields(), parser, &figure, QString()));
    if (const QString problem = figure.validate(); !problem.isEmpty())
        throw UsageError{QStringLiteral("--width / --height / --dpi: ") + problem};
    return figure;
}

namespace {

// The model phrase views' phrases: --text A [--text B], or --phrase-file PATH as phrase A (a long
// text for the position probe, as `pescope data --phrase-file` reads it).
QStringList modelPhraseTexts(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("phrase-file")))
        return parser.values(QStringLiteral("text"));
    if (parser.isSet(QStringLiteral("text")))
        throw UsageError{QStringLiteral("give --text or --phrase-file PATH, not both")};
    return {
        readTextFile(parser.value(QStringLiteral("phrase-file")), QStringLiteral("phrase-file"))};
}

} // namespace

void checkForwardModel(const FigureRequest &request)
{
    if (!anyViewNeeds(request.figure.views, ViewJob::ModelForward))
        return;
    QString error;
    if (!ForwardPass::open(PhraseModel::modelOfTokenizerFile(request.modelPhrases.model), &error))
        throw UsageError{QStringLiteral("--model: %1").arg(error)};
}

void checkForwardData(const FigureData &data, const FigureOptions &figure)
{
    const ForwardViewResult *forward = data.modelForward.get();
    if (!forward)
        return;
    // An ablation the model cannot take: ForwardPass::ablationProblem's sentence.
    if (!forward->ablationProblem.isEmpty())
        throw UsageError{forward->ablationProblem};
    if (figure.choices.modelHead >= forward->heads || figure.choices.modelLayer >= forward->layers)
        throw UsageError{QStringLiteral("--attention-layer / --attention-head: the model has "
                                        "layers 0 to %1 and heads 0 to %2")
                             .arg(forward->layers - 1)
                             .arg(forward->heads - 1)};
    for (const FigureView view : figure.views) {
        const QString problem = view == FigureView::FrequencyAtlas  ? forward->atlasProblem
                                : view == FigureView::PositionProbe ? forward->probeProblem
                                                                    : QString();
        if (!problem.isEmpty())
            throw UsageError{QStringLiteral("--view %1: %2").arg(figureViewName(view), problem)};
    }
}

FigureRequest figureRequestFromOptions(const QCommandLineParser &parser, FigureOptions figure)
{
    FigureRequest request;
    ExplorerValues &state = request.state;
    const QList<FigureView> &views = figure.views;
    QString error;
    const bool fromPreset = parser.isSet(QStringLiteral("preset"));
    const bool fromSession = parser.isSet(QStringLiteral("session"));
    if (fromPreset && fromSession)
        throw UsageError{QStringLiteral("--preset and --session cannot be combined")};
    if (fromPreset && !applyPreset(state, parser.value(QStringLiteral("preset")), &error))
        throw UsageError{QStringLiteral("--preset: ") + error};
    if (fromSession && !loadSession(parser.value(QStringLiteral("session")), &state, &error))
        throw UsageError{QStringLiteral("--session: ") + error};
    const bool needsEncoding = anyViewNeeds(views, ViewJob::Encoding);
    request.backend =
        parser.isSet(QStringLiteral("backend")) ? backendFromOptions(parser) : state.window.backend;
    const bool modelPhrases = anyViewReadsModelPhrases(views);
    applyOptions(parser, state, modelPhrases);
    // The look a session or preset saved, then the command line's options on top.
    figure.style = state.figure;
    throwIf(FigureStyle::fields(),
            readOptions(FigureStyle::fields(), parser, &figure.style, QString()));
    if (needsEncoding) {
        if (const QString problem = inMemoryProblem(state.spec); !problem.isEmpty())
            throw UsageError{QStringLiteral("--positions / --dims: ") + problem};
    }
    if (anyViewNeeds(views, ViewJob::Phrases) && state.phrases.phrases.isEmpty())
        throw UsageError{
            QStringLiteral("--text is required for the %1 view").arg(figureViewsName(views))};
    // The view list's needs (two phrases to compare), checked as the window checks them.
    if (const QString problem = viewNeedsProblem(viewsNeeding(views, ViewJob::Phrases),
                                                 {.phrases = state.phrases.phrases.size()});
        !problem.isEmpty())
        throw UsageError{QStringLiteral("--text: ") + problem};
    if (!modelPhrases && parser.isSet(QStringLiteral("phrase-file")))
        throw UsageError{QStringLiteral("--phrase-file gives the model phrase views' phrase A "
                                        "(the %1 view reads --text)")
                             .arg(figureViewsName(views))};
    if (modelPhrases) {
        // The model's own tokenizer and layer 0 for the --text phrases, A then B.
        if (!parser.isSet(QStringLiteral("model")))
            throw UsageError{QStringLiteral("--model PATH|REPO_ID is required for the %1 view")
                                 .arg(figureViewsName(views))};
        const QStringList texts = modelPhraseTexts(parser);
        if (texts.isEmpty())
            throw UsageError{
                QStringLiteral("--text is required for the %1 view").arg(figureViewsName(views))};
        if (texts.size() > 2)
            throw UsageError{QStringLiteral("--text: the %1 view compares at most two phrases "
                                            "(got %2)")
                                 .arg(figureViewsName(views))
                                 .arg(texts.size())};
        if (const QString problem = viewNeedsProblem(viewsNeeding(views, ViewJob::ModelPhrases),
                                                     {.phrases = texts.size(), .model = true});
            !problem.isEmpty())
            throw UsageError{QStringLiteral("--text: ") + problem};
        if (figure.choices.modelPhrase >= texts.size())
            throw UsageError{QStringLiteral("--model-phrase B: only one phrase is given (a "
                                            "second --text is phrase B)")};
        // Made absolute, or a cached repo id, as the window keeps it.
        request.modelPhrases = {phraseModelPath(parser.value(QStringLiteral("model"))), texts};
    }
    request.figure = std::move(figure);
    return request;
}

namespace {

// The names of the views `belongs` picks, in the view list's order: "pca, table-similarity".
QString viewNamesWhere(const std::function<bool(const ViewEntry &)> &belongs)
{
    QStringList names;
    for (const ViewEntry &entry : viewList())
        if (belongs(entry))
            names.append(QString::fromUtf8(entry.name));
    return names.join(QStringLiteral(", "));
}

// The command's description and options, in the order --help lists them. The views are listed
// from the view list, grouped by what they draw from.
void addExportOptions(QCommandLineParser &parser)
{
    const auto onJob = [](ViewJob job) {
        return [job](const ViewEntry &e) { return e.job == job; };
    };
    const QString tutorialViews = viewNamesWhere(
        [](const ViewEntry &e) { return e.job == ViewJob::Encoding || e.job == ViewJob::Phrases; });
    const QString schemeViews =
        viewNamesWhere([](const ViewEntry &e) { return e.page == Page::Schemes; });
    parser.setApplicationDescription(
        QStringLiteral(
            "Renders a figure of the explorer (the same figure builders as the window) to PNG, "
            "SVG or PDF without a display; .npy or .csv writes the view's numbers instead.\n"
            "Views: %1; several joined by + are stacked (waves+heatmap is Fig 16-9).\n"
            "Schemes page views: %2; their options come from --preset or --session (e.g. "
            "--preset rope-llama31-vs-yarn), RoPE options set configuration A.\n"
            "A model's learned position table (--model PATH|REPO_ID): %3, and heatmap or waves "
            "of the table.\n"
            "An engine's RoPE table against Hugging Face (--config or --model, and --against "
            "FILE[:TENSOR] as `pescope verify` takes them): %4.\n"
            "A model's own tokenizer and layer 0 for typed phrases (--model PATH|REPO_ID --text "
            "A [--text B], --model-phrase, --attention-head): %5.\n"
            "A model's whole forward pass, every layer, for phrase A (--model PATH|REPO_ID "
            "--text A, --attention-layer and --attention-head for layer-attention): %6.")
            .arg(tutorialViews, schemeViews, viewNamesWhere(onJob(ViewJob::Table)),
                 viewNamesWhere(onJob(ViewJob::EngineCheck)),
                 viewNamesWhere(onJob(ViewJob::ModelPhrases)),
                 viewNamesWhere(onJob(ViewJob::ModelForward))));
    parser.addHelpOption();
    OptionSet options;
    options.addPlain(figureViewOption());
    options.addPlain({QStringLiteral("out"),
                      QStringLiteral("%1 (or DATA.npy/.csv; %2 with --animate).")
                          .arg(outputExtensionList(OutputKind::Figure, QStringLiteral("FIG")),
                               outputExtensionList(OutputKind::Animation, QStringLiteral("FIG"))),
                      QStringLiteral("FILE")});
    addAnimationOptions(options);
    addFigureOptions(options);
    addVerifyOptions(options, VerifyOptionSet::Export);
    options.addPlain(dryRunOption());
    options.addTo(parser);
}

// --out: its path, and whether it takes the view's data (.npy, .csv) rather than a figure or an
// animation. Throws UsageError naming it.
std::pair<QString, bool> outputFromOptions(const QCommandLineParser &parser,
                                           const QList<FigureView> &views)
{
    if (!parser.isSet(QStringLiteral("out")) || parser.value(QStringLiteral("out")).isEmpty())
        throw UsageError{QStringLiteral("--out is required")};
    const QString path = parser.value(QStringLiteral("out"));
    const std::optional<FigureFormat> format = figureFormatForPath(path);
    const bool dataOut = !format && matrixFormatForPath(path).has_value();
    if (!format && !dataOut && !videoFormatForPath(path))
        throw UsageError{QStringLiteral("--out must end in %1 (or .npy or .csv for the view's "
                                        "data, %2 with --animate) (got \"%3\")")
                             .arg(outputExtensionList(OutputKind::Figure),
                                  outputExtensionList(OutputKind::Animation), path)};
    if (dataOut && views.size() != 1)
        throw UsageError{QStringLiteral("--out %1: data is written for one view, not %2")
                             .arg(path, figureViewsName(views))};
    // Before any work: a figure-only view refuses a data --out as a usage error.
    if (const QString refusal = dataOut ? noDataExport(views.constFirst()) : QString();
        !refusal.isEmpty())
        throw UsageError{QStringLiteral("--out %1: %2").arg(path, refusal)};
    return {path, dataOut};
}

// Whether the views check an engine's table: the verify view needs --against and a figure;
// the other views refuse the check's options. Throws UsageError naming the option.
bool checksEngineFromOptions(const QCommandLineParser &parser, const QList<FigureView> &views,
                             bool animates, bool dataOut)
{
    const bool checksEngine = anyViewNeeds(views, ViewJob::EngineCheck);
    if (!checksEngine)
        refuseOptions(parser,
                      {QStringLiteral("against"), QStringLiteral("what"),
                       QStringLiteral("tolerance"), QStringLiteral("unscaled"),
                       QStringLiteral("strict")},
                      QStringLiteral("--view %1 (only the verify view checks a table)")
                          .arg(figureViewsName(views)));
    else if (!parser.isSet(QStringLiteral("against")))
        throw UsageError{QStringLiteral("--against is required for the verify view")};
    else if (animates || dataOut)
        throw UsageError{QStringLiteral("the verify view is a figure: --out must end in %1")
                             .arg(outputExtensionList(OutputKind::Figure))};
    return checksEngine;
}

// The shape of the data written: the view list's, or layer-attention's with an ablation (with,
// ablated and their difference stacked, as `pescope data --compare`).
QString dataDescription(const QList<FigureView> &views, const FigureInputs &inputs)
{
    if (views.constFirst() == FigureView::LayerAttention && inputs.forwardAblation.any())
        return QStringLiteral("3 x layers x heads x tokens x tokens float32: every layer's "
                              "attention of phrase A with positions, %1, and with - ablated")
            .arg(inputs.forwardAblation.text());
    return viewDataDescription(views.constFirst());
}

// What --dry-run says the command would write.
QString exportAction(const FigureOptions &figure, const std::optional<FigureAnimation> &animation,
                     const FigureInputs &inputs, bool dataOut, const QString &path)
{
    const QList<FigureView> &views = figure.views;
    const QString viewName = figureViewsName(views);
    if (animation)
        return QStringLiteral("write %1 frames of the %2 figure (%3 from %4 to %5) to %6")
            .arg(animation->frames())
            .arg(viewName, animation->parameter())
            .arg(animation->from())
            .arg(animation->to())
            .arg(path);
    if (dataOut)
        return QStringLiteral("write the %1 view's data (%2) to %3")
            .arg(viewName, dataDescription(views, inputs), path);
    return QStringLiteral("render the %1 figure (%2 x %3 px, %4 dpi) to %5")
        .arg(viewName)
        .arg(figure.width)
        .arg(figure.height)
        .arg(figure.dpi)
        .arg(path);
}

// The figure, or the view's data when `dataOut`, computed by `backend` (with the engine check
// first when there is one) and written to `path`; reported with the time since `timer` started.
int writeExport(const QString &command, const FigureState &state, const FigureInputs &requested,
                const FigureOptions &figure, const std::optional<EngineCheckRequest> &engineRequest,
                bool dataOut, const QString &path, Backend &backend, const QElapsedTimer &timer,
                PhraseModelHolder &phraseModels)
{
    const QList<FigureView> &views = figure.views;
    // A figure runs the ablated pass only where it draws it; the data keep the whole ablation.
    FigureInputs inputs = requested;
    if (!dataOut) {
        inputs.forwardAblation = drawnAblation(requested.forwardAblation, views, figure.choices);
        if (requested.forwardAblation.any() && !inputs.forwardAblation.any())
            report(command, QStringLiteral("note: the session's ablation (%1) is drawn on an "
                                           "enlarged head only, which --attention-layer N and "
                                           "--attention-head N choose; not drawn here")
                                .arg(requested.forwardAblation.text()));
    }
    QString error;
    FigureData data;
    // The model phrase views' numbers from the model opened before the work started.
    if (anyViewNeeds(views, ViewJob::ModelPhrases)) {
        auto result = std::make_shared<PhraseModelResult>();
        if (computePhraseModelData(inputs.modelPhrases, phraseModels, {}, result.get(), &error) !=
            JobStatus::Done) {
            report(command, error);
            return Failure;
        }
        data.modelPhrases = std::move(result);
    }
    if (engineRequest) {
        std::optional<EngineCheck> check = runEngineCheck(*engineRequest, &error);
        if (!check)
            throw UsageError{QStringLiteral("--against: ") + error};
        report(command, check->verdict());
        if (const QString diagnosis = check->diagnosis(); !diagnosis.isEmpty())
            report(command, diagnosis);
        data.engineCheck = std::make_shared<const EngineCheck>(std::move(*check));
    }
    const bool computed =
        computeFigureData(inputs, views, backend, {}, &data, &error) == JobStatus::Done;
    if (const QString notice = backend.notice(); !notice.isEmpty())
        report(command, notice);
    if (!computed) {
        report(command, error);
        return Failure;
    }
    if (data.modelPhrases && figure.choices.modelHead >= data.modelPhrases->heads)
        throw UsageError{
            QStringLiteral("--attention-head %1: layer 0 of the model has %2 heads (0 to %3, "
                           "or mean)")
                .arg(figure.choices.modelHead)
                .arg(data.modelPhrases->heads)
                .arg(data.modelPhrases->heads - 1)};
    // What the views cannot draw (no RoPE, too few tokens, a refused ablation): bad input.
    checkForwardData(data, figure);
    // Weights that are not finite: the pass's warnings, as `pescope data --what` prints them.
    if (data.modelForward)
        for (const QString &warning : data.modelForward->warnings)
            report(command, QStringLiteral("warning: ") + warning);
    if (dataOut) {
        if (!writeViewData(state, data, views.constFirst(), path, &error, figure.choices)) {
            report(command, error);
            return Failure;
        }
        report(command,
               QStringLiteral("%1 data (%2) written to %3, computed by the %4 backend, "
                              "in %5 ms")
                   .arg(figureViewsName(views), dataDescription(views, inputs), path, backend.id())
                   .arg(timer.elapsed()));
        return Success;
    }
    const FigureExporter exporter(state, data, figure);
    if (!exporter.writeFile(path, &error)) {
        report(command, error);
        return Failure;
    }
    report(command, QStringLiteral("%1 figure written to %2 (%3 x %4 px, %5 dpi), computed by "
                                   "the %6 backend, in %7 ms")
                        .arg(figureViewsName(views), path)
                        .arg(figure.width)
                        .arg(figure.height)
                        .arg(figure.dpi)
                        .arg(backend.id())
                        .arg(timer.elapsed()));
    return Success;
}

} // namespace

namespace {

enum class OutputKinds { Any, DataOnly };

// `pescope export`, and `pescope data --view` (DataOnly: the view's numbers), reporting as
// `command`.
int runFigureCommand(const QStringList &args, const QString &command, OutputKinds kinds)
{
    QCommandLineParser parser;
    addExportOptions(parser);
    parseCommand(parser, args);

    // Usage first, in the order of the command line's contract.
    const QList<FigureView> views = figureViewsFromOptions(parser);
    const auto [path, dataOut] = outputFromOptions(parser, views);
    if (kinds == OutputKinds::DataOnly && !dataOut)
        throw UsageError{QStringLiteral("--view: pescope data writes a view's numbers, --out must "
                                        "end in .npy or .csv (got \"%1\"; a figure is "
                                        "`pescope export`)")
                             .arg(path)};
    const FigureOptions figureOptions = figureOptionsFromOptions(parser, views);
    const std::optional<AnimationRequest> animation =
        animationFromOptions(parser, path, figureOptions);
    const bool checksEngine =
        checksEngineFromOptions(parser, views, animation.has_value(), dataOut);

    // The state: defaults, a preset or a session, then the command line on top.
    FigureRequest request = figureRequestFromOptions(parser, figureOptions);
    request.forwardAblation = forwardAblationFromOptions(parser, figureOptions, dataOut);
    // The options made the plain values the figure is drawn from.
    const FigureState state(request.state);
    const FigureOptions &figure = request.figure;
    const BackendChoice choice = request.backend;

    if (animation && anyViewReadsModelPhrases(views))
        throw UsageError{
            QStringLiteral("--animate: the %1 view is a still figure").arg(figureViewsName(views))};
    const std::optional<FigureAnimation> animationPlan =
        animation ? std::optional(planAnimation(state, views, *animation)) : std::nullopt;
    if (animation && AtomicFile::writesInPlace(path))
        throw UsageError{QStringLiteral("--out %1: an animation is written to a file, not to a "
                                        "device or pipe")
                             .arg(path)};

    const std::optional<EngineCheckRequest> engineRequest =
        checksEngine ? std::optional(engineCheckFor(parser, state)) : std::nullopt;

    // The folder is checked before any work, so a typo costs no computing.
    if (const QString problem = outputPathProblem(path); !problem.isEmpty()) {
        report(command, problem);
        return Failure;
    }
    // The model phrase views' model is opened now, a dry run's too: a model whose files cannot
    // be read is bad input (exit 2), as `pescope data --phrase` and the other views' --model
    // say, not a failure found while computing.
    PhraseModelHolder phraseModels;
    if (anyViewReadsModelPhrases(views)) {
        QString error;
        const PhraseModel *model = phraseModels.open(request.modelPhrases.model, &error);
        if (!model)
            throw UsageError{error};
        // A tokenizer without weights draws the tokens view alone; the others are refused by
        // name before any work.
        for (const FigureView view : views)
            if (!model->hasWeights() && viewReadsModelPhrases(view) &&
                view != FigureView::ModelTokens)
                throw UsageError{QStringLiteral("--view %1: %2")
                                     .arg(figureViewName(view), model->weightsNote())};
    }
    // The layer views' model, a dry run's too: a tensor missing is bad input.
    checkForwardModel(request);
    if (parser.isSet(QStringLiteral("dry-run")))
        return reportDryRun(command,
                            exportAction(figure, animationPlan, request.inputs(), dataOut, path) +
                                QStringLiteral(" (backend: %1)").arg(backendChoiceName(choice)));

    QElapsedTimer timer;
    timer.start();
    QString error;
    const std::unique_ptr<Backend> backend = makeBackend(choice, &error);
    if (!backend) {
        report(command, QStringLiteral("the %1 backend cannot start: %2")
                            .arg(backendChoiceName(choice), error));
        return Failure;
    }
    if (animationPlan) {
        const int rc = writeAnimation(state, figure, *animationPlan, *animation, *backend, path);
        if (const QString notice = backend->notice(); !notice.isEmpty())
            report(command, notice);
        return rc;
    }
    return writeExport(command, state, request.inputs(), figure, engineRequest, dataOut, path,
                       *backend, timer, phraseModels);
}

} // namespace

int runExport(const QStringList &args)
{
    return runFigureCommand(args, exportCommand, OutputKinds::Any);
}

bool namesView(const QStringList &args)
{
    return std::any_of(args.begin(), args.end(), [](const QString &arg) {
        return arg == QLatin1String("--view") || arg.startsWith(QLatin1String("--view="));
    });
}

int runViewData(const QStringList &args)
{
    // The view list's data export: what `pescope export --view NAME --out X.npy` writes.
    return runFigureCommand(args, QStringLiteral("data"), OutputKinds::DataOnly);
}

} // namespace pe::cli
