// ExplorerState: the one object that owns every user-visible parameter of the explorer window.
// Controls edit it, views and the compute scheduler observe it; setters refuse invalid values
// and emit only on a real change. Every setter goes through one place (change()), which records
// the change on the window's undo stack (StateCommand) when one is attached. Its JSON (sessions,
// presets, saved settings) is derived from the field tables of its parts.
#pragma once

#include "state/explorervalues.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

class QUndoStack;

namespace pe {

class ExplorerState : public QObject, public ExplorerValuesReader<ExplorerState>
{
    Q_OBJECT
public:
    explicit ExplorerState(QObject *parent = nullptr);

    // Every parameter at one moment: what an undo step holds from before and after a change.
    using Values = ExplorerValues;
    using LoadedSpec = ExplorerValues::LoadedSpec;
    // Every value as one plain struct (FigureState copies it).
    const Values &values() const { return m_v; }

    // Undo: with a stack attached, every change of a parameter becomes one command on it
    // (StateCommand, "Set Base to 500000"), consecutive changes of one field merged. Where the
    // user looks is no undo step: the page, the selected cell, the clicked token and the phrase
    // page change without one, and undo and redo leave them where they are (clamped to what
    // the restored parameters allow). Null detaches.
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
    // The values a session saves now: those a preview hides, else the current ones.
    const Values &savedValues() const { return m_saved ? *m_saved : m_v; }
    void endPreview();

    // The accessors (spec(), markers(), page()...) are ExplorerValuesReader's.

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
    // The layer-attention view's ablation; refused (false, *error naming the field) as
    // LayerAblation::problem() refuses it.
    bool setLayerAblation(const LayerAblation &ablation, QString *error = nullptr);
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
    bool applyJson(const QJsonObject &json, QString *error = nullptr,
                   const LoadedSpec *loaded = nullptr);
    // The spec `json` names, read as applyJson() reads it but with no file read; nothing when it
    // names none or cannot be read (applyJson() then says why).
    static std::optional<EncodingSpec> parsedSpec(const QJsonObject &json)
    {
        return ExplorerValues::parsedSpec(json);
    }
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
    void layerAblationChanged();
    void changed(); // after any of the above

private:
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
    void setDefaults(); // silently, for construction

    Values m_v;

    QPointer<QUndoStack> m_undo;
    int m_stepDepth = 0;
    Values m_stepBefore;
    QString m_stepText;
    bool m_restoring = false; // undo or redo is applying a command
    int m_previewDepth = 0;
    std::optional<Values> m_saved; // the values a preview hides
};

} // namespace pe
