#include "state/explorerstate.h"

#include "state/statecommand.h"

#include <QFile>
#include <QJsonArray>
#include <QRandomGenerator>
#include <QScopedValueRollback>
#include <QUndoStack>

namespace pe {

namespace {

template <typename T> bool assign(T &member, const T &value)
{
    if (member == value)
        return false;
    member = value;
    return true;
}

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

ExplorerState::ExplorerState(QObject *parent) : QObject(parent)
{
    setDefaults();
}

void ExplorerState::setDefaults()
{
    m_spec = EncodingSpec{};
    m_view = ViewOptions{};
    m_phrases = PhraseSettings{};
    m_phrases.phrases = examplePhrases();
    m_phraseSelection = {0, 0, EmbeddingMode::Fixed};
    m_phrasePage = PhrasePage{};
    m_compareA = 0;
    m_compareB = 1;
    m_window.page = Page::Encoding;
    m_schemes = SchemeSettings{};
    m_figure = FigureStyle{};
    m_phraseSource = PhraseSource{};
}

void ExplorerState::resetToDefaults()
{
    asOneStep(QStringLiteral("Reset to defaults"), [this] { return applyJson(QJsonObject{}); });
}

qint64 ExplorerState::visibleDims() const
{
    const qint64 limit = m_view.heatmapDimLimit;
    return limit > 0 ? qMin(limit, m_spec.dims) : m_spec.dims;
}

QList<qint64> ExplorerState::plottedDims() const
{
    QList<qint64> dims;
    for (qint64 d : m_view.waveDims)
        if (d < m_spec.dims && !dims.contains(d))
            dims.append(d);
    if (m_view.selection.dim < m_spec.dims && !dims.contains(m_view.selection.dim))
        dims.append(m_view.selection.dim);
    return dims;
}

ExplorerState::Values ExplorerState::values() const
{
    return {m_spec,     m_view,     m_window,  m_phrases, m_phraseSelection, m_phrasePage,
            m_compareA, m_compareB, m_schemes, m_figure,  m_phraseSource};
}

void ExplorerState::setUndoStack(QUndoStack *stack)
{
    m_undo = stack;
}

QUndoStack *ExplorerState::undoStack() const
{
    return m_undo;
}

bool ExplorerState::asOneStep(const QString &text, const std::function<bool()> &work)
{
    if (m_stepDepth++ == 0) {
        // A step made outside a preview starts from the saved values: the preview ends in it.
        m_stepBefore = m_saved.value_or(values());
        m_stepText = text;
    }
    const bool done = work();
    if (--m_stepDepth == 0)
        record(m_stepBefore, m_stepText);
    return done;
}

bool ExplorerState::preview(const std::function<bool()> &work)
{
    if (!m_saved)
        m_saved = values();
    ++m_previewDepth;
    const bool done = work();
    // Back where it started (a frame equal to the saved state): there is nothing to hide.
    if (--m_previewDepth == 0 && m_saved && *m_saved == values())
        m_saved.reset();
    return done;
}

void ExplorerState::endPreview()
{
    if (!m_saved || m_previewDepth > 0)
        return;
    const Values saved = *m_saved;
    m_saved.reset();
    adopt(saved);
}

bool ExplorerState::change(const Edit &edit, QString *error)
{
    Values next = values();
    if (!edit(next, error))
        return false;
    if (next == values())
        return true;
    if (m_saved && m_previewDepth == 0) {
        // A change of the user's own: it applies to the saved values, not to a played frame.
        endPreview();
        next = values();
        if (!edit(next, error))
            return false;
        if (next == values())
            return true;
    }
    // Changes the signals below cause (a view that follows) join this one's undo step.
    return asOneStep(QString(), [&] {
        adopt(next);
        return true;
    });
}

void ExplorerState::takeNavigation(Values &to, const Values &from)
{
    to.window.page = from.window.page;
    to.view.selection = from.view.selection;
    to.phraseSelection = from.phraseSelection;
    to.phrasePage = from.phrasePage;
}

bool ExplorerState::sameParameters(const Values &a, const Values &b)
{
    Values plain = b;
    takeNavigation(plain, a);
    return plain == a;
}

void ExplorerState::fitNavigation(Values &v)
{
    v.view.selection = {qBound<qint64>(0, v.view.selection.position, v.spec.positions - 1),
                        qBound<qint64>(0, v.view.selection.dim, v.spec.dims - 1)};
    if (v.phraseSelection.phrase >= int(v.phrases.phrases.size()))
        v.phraseSelection.phrase = -1;
    v.phraseSelection.token =
        qBound<qint64>(0, v.phraseSelection.token, v.phrases.sequenceLength - 1);
    v.phrasePage = v.phrasePage.clamped(v.phrases);
}

void ExplorerState::record(const Values &before, const QString &text)
{
    if (!m_undo || m_restoring || m_saved || sameParameters(before, values()))
        return;
    m_undo->push(new StateCommand(this, before, values(), text));
}

void ExplorerState::restoreParameters(const Values &parameters)
{
    endPreview();
    Values next = parameters;
    takeNavigation(next, values());
    fitNavigation(next);
    const QScopedValueRollback restoring(m_restoring, true);
    adopt(next);
}

void ExplorerState::adopt(const Values &next)
{
    bool any = false;
    const auto note = [&](bool changedNow, void (ExplorerState::*signal)()) {
        if (changedNow) {
            emit(this->*signal)();
            any = true;
        }
    };
    const ViewOptions before = m_view;
    note(assign(m_spec, next.spec), &ExplorerState::specChanged);
    m_view = next.view;
    note(before.colormap != m_view.colormap, &ExplorerState::colormapChanged);
    note(before.transposed != m_view.transposed, &ExplorerState::transposedChanged);
    note(before.heatmapDimLimit != m_view.heatmapDimLimit, &ExplorerState::heatmapDimLimitChanged);
    note(before.selection != m_view.selection, &ExplorerState::selectionChanged);
    note(before.waveDims != m_view.waveDims || before.markers != m_view.markers ||
             before.crosses != m_view.crosses || before.shareTolerance != m_view.shareTolerance,
         &ExplorerState::waveOptionsChanged);
    note(assign(m_window.backend, next.window.backend), &ExplorerState::backendChoiceChanged);
    note(assign(m_phrases, next.phrases), &ExplorerState::phraseSettingsChanged);
    const bool a = assign(m_compareA, next.compareA);
    const bool b = assign(m_compareB, next.compareB);
    note(a || b, &ExplorerState::compareChanged);
    note(assign(m_phraseSelection, next.phraseSelection), &ExplorerState::phraseSelectionChanged);
    note(assign(m_phrasePage, next.phrasePage), &ExplorerState::phrasePageChanged);
    note(assign(m_phraseSource, next.phraseSource), &ExplorerState::phraseSourceChanged);
    note(assign(m_window.theme, next.window.theme), &ExplorerState::themeChanged);
    note(assign(m_window.page, next.window.page), &ExplorerState::pageChanged);
    note(assign(m_schemes, next.schemes), &ExplorerState::schemeSettingsChanged);
    note(assign(m_figure, next.figure), &ExplorerState::figureStyleChanged);
    if (any)
        emit changed();
}

bool ExplorerState::setSpec(const EncodingSpec &requested, QString *error)
{
    const EncodingSpec spec = requested.normalized();
    if (const QString problem = spec.validate(); !problem.isEmpty())
        return refuse(error, problem);
    return change(
        [&](Values &next, QString *) {
            if (next.spec == spec)
                return true;
            next.spec = spec;
            // What no longer fits the new matrix follows it: the selection and rotation pair
            // clamp, wave dims, markers and crosses outside it are dropped.
            ViewOptions &v = next.view;
            v.waveDims.removeIf([&](qint64 d) { return d >= spec.dims; });
            v.markers.removeIf([&](qint64 p) { return p >= spec.positions; });
            v.crosses.removeIf([&](const CrossMarker &c) {
                return c.position >= spec.positions || c.dim >= spec.dims;
            });
            next.schemes.rotationPair =
                qBound<qint64>(0, next.schemes.rotationPair, qMax<qint64>(1, spec.dims / 2) - 1);
            fitNavigation(next);
            return true;
        },
        error);
}

bool ExplorerState::setViewOptions(const ViewOptions &requested, QString *error)
{
    return change(
        [&](Values &next, QString *why) {
            const ViewOptions options = requested.resolved(next.spec);
            if (const FieldProblem p = options.problem(next.spec))
                return refuse(why, describe(ViewOptions::fields(), p, FieldNaming::Label));
            next.view = options;
            return true;
        },
        error);
}

bool ExplorerState::editView(const std::function<void(ViewOptions &)> &edit, QString *error)
{
    return change(
        [&](Values &next, QString *why) {
            ViewOptions v = next.view;
            edit(v);
            const ViewOptions options = v.resolved(next.spec);
            if (const FieldProblem p = options.problem(next.spec))
                return refuse(why, describe(ViewOptions::fields(), p, FieldNaming::Label));
            next.view = options;
            return true;
        },
        error);
}

void ExplorerState::setBackendChoice(BackendChoice choice)
{
    change([&](Values &next, QString *) {
        next.window.backend = choice;
        return true;
    });
}

void ExplorerState::setColormap(Colormap map)
{
    editView([&](ViewOptions &v) { v.colormap = map; });
}

void ExplorerState::setTransposed(bool transposed)
{
    editView([&](ViewOptions &v) { v.transposed = transposed; });
}

bool ExplorerState::setHeatmapDimLimit(qint64 limit, QString *error)
{
    return editView([&](ViewOptions &v) { v.heatmapDimLimit = limit; }, error);
}

void ExplorerState::setSelection(const Selection &selection)
{
    editView([&](ViewOptions &v) { v.selection = selection; }); // resolved() clamps it
}

bool ExplorerState::setWaveDims(const QList<qint64> &dims, QString *error)
{
    return editView([&](ViewOptions &v) { v.waveDims = dims; }, error);
}

bool ExplorerState::setMarkers(const QList<qint64> &positions, QString *error)
{
    return editView([&](ViewOptions &v) { v.markers = positions; }, error);
}

bool ExplorerState::setCrosses(const QList<CrossMarker> &crosses, QString *error)
{
    return editView([&](ViewOptions &v) { v.crosses = crosses; }, error);
}

bool ExplorerState::setShareTolerance(double tolerance, QString *error)
{
    return editView([&](ViewOptions &v) { v.shareTolerance = tolerance; }, error);
}

bool ExplorerState::setPhraseSettings(const PhraseSettings &settings, QString *error)
{
    if (settings.phrases.size() < 2)
        return refuse(error, QStringLiteral("at least two phrases are needed to compare (got %1)")
                                 .arg(settings.phrases.size()));
    if (const QString problem = settings.validate(); !problem.isEmpty())
        return refuse(error, problem);
    if (const QString problem = windowPhraseProblem(settings); !problem.isEmpty())
        return refuse(error, problem);
    return change(
        [&](Values &next, QString *) {
            if (next.phrases == settings)
                return true;
            next.phrases = settings;
            const int count = int(settings.phrases.size());
            if (next.compareA >= count || next.compareB >= count) {
                next.compareA = 0;
                next.compareB = 1;
            }
            fitNavigation(next);
            return true;
        },
        error);
}

void ExplorerState::setPhraseSelection(const PhraseSelection &selection)
{
    change([&](Values &next, QString *) {
        next.phraseSelection = selection;
        fitNavigation(next);
        return true;
    });
}

bool ExplorerState::setPhrasePage(const PhrasePage &page, QString *error)
{
    return change(
        [&](Values &next, QString *why) {
            if (const FieldProblem p = page.problem(next.phrases))
                return refuse(why, describe(PhrasePage::fields(), p, FieldNaming::Label));
            next.phrasePage = page;
            return true;
        },
        error);
}

bool ExplorerState::setPhraseSource(const PhraseSource &source, QString *error)
{
    if (const FieldProblem p = rangeProblem(PhraseSource::fields(), source))
        return refuse(error, describe(PhraseSource::fields(), p, FieldNaming::Label));
    return change(
        [&](Values &next, QString *) {
            next.phraseSource = source;
            return true;
        },
        error);
}

bool ExplorerState::setCompare(int a, int b, QString *error)
{
    return change(
        [&](Values &next, QString *why) {
            const int count = int(next.phrases.phrases.size());
            if (a < 0 || b < 0 || a >= count || b >= count || a == b)
                return refuse(
                    why,
                    QStringLiteral("compare two different phrases between 1 and %1").arg(count));
            next.compareA = a;
            next.compareB = b;
            return true;
        },
        error);
}

void ExplorerState::setTheme(Theme theme)
{
    change([&](Values &next, QString *) {
        next.window.theme = theme;
        return true;
    });
}

void ExplorerState::setPage(Page page)
{
    change([&](Values &next, QString *) {
        next.window.page = page;
        return true;
    });
}

bool ExplorerState::setSchemeSettings(const SchemeSettings &settings, QString *error)
{
    return change(
        [&](Values &next, QString *why) {
            if (const QString problem = settings.validate(next.spec.dims); !problem.isEmpty())
                return refuse(why, problem);
            next.schemes = settings;
            return true;
        },
        error);
}

void ExplorerState::setFigureStyle(const FigureStyle &style)
{
    change([&](Values &next, QString *) {
        next.figure = style;
        return true;
    });
}

void ExplorerState::reseedPhrases()
{
    PhraseSettings settings = m_phrases;
    quint64 seed = m_phrases.seed;
    while (seed == m_phrases.seed)
        seed = QRandomGenerator::global()->generate64() % 1000000000ull;
    settings.seed = seed;
    setPhraseSettings(settings);
}

QJsonObject ExplorerState::toJson() const
{
    return jsonOf(m_saved.value_or(values()));
}

QJsonObject ExplorerState::jsonOf(const Values &v)
{
    QJsonObject json = pe::toJson(ViewOptions::fields(), v.view);
    const QJsonObject window = pe::toJson(WindowOptions::fields(), v.window);
    for (auto it = window.begin(); it != window.end(); ++it)
        json.insert(it.key(), it.value());
    json.insert(specKey, v.spec.toJson());
    QJsonObject phrases = pe::toJson(PhraseSettings::fields(), v.phrases);
    phrases.remove(QStringLiteral("embedding")); // the window shows both
    phrases.insert(compareKey, QJsonArray{v.compareA, v.compareB});
    phrases.insert(selectionKey, phraseSelectionJson(v.phraseSelection));
    for (const QJsonObject &part : {pe::toJson(PhrasePage::fields(), v.phrasePage),
                                    pe::toJson(PhraseSource::fields(), v.phraseSource)})
        for (auto it = part.begin(); it != part.end(); ++it)
            phrases.insert(it.key(), it.value());
    json.insert(phrasesKey, phrases);
    json.insert(schemesKey, v.schemes.toJson());
    json.insert(figureKey, pe::toJson(FigureStyle::fields(), v.figure));
    return json;
}

std::optional<EncodingSpec> ExplorerState::parsedSpec(const QJsonObject &json)
{
    if (!json.value(specKey).isObject())
        return std::nullopt;
    EncodingSpec spec = ExplorerState().m_spec; // applyJson's scratch state starts from it
    if (spec.readJson(json.value(specKey).toObject()))
        return std::nullopt;
    return spec;
}

bool ExplorerState::applyJson(const QJsonObject &json, QString *error, const LoadedSpec *loaded)
{
    // Parse into a scratch state first, so a bad document changes nothing here.
    ExplorerState scratch;
    scratch.m_window.theme = m_window.theme;
    scratch.m_window.backend = m_window.backend;
    const auto failWith = [&](const FieldProblem &p, const QString &prefix, auto table) {
        return refuse(error, prefix + describe(table, p, FieldNaming::Key));
    };
    for (const QString &key : {specKey, phrasesKey, schemesKey, figureKey})
        if (json.contains(key) && !json.value(key).isObject())
            return refuse(error, QStringLiteral("\"%1\" must be an object").arg(key));

    QStringList viewKeys = {specKey, phrasesKey, schemesKey, figureKey};
    for (const Field<ViewOptions> &f : ViewOptions::fields())
        viewKeys.append(QString::fromUtf8(f.key));
    if (const FieldProblem p = readJson(WindowOptions::fields(), json, &scratch.m_window, viewKeys))
        return failWith(p, QString(), WindowOptions::fields());

    if (json.contains(specKey)) {
        EncodingSpec spec = scratch.m_spec;
        if (const FieldProblem p = spec.readJson(json.value(specKey).toObject()))
            return refuse(error, QStringLiteral("spec: ") + spec.describe(p, FieldNaming::Key));
        QString loadError; // a model's table, read again from the file the session names
        if (loaded && spec == loaded->parsed)
            spec = loaded->loaded;
        else if (!spec.resolve(&loadError))
            return refuse(error, QStringLiteral("spec: ") + loadError);
        if (!scratch.setSpec(spec, error))
            return false;
    }
    // The view options are read after the spec, and checked against it: a marker outside the
    // session's own matrix is an error in the file, not something to drop quietly.
    QStringList nested = {specKey, phrasesKey, schemesKey, figureKey};
    for (const Field<WindowOptions> &f : WindowOptions::fields())
        nested.append(QString::fromUtf8(f.key));
    if (const FieldProblem p = readJson(ViewOptions::fields(), json, &scratch.m_view, nested))
        return failWith(p, QString(), ViewOptions::fields());
    const ViewOptions view = scratch.m_view.resolved(scratch.m_spec);
    if (const FieldProblem p = view.problem(scratch.m_spec))
        return failWith(p, QString(), ViewOptions::fields());
    scratch.m_view = view;

    if (json.contains(phrasesKey)) {
        const QJsonObject p = json.value(phrasesKey).toObject();
        PhraseSettings settings = scratch.m_phrases;
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
            return failWith(problem, QStringLiteral("phrases: "), PhraseSettings::fields());
        if (!scratch.setPhraseSettings(settings, error)) {
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
            return failWith(problem, QStringLiteral("phrases: "), PhrasePage::fields());
        if (const FieldProblem problem = readJson(PhraseSource::fields(), p,
                                                  &scratch.m_phraseSource, settingsKeys + pageKeys))
            return failWith(problem, QStringLiteral("phrases: "), PhraseSource::fields());
        if (const FieldProblem problem = page.problem(scratch.m_phrases))
            return failWith(problem, QStringLiteral("phrases: "), PhrasePage::fields());
        scratch.m_phrasePage = page;
        if (p.contains(compareKey)) {
            const QJsonArray c = p.value(compareKey).toArray();
            if (c.size() != 2)
                return refuse(error, QStringLiteral("\"compare\" needs two phrase indices"));
            if (!scratch.setCompare(c[0].toInt(-1), c[1].toInt(-1), error))
                return false;
        }
        if (p.contains(selectionKey)) {
            PhraseSelection sel;
            if (!readPhraseSelection(p.value(selectionKey), &sel, error))
                return false;
            scratch.setPhraseSelection(sel);
        }
    }
    if (json.contains(schemesKey)) {
        SchemeSettings schemes = scratch.m_schemes;
        if (const FieldProblem p = schemes.readJson(json.value(schemesKey).toObject()))
            return failWith(p, QStringLiteral("schemes: "), SchemeSettings::fields());
        if (!scratch.setSchemeSettings(schemes, error))
            return false;
    }
    if (json.contains(figureKey)) {
        if (const FieldProblem p = readJson(FigureStyle::fields(), json.value(figureKey).toObject(),
                                            &scratch.m_figure))
            return failWith(p, QStringLiteral("figure: "), FigureStyle::fields());
    }
    return change(
        [&](Values &next, QString *) {
            next = scratch.values();
            return true;
        },
        error);
}

} // namespace pe
