// ExplorerState: the one object that owns every user-visible parameter of the explorer window.
// Controls edit it, views and the compute scheduler observe it; setters emit only on real change.
#pragma once

#include "figures/colormaps.h"
#include "state/schemesettings.h"

#include "backendfactory.h"
#include "encodingspec.h"
#include "phrases.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QStringList>

namespace pe {

enum class Theme { Light, Dark };
enum class Page { Encoding, Phrases, Schemes };

QString themeName(Theme theme);
std::optional<Theme> parseTheme(const QString &name);
QString pageName(Page page);
std::optional<Page> parsePage(const QString &name);

// A selected cell of the encoding matrix.
struct Selection
{
    qint64 position = 0;
    qint64 dim = 0;
    bool operator==(const Selection &) const = default;
};

// A cross drawn on the wave of `dim` at `position` (Fig 16-9's "x" at p = 35 on i = 100).
struct CrossMarker
{
    qint64 position = 0;
    qint64 dim = 0;
    bool operator==(const CrossMarker &) const = default;
};

// The phrase page's inputs. Titles are optional labels per phrase (a preset's "Tech Phrase").
struct PhraseSettings
{
    QStringList phrases;
    QStringList titles;
    qint64 maxTokens = 200;
    qint64 sequenceLength = 20;
    qint64 dims = 50;
    quint64 seed = 0;
    bool operator==(const PhraseSettings &) const = default;

    PhraseSpec spec(EmbeddingMode mode) const;
    QString title(int index) const; // the given title, else "Phrase N"
};

// The clicked token on the phrase page; phrase < 0 means none.
struct PhraseSelection
{
    int phrase = -1;
    qint64 token = 0;
    EmbeddingMode mode = EmbeddingMode::Fixed;
    bool operator==(const PhraseSelection &) const = default;
};

class ExplorerState : public QObject
{
    Q_OBJECT
public:
    explicit ExplorerState(QObject *parent = nullptr);

    const EncodingSpec &spec() const { return m_spec; }
    BackendChoice backendChoice() const { return m_backend; }
    Colormap colormap() const { return m_colormap; }
    bool transposed() const { return m_transposed; }
    // Heatmap shows only the first N dims (Fig 16-9 crops to 150); 0 shows all.
    qint64 heatmapDimLimit() const { return m_heatmapDimLimit; }
    qint64 visibleDims() const;
    const Selection &selection() const { return m_selection; }
    const QList<qint64> &waveDims() const { return m_waveDims; }
    // The dims the wave view plots: waveDims plus the selected dim when it is not among them.
    QList<qint64> plottedDims() const;
    const QList<qint64> &markers() const { return m_markers; }
    const QList<CrossMarker> &crosses() const { return m_crosses; }
    double shareTolerance() const { return m_shareTolerance; }
    const PhraseSettings &phraseSettings() const { return m_phrases; }
    const PhraseSelection &phraseSelection() const { return m_phraseSelection; }
    int compareA() const { return m_compareA; }
    int compareB() const { return m_compareB; }
    Theme theme() const { return m_theme; }
    Page page() const { return m_page; }
    const SchemeSettings &schemeSettings() const { return m_schemes; }

    // Setters refuse invalid values (return false, *error names the problem) and leave the
    // state as it was; they emit only when the value really changes.
    bool setSpec(const EncodingSpec &spec, QString *error = nullptr);
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

    // Every parameter as JSON (sessions, presets, QSettings).
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
    void clampSelections();
    void setDefaults(); // silently, for construction

    EncodingSpec m_spec;
    BackendChoice m_backend = BackendChoice::Auto;
    Colormap m_colormap = Colormap::Viridis;
    bool m_transposed = false;
    qint64 m_heatmapDimLimit = 0;
    Selection m_selection;
    QList<qint64> m_waveDims;
    QList<qint64> m_markers;
    QList<CrossMarker> m_crosses;
    double m_shareTolerance = 0.01;
    PhraseSettings m_phrases;
    PhraseSelection m_phraseSelection;
    int m_compareA = 0;
    int m_compareB = 1;
    Theme m_theme = Theme::Light;
    Page m_page = Page::Encoding;
    SchemeSettings m_schemes;
};

// The explorer's default phrases (resources/examples/phrases.txt), one per entry.
QStringList examplePhrases();

} // namespace pe
