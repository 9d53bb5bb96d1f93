#include "state/explorervalues.h"

#include <QFile>
#include <QJsonArray>

namespace pe {

namespace {

bool refuse(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

const QString specKey = QStringLiteral("spec");
const QString phrasesKey = QStringLiteral("phrases");
const QString schemesKey = QStringLiteral("schemes");
const QString figureKey = QStringLiteral("figure");
const QString ablationKey = QStringLiteral("ablation");
const QString compareKey = QStringLiteral("compare");
const QString selectionKey = QStringLiteral("selection");

// The phrase page's clicked token as JSON: {"phrase": 0, "token": 3, "mode": "fixed"}.
QJsonObject phraseSelectionJson(const PhraseSelection &s)
{
    return {{QStringLiteral("phrase"), s.phrase},
            {QStringLiteral("token"), s.token},
            {QStringLiteral("mode"), nameOf(embeddingModeNames, s.mode)}};
}

bool readPhraseSelection(const QJsonValue &value, PhraseSelection *out, QString *error)
{
    const QJsonObject s = value.toObject();
    PhraseSelection sel;
    sel.phrase = s.value(QStringLiteral("phrase")).toInt(-1);
    sel.token = s.value(QStringLiteral("token")).toInteger(0);
    const auto mode = parseAs<EmbeddingMode>(
        embeddingModeNames, s.value(QStringLiteral("mode")).toString(QStringLiteral("fixed")));
    if (!value.isObject() || !mode)
        return refuse(error, QStringLiteral("\"phrases.selection\" must be {\"phrase\": N, "
                                            "\"token\": T, \"mode\": \"%1\"}")
                                 .arg(choiceList(embeddingModeNames)));
    sel.mode = *mode;
    *out = sel;
    return true;
}

} // namespace

FieldTable<WindowOptions> WindowOptions::fields()
{
    using S = WindowOptions;
    static const Field<S> table[] = {
        {.key = "backend",
         .flag = "backend",
         .label = "Backend",
         .help = "Compute backend.",
         .kind = choiceKind<&S::backend>(backendChoiceNames)},
        {.key = "theme",
         .flag = "theme",
         .label = "Theme",
         .help = "The window's colours.",
         .kind = choiceKind<&S::theme>(themeNames)},
        {.key = "page",
         .flag = "page",
         .label = "Page",
         .help = "The page the window shows.",
         .kind = choiceKind<&S::page>(pageNames)},
    };
    return table;
}

FieldTable<PhrasePage> PhrasePage::fields()
{
    using S = PhrasePage;
    constexpr qint64 maxPhrasePages =
        (limits::maxPhrases + limits::phrasesPerPage - 1) / limits::phrasesPerPage;
    constexpr qint64 maxTokenPages =
        (limits::maxPositions + limits::tokensPerPage - 1) / limits::tokensPerPage;
    static const Field<S> table[] = {
        {.key = "phrasePage",
         .flag = "phrase-page",
         .label = "Phrase page",
         .help = "Which page of phrases the phrase figures and the phrase rows show.",
         .kind = IntegerKind<S>{&S::phrases, {1, maxPhrasePages}}},
        {.key = "tokenPage",
         .flag = "token-page",
         .label = "Token page",
         .help = "Which page of tokens the phrase figures and the token-id table show.",
         .kind = IntegerKind<S>{&S::tokens, {1, maxTokenPages}}},
    };
    return table;
}

qint64 PhrasePage::phrasePages(const PhraseSettings &settings)
{
    const qint64 count = settings.phrases.size();
    return qMax<qint64>(1, (count + limits::phrasesPerPage - 1) / limits::phrasesPerPage);
}

qint64 PhrasePage::tokenPages(const PhraseSettings &settings)
{
    return qMax<qint64>(1, (settings.sequenceLength + limits::tokensPerPage - 1) /
                               limits::tokensPerPage);
}

FieldProblem PhrasePage::problem(const PhraseSettings &settings) const
{
    if (FieldProblem p = rangeProblem(fields(), *this))
        return p;
    if (phrases > phrasePages(settings))
        return {QStringLiteral("phrasePage"),
                QStringLiteral("must be at most %1 (%2 phrases, %3 a page; got %4)")
                    .arg(phrasePages(settings))
                    .arg(settings.phrases.size())
                    .arg(limits::phrasesPerPage)
                    .arg(phrases)};
    if (tokens > tokenPages(settings))
        return {QStringLiteral("tokenPage"),
                QStringLiteral("must be at most %1 (%2 tokens, %3 a page; got %4)")
                    .arg(tokenPages(settings))
                    .arg(settings.sequenceLength)
                    .arg(limits::tokensPerPage)
                    .arg(tokens)};
    return {};
}

PhrasePage PhrasePage::clamped(const PhraseSettings &settings) const
{
    return {qBound<qint64>(1, phrases, phrasePages(settings)),
            qBound<qint64>(1, tokens, tokenPages(settings))};
}

PhraseWindow PhrasePage::window(const PhraseSettings &settings) const
{
    const PhrasePage page = clamped(settings);
    PhraseWindow w;
    w.firstPhrase = (page.phrases - 1) * limits::phrasesPerPage;
    w.endPhrase = qMin<qint64>(settings.phrases.size(), w.firstPhrase + limits::phrasesPerPage);
    w.firstToken = (page.tokens - 1) * limits::tokensPerPage;
    w.endToken = qMin(settings.sequenceLength, w.firstToken + limits::tokensPerPage);
    w.dims = settings.dims;
    w.dimStride =
        qMax<qint64>(1, (settings.dims + limits::maxDrawnDims - 1) / limits::maxDrawnDims);
    return w;
}

QString windowPhraseProblem(const PhraseSettings &settings)
{
    const double phrases = double(settings.phrases.size());
    const double length = double(settings.sequenceLength);
    // Per embedding: the output and the position table in floats, the token ids in qint64.
    const double bytes = 2.0 * ((phrases + 1.0) * length * double(settings.dims) * sizeof(float) +
                                phrases * length * sizeof(qint64));
    if (bytes <= double(limits::maxInMemoryBytes))
        return {};
    return QStringLiteral("the window holds both embeddings (random and fixed): %1 phrases x %2 "
                          "tokens x %3 dims need %4 of memory; the limit is %5")
        .arg(settings.phrases.size())
        .arg(settings.sequenceLength)
        .arg(settings.dims)
        .arg(formatBytes(bytes), formatBytes(double(limits::maxInMemoryBytes)));
}

QStringList examplePhrases()
{
    QFile file(QStringLiteral(":/examples/phrases.txt"));
    QStringList phrases;
    if (file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
        for (const QString &line : lines)
            if (!line.trimmed().isEmpty() && !line.startsWith(QLatin1Char('#')))
                phrases.append(line.trimmed());
    }
    if (phrases.size() < 2) // the resource is compiled in; this only guards a broken build
        phrases = {QStringLiteral("attention is all you need"),
                   QStringLiteral("all you need is attention")};
    return phrases;
}

ExplorerValues ExplorerValues::defaults()
{
    ExplorerValues v;
    v.phrases.phrases = examplePhrases();
    v.phraseSelection = {0, 0, EmbeddingMode::Fixed};
    return v;
}

qint64 ExplorerValues::visibleDims() const
{
    const qint64 limit = view.heatmapDimLimit;
    return limit > 0 ? qMin(limit, spec.dims) : spec.dims;
}

QList<qint64> ExplorerValues::plottedDims() const
{
    QList<qint64> dims;
    for (qint64 d : view.waveDims)
        if (d < spec.dims && !dims.contains(d))
            dims.append(d);
    if (view.selection.dim < spec.dims && !dims.contains(view.selection.dim))
        dims.append(view.selection.dim);
    return dims;
}

void ExplorerValues::fitNavigation()
{
    view.selection = {qBound<qint64>(0, view.selection.position, spec.positions - 1),
                      qBound<qint64>(0, view.selection.dim, spec.dims - 1)};
    if (phraseSelection.phrase >= int(phrases.phrases.size()))
        phraseSelection.phrase = -1;
    phraseSelection.token = qBound<qint64>(0, phraseSelection.token, phrases.sequenceLength - 1);
    phrasePage = phrasePage.clamped(phrases);
}

bool ExplorerValues::setSpec(const EncodingSpec &requested, QString *error)
{
    const EncodingSpec next = requested.normalized();
    if (const QString problem = next.validate(); !problem.isEmpty())
        return refuse(error, problem);
    if (spec == next)
        return true;
    spec = next;
    // What no longer fits the new matrix follows it: the selection and rotation pair clamp,
    // wave dims, markers and crosses outside it are dropped.
    view.waveDims.removeIf([&](qint64 d) { return d >= spec.dims; });
    view.markers.removeIf([&](qint64 p) { return p >= spec.positions; });
    view.crosses.removeIf(
        [&](const CrossMarker &c) { return c.position >= spec.positions || c.dim >= spec.dims; });
    schemes.rotationPair =
        qBound<qint64>(0, schemes.rotationPair, qMax<qint64>(1, spec.dims / 2) - 1);
    fitNavigation();
    return true;
}

bool ExplorerValues::setViewOptions(const ViewOptions &requested, QString *error)
{
    const ViewOptions options = requested.resolved(spec);
    if (const FieldProblem p = options.problem(spec))
        return refuse(error, describe(ViewOptions::fields(), p, FieldNaming::Label));
    view = options;
    return true;
}

bool ExplorerValues::editView(const std::function<void(ViewOptions &)> &edit, QString *error)
{
    ViewOptions v = view;
    edit(v);
    return setViewOptions(v, error);
}

bool ExplorerValues::setPhraseSettings(const PhraseSettings &settings, QString *error)
{
    if (settings.phrases.size() < 2)
        return refuse(error, QStringLiteral("at least two phrases are needed to compare (got %1)")
                                 .arg(settings.phrases.size()));
    if (const QString problem = settings.validate(); !problem.isEmpty())
        return refuse(error, problem);
    if (const QString problem = windowPhraseProblem(settings); !problem.isEmpty())
        return refuse(error, problem);
    if (phrases == settings)
        return true;
    phrases = settings;
    const int count = int(settings.phrases.size());
    if (compareA >= count || compareB >= count) {
        compareA = 0;
        compareB = 1;
    }
    fitNavigation();
    return true;
}

void ExplorerValues::setPhraseSelection(const PhraseSelection &selection)
{
    phraseSelection = selection;
    fitNavigation();
}

bool ExplorerValues::setPhrasePage(const PhrasePage &page, QString *error)
{
    if (const FieldProblem p = page.problem(phrases))
        return refuse(error, describe(PhrasePage::fields(), p, FieldNaming::Label));
    phrasePage = page;
    return true;
}

bool ExplorerValues::setPhraseSource(const PhraseSource &source, QString *error)
{
    if (const FieldProblem p = rangeProblem(PhraseSource::fields(), source))
        return refuse(error, describe(PhraseSource::fields(), p, FieldNaming::Label));
    phraseSource = source;
    return true;
}

bool ExplorerValues::setCompare(int a, int b, QString *error)
{
    const int count = int(phrases.phrases.size());
    if (a < 0 || b < 0 || a >= count || b >= count || a == b)
        return refuse(error,
                      QStringLiteral("compare two different phrases between 1 and %1").arg(count));
    compareA = a;
    compareB = b;
    return true;
}

bool ExplorerValues::setLayerAblation(const LayerAblation &requested, QString *error)
{
    if (const FieldProblem p = requested.problem())
        return refuse(error, requested.describe(p, FieldNaming::Label));
    ablation = requested;
    return true;
}

bool ExplorerValues::setSchemeSettings(const SchemeSettings &settings, QString *error)
{
    if (const QString problem = settings.validate(spec.dims); !problem.isEmpty())
        return refuse(error, problem);
    schemes = settings;
    return true;
}

QJsonObject ExplorerValues::toJson() const
{
    QJsonObject json = pe::toJson(ViewOptions::fields(), view);
    const QJsonObject windowJson = pe::toJson(WindowOptions::fields(), window);
    for (auto it = windowJson.begin(); it != windowJson.end(); ++it)
        json.insert(it.key(), it.value());
    json.insert(specKey, spec.toJson());
    QJsonObject phrasesJson = pe::toJson(PhraseSettings::fields(), phrases);
    phrasesJson.remove(QStringLiteral("embedding")); // the window shows both
    phrasesJson.insert(compareKey, QJsonArray{compareA, compareB});
    phrasesJson.insert(selectionKey, phraseSelectionJson(phraseSelection));
    for (const QJsonObject &part : {pe::toJson(PhrasePage::fields(), phrasePage),
                                    pe::toJson(PhraseSource::fields(), phraseSource)})
        for (auto it = part.begin(); it != part.end(); ++it)
            phrasesJson.insert(it.key(), it.value());
    json.insert(phrasesKey, phrasesJson);
    json.insert(schemesKey, schemes.toJson());
    json.insert(figureKey, pe::toJson(FigureStyle::fields(), figure));
    // Absent: none (the sessions written before it had none).
    if (ablation.kind != AblationKind::None)
        json.insert(ablationKey, ablation.toJson());
    return json;
}

std::optional<EncodingSpec> ExplorerValues::parsedSpec(const QJsonObject &json)
{
    if (!json.value(specKey).isObject())
        return std::nullopt;
    EncodingSpec parsed = defaults().spec; // applyJson's scratch values start from it
    if (parsed.readJson(json.value(specKey).toObject()))
        return std::nullopt;
    return parsed;
}

bool ExplorerValues::applyJson(const QJsonObject &json, QString *error, const LoadedSpec *loaded)
{
    // Parse into scratch values first, so a bad document changes nothing here.
    ExplorerValues scratch = defaults();
    scratch.window.theme = window.theme;
    scratch.window.backend = window.backend;
    const auto failWith = [&](const FieldProblem &p, const QString &prefix, auto table) {
        return refuse(error, prefix + describe(table, p, FieldNaming::Key));
    };
    for (const QString &key : {specKey, phrasesKey, schemesKey, figureKey, ablationKey})
        if (json.contains(key) && !json.value(key).isObject())
            return refuse(error, QStringLiteral("\"%1\" must be an object").arg(key));

    QStringList viewKeys = {specKey, phrasesKey, schemesKey, figureKey, ablationKey};
    for (const Field<ViewOptions> &f : ViewOptions::fields())
        viewKeys.append(QString::fromUtf8(f.key));
    if (const FieldProblem p = readJson(WindowOptions::fields(), json, &scratch.window, viewKeys))
        return failWith(p, QString(), WindowOptions::fields());

    if (json.contains(specKey)) {
        EncodingSpec read = scratch.spec;
        if (const FieldProblem p = read.readJson(json.value(specKey).toObject()))
            return refuse(error, QStringLiteral("spec: ") + read.describe(p, FieldNaming::Key));
        QString loadError; // a model's table, read again from the file the JSON names
        if (loaded && read == loaded->parsed)
            read = loaded->loaded;
        else if (!read.resolve(&loadError))
            return refuse(error, QStringLiteral("spec: ") + loadError);
        if (!scratch.setSpec(read, error))
            return false;
    }
    // The view options are read after the spec, and checked against it: a marker outside the
    // session's own matrix is an error in the file, not something to drop quietly.
    QStringList nested = {specKey, phrasesKey, schemesKey, figureKey, ablationKey};
    for (const Field<WindowOptions> &f : WindowOptions::fields())
        nested.append(QString::fromUtf8(f.key));
    if (const FieldProblem p = readJson(ViewOptions::fields(), json, &scratch.view, nested))
        return failWith(p, QString(), ViewOptions::fields());
    const ViewOptions resolvedView = scratch.view.resolved(scratch.spec);
    if (const FieldProblem p = resolvedView.problem(scratch.spec))
        return failWith(p, QString(), ViewOptions::fields());
    scratch.view = resolvedView;

    if (json.contains(phrasesKey) &&
        !scratch.applyPhrasesJson(json.value(phrasesKey).toObject(), error))
        return false;
    if (json.contains(schemesKey)) {
        SchemeSettings read = scratch.schemes;
        if (const FieldProblem p = read.readJson(json.value(schemesKey).toObject()))
            return failWith(p, QStringLiteral("schemes: "), SchemeSettings::fields());
        if (!scratch.setSchemeSettings(read, error))
            return false;
    }
    if (json.contains(figureKey)) {
        if (const FieldProblem p =
                readJson(FigureStyle::fields(), json.value(figureKey).toObject(), &scratch.figure))
            return failWith(p, QStringLiteral("figure: "), FigureStyle::fields());
    }
    if (json.contains(ablationKey)) {
        if (const FieldProblem p = scratch.ablation.readJson(json.value(ablationKey).toObject()))
            return refuse(error, ablationKey + QStringLiteral(": ") +
                                     scratch.ablation.describe(p, FieldNaming::Key));
    }
    *this = std::move(scratch);
    return true;
}

// A session's "phrases" object: the settings, the page, the tokenizer, the pair and the token.
bool ExplorerValues::applyPhrasesJson(const QJsonObject &p, QString *error)
{
    const auto failWith = [&](const FieldProblem &problem, auto table) {
        return refuse(error,
                      QStringLiteral("phrases: ") + describe(table, problem, FieldNaming::Key));
    };
    PhraseSettings settings = phrases;
    if (p.contains(QStringLiteral("phrases")))
        settings.titles.clear(); // new phrases start without the old titles
    QStringList pageKeys;
    for (const Field<PhrasePage> &f : PhrasePage::fields())
        pageKeys.append(QString::fromUtf8(f.key));
    QStringList sourceKeys;
    for (const Field<PhraseSource> &f : PhraseSource::fields())
        sourceKeys.append(QString::fromUtf8(f.key));
    if (const FieldProblem problem =
            readJson(PhraseSettings::fields(), p, &settings,
                     QStringList{compareKey, selectionKey} + pageKeys + sourceKeys))
        return failWith(problem, PhraseSettings::fields());
    if (!setPhraseSettings(settings, error)) {
        if (error)
            *error = QStringLiteral("phrases: ") + *error;
        return false;
    }
    QStringList settingsKeys{compareKey, selectionKey};
    for (const Field<PhraseSettings> &f : PhraseSettings::fields())
        settingsKeys.append(QString::fromUtf8(f.key));
    PhrasePage page;
    if (const FieldProblem problem =
            readJson(PhrasePage::fields(), p, &page, settingsKeys + sourceKeys))
        return failWith(problem, PhrasePage::fields());
    if (const FieldProblem problem =
            readJson(PhraseSource::fields(), p, &phraseSource, settingsKeys + pageKeys))
        return failWith(problem, PhraseSource::fields());
    if (const FieldProblem problem = page.problem(phrases))
        return failWith(problem, PhrasePage::fields());
    phrasePage = page;
    if (p.contains(compareKey)) {
        const QJsonArray c = p.value(compareKey).toArray();
        if (c.size() != 2)
            return refuse(error, QStringLiteral("\"compare\" needs two phrase indices"));
        if (!setCompare(c[0].toInt(-1), c[1].toInt(-1), error))
            return false;
    }
    if (p.contains(selectionKey)) {
        PhraseSelection sel;
        if (!readPhraseSelection(p.value(selectionKey), &sel, error))
            return false;
        setPhraseSelection(sel);
    }
    return true;
}

} // namespace pe
