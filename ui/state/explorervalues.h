// ExplorerValues: every parameter of the explorer at one moment, as plain values, with the rules
// that keep them consistent. Its setters refuse invalid values (false, *error naming the
// problem) and leave the values as they were; what no longer fits follows a change (a new matrix
// drops markers outside it, new phrases reset the compared pair). Its JSON is a session's.
//
// The window's ExplorerState holds one and adds signals and undo; `pescope export`, `pescope
// lesson`, the lesson exporter and Python's `pescope.figure` edit one directly and draw from it
// (FigureState), with no QObject and no undo stack.
#pragma once

#include "state/figurestyle.h"
#include "state/layerablation.h"
#include "state/phrasesource.h"
#include "state/schemesettings.h"
#include "state/viewoptions.h"

#include "backends/backendfactory.h"
#include "encodingspec.h"
#include "text/phrases.h"

#include <QJsonObject>
#include <QList>
#include <QStringList>

#include <functional>
#include <optional>

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

struct ExplorerValues
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
    // The layer-attention view's ablation of its enlarged head.
    LayerAblation ablation;
    bool operator==(const ExplorerValues &) const = default;

    // The values of a first start: the default spec, the example phrases, their first token.
    static ExplorerValues defaults();

    qint64 visibleDims() const;
    // The dims the wave view plots: waveDims plus the selected dim when it is not among them.
    QList<qint64> plottedDims() const;
    PhraseWindow phraseWindow() const { return phrasePage.window(phrases); }

    // Setters: false with *error, nothing changed, when the value is refused.
    // A new spec drops the wave dims, markers and crosses outside its matrix and clamps the
    // selection and the rotation pair into it.
    bool setSpec(const EncodingSpec &requested, QString *error = nullptr);
    // Resolved and checked against the spec.
    bool setViewOptions(const ViewOptions &requested, QString *error = nullptr);
    bool editView(const std::function<void(ViewOptions &)> &edit, QString *error = nullptr);
    // At least two phrases, within the window's memory budget; the compared pair resets when
    // it no longer exists.
    bool setPhraseSettings(const PhraseSettings &settings, QString *error = nullptr);
    void setPhraseSelection(const PhraseSelection &selection); // clamped
    bool setPhrasePage(const PhrasePage &page, QString *error = nullptr);
    bool setPhraseSource(const PhraseSource &source, QString *error = nullptr);
    bool setCompare(int a, int b, QString *error = nullptr);
    // Refused when LayerAblation::problem() finds one.
    bool setLayerAblation(const LayerAblation &requested, QString *error = nullptr);
    // Validated against the spec's dims (the rotation pair, the compare configuration).
    bool setSchemeSettings(const SchemeSettings &settings, QString *error = nullptr);

    // The selections and the phrase page clamped into what the parameters allow.
    void fitNavigation();

    // Every parameter as JSON (sessions, presets, lessons' steps, QSettings), in the current
    // session format.
    QJsonObject toJson() const;
    // `loaded`: a spec whose files were read already (on the scheduler's worker); a JSON spec
    // equal to its `parsed` takes its `loaded` instead of reading the files again.
    struct LoadedSpec
    {
        EncodingSpec parsed;
        EncodingSpec loaded;
    };
    // The defaults with `json` applied (keys it lacks keep their defaults); theme and backend
    // are user preferences and stay as they are here unless the JSON names them. On error
    // nothing changes.
    bool applyJson(const QJsonObject &json, QString *error = nullptr,
                   const LoadedSpec *loaded = nullptr);
    // The spec `json` names, read as applyJson() reads it but with no file read; nothing when it
    // names none or cannot be read (applyJson() then says why).
    static std::optional<EncodingSpec> parsedSpec(const QJsonObject &json);

private:
    bool applyPhrasesJson(const QJsonObject &phrasesJson, QString *error);
};

// The named read accessors over ExplorerValues (state.spec(), state.markers()), shared by the
// window's ExplorerState and the plain FigureState; `Owner` provides values().
template <class Owner> class ExplorerValuesReader
{
public:
    const EncodingSpec &spec() const { return v().spec; }
    const ViewOptions &viewOptions() const { return v().view; }
    BackendChoice backendChoice() const { return v().window.backend; }
    Colormap colormap() const { return v().view.colormap; }
    bool transposed() const { return v().view.transposed; }
    qint64 heatmapDimLimit() const { return v().view.heatmapDimLimit; }
    qint64 visibleDims() const { return v().visibleDims(); }
    const Selection &selection() const { return v().view.selection; }
    const QList<qint64> &waveDims() const { return v().view.waveDims; }
    // The dims the wave view plots: waveDims plus the selected dim when it is not among them.
    QList<qint64> plottedDims() const { return v().plottedDims(); }
    const QList<qint64> &markers() const { return v().view.markers; }
    const QList<CrossMarker> &crosses() const { return v().view.crosses; }
    double shareTolerance() const { return v().view.shareTolerance; }
    const PhraseSettings &phraseSettings() const { return v().phrases; }
    const PhraseSelection &phraseSelection() const { return v().phraseSelection; }
    const PhrasePage &phrasePage() const { return v().phrasePage; }
    // The Phrases page's tokenizer: the tutorial's TextVectorization or the model's own.
    const PhraseSource &phraseSource() const { return v().phraseSource; }
    // What the layer-attention view's enlarged head is compared with.
    const LayerAblation &layerAblation() const { return v().ablation; }
    PhraseWindow phraseWindow() const { return v().phraseWindow(); }
    int compareA() const { return v().compareA; }
    int compareB() const { return v().compareB; }
    Theme theme() const { return v().window.theme; }
    Page page() const { return v().window.page; }
    const SchemeSettings &schemeSettings() const { return v().schemes; }
    // How exported figures look (File → Export figure, saved with a session).
    const FigureStyle &figureStyle() const { return v().figure; }

private:
    const ExplorerValues &v() const { return static_cast<const Owner &>(*this).values(); }
};

// Empty when the window can hold `settings`' phrases: it computes both embeddings (random and
// fixed) with their token ids, which must fit the in-memory budget together.
QString windowPhraseProblem(const PhraseSettings &settings);

// The explorer's default phrases (resources/examples/phrases.txt), one per entry.
QStringList examplePhrases();

} // namespace pe
