#include "state/explorerstate.h"

#include "state/statecommand.h"

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

} // namespace

ExplorerState::ExplorerState(QObject *parent) : QObject(parent)
{
    setDefaults();
}

void ExplorerState::setDefaults()
{
    m_v = ExplorerValues::defaults();
}

void ExplorerState::resetToDefaults()
{
    asOneStep(QStringLiteral("Reset to defaults"), [this] { return applyJson(QJsonObject{}); });
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

void ExplorerState::record(const Values &before, const QString &text)
{
    if (!m_undo || m_restoring || m_saved || sameParameters(before, values()))
        return;
    const auto restore = [this](const Values &parameters) { restoreParameters(parameters); };
    m_undo->push(new StateCommand({this, restore, &sameParameters}, before, values(), text));
}

void ExplorerState::restoreParameters(const Values &parameters)
{
    endPreview();
    Values next = parameters;
    takeNavigation(next, values());
    next.fitNavigation();
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
    Values &v = m_v;
    const ViewOptions before = v.view;
    note(assign(v.spec, next.spec), &ExplorerState::specChanged);
    v.view = next.view;
    note(before.colormap != v.view.colormap, &ExplorerState::colormapChanged);
    note(before.transposed != v.view.transposed, &ExplorerState::transposedChanged);
    note(before.heatmapDimLimit != v.view.heatmapDimLimit, &ExplorerState::heatmapDimLimitChanged);
    note(before.selection != v.view.selection, &ExplorerState::selectionChanged);
    note(before.waveDims != v.view.waveDims || before.markers != v.view.markers ||
             before.crosses != v.view.crosses || before.shareTolerance != v.view.shareTolerance,
         &ExplorerState::waveOptionsChanged);
    note(assign(v.window.backend, next.window.backend), &ExplorerState::backendChoiceChanged);
    note(assign(v.phrases, next.phrases), &ExplorerState::phraseSettingsChanged);
    const bool a = assign(v.compareA, next.compareA);
    const bool b = assign(v.compareB, next.compareB);
    note(a || b, &ExplorerState::compareChanged);
    note(assign(v.phraseSelection, next.phraseSelection), &ExplorerState::phraseSelectionChanged);
    note(assign(v.phrasePage, next.phrasePage), &ExplorerState::phrasePageChanged);
    note(assign(v.phraseSource, next.phraseSource), &ExplorerState::phraseSourceChanged);
    note(assign(v.window.theme, next.window.theme), &ExplorerState::themeChanged);
    note(assign(v.window.page, next.window.page), &ExplorerState::pageChanged);
    note(assign(v.schemes, next.schemes), &ExplorerState::schemeSettingsChanged);
    note(assign(v.figure, next.figure), &ExplorerState::figureStyleChanged);
    note(assign(v.ablation, next.ablation), &ExplorerState::layerAblationChanged);
    if (any)
        emit changed();
}

// Each setter is the plain values' own (ExplorerValues), made through change(): signals, undo.

bool ExplorerState::setSpec(const EncodingSpec &requested, QString *error)
{
    return change([&](Values &next, QString *why) { return next.setSpec(requested, why); }, error);
}

bool ExplorerState::setViewOptions(const ViewOptions &requested, QString *error)
{
    return change([&](Values &next, QString *why) { return next.setViewOptions(requested, why); },
                  error);
}

bool ExplorerState::editView(const std::function<void(ViewOptions &)> &edit, QString *error)
{
    return change([&](Values &next, QString *why) { return next.editView(edit, why); }, error);
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
    return change([&](Values &next, QString *why) { return next.setPhraseSettings(settings, why); },
                  error);
}

void ExplorerState::setPhraseSelection(const PhraseSelection &selection)
{
    change([&](Values &next, QString *) {
        next.setPhraseSelection(selection);
        return true;
    });
}

bool ExplorerState::setPhrasePage(const PhrasePage &page, QString *error)
{
    return change([&](Values &next, QString *why) { return next.setPhrasePage(page, why); }, error);
}

bool ExplorerState::setLayerAblation(const LayerAblation &ablation, QString *error)
{
    return change([&](Values &next, QString *why) { return next.setLayerAblation(ablation, why); },
                  error);
}

bool ExplorerState::setPhraseSource(const PhraseSource &source, QString *error)
{
    return change([&](Values &next, QString *why) { return next.setPhraseSource(source, why); },
                  error);
}

bool ExplorerState::setCompare(int a, int b, QString *error)
{
    return change([&](Values &next, QString *why) { return next.setCompare(a, b, why); }, error);
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
    return change([&](Values &next, QString *why) { return next.setSchemeSettings(settings, why); },
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
    PhraseSettings settings = m_v.phrases;
    quint64 seed = m_v.phrases.seed;
    while (seed == m_v.phrases.seed)
        seed = QRandomGenerator::global()->generate64() % 1000000000ull;
    settings.seed = seed;
    setPhraseSettings(settings);
}

QJsonObject ExplorerState::toJson() const
{
    return savedValues().toJson();
}

bool ExplorerState::applyJson(const QJsonObject &json, QString *error, const LoadedSpec *loaded)
{
    // Read once (it may read a model's files), then taken as one change.
    Values parsed = m_v;
    if (!parsed.applyJson(json, error, loaded))
        return false;
    return change(
        [&](Values &next, QString *) {
            next = parsed;
            return true;
        },
        error);
}

} // namespace pe
