// `pescope export --view NAME [SPEC] [view options] --out FIG.png|FIG.svg|FIG.pdf`: a figure
// built by the window's FigureBuilder from the same ExplorerState, rendered without a display.
#include "commandline.h"

#include "figureexporter.h"
#include "io/atomicfile.h"
#include "presets.h"
#include "sessionfile.h"
#include "viewdata.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>

namespace pe::cli {

namespace {

const QString command = QStringLiteral("export");

// "100,101" → {100, 101}; the option's name goes into the message.
QList<qint64> integerList(const QCommandLineParser &parser, const QString &name)
{
    QList<qint64> values;
    const QString text = parser.value(name).trimmed();
    if (text.isEmpty())
        return values;
    for (const QString &part : text.split(QLatin1Char(','))) {
        bool ok = false;
        const qint64 v = part.trimmed().toLongLong(&ok);
        if (!ok || v < 0)
            throw UsageError{
                QStringLiteral("--%1 must be non-negative whole numbers separated by commas "
                               "(got \"%2\")")
                    .arg(name, text)};
        values.append(v);
    }
    return values;
}

template <typename Setter> void applyOrThrow(const QString &option, Setter setter)
{
    QString error;
    if (!setter(&error))
        throw UsageError{QStringLiteral("--%1: %2").arg(option, error)};
}

// SPEC options given with --session or --preset replace only the fields they name.
EncodingSpec mergedSpec(const QCommandLineParser &parser, const EncodingSpec &current)
{
    const QStringList names = {QStringLiteral("scheme"), QStringLiteral("positions"),
                               QStringLiteral("dims"),   QStringLiteral("base"),
                               QStringLiteral("layout"), QStringLiteral("seed")};
    QStringList args = {QStringLiteral("pescope export")};
    const QStringList all = names + ropeOptionNames();
    for (const QString &name : all)
        if (parser.isSet(name))
            args << QStringLiteral("--") + name << parser.value(name);
    const auto fill = [&](const QString &name, const QString &value) {
        if (!parser.isSet(name))
            args << QStringLiteral("--") + name << value;
    };
    const bool schemeGiven = parser.isSet(QStringLiteral("scheme"));
    fill(QStringLiteral("scheme"), schemeName(current.scheme));
    fill(QStringLiteral("positions"), QString::number(current.positions));
    fill(QStringLiteral("dims"), QString::number(current.dims));
    fill(QStringLiteral("base"), QString::number(current.base, 'g', 17));
    fill(QStringLiteral("seed"), QString::number(current.seed));
    const Scheme scheme =
        schemeGiven ? parseScheme(parser.value(QStringLiteral("scheme"))).value_or(current.scheme)
                    : current.scheme;
    if (scheme != Scheme::Rope)
        fill(QStringLiteral("layout"), layoutName(current.layout));
    QCommandLineParser merged;
    addSpecOptions(merged);
    parseOrThrow(merged, args);
    EncodingSpec spec = specFromOptions(merged);
    // RoPE parameters the command line does not name stay as the session has them.
    if (spec.scheme == Scheme::Rope && current.scheme == Scheme::Rope &&
        std::none_of(ropeOptionNames().begin(), ropeOptionNames().end(),
                     [&](const QString &n) { return parser.isSet(n); }))
        spec.rope = current.rope;
    return spec;
}

bool anySpecOption(const QCommandLineParser &parser)
{
    const QStringList names =
        QStringList{QStringLiteral("scheme"), QStringLiteral("positions"), QStringLiteral("dims"),
                    QStringLiteral("base"),   QStringLiteral("layout"),    QStringLiteral("seed")} +
        ropeOptionNames();
    return std::any_of(names.begin(), names.end(),
                       [&](const QString &n) { return parser.isSet(n); });
}

void applyViewOptions(const QCommandLineParser &parser, ExplorerState &state)
{
    if (parser.isSet(QStringLiteral("colormap"))) {
        const QString name = parser.value(QStringLiteral("colormap"));
        const auto map = parseColormap(name);
        if (!map)
            throw UsageError{
                QStringLiteral("--colormap must be viridis, gray, magma or RdBu (got \"%1\")")
                    .arg(name)};
        state.setColormap(*map);
    }
    if (parser.isSet(QStringLiteral("transpose")))
        state.setTransposed(true);
    if (parser.isSet(QStringLiteral("no-transpose")))
        state.setTransposed(false);
    if (parser.isSet(QStringLiteral("crop-dims"))) {
        const qint64 limit =
            integerOption(parser, QStringLiteral("crop-dims"), 0, limits::maxDims, 0);
        applyOrThrow(QStringLiteral("crop-dims"),
                     [&](QString *e) { return state.setHeatmapDimLimit(limit, e); });
    }
    if (parser.isSet(QStringLiteral("mark-dims"))) {
        const QList<qint64> dims = integerList(parser, QStringLiteral("mark-dims"));
        applyOrThrow(QStringLiteral("mark-dims"),
                     [&](QString *e) { return state.setWaveDims(dims, e); });
    }
    if (parser.isSet(QStringLiteral("mark-positions"))) {
        const QList<qint64> positions = integerList(parser, QStringLiteral("mark-positions"));
        applyOrThrow(QStringLiteral("mark-positions"),
                     [&](QString *e) { return state.setMarkers(positions, e); });
    }
    if (parser.isSet(QStringLiteral("cross"))) {
        // "35" puts the cross on the first marked dim (Fig 16-9's i = 100), "35:101" names it.
        QList<CrossMarker> crosses;
        const QString text = parser.value(QStringLiteral("cross")).trimmed();
        for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QStringList pd = part.trimmed().split(QLatin1Char(':'));
            bool okP = false, okD = true;
            CrossMarker cross;
            cross.position = pd.value(0).toLongLong(&okP);
            if (pd.size() == 2)
                cross.dim = pd[1].toLongLong(&okD);
            else if (!state.waveDims().isEmpty())
                cross.dim = state.waveDims().constFirst();
            else
                cross.dim = state.selection().dim;
            if (!okP || !okD || pd.size() > 2 || cross.position < 0 || cross.dim < 0)
                throw UsageError{QStringLiteral("--cross must be P or P:I, several separated by "
                                                "commas (got \"%1\")")
                                     .arg(text)};
            crosses.append(cross);
        }
        applyOrThrow(QStringLiteral("cross"),
                     [&](QString *e) { return state.setCrosses(crosses, e); });
    }
    // The wave view also plots the selected dim; with dims named and no --select, the
    // selection moves onto them so the figure shows exactly the dims asked for.
    if (parser.isSet(QStringLiteral("mark-dims")) && !parser.isSet(QStringLiteral("select")) &&
        !state.waveDims().isEmpty()) {
        const qint64 position =
            state.markers().isEmpty() ? state.selection().position : state.markers().constFirst();
        state.setSelection({position, state.waveDims().constFirst()});
    }
    if (parser.isSet(QStringLiteral("select"))) {
        const QList<qint64> cell = integerList(parser, QStringLiteral("select"));
        if (cell.size() != 2)
            throw UsageError{QStringLiteral("--select must be P,I (got \"%1\")")
                                 .arg(parser.value(QStringLiteral("select")))};
        if (cell[0] >= state.spec().positions || cell[1] >= state.spec().dims)
            throw UsageError{QStringLiteral("--select: cell (%1, %2) is outside the %3 x %4 matrix")
                                 .arg(cell[0])
                                 .arg(cell[1])
                                 .arg(state.spec().positions)
                                 .arg(state.spec().dims)};
        state.setSelection({cell[0], cell[1]});
    }

    // The phrase page: --text replaces the phrases (and their titles).
    PhraseSettings phrases = state.phraseSettings();
    bool phrasesGiven = false;
    if (parser.isSet(QStringLiteral("text"))) {
        phrases.phrases = parser.values(QStringLiteral("text"));
        phrases.titles.clear();
        phrasesGiven = true;
    }
    if (parser.isSet(QStringLiteral("phrase-title"))) {
        phrases.titles = parser.values(QStringLiteral("phrase-title"));
        phrasesGiven = true;
    }
    const auto number = [&](const QString &name, qint64 min, qint64 max, qint64 *field) {
        if (parser.isSet(name)) {
            *field = integerOption(parser, name, min, max, *field);
            phrasesGiven = true;
        }
    };
    number(QStringLiteral("max-tokens"), 3, limits::maxPositions, &phrases.maxTokens);
    number(QStringLiteral("sequence-length"), 1, limits::maxPositions, &phrases.sequenceLength);
    number(QStringLiteral("phrase-dims"), 1, limits::maxDims, &phrases.dims);
    if (parser.isSet(QStringLiteral("phrase-seed"))) {
        phrases.seed = seedOption(parser, QStringLiteral("phrase-seed"));
        phrasesGiven = true;
    }
    if (phrasesGiven) {
        QString error;
        if (!state.setPhraseSettings(phrases, &error))
            throw UsageError{QStringLiteral("phrase options: %1").arg(error)};
    }
    if (parser.isSet(QStringLiteral("compare"))) {
        const QList<qint64> pair = integerList(parser, QStringLiteral("compare"));
        if (pair.size() != 2)
            throw UsageError{QStringLiteral("--compare must be A,B (phrase numbers from 1)")};
        applyOrThrow(QStringLiteral("compare"), [&](QString *e) {
            return state.setCompare(int(pair[0]) - 1, int(pair[1]) - 1, e);
        });
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
            const auto mode = parseEmbeddingMode(parts[2].trimmed());
            okT = okT && mode.has_value();
            sel.mode = mode.value_or(EmbeddingMode::Fixed);
        }
        if (!okP || !okT || parts.size() < 2 || parts.size() > 3 || sel.phrase < 0 ||
            sel.phrase >= state.phraseSettings().phrases.size() || sel.token < 0 ||
            sel.token >= state.phraseSettings().sequenceLength)
            throw UsageError{QStringLiteral("--token must be PHRASE,TOKEN[,random|fixed] with a "
                                            "phrase from 1 to %1 and a token from 0 to %2 (got "
                                            "\"%3\")")
                                 .arg(state.phraseSettings().phrases.size())
                                 .arg(state.phraseSettings().sequenceLength - 1)
                                 .arg(parser.value(QStringLiteral("token")))};
        state.setPhraseSelection(sel);
    }
}

} // namespace

int runExport(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Renders a figure of the explorer (the same figure builders as the window) to PNG, SVG "
        "or PDF without a display; .npy or .csv writes the view's numbers instead.\n"
        "Views: heatmap, waves, phrases, phrase-difference, token-similarity; several joined by "
        "+ are stacked (waves+heatmap is Fig 16-9).\n"
        "Schemes page views: spectrum, rotation, decay, similarity, alibi, t5, compare; their "
        "options come from --preset or --session (e.g. --preset rope-llama31-vs-yarn), RoPE "
        "options set configuration A."));
    parser.addHelpOption();
    addSpecOptions(parser);
    parser.addOptions({
        {QStringLiteral("view"), QStringLiteral("The figure: a view name, or views joined by +."),
         QStringLiteral("NAME")},
        {QStringLiteral("out"), QStringLiteral("FIG.png, FIG.svg or FIG.pdf (or DATA.npy/.csv)."),
         QStringLiteral("FILE")},
        {QStringLiteral("width"),
         QStringLiteral("Width in pixels, %1 to %2 (default 1200); with --dpi the page width.")
             .arg(figurelimits::minSide)
             .arg(figurelimits::maxSide),
         QStringLiteral("PX")},
        {QStringLiteral("height"), QStringLiteral("Height in pixels (default 800)."),
         QStringLiteral("PX")},
        {QStringLiteral("dpi"),
         QStringLiteral("Dots per inch, %1 to %2 (default 96: text as large as in the window; "
                        "300 for print).")
             .arg(figurelimits::minDpi)
             .arg(figurelimits::maxDpi),
         QStringLiteral("N")},
        {QStringLiteral("preset"),
         QStringLiteral("Start from a preset: %1.").arg(presetIds().join(QStringLiteral(", "))),
         QStringLiteral("NAME")},
        {QStringLiteral("session"), QStringLiteral("Start from a saved session (JSON)."),
         QStringLiteral("FILE")},
        {QStringLiteral("title"), QStringLiteral("A title above the figure."), QStringLiteral("T")},
        {QStringLiteral("caption"),
         QStringLiteral("A caption below the figure with the parameters.")},
        {QStringLiteral("caption-text"), QStringLiteral("A caption of your own."),
         QStringLiteral("T")},
        {QStringLiteral("print-theme"),
         QStringLiteral("Black on white for print, whatever the session's theme.")},
        {QStringLiteral("interpolate"),
         QStringLiteral("Smooth heatmap cells (default: nearest neighbour, one block per cell).")},
        {QStringLiteral("colormap"), QStringLiteral("viridis, gray, magma or RdBu."),
         QStringLiteral("NAME")},
        {QStringLiteral("transpose"),
         QStringLiteral("Heatmap with dims on the y axis (Fig 16-9).")},
        {QStringLiteral("no-transpose"), QStringLiteral("Heatmap with positions on the y axis.")},
        {QStringLiteral("crop-dims"), QStringLiteral("Heatmap shows the first N dims (0: all)."),
         QStringLiteral("N")},
        {QStringLiteral("mark-dims"), QStringLiteral("Dims drawn as waves, e.g. 100,101."),
         QStringLiteral("I,...")},
        {QStringLiteral("mark-positions"), QStringLiteral("Dashed markers, e.g. 22,60."),
         QStringLiteral("P,...")},
        {QStringLiteral("cross"),
         QStringLiteral("Crosses at P (on the first marked dim) or P:I, e.g. 35."),
         QStringLiteral("P[:I],...")},
        {QStringLiteral("select"), QStringLiteral("The selected cell, outlined: P,I."),
         QStringLiteral("P,I")},
        {QStringLiteral("text"), QStringLiteral("A phrase; repeat for more."), QStringLiteral("T")},
        {QStringLiteral("phrase-title"), QStringLiteral("A phrase's title; repeat in order."),
         QStringLiteral("T")},
        {QStringLiteral("max-tokens"), QStringLiteral("Vocabulary size (default 200)."),
         QStringLiteral("N")},
        {QStringLiteral("sequence-length"), QStringLiteral("Tokens per phrase (default 20)."),
         QStringLiteral("L")},
        {QStringLiteral("phrase-dims"), QStringLiteral("Phrase embedding size (default 50)."),
         QStringLiteral("D")},
        {QStringLiteral("phrase-seed"), QStringLiteral("Seed of the random embedding (default 0)."),
         QStringLiteral("S")},
        {QStringLiteral("compare"), QStringLiteral("Phrases compared by phrase-difference: A,B."),
         QStringLiteral("A,B")},
        {QStringLiteral("token"),
         QStringLiteral("The clicked token of token-similarity: PHRASE,TOKEN[,random|fixed]."),
         QStringLiteral("P,T")},
    });
    parseOrThrow(parser, args);
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(Success);

    // Usage first, in the order of the command line's contract.
    if (!parser.isSet(QStringLiteral("view")))
        throw UsageError{QStringLiteral("--view is required (heatmap, waves, phrases, "
                                        "phrase-difference, token-similarity, spectrum, "
                                        "rotation, decay, similarity, alibi, t5, compare, or "
                                        "several joined by +)")};
    QString error;
    const std::optional<QList<FigureView>> views =
        parseFigureViews(parser.value(QStringLiteral("view")), &error);
    if (!views)
        throw UsageError{QStringLiteral("--view: ") + error};
    if (!parser.isSet(QStringLiteral("out")) || parser.value(QStringLiteral("out")).isEmpty())
        throw UsageError{QStringLiteral("--out is required")};
    const QString path = parser.value(QStringLiteral("out"));
    const std::optional<FigureFormat> format = figureFormatForPath(path);
    const bool dataOut = !format && matrixFormatForPath(path).has_value();
    if (!format && !dataOut)
        throw UsageError{QStringLiteral("--out must end in .png, .svg or .pdf (or .npy or .csv "
                                        "for the view's data) (got \"%1\")")
                             .arg(path)};
    if (dataOut && views->size() != 1)
        throw UsageError{QStringLiteral("--out %1: data is written for one view, not %2")
                             .arg(path, figureViewsName(*views))};

    FigureOptions options;
    options.views = *views;
    options.width = int(integerOption(parser, QStringLiteral("width"), figurelimits::minSide,
                                      figurelimits::maxSide, options.width));
    options.height = int(integerOption(parser, QStringLiteral("height"), figurelimits::minSide,
                                       figurelimits::maxSide, options.height));
    options.dpi = numberOption(parser, QStringLiteral("dpi"), options.dpi);
    if (options.dpi < figurelimits::minDpi || options.dpi > figurelimits::maxDpi)
        throw UsageError{QStringLiteral("--dpi must be between %1 and %2 (got %3)")
                             .arg(figurelimits::minDpi)
                             .arg(figurelimits::maxDpi)
                             .arg(options.dpi)};
    if (qint64(options.width) * options.height > figurelimits::maxPixels)
        throw UsageError{QStringLiteral("--width %1 x --height %2 is %3 megapixels; the limit is "
                                        "%4 megapixels")
                             .arg(options.width)
                             .arg(options.height)
                             .arg(double(options.width) * options.height / 1e6, 0, 'f', 1)
                             .arg(figurelimits::maxPixels / 1000000)};
    options.title = parser.value(QStringLiteral("title"));
    options.caption = parser.isSet(QStringLiteral("caption"));
    options.captionText = parser.value(QStringLiteral("caption-text"));
    options.printTheme = parser.isSet(QStringLiteral("print-theme"));
    options.interpolate = parser.isSet(QStringLiteral("interpolate"));
    if (const QString problem = options.validate(); !problem.isEmpty())
        throw UsageError{QStringLiteral("--width / --height / --dpi: ") + problem};

    // The state: defaults, a preset or a session, then the command line on top.
    ExplorerState state;
    const bool fromPreset = parser.isSet(QStringLiteral("preset"));
    const bool fromSession = parser.isSet(QStringLiteral("session"));
    if (fromPreset && fromSession)
        throw UsageError{QStringLiteral("--preset and --session cannot be combined")};
    if (fromPreset && !applyPreset(state, parser.value(QStringLiteral("preset")), &error))
        throw UsageError{QStringLiteral("--preset: ") + error};
    if (fromSession && !loadSession(parser.value(QStringLiteral("session")), &state, &error))
        throw UsageError{QStringLiteral("--session: ") + error};
    const bool needsEncoding = std::any_of(views->begin(), views->end(), viewNeedsEncoding);
    if (fromPreset || fromSession) {
        if (anySpecOption(parser))
            if (!state.setSpec(mergedSpec(parser, state.spec()), &error))
                throw UsageError{error};
    } else if (needsEncoding || anySpecOption(parser)) {
        const EncodingSpec spec = specFromOptions(parser);
        if (!state.setSpec(spec, &error))
            throw UsageError{error};
    }
    const BackendChoice choice = parser.isSet(QStringLiteral("backend"))
                                     ? backendFromOptions(parser)
                                     : state.backendChoice();
    applyViewOptions(parser, state);
    if (needsEncoding) {
        if (const QString problem = inMemoryProblem(state.spec()); !problem.isEmpty())
            throw UsageError{QStringLiteral("--positions / --dims: ") + problem};
    }
    if (std::any_of(views->begin(), views->end(), viewNeedsPhrases) &&
        state.phraseSettings().phrases.isEmpty())
        throw UsageError{
            QStringLiteral("--text is required for the %1 view").arg(figureViewsName(*views))};
    if (views->contains(FigureView::PhraseDifference) && state.phraseSettings().phrases.size() < 2)
        throw UsageError{QStringLiteral("--text: the phrase-difference view needs two phrases")};

    // The folder is checked before any work, so a typo costs no computing.
    if (const QString problem = outputPathProblem(path); !problem.isEmpty()) {
        report(command, problem);
        return Failure;
    }

    QElapsedTimer timer;
    timer.start();
    const std::unique_ptr<Backend> backend = makeBackend(choice, &error);
    if (!backend) {
        report(command, QStringLiteral("the %1 backend cannot start: %2")
                            .arg(backendChoiceName(choice), error));
        return Failure;
    }
    FigureData data;
    const bool computed = computeFigureData(state, *views, *backend, &data, &error);
    if (const QString notice = backend->notice(); !notice.isEmpty())
        report(command, notice);
    if (!computed) {
        report(command, error);
        return Failure;
    }
    if (dataOut) {
        if (!writeViewData(state, data, views->constFirst(), path, &error)) {
            report(command, error);
            return Failure;
        }
        report(command,
               QStringLiteral("%1 data (%2) written to %3, computed by the %4 backend, "
                              "in %5 ms")
                   .arg(figureViewsName(*views), viewDataDescription(state, views->constFirst()),
                        path, backend->id())
                   .arg(timer.elapsed()));
        return Success;
    }
    const FigureExporter exporter(state, data, options);
    if (!exporter.writeFile(path, &error)) {
        report(command, error);
        return Failure;
    }
    report(command, QStringLiteral("%1 figure written to %2 (%3 x %4 px, %5 dpi), computed by "
                                   "the %6 backend, in %7 ms")
                        .arg(figureViewsName(*views), path)
                        .arg(options.width)
                        .arg(options.height)
                        .arg(options.dpi)
                        .arg(backend->id())
                        .arg(timer.elapsed()));
    return Success;
}

} // namespace pe::cli
