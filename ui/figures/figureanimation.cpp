#include "figures/figureanimation.h"

#include "fields/field.h"
#include "state/explorerstate.h"

#include <cmath>
#include <limits>

namespace pe {

namespace {

bool isPositionView(FigureView view)
{
    return viewEntry(view).motion != ViewMotion::None;
}

// A numeric field of a scheme: where its value lives, its range, and its table's name for it.
struct NumericField
{
    bool integer = false;
    double min = 0, max = 0;
    bool minOpen = false, maxOpen = false;
    bool applies = true;
    QString flag;
};

template <class S> std::optional<NumericField> numericField(const Field<S> &f, const S &s)
{
    NumericField n;
    n.flag = QString::fromUtf8(f.flag);
    n.applies = fieldApplies(S::fields(), f, s);
    if (const auto *k = std::get_if<IntegerKind<S>>(&f.kind)) {
        n.integer = true;
        n.min = double(k->range.min);
        n.max = double(k->range.max);
        return n;
    }
    if (const auto *k = std::get_if<RealKind<S>>(&f.kind)) {
        n.min = k->range.min, n.max = k->range.max;
        n.minOpen = k->range.minOpen, n.maxOpen = k->range.maxOpen;
        return n;
    }
    if (const auto *k = std::get_if<OptionalRealKind<S>>(&f.kind)) {
        n.min = k->range.min, n.max = k->range.max;
        n.minOpen = k->range.minOpen, n.maxOpen = k->range.maxOpen;
        return n;
    }
    return std::nullopt;
}

// The numeric field of the spec's scheme named by its command-line flag.
std::optional<NumericField> schemeField(const EncodingSpec &spec, const QString &flag)
{
    return std::visit(
        [&](const auto &s) -> std::optional<NumericField> {
            using S = std::decay_t<decltype(s)>;
            for (const Field<S> &f : S::fields())
                if (f.flag && flag == QString::fromUtf8(f.flag))
                    return numericField(f, s);
            return std::nullopt;
        },
        spec.scheme);
}

QString numberText(double value, bool integer)
{
    return integer ? QString::number(qint64(std::llround(value))) : QString::number(value, 'g', 17);
}

// Sets the field to `value`; a fragment naming the flag ("--factor must be ...") on failure.
QString setSchemeField(EncodingSpec *spec, const QString &flag, double value, bool integer)
{
    return std::visit(
        [&](auto &s) -> QString {
            using S = std::decay_t<decltype(s)>;
            for (const Field<S> &f : S::fields())
                if (f.flag && flag == QString::fromUtf8(f.flag)) {
                    const QString problem = setFieldText(f, s, numberText(value, integer));
                    return problem.isEmpty()
                               ? QString()
                               : describe(S::fields(),
                                          FieldProblem{QString::fromUtf8(f.key), problem},
                                          FieldNaming::Flag);
                }
            return QStringLiteral("--%1 is not a field of the scheme").arg(flag);
        },
        spec->scheme);
}

} // namespace

QStringList FigureAnimation::parameterNames(const FigureState &state,
                                            const QList<FigureView> &views)
{
    QStringList names;
    if (std::any_of(views.begin(), views.end(), isPositionView))
        names.append(QStringLiteral("position"));
    std::visit(
        [&](const auto &s) {
            using S = std::decay_t<decltype(s)>;
            for (const Field<S> &f : S::fields())
                if (f.flag && numericField(f, s) && fieldApplies(S::fields(), f, s))
                    names.append(QString::fromUtf8(f.flag));
        },
        state.spec().scheme);
    return names;
}

AnimationOptions FigureAnimation::defaultOptions(const FigureState &state,
                                                 const QList<FigureView> &views,
                                                 const QString &parameter)
{
    AnimationOptions options;
    options.parameter = parameter;
    if (parameter == QLatin1String("position")) {
        QString ignored;
        if (const std::optional<FigureAnimation> plan =
                FigureAnimation::plan(state, views, options, &ignored)) {
            options.from = plan->from();
            options.to = plan->to();
        }
        return options;
    }
    double value = schemeFieldValue(state.spec(), parameter).value_or(1.0);
    if (value == 0)
        value = 1;
    options.from = value;
    options.to = value * 8;
    return options;
}

std::optional<double> FigureAnimation::schemeFieldValue(const EncodingSpec &spec,
                                                        const QString &flag)
{
    // In the field's one text syntax, as the command line reads it.
    std::optional<double> value;
    std::visit(
        [&](const auto &s) {
            using S = std::decay_t<decltype(s)>;
            for (const Field<S> &f : S::fields())
                if (f.flag && flag == QString::fromUtf8(f.flag))
                    value = fieldText(f, s).toDouble();
        },
        spec.scheme);
    return value;
}

QString FigureAnimation::parameter() const
{
    return m_field.isEmpty() ? QStringLiteral("position") : m_field;
}

std::optional<FigureAnimation> FigureAnimation::plan(const FigureState &state,
                                                     const QList<FigureView> &views,
                                                     const AnimationOptions &options,
                                                     QString *error)
{
    FigureAnimation a;
    a.m_frames = options.frames;
    if (options.frames < 2) {
        *error = QStringLiteral("--frames must be at least 2 (got %1)").arg(options.frames);
        return std::nullopt;
    }
    const QString views_ = figureViewsName(views);
    const auto checkEnd = [&](const char *option, double value, double min, double max,
                              bool integer) {
        if (!std::isfinite(value) || value < min || value > max ||
            (integer && value != std::floor(value))) {
            *error = QStringLiteral("--%1 must be a%2 from %3 to %4 for --animate %5 of the %6 "
                                    "view (got %7)")
                         .arg(QLatin1String(option),
                              integer ? QStringLiteral(" whole number") : QString(),
                              numberText(min, integer), numberText(max, integer), a.parameter(),
                              views_, QString::number(value, 'g', 10));
            return false;
        }
        return true;
    };

    if (options.parameter == QLatin1String("position")) {
        if (!std::any_of(views.begin(), views.end(), isPositionView)) {
            *error = QStringLiteral("--animate position moves the marker of the waves, heatmap, "
                                    "rotation and phrase views; the %1 view has none (sweep a "
                                    "parameter instead: %2)")
                         .arg(views_, parameterNames(state, views).join(QStringLiteral(", ")));
            return std::nullopt;
        }
        // The positions every animated view can show.
        qint64 last = std::numeric_limits<qint64>::max();
        for (FigureView v : views) {
            const ViewMotion motion = viewEntry(v).motion;
            a.m_markers = a.m_markers || motion == ViewMotion::Marker;
            a.m_rotation = a.m_rotation || motion == ViewMotion::RotationPosition;
            a.m_token = a.m_token || motion == ViewMotion::Token;
            if (motion == ViewMotion::Token)
                last = std::min(last, state.phraseSettings().sequenceLength - 1);
            else if (motion != ViewMotion::None)
                last = std::min(last, state.spec().positions - 1);
        }
        a.m_from = options.from.value_or(0.0);
        a.m_to = options.to.value_or(double(last));
        if (!checkEnd("from", a.m_from, 0, double(last), true) ||
            !checkEnd("to", a.m_to, 0, double(last), true))
            return std::nullopt;
        return a;
    }

    const std::optional<NumericField> field = schemeField(state.spec(), options.parameter);
    if (!field) {
        *error =
            QStringLiteral("--animate must be position or a numeric field of --scheme %1: "
                           "%2 (got \"%3\")")
                .arg(state.spec().schemeId(),
                     parameterNames(state, views).join(QStringLiteral(", ")), options.parameter);
        return std::nullopt;
    }
    if (!field->applies) {
        *error = QStringLiteral("--animate %1: --%1 does not apply to these --scheme %2 settings "
                                "(it sweeps one of: %3)")
                     .arg(options.parameter, state.spec().schemeId(),
                          parameterNames(state, views).join(QStringLiteral(", ")));
        return std::nullopt;
    }
    a.m_field = field->flag;
    a.m_integer = field->integer;
    if (!options.from || !options.to) {
        *error = QStringLiteral("--animate %1 needs --from and --to: the values of --%1 at the "
                                "first and the last frame")
                     .arg(options.parameter);
        return std::nullopt;
    }
    a.m_from = *options.from;
    a.m_to = *options.to;
    // Each end inside the field's range, then every frame's parameters as the scheme checks
    // them (a rule between fields may refuse values inside the range).
    for (const auto &[option, value] : {std::pair{"from", a.m_from}, std::pair{"to", a.m_to}}) {
        if (field->integer && value != std::floor(value)) {
            *error = QStringLiteral("--%1 must be a whole number for --animate %2 (got %3)")
                         .arg(QLatin1String(option), options.parameter)
                         .arg(value, 0, 'g', 10);
            return std::nullopt;
        }
        EncodingSpec spec = state.spec();
        if (const QString problem = setSchemeField(&spec, a.m_field, value, a.m_integer);
            !problem.isEmpty()) {
            *error = QStringLiteral("--%1: %2").arg(QLatin1String(option), problem);
            return std::nullopt;
        }
    }
    for (int k = 0; k < a.m_frames; ++k) {
        EncodingSpec spec = state.spec();
        const QString set = setSchemeField(&spec, a.m_field, a.valueAt(k), a.m_integer);
        const FieldProblem problem = set.isEmpty() ? spec.normalized().problem() : FieldProblem{};
        if (!set.isEmpty() || problem) {
            *error = QStringLiteral("--animate %1: at frame %2 (--%1 %3) %4")
                         .arg(options.parameter)
                         .arg(k + 1)
                         .arg(a.valueText(k),
                              set.isEmpty() ? spec.describe(problem, FieldNaming::Flag) : set);
            return std::nullopt;
        }
    }
    return a;
}

double FigureAnimation::valueAt(int frame) const
{
    const double t = m_frames > 1 ? double(frame) / double(m_frames - 1) : 0.0;
    const double v = frame >= m_frames - 1 ? m_to : m_from + (m_to - m_from) * t;
    return m_integer ? double(std::llround(v)) : v;
}

QString FigureAnimation::valueText(int frame) const
{
    const double v = valueAt(frame);
    return m_integer ? QString::number(qint64(v)) : QString::number(v, 'g', 6);
}

bool FigureAnimation::apply(FigureState &state, int frame, QString *error) const
{
    // plan() checked every frame's value against the matrix and the scheme: each frame moves one
    // value of the plain state, with nothing to notify.
    ExplorerValues &v = state.values();
    const double value = valueAt(frame);
    if (!m_field.isEmpty()) {
        EncodingSpec spec = v.spec;
        if (const QString problem = setSchemeField(&spec, m_field, value, m_integer);
            !problem.isEmpty()) {
            *error = problem;
            return false;
        }
        spec = spec.normalized();
        if (const QString problem = spec.validate(); !problem.isEmpty()) {
            *error = problem;
            return false;
        }
        v.spec = spec;
        return true;
    }
    const qint64 p = qint64(value);
    if (m_markers) {
        if (v.view.markers.isEmpty())
            v.view.markers.append(p);
        else
            v.view.markers[0] = p;
    }
    if (m_rotation)
        v.schemes.rotationPosition = p;
    if (m_token) {
        v.phraseSelection.phrase = std::max(0, v.phraseSelection.phrase);
        v.phraseSelection.token = p;
    }
    return true;
}

// The window's play control moves the live state, through its setters.
bool FigureAnimation::apply(ExplorerState &state, int frame, QString *error) const
{
    const double v = valueAt(frame);
    if (!m_field.isEmpty()) {
        EncodingSpec spec = state.spec();
        if (const QString problem = setSchemeField(&spec, m_field, v, m_integer);
            !problem.isEmpty()) {
            *error = problem;
            return false;
        }
        return state.setSpec(spec.normalized(), error);
    }
    const qint64 p = qint64(v);
    if (m_markers) {
        QList<qint64> markers = state.markers();
        if (markers.isEmpty())
            markers.append(p);
        else
            markers[0] = p;
        if (!state.setMarkers(markers, error))
            return false;
    }
    if (m_rotation) {
        SchemeSettings s = state.schemeSettings();
        s.rotationPosition = p;
        if (!state.setSchemeSettings(s, error))
            return false;
    }
    if (m_token) {
        PhraseSelection sel = state.phraseSelection();
        sel.phrase = std::max(0, sel.phrase);
        sel.token = p;
        state.setPhraseSelection(sel);
    }
    return true;
}

} // namespace pe
