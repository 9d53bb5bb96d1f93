#include "state/explorerstate.h"

#include <QFile>
#include <QJsonArray>
#include <QRandomGenerator>

#include <cmath>

namespace pe {

namespace {

constexpr int maxWaveDims = 8;
constexpr int maxMarkers = 16;

template <typename T> bool assign(T &member, const T &value)
{
    if (member == value)
        return false;
    member = value;
    return true;
}

QJsonArray toArray(const QList<qint64> &values)
{
    QJsonArray array;
    for (qint64 v : values)
        array.append(v);
    return array;
}

QJsonArray toArray(const QStringList &values)
{
    QJsonArray array;
    for (const QString &v : values)
        array.append(v);
    return array;
}

// Reads an integer that JSON stores as a double; refuses fractions and out-of-range numbers.
bool readInteger(const QJsonValue &value, const QString &key, qint64 *out, QString *error)
{
    const double d = value.toDouble(std::nan(""));
    if (!value.isDouble() || !std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9.0e15) {
        *error = QStringLiteral("\"%1\" must be an integer").arg(key);
        return false;
    }
    *out = qint64(d);
    return true;
}

bool readIntegerList(const QJsonValue &value, const QString &key, QList<qint64> *out,
                     QString *error)
{
    if (!value.isArray()) {
        *error = QStringLiteral("\"%1\" must be a list of integers").arg(key);
        return false;
    }
    out->clear();
    for (const QJsonValue &item : value.toArray()) {
        qint64 v = 0;
        if (!readInteger(item, key, &v, error))
            return false;
        out->append(v);
    }
    return true;
}

} // namespace

QString themeName(Theme theme)
{
    return theme == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

std::optional<Theme> parseTheme(const QString &name)
{
    if (name == QLatin1String("light"))
        return Theme::Light;
    if (name == QLatin1String("dark"))
        return Theme::Dark;
    return std::nullopt;
}

QString pageName(Page page)
{
    switch (page) {
    case Page::Phrases:
        return QStringLiteral("phrases");
    case Page::Schemes:
        return QStringLiteral("schemes");
    case Page::Encoding:
        break;
    }
    return QStringLiteral("encoding");
}

std::optional<Page> parsePage(const QString &name)
{
    if (name == QLatin1String("encoding"))
        return Page::Encoding;
    if (name == QLatin1String("phrases"))
        return Page::Phrases;
    if (name == QLatin1String("schemes"))
        return Page::Schemes;
    return std::nullopt;
}

PhraseSpec PhraseSettings::spec(EmbeddingMode mode) const
{
    PhraseSpec s;
    s.phrases = phrases;
    s.maxTokens = maxTokens;
    s.sequenceLength = sequenceLength;
    s.dims = dims;
    s.mode = mode;
    s.seed = seed;
    return s;
}

QString PhraseSettings::title(int index) const
{
    if (index >= 0 && index < titles.size() && !titles[index].trimmed().isEmpty())
        return titles[index];
    return QStringLiteral("Phrase %1").arg(index + 1);
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
    m_spec.scheme = Scheme::Sinusoidal;
    m_spec.layout = Layout::Interleaved;
    m_spec.positions = 200;
    m_spec.dims = 128;
    m_spec.base = 10000.0;
    m_spec.seed = 0;
    m_colormap = Colormap::Viridis;
    m_transposed = false;
    m_heatmapDimLimit = 0;
    m_selection = {50, 20};
    m_waveDims = {20, 21};
    m_markers = {};
    m_crosses = {};
    m_shareTolerance = 0.01;
    m_phrases = PhraseSettings{};
    m_phrases.phrases = examplePhrases();
    m_phraseSelection = {0, 0, EmbeddingMode::Fixed};
    m_compareA = 0;
    m_compareB = 1;
    m_page = Page::Encoding;
    m_schemes = SchemeSettings{};
}

void ExplorerState::resetToDefaults()
{
    applyJson(QJsonObject{});
}

qint64 ExplorerState::visibleDims() const
{
    return m_heatmapDimLimit > 0 ? qMin(m_heatmapDimLimit, m_spec.dims) : m_spec.dims;
}

QList<qint64> ExplorerState::plottedDims() const
{
    QList<qint64> dims;
    for (qint64 d : m_waveDims)
        if (d < m_spec.dims && !dims.contains(d))
            dims.append(d);
    if (m_selection.dim < m_spec.dims && !dims.contains(m_selection.dim))
        dims.append(m_selection.dim);
    return dims;
}

bool ExplorerState::setSpec(const EncodingSpec &spec, QString *error)
{
    const QString problem = spec.validate();
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    if (!assign(m_spec, spec))
        return true;
    emit specChanged();
    clampSelections();
    emit changed();
    return true;
}

void ExplorerState::clampSelections()
{
    const Selection clamped{qBound<qint64>(0, m_selection.position, m_spec.positions - 1),
                            qBound<qint64>(0, m_selection.dim, m_spec.dims - 1)};
    if (assign(m_selection, clamped))
        emit selectionChanged();
    // The rotation view follows a pair the new dims still have.
    SchemeSettings schemes = m_schemes;
    schemes.rotationPair =
        qBound<qint64>(0, schemes.rotationPair, qMax<qint64>(1, m_spec.dims / 2) - 1);
    if (assign(m_schemes, schemes))
        emit schemeSettingsChanged();
}

void ExplorerState::setBackendChoice(BackendChoice choice)
{
    if (assign(m_backend, choice)) {
        emit backendChoiceChanged();
        emit changed();
    }
}

void ExplorerState::setColormap(Colormap map)
{
    if (assign(m_colormap, map)) {
        emit colormapChanged();
        emit changed();
    }
}

void ExplorerState::setTransposed(bool transposed)
{
    if (assign(m_transposed, transposed)) {
        emit transposedChanged();
        emit changed();
    }
}

bool ExplorerState::setHeatmapDimLimit(qint64 limit, QString *error)
{
    if (limit < 0 || limit > limits::maxDims) {
        if (error)
            *error =
                QStringLiteral("the heatmap's dim limit must be between 0 (all) and %1 (got %2)")
                    .arg(limits::maxDims)
                    .arg(limit);
        return false;
    }
    if (assign(m_heatmapDimLimit, limit)) {
        emit heatmapDimLimitChanged();
        emit changed();
    }
    return true;
}

void ExplorerState::setSelection(const Selection &selection)
{
    const Selection clamped{qBound<qint64>(0, selection.position, m_spec.positions - 1),
                            qBound<qint64>(0, selection.dim, m_spec.dims - 1)};
    if (assign(m_selection, clamped)) {
        emit selectionChanged();
        emit changed();
    }
}

bool ExplorerState::setWaveDims(const QList<qint64> &dims, QString *error)
{
    QString problem;
    if (dims.size() > maxWaveDims)
        problem = QStringLiteral("at most %1 wave dims can be plotted (got %2)")
                      .arg(maxWaveDims)
                      .arg(dims.size());
    for (qint64 d : dims)
        if (problem.isEmpty() && (d < 0 || d >= m_spec.dims))
            problem = QStringLiteral("wave dim %1 is outside the matrix (dims 0 to %2)")
                          .arg(d)
                          .arg(m_spec.dims - 1);
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    if (assign(m_waveDims, dims)) {
        emit waveOptionsChanged();
        emit changed();
    }
    return true;
}

bool ExplorerState::setMarkers(const QList<qint64> &positions, QString *error)
{
    QString problem;
    if (positions.size() > maxMarkers)
        problem =
            QStringLiteral("at most %1 markers (got %2)").arg(maxMarkers).arg(positions.size());
    for (qint64 p : positions)
        if (problem.isEmpty() && (p < 0 || p >= m_spec.positions))
            problem = QStringLiteral("marker position %1 is outside the matrix (positions 0 to %2)")
                          .arg(p)
                          .arg(m_spec.positions - 1);
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    if (assign(m_markers, positions)) {
        emit waveOptionsChanged();
        emit changed();
    }
    return true;
}

bool ExplorerState::setCrosses(const QList<CrossMarker> &crosses, QString *error)
{
    QString problem;
    if (crosses.size() > maxMarkers)
        problem = QStringLiteral("at most %1 crosses (got %2)").arg(maxMarkers).arg(crosses.size());
    for (const CrossMarker &c : crosses)
        if (problem.isEmpty() &&
            (c.position < 0 || c.position >= m_spec.positions || c.dim < 0 || c.dim >= m_spec.dims))
            problem = QStringLiteral(
                          "cross %1@%2 is outside the matrix (positions 0 to %3, dims 0 to %4)")
                          .arg(c.position)
                          .arg(c.dim)
                          .arg(m_spec.positions - 1)
                          .arg(m_spec.dims - 1);
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    if (assign(m_crosses, crosses)) {
        emit waveOptionsChanged();
        emit changed();
    }
    return true;
}

bool ExplorerState::setShareTolerance(double tolerance, QString *error)
{
    if (!std::isfinite(tolerance) || tolerance < 0.0 || tolerance > 2.0) {
        if (error)
            *error = QStringLiteral("the share tolerance must be between 0 and 2 (got %1)")
                         .arg(tolerance);
        return false;
    }
    if (assign(m_shareTolerance, tolerance)) {
        emit waveOptionsChanged();
        emit changed();
    }
    return true;
}

bool ExplorerState::setPhraseSettings(const PhraseSettings &settings, QString *error)
{
    QString problem;
    if (settings.phrases.size() < 2)
        problem = QStringLiteral("at least two phrases are needed to compare (got %1)")
                      .arg(settings.phrases.size());
    if (problem.isEmpty())
        problem = settings.spec(EmbeddingMode::Random).validate();
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    if (!assign(m_phrases, settings))
        return true;
    emit phraseSettingsChanged();
    const int count = int(m_phrases.phrases.size());
    if (m_compareA >= count || m_compareB >= count) {
        m_compareA = 0;
        m_compareB = 1;
        emit compareChanged();
    }
    PhraseSelection ps = m_phraseSelection;
    if (ps.phrase >= count)
        ps.phrase = -1;
    ps.token = qBound<qint64>(0, ps.token, m_phrases.sequenceLength - 1);
    if (assign(m_phraseSelection, ps))
        emit phraseSelectionChanged();
    emit changed();
    return true;
}

void ExplorerState::setPhraseSelection(const PhraseSelection &selection)
{
    PhraseSelection ps = selection;
    if (ps.phrase >= int(m_phrases.phrases.size()))
        ps.phrase = -1;
    ps.token = qBound<qint64>(0, ps.token, m_phrases.sequenceLength - 1);
    if (assign(m_phraseSelection, ps)) {
        emit phraseSelectionChanged();
        emit changed();
    }
}

bool ExplorerState::setCompare(int a, int b, QString *error)
{
    const int count = int(m_phrases.phrases.size());
    if (a < 0 || b < 0 || a >= count || b >= count || a == b) {
        if (error)
            *error = QStringLiteral("compare two different phrases between 1 and %1").arg(count);
        return false;
    }
    if (m_compareA != a || m_compareB != b) {
        m_compareA = a;
        m_compareB = b;
        emit compareChanged();
        emit changed();
    }
    return true;
}

void ExplorerState::setTheme(Theme theme)
{
    if (assign(m_theme, theme)) {
        emit themeChanged();
        emit changed();
    }
}

void ExplorerState::setPage(Page page)
{
    if (assign(m_page, page)) {
        emit pageChanged();
        emit changed();
    }
}

bool ExplorerState::setSchemeSettings(const SchemeSettings &settings, QString *error)
{
    if (const QString problem = settings.validate(m_spec.dims); !problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    if (assign(m_schemes, settings)) {
        emit schemeSettingsChanged();
        emit changed();
    }
    return true;
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
    QJsonObject spec{
        {QStringLiteral("scheme"), schemeName(m_spec.scheme)},
        {QStringLiteral("layout"), layoutName(m_spec.layout)},
        {QStringLiteral("positions"), m_spec.positions},
        {QStringLiteral("dims"), m_spec.dims},
        {QStringLiteral("base"), m_spec.base},
        {QStringLiteral("seed"), QString::number(m_spec.seed)},
        {QStringLiteral("rope"), ropeParametersToJson(m_spec.rope)},
    };
    QJsonArray crosses;
    for (const CrossMarker &c : m_crosses)
        crosses.append(
            QJsonObject{{QStringLiteral("position"), c.position}, {QStringLiteral("dim"), c.dim}});
    QJsonObject phrases{
        {QStringLiteral("phrases"), toArray(m_phrases.phrases)},
        {QStringLiteral("titles"), toArray(m_phrases.titles)},
        {QStringLiteral("maxTokens"), m_phrases.maxTokens},
        {QStringLiteral("sequenceLength"), m_phrases.sequenceLength},
        {QStringLiteral("dims"), m_phrases.dims},
        {QStringLiteral("seed"), QString::number(m_phrases.seed)},
        {QStringLiteral("compare"), QJsonArray{m_compareA, m_compareB}},
        {QStringLiteral("selection"),
         QJsonObject{{QStringLiteral("phrase"), m_phraseSelection.phrase},
                     {QStringLiteral("token"), m_phraseSelection.token},
                     {QStringLiteral("mode"), embeddingModeName(m_phraseSelection.mode)}}},
    };
    return QJsonObject{
        {QStringLiteral("spec"), spec},
        {QStringLiteral("backend"), backendChoiceName(m_backend)},
        {QStringLiteral("colormap"), colormapName(m_colormap)},
        {QStringLiteral("transposed"), m_transposed},
        {QStringLiteral("heatmapDimLimit"), m_heatmapDimLimit},
        {QStringLiteral("selection"),
         QJsonObject{{QStringLiteral("position"), m_selection.position},
                     {QStringLiteral("dim"), m_selection.dim}}},
        {QStringLiteral("waveDims"), toArray(m_waveDims)},
        {QStringLiteral("markers"), toArray(m_markers)},
        {QStringLiteral("crosses"), crosses},
        {QStringLiteral("shareTolerance"), m_shareTolerance},
        {QStringLiteral("phrases"), phrases},
        {QStringLiteral("theme"), themeName(m_theme)},
        {QStringLiteral("page"), pageName(m_page)},
        {QStringLiteral("schemes"), m_schemes.toJson()},
    };
}

bool ExplorerState::applyJson(const QJsonObject &json, QString *errorOut)
{
    QString dummy;
    QString *error = errorOut ? errorOut : &dummy;
    // Parse into a scratch state first, so a bad document changes nothing here.
    ExplorerState scratch;
    scratch.m_theme = m_theme;
    scratch.m_backend = m_backend;

    auto fail = [&](const QString &message) {
        *error = message;
        return false;
    };
    // Seeds are written as strings (JSON numbers lose precision above 2^53); numbers are read too.
    auto readSeed = [&](const QJsonValue &value, const QString &key, quint64 *out) {
        bool ok = false;
        quint64 seed = 0;
        if (value.isString()) {
            seed = value.toString().toULongLong(&ok);
        } else if (value.isDouble()) {
            const double d = value.toDouble();
            ok = d >= 0 && d == std::floor(d) && d < 1.8e19;
            seed = ok ? quint64(d) : 0;
        }
        if (!ok)
            return fail(QStringLiteral("\"%1\" must be a non-negative integer").arg(key));
        *out = seed;
        return true;
    };

    if (json.contains(QStringLiteral("spec"))) {
        const QJsonObject s = json.value(QStringLiteral("spec")).toObject();
        EncodingSpec spec = scratch.m_spec;
        if (s.contains(QStringLiteral("scheme"))) {
            const auto scheme = parseScheme(s.value(QStringLiteral("scheme")).toString());
            if (!scheme)
                return fail(QStringLiteral("unknown scheme \"%1\"")
                                .arg(s.value(QStringLiteral("scheme")).toString()));
            spec.scheme = *scheme;
        }
        if (s.contains(QStringLiteral("layout"))) {
            const auto layout = parseLayout(s.value(QStringLiteral("layout")).toString());
            if (!layout)
                return fail(QStringLiteral("unknown layout \"%1\"")
                                .arg(s.value(QStringLiteral("layout")).toString()));
            spec.layout = *layout;
        }
        if (s.contains(QStringLiteral("positions")) &&
            !readInteger(s.value(QStringLiteral("positions")), QStringLiteral("positions"),
                         &spec.positions, error))
            return false;
        if (s.contains(QStringLiteral("dims")) &&
            !readInteger(s.value(QStringLiteral("dims")), QStringLiteral("dims"), &spec.dims,
                         error))
            return false;
        if (s.contains(QStringLiteral("base")))
            spec.base = s.value(QStringLiteral("base")).toDouble(std::nan(""));
        if (s.contains(QStringLiteral("seed")) &&
            !readSeed(s.value(QStringLiteral("seed")), QStringLiteral("seed"), &spec.seed))
            return false;
        if (s.contains(QStringLiteral("rope")) &&
            !readRopeParametersJson(s.value(QStringLiteral("rope")).toObject(), &spec.rope, error))
            return false;
        if (!scratch.setSpec(spec, error))
            return false;
    }
    if (json.contains(QStringLiteral("backend"))) {
        const auto choice = parseBackendChoice(json.value(QStringLiteral("backend")).toString());
        if (!choice)
            return fail(QStringLiteral("unknown backend \"%1\" (auto, cpu or gpu)")
                            .arg(json.value(QStringLiteral("backend")).toString()));
        scratch.m_backend = *choice;
    }
    if (json.contains(QStringLiteral("colormap"))) {
        const auto map = parseColormap(json.value(QStringLiteral("colormap")).toString());
        if (!map)
            return fail(QStringLiteral("unknown colormap \"%1\" (viridis, gray, magma or RdBu)")
                            .arg(json.value(QStringLiteral("colormap")).toString()));
        scratch.m_colormap = *map;
    }
    if (json.contains(QStringLiteral("transposed")))
        scratch.m_transposed = json.value(QStringLiteral("transposed")).toBool();
    if (json.contains(QStringLiteral("heatmapDimLimit"))) {
        qint64 limit = 0;
        if (!readInteger(json.value(QStringLiteral("heatmapDimLimit")),
                         QStringLiteral("heatmapDimLimit"), &limit, error) ||
            !scratch.setHeatmapDimLimit(limit, error))
            return false;
    }
    if (json.contains(QStringLiteral("selection"))) {
        const QJsonObject s = json.value(QStringLiteral("selection")).toObject();
        Selection sel;
        if (!readInteger(s.value(QStringLiteral("position")), QStringLiteral("selection.position"),
                         &sel.position, error) ||
            !readInteger(s.value(QStringLiteral("dim")), QStringLiteral("selection.dim"), &sel.dim,
                         error))
            return false;
        scratch.setSelection(sel);
    }
    if (json.contains(QStringLiteral("waveDims"))) {
        QList<qint64> dims;
        if (!readIntegerList(json.value(QStringLiteral("waveDims")), QStringLiteral("waveDims"),
                             &dims, error) ||
            !scratch.setWaveDims(dims, error))
            return false;
    }
    if (json.contains(QStringLiteral("markers"))) {
        QList<qint64> markers;
        if (!readIntegerList(json.value(QStringLiteral("markers")), QStringLiteral("markers"),
                             &markers, error) ||
            !scratch.setMarkers(markers, error))
            return false;
    }
    if (json.contains(QStringLiteral("crosses"))) {
        QList<CrossMarker> crosses;
        for (const QJsonValue &item : json.value(QStringLiteral("crosses")).toArray()) {
            const QJsonObject c = item.toObject();
            CrossMarker cross;
            if (!readInteger(c.value(QStringLiteral("position")),
                             QStringLiteral("crosses.position"), &cross.position, error) ||
                !readInteger(c.value(QStringLiteral("dim")), QStringLiteral("crosses.dim"),
                             &cross.dim, error))
                return false;
            crosses.append(cross);
        }
        if (!scratch.setCrosses(crosses, error))
            return false;
    }
    if (json.contains(QStringLiteral("shareTolerance")) &&
        !scratch.setShareTolerance(
            json.value(QStringLiteral("shareTolerance")).toDouble(std::nan("")), error))
        return false;
    if (json.contains(QStringLiteral("phrases"))) {
        const QJsonObject p = json.value(QStringLiteral("phrases")).toObject();
        PhraseSettings settings = scratch.m_phrases;
        if (p.contains(QStringLiteral("phrases"))) {
            settings.phrases.clear();
            for (const QJsonValue &v : p.value(QStringLiteral("phrases")).toArray())
                settings.phrases.append(v.toString());
            settings.titles.clear();
        }
        if (p.contains(QStringLiteral("titles"))) {
            settings.titles.clear();
            for (const QJsonValue &v : p.value(QStringLiteral("titles")).toArray())
                settings.titles.append(v.toString());
        }
        if (p.contains(QStringLiteral("maxTokens")) &&
            !readInteger(p.value(QStringLiteral("maxTokens")), QStringLiteral("maxTokens"),
                         &settings.maxTokens, error))
            return false;
        if (p.contains(QStringLiteral("sequenceLength")) &&
            !readInteger(p.value(QStringLiteral("sequenceLength")),
                         QStringLiteral("sequenceLength"), &settings.sequenceLength, error))
            return false;
        if (p.contains(QStringLiteral("dims")) &&
            !readInteger(p.value(QStringLiteral("dims")), QStringLiteral("phrases.dims"),
                         &settings.dims, error))
            return false;
        if (p.contains(QStringLiteral("seed")) &&
            !readSeed(p.value(QStringLiteral("seed")), QStringLiteral("phrases.seed"),
                      &settings.seed))
            return false;
        if (!scratch.setPhraseSettings(settings, error))
            return false;
        if (p.contains(QStringLiteral("compare"))) {
            const QJsonArray c = p.value(QStringLiteral("compare")).toArray();
            if (c.size() != 2 || !scratch.setCompare(c[0].toInt(-1), c[1].toInt(-1), error))
                return c.size() == 2 ? false
                                     : fail(QStringLiteral("\"compare\" needs two phrase indices"));
        }
        if (p.contains(QStringLiteral("selection"))) {
            const QJsonObject s = p.value(QStringLiteral("selection")).toObject();
            PhraseSelection sel;
            sel.phrase = s.value(QStringLiteral("phrase")).toInt(-1);
            sel.token = s.value(QStringLiteral("token")).toInteger(0);
            const auto mode = parseEmbeddingMode(
                s.value(QStringLiteral("mode")).toString(QStringLiteral("fixed")));
            if (!mode)
                return fail(QStringLiteral("unknown embedding mode \"%1\"")
                                .arg(s.value(QStringLiteral("mode")).toString()));
            sel.mode = *mode;
            scratch.setPhraseSelection(sel);
        }
    }
    if (json.contains(QStringLiteral("theme"))) {
        const auto theme = parseTheme(json.value(QStringLiteral("theme")).toString());
        if (!theme)
            return fail(QStringLiteral("unknown theme \"%1\" (light or dark)")
                            .arg(json.value(QStringLiteral("theme")).toString()));
        scratch.m_theme = *theme;
    }
    if (json.contains(QStringLiteral("page"))) {
        const auto page = parsePage(json.value(QStringLiteral("page")).toString());
        if (!page)
            return fail(QStringLiteral("unknown page \"%1\" (encoding, phrases or schemes)")
                            .arg(json.value(QStringLiteral("page")).toString()));
        scratch.m_page = *page;
    }
    if (json.contains(QStringLiteral("schemes"))) {
        SchemeSettings schemes = scratch.m_schemes;
        if (!schemes.readJson(json.value(QStringLiteral("schemes")).toObject(), error) ||
            !scratch.setSchemeSettings(schemes, error))
            return false;
    }

    // Copy over, emitting only what really changed.
    bool any = false;
    auto note = [&](bool changedNow, void (ExplorerState::*signal)()) {
        if (changedNow) {
            emit(this->*signal)();
            any = true;
        }
    };
    note(assign(m_spec, scratch.m_spec), &ExplorerState::specChanged);
    note(assign(m_backend, scratch.m_backend), &ExplorerState::backendChoiceChanged);
    note(assign(m_colormap, scratch.m_colormap), &ExplorerState::colormapChanged);
    note(assign(m_transposed, scratch.m_transposed), &ExplorerState::transposedChanged);
    note(assign(m_heatmapDimLimit, scratch.m_heatmapDimLimit),
         &ExplorerState::heatmapDimLimitChanged);
    note(assign(m_selection, scratch.m_selection), &ExplorerState::selectionChanged);
    const bool waves = assign(m_waveDims, scratch.m_waveDims);
    const bool markers = assign(m_markers, scratch.m_markers);
    const bool crosses = assign(m_crosses, scratch.m_crosses);
    const bool tolerance = assign(m_shareTolerance, scratch.m_shareTolerance);
    note(waves || markers || crosses || tolerance, &ExplorerState::waveOptionsChanged);
    note(assign(m_phrases, scratch.m_phrases), &ExplorerState::phraseSettingsChanged);
    const bool a = assign(m_compareA, scratch.m_compareA);
    const bool b = assign(m_compareB, scratch.m_compareB);
    note(a || b, &ExplorerState::compareChanged);
    note(assign(m_phraseSelection, scratch.m_phraseSelection),
         &ExplorerState::phraseSelectionChanged);
    note(assign(m_theme, scratch.m_theme), &ExplorerState::themeChanged);
    note(assign(m_page, scratch.m_page), &ExplorerState::pageChanged);
    note(assign(m_schemes, scratch.m_schemes), &ExplorerState::schemeSettingsChanged);
    if (any)
        emit changed();
    return true;
}

} // namespace pe
