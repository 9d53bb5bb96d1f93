// ExplorerState: the one object that owns every user-visible parameter of the explorer window.
// Controls edit it, views and the compute scheduler observe it; setters refuse invalid values
// and emit only on a real change. Its JSON (sessions, presets, saved settings) is derived from
// the field tables of its parts.
#pragma once

#include "state/schemesettings.h"
#include "state/viewoptions.h"

#include "backendfactory.h"
#include "encodingspec.h"
#include "phrases.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QStringList>

namespace pe {

enum class Theme { Light, Dark };
inline constexpr ChoiceName themeNames[] = {
    choice(Theme::Light, "light", "Light"),
    choice(Theme::Dark, "dark", "Dark"),
};
enum class Page { Encoding, Phrases, Schemes };
inline constexpr ChoiceName pageNames[] = {
    choice(Page::Encoding, "encoding", "Encoding"),
    choice(Page::Phrases, "phrases", "Phrases"),
    choice(Page::Schemes, "schemes", "Schemes"),
};

// The phrase page's inputs: PhraseSpec's parameters (the window shows both embeddings, so its
// `mode` is unused here).
using PhraseSettings = PhraseSpec;

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
    int compareA() const { return m_compareA; }
    int compareB() const { return m_compareB; }
    Theme theme() const { return m_window.theme; }
    Page page() const { return m_window.page; }
    const SchemeSettings &schemeSettings() const { return m_schemes; }

    // Setters refuse invalid values (return false, *error names the problem) and leave the
    // state as it was; they emit only when the value really changes.
    bool setSpec(const EncodingSpec &spec, QString *error = nullptr);
    bool setViewOptions(const ViewOptions &options, QString *error = nullptr);
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
    bool setCompare(int a, int b, QString *error = nullptr);
    void setTheme(Theme theme);
    void setPage(Page page);
    // Validated against the spec's dims (the rotation pair, the compare configuration).
    bool setSchemeSettings(const SchemeSettings &settings, QString *error = nullptr);
    // A fresh random seed for the phrase page's random row.
    void reseedPhrases();

    // Every parameter as JSON (sessions, presets, QSettings), in the current session format.
    QJsonObject toJson() const;
    // Resets to the defaults, then applies `json` (keys it lacks keep their defaults). Theme and
    // backend are user preferences and are kept unless the JSON names them. On error nothing
    // changes.
    bool applyJson(const QJsonObject &json, QString *error = nullptr);
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
    void compareChanged();
    void themeChanged();
    void pageChanged();
    void schemeSettingsChanged();
    void changed(); // after any of the above

private:
    struct Values
    {
        EncodingSpec spec;
        ViewOptions view;
        WindowOptions window;
        PhraseSettings phrases;
        PhraseSelection phraseSelection;
        int compareA = 0;
        int compareB = 1;
        SchemeSettings schemes;
    };
    Values values() const;
    // Emits the signals of what differs between the current values and `next`, then takes them.
    void adopt(const Values &next);
    void setDefaults(); // silently, for construction

    EncodingSpec m_spec;
    ViewOptions m_view;
    WindowOptions m_window;
    PhraseSettings m_phrases;
    PhraseSelection m_phraseSelection;
    int m_compareA = 0;
    int m_compareB = 1;
    SchemeSettings m_schemes;
};

// The explorer's default phrases (resources/examples/phrases.txt), one per entry.
QStringList examplePhrases();

} // namespace pe
