// ExplorerState: the one object that owns every user-visible parameter of the explorer window.
// Controls edit it, views and the compute scheduler observe it; setters refuse invalid values
// and emit only on a real change. Every setter goes through one place (change()), which records
// the change on the window's undo stack (StateCommand) when one is attached. Its JSON (sessions,
// presets, saved settings) is derived from the field tables of its parts.
#pragma once

#include "state/figurestyle.h"
#include "state/phrasesource.h"
#include "state/schemesettings.h"
#include "state/viewoptions.h"

#include "backends/backendfactory.h"
#include "encodingspec.h"
#include "text/phrases.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <optional>

class QUndoStack;

namespace pe {

enum class Theme { Light, Dark };
inline constexpr ChoiceName themeNames[] = {
    choice(Theme::Light, "light", "Light"),
    choice(Theme::Dark, "dark", "Dark"),
};
using PhraseSettings = PhraseSpec;

namespace limits {
// What one phrase figure draws, so that its cost stays bounded by the figure and not by the
// data: more phrases or tokens are reached page by page (PhrasePage), more dims are sampled.
constexpr qint64 phrasesPerPage = 8;
constexpr qint64 tokensPerPage = 256;
constexpr qint64 maxDrawnDims = 512;
} // namespace limits

// The part of the phrases that the phrase figures, the phrase rows and the token-id table show:
// rows [firstPhrase, endPhrase) x tokens [firstToken, endToken); dims every dimStride-th.
struct PhraseWindow
{
    qint64 firstPhrase = 0;
    qint64 endPhrase = 0;
    qint64 firstToken = 0;
    qint64 endToken = 0;
    qint64 dims = 0;
    qint64 dimStride = 1;
    qint64 phrases() const { return endPhrase - firstPhrase; }
    qint64 tokens() const { return endToken - firstToken; }
    // Dims drawn: every dimStride-th from 0.
    qint64 drawnDims() const { return (dims + dimStride - 1) / dimStride; }
    bool containsPhrase(qint64 phrase) const { return phrase >= firstPhrase && phrase < endPhrase; }
    bool containsToken(qint64 token) const { return token >= firstToken && token < endToken; }
};

// Which page of phrases and of tokens the phrase page shows, counted from 1.
struct PhrasePage
{
    qint64 phrases = 1;
    qint64 tokens = 1;
    static FieldTable<PhrasePage> fields();
    static qint64 phrasePages(const PhraseSettings &settings);
    static qint64 tokenPages(const PhraseSettings &settings);
    // Empty when both pages exist for `settings`.
    FieldProblem problem(const PhraseSettings &settings) const;
    // The nearest pages that exist for `settings`.
    PhrasePage clamped(const PhraseSettings &settings) const;
    PhraseWindow window(const PhraseSettings &settings) const;
    bool operator==(const PhrasePage &) const = default;
};

// The clicked token on the phrase page; phrase < 0 means none.
struct PhraseSelection
{
    int phrase = -1;
    qint64 token = 0;
    EmbeddingMode mode = EmbeddingMode::Fixed;
    bool operator==(const PhraseSelection &) const = default;
};

// The window's own preferences and place, saved with a session.
struct WindowOptions
{
    BackendChoice backend = BackendChoice::Auto;
    Theme theme = Theme::Light;
    Page page = Page::Encoding;
    static FieldTable<WindowOptions> fields();
    bool operator==(const WindowOptions &) const = default;
};

class ExplorerState : public QObject
{
    Q_OBJECT
public:
    explicit ExplorerState(QObject *parent = nullptr);

    // Every parameter at one moment: what an undo step holds from before and after a change.
    struct Values
    {
        EncodingSpec spec;
        ViewOptions view;
        WindowOptions window;
        PhraseSettings phrases;
        PhraseSelection phraseSelection;
        PhrasePage phrasePage;
        int compareA = 0;
        int compareB = 1;
        SchemeSettings schemes;
        FigureStyle figure;
        PhraseSource phraseSource;
        bool operator==(const Values &) const = default;
    };

    // Undo: with a stack attached, every change of a parameter becomes one command on it
    // (StateCommand, "Set Base to 500000"), consecutive changes of one field merged. Where the
    // user looks is no undo step: the page, the selected cell, the clicked token and the phrase
    // page change without one, and undo and redo leave them where they are (clamped to what
    // the restored parameters allow). Null detaches.
    // Every value as one plain struct (FigureState copies it).
    Values values() const;

    void setUndoStack(QUndoStack *stack);
    QUndoStack *undoStack() const;

    // Every change `work` makes is one undo step named `text` ("Apply preset rope-decay", "Open
    // model gpt2"); steps made inside it join it. An empty text is made from what changed.
    // Returns what `work` returns.
    bool asOneStep(const QString &text, const std::function<bool()> &work);

    // The Motion bar's frames: changes `work` makes are shown (views and the scheduler follow
    // them) but saved nowhere: no undo step, and toJson() keeps the values from before the
    // preview. The preview outlives `work` (a paused frame stays on screen) until a change is
    // made outside one, which first returns to the saved values, or endPreview().
    bool preview(const std::function<bool()> &work);
    bool isPreviewing() const { return m_saved.has_value(); }
    void endPreview();

    const EncodingSpec &spec() const { return m_spec; }
    const ViewOptions &viewOptions() const { return m_view; }
    BackendChoice backendChoice() const { return m_window.backend; }
    Colormap colormap() const { return m_view.colormap; }
    bool transposed() const { return m_view.transposed; }
    qint64 heatmapDimLimit() const { return m_view.heatmapDimLimit; }
    qint64 visibleDims() const;
    const Selection &selection() const { return m_view.selection; }
    const QList<qint64> &waveDims() const { return m_view.waveDims; }
    // The dims the wave view plots: waveDims plus the selected dim when it is not among them.
    QList<qint64> plottedDims() const;
    const QList<qint64> &markers() const { return m_view.markers; }
    const QList<CrossMarker> &crosses() const { return m_view.crosses; }
    double shareTolerance() const { return m_view.shareTolerance; }
    const PhraseSettings &phraseSettings() const { return m_phrases; }
    const PhraseSelection &phraseSelection() const { return m_phraseSelection; }
    const PhrasePage &phrasePage() const { return m_phrasePage; }
    // The Phrases page's tokenizer: the tutorial's TextVectorization or the model's own.
    const PhraseSource &phraseSource() const { return m_phraseSource; }
    PhraseWindow phraseWindow() const { return m_phrasePage.window(m_phrases); }
    int compareA() const { return m_compareA; }
    int compareB() const { return m_compareB; }
    Theme theme() const { return m_window.theme; }
    Page page() const { return m_window.page; }
    const SchemeSettings &schemeSettings() const { return m_schemes; }
    // How exported figures look (File → Export figure, saved with a session).
    const FigureStyle &figureStyle() const { return m_figure; }

    // Setters refuse invalid values (return false, *error names the problem) and leave the
    // state as it was; they emit only when the value really changes.
    bool setSpec(const EncodingSpec &requested, QString *error = nullptr);
    bool setViewOptions(const ViewOptions &requested, QString *error = nullptr);
    void setBackendChoice(BackendChoice choice);
    void setColormap(Colormap map);
    void setTransposed(bool transposed);
    bool setHeatmapDimLimit(qint64 limit, QString *error = nullptr);
    void setSelection(const Selection &selection);
    bool setWaveDims(const QList<qint64> &dims, QString *error = nullptr);
    bool setMarkers(const QList<qint64> &positions, QString *error = nullptr);
    bool setCrosses(const QList<CrossMarker> &crosses, QString *error = nullptr);
    bool setShareTolerance(double tolerance, QString *error = nullptr);
    bool setPhraseSettings(const PhraseSettings &settings, QString *error = nullptr);
    void setPhraseSelection(const PhraseSelection &selection);
    bool setPhrasePage(const PhrasePage &page, QString *error = nullptr);
    bool setPhraseSource(const PhraseSource &source, QString *error = nullptr);
    bool setCompare(int a, int b, QString *error = nullptr);
    void setTheme(Theme theme);
    void setPage(Page page);
    // Validated against the spec's dims (the rotation pair, the compare configuration).
    bool setSchemeSettings(const SchemeSettings &settings, QString *error = nullptr);
    void setFigureStyle(const FigureStyle &style);
    // A fresh random seed for the phrase page's random row.
    void reseedPhrases();

    // Every parameter as JSON (sessions, presets, QSettings), in the current session format; the
    // saved values while a preview shows others.
    QJsonObject toJson() const;
    // Resets to the defaults, then applies `json` (keys it lacks keep their defaults). Theme and
    // backend are user preferences and are kept unless the JSON names them. On error nothing
    // changes.
    // `loaded`: a spec whose files were read already (on the scheduler's worker); a session
    // spec equal to its `parsed` takes its `loaded` instead of reading the files again.
    struct LoadedSpec
    {
        EncodingSpec parsed;
        EncodingSpec loaded;
    };
    bool applyJson(const QJsonObject &json, QString *error = nullptr,
                   const LoadedSpec *loaded = nullptr);
    // The spec `json` names, read as applyJson() reads it but with no file read; nothing when it
    // names none or cannot be read (applyJson() then says why).
    static std::optional<EncodingSpec> parsedSpec(const QJsonObject &json);
    // Default values for everything, the state of a first start.
    void resetToDefaults();

signals:
    void specChanged();
    void backendChoiceChanged();
    void colormapChanged();
    void transposedChanged();
    void heatmapDimLimitChanged();
    void selectionChanged();
    void waveOptionsChanged(); // wave dims, markers, crosses, tolerance
    void phraseSettingsChanged();
    void phraseSelectionChanged();
    void phrasePageChanged();
    void phraseSourceChanged();
    void compareChanged();
    void themeChanged();
    void pageChanged();
    void schemeSettingsChanged();
    void figureStyleChanged();
    void changed(); // after any of the above

private:
    friend class StateCommand;
    // Makes the next values from the current ones; false with *error refuses the change.
    using Edit = std::function<bool(Values &next, QString *error)>;

    // The one way a setter changes the state: applies `edit` to the current values and, when
    // that changes anything, ends a preview made outside it, takes the result and records it.
    bool change(const Edit &edit, QString *error = nullptr);
    // A change of the view options, resolved and checked against the spec.
    bool editView(const std::function<void(ViewOptions &)> &edit, QString *error = nullptr);
    // Emits the signals of what differs between the current values and `next`, then takes them.
    void adopt(const Values &next);
    // Pushes the change from `before` to now as one undo step, unless nothing but where the
    // user looks changed (or no stack is attached, or an undo or a preview is under way).
    void record(const Values &before, const QString &text);
    // Undo and redo: `parameters`' parameters with the current page, selections and phrase page.
    void restoreParameters(const Values &parameters);
    // Where the user looks (page, selected cell, clicked token, phrase page): not undo steps.
    static void takeNavigation(Values &to, const Values &from);
    static bool sameParameters(const Values &a, const Values &b);
    // The selections and the phrase page clamped into what the parameters allow.
    static void fitNavigation(Values &values);
    static QJsonObject jsonOf(const Values &values);
    void setDefaults(); // silently, for construction

    EncodingSpec m_spec;
    ViewOptions m_view;
    WindowOptions m_window;
    PhraseSettings m_phrases;
    PhraseSelection m_phraseSelection;
    PhrasePage m_phrasePage;
    int m_compareA = 0;
    int m_compareB = 1;
    SchemeSettings m_schemes;
    FigureStyle m_figure;
    PhraseSource m_phraseSource;

    QPointer<QUndoStack> m_undo;
    int m_stepDepth = 0;
    Values m_stepBefore;
    QString m_stepText;
    bool m_restoring = false; // undo or redo is applying a command
    int m_previewDepth = 0;
    std::optional<Values> m_saved; // the values a preview hides
};

// Empty when the window can hold `settings`' phrases: it computes both embeddings (random and
// fixed) with their token ids, which must fit the in-memory budget together.
QString windowPhraseProblem(const PhraseSettings &settings);

// The explorer's default phrases (resources/examples/phrases.txt), one per entry.
QStringList examplePhrases();

} // namespace pe
