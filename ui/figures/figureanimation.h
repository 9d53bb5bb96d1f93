// FigureAnimation: what moves in an animated figure (issue 13), either the position (the marker
// of the waves and heatmap, the rotation view's position, the phrase views' clicked token) or one
// numeric field of the scheme swept between two values, and how each frame's state is made from
// the still figure's state. `pescope export --animate` and the window's play control use it, so
// each frame is the still figure of that state.
#pragma once

#include "state/figurestate.h"
#include "state/figureviews.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace pe {

struct AnimationOptions
{
    QString parameter = QStringLiteral("position"); // or a scheme field's flag ("factor")
    std::optional<double> from, to;                 // the parameter's whole range when absent
    int frames = 60;
};

class FigureAnimation
{
public:
    // The animation of `views` that `options` ask for; nullopt with *error, one sentence naming
    // the option (--animate, --from, --to), when it cannot be: position on views without one, a
    // field the scheme lacks or that is not a number, a value outside the field's range or a
    // frame whose parameters the scheme refuses.
    static std::optional<FigureAnimation> plan(const FigureState &state,
                                               const QList<FigureView> &views,
                                               const AnimationOptions &options, QString *error);
    // What --animate accepts for these views and this scheme: "position" (when a view has one)
    // and the scheme's numeric fields' flags.
    static QStringList parameterNames(const FigureState &state, const QList<FigureView> &views);
    // The range offered for `parameter` when none is chosen: every position the views show, or
    // a field from its value in the state to 8 times it (as the Motion bar offers).
    static AnimationOptions defaultOptions(const FigureState &state, const QList<FigureView> &views,
                                           const QString &parameter);
    // A numeric scheme field's value (its flag, e.g. "base"); nullopt when the scheme lacks it.
    static std::optional<double> schemeFieldValue(const EncodingSpec &spec, const QString &flag);

    int frames() const { return m_frames; }
    bool animatesPosition() const { return m_field.isEmpty(); }
    QString parameter() const; // "position" or the field's flag
    double from() const { return m_from; }
    double to() const { return m_to; }
    // Frame k's value: from + (to - from) k / (frames - 1), whole for positions and integers.
    double valueAt(int frame) const;
    QString valueText(int frame) const; // as the command line writes it
    // Sets frame k's value in `state`: the first marker (added when there is none), the rotation
    // position, the clicked token, or the scheme field. False with *error when the state refuses.
    bool apply(FigureState &state, int frame, QString *error) const;
    // The same through the window's state (its play control previews each frame).
    bool apply(ExplorerState &state, int frame, QString *error) const;

private:
    int m_frames = 2;
    double m_from = 0, m_to = 0;
    QString m_field; // the scheme field's flag; empty: the position
    bool m_integer = true;
    bool m_markers = false, m_rotation = false, m_token = false;
};

} // namespace pe
