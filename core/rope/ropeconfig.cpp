#include "ropeconfig.h"

#include "ropefrequencies.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QLocale>

#include <cmath>

namespace pe {

namespace {

QString typeList()
{
    return choiceNameList(ropeTypeNames).join(QStringLiteral(", "));
}

QString jsonKind(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("a boolean");
    case QJsonValue::Double:
        return QStringLiteral("a number");
    case QJsonValue::String:
        return QStringLiteral("a string");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

// Exactly representable integers only: beyond 2^53 a JSON number is no longer a whole count.
constexpr double maxJsonInteger = 9007199254740992.0;

bool isWholeNumber(double x)
{
    return std::isfinite(x) && std::trunc(x) == x && std::abs(x) <= maxJsonInteger;
}

// Reads one rope_parameters object; stops at the first problem.
class Reader
{
public:
    explicit Reader(const QJsonObject &object) : m_object(object) {}

    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    void fail(const QString &message)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("rope_parameters: ") + message;
    }

    bool has(const char *key) const { return m_object.contains(QLatin1String(key)); }

    // A number; absent or null leaves `out` alone (HF's .get() gives None).
    void number(const char *key, double *out)
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined() || value.isNull())
            return;
        if (!value.isDouble())
            return fail(QStringLiteral("%1 must be a number (got %2)")
                            .arg(QLatin1String(key), jsonKind(value)));
        *out = value.toDouble();
    }
    void number(const char *key, std::optional<double> *out)
    {
        double x = 0;
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined() || value.isNull())
            return;
        number(key, &x);
        if (!failed())
            *out = x;
    }
    void whole(const char *key, qint64 *out)
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined() || value.isNull())
            return;
        double x = 0;
        number(key, &x);
        if (failed())
            return;
        if (!isWholeNumber(x))
            return fail(QStringLiteral("%1 must be a whole number (got %2)")
                            .arg(QLatin1String(key))
                            .arg(QString::number(x, 'g', QLocale::FloatingPointShortest)));
        *out = qint64(x);
    }
    void boolean(const char *key, bool *out)
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined() || value.isNull())
            return;
        if (!value.isBool())
            return fail(QStringLiteral("%1 must be true or false (got %2)")
                            .arg(QLatin1String(key), jsonKind(value)));
        *out = value.toBool();
    }
    template <typename List> void array(const char *key, List *out, bool wholeNumbers)
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isUndefined() || value.isNull())
            return;
        if (!value.isArray())
            return fail(QStringLiteral("%1 must be an array of numbers (got %2)")
                            .arg(QLatin1String(key), jsonKind(value)));
        const QJsonArray items = value.toArray();
        out->clear();
        out->reserve(items.size());
        for (qsizetype i = 0; i < items.size(); ++i) {
            const QJsonValue item = items.at(i);
            if (!item.isDouble())
                return fail(QStringLiteral("%1[%2] must be a number (got %3)")
                                .arg(QLatin1String(key))
                                .arg(i)
                                .arg(jsonKind(item)));
            const double x = item.toDouble();
            if (wholeNumbers && !isWholeNumber(x))
                return fail(QStringLiteral("%1[%2] must be a whole number (got %3)")
                                .arg(QLatin1String(key))
                                .arg(i)
                                .arg(QString::number(x, 'g', QLocale::FloatingPointShortest)));
            out->push_back(typename List::value_type(x));
        }
    }
    // HF's _check_received_keys: a required key must be present (its value may still be null).
    void require(const char *key, RopeType type)
    {
        if (!has(key))
            fail(QStringLiteral("%1 is required by rope_type \"%2\"")
                     .arg(QLatin1String(key), ropeTypeName(type)));
    }
    // Present but null, where HF would compute with None and fail (TypeError).
    void notNull(const char *key)
    {
        if (has(key) && m_object.value(QLatin1String(key)).isNull())
            fail(QStringLiteral("%1 must not be null").arg(QLatin1String(key)));
    }

private:
    const QJsonObject &m_object;
    QString m_error;
};

bool readsOriginalContext(RopeType type)
{
    return type == RopeType::Llama3 || type == RopeType::Yarn || type == RopeType::Longrope;
}

} // namespace

RopeConfig ropeConfigFromJson(const QJsonObject &ropeParameters, qint64 headDim,
                              qint64 maxPositionEmbeddings, QString *error)
{
    Reader in(ropeParameters);
    RopeConfig config;
    config.maxPositionEmbeddings = maxPositionEmbeddings;
    config.pairing = RopePairing::Half;

    // standardize_rope_params: rope_type = rope_parameters.get("type", "default") unless set.
    const char *typeKey = in.has("rope_type") ? "rope_type" : "type";
    const QJsonValue typeValue = ropeParameters.value(QLatin1String(typeKey));
    if (!typeValue.isUndefined()) {
        if (!typeValue.isString()) {
            in.fail(QStringLiteral("%1 must be a string (got %2)")
                        .arg(QLatin1String(typeKey), jsonKind(typeValue)));
        } else if (const auto type = parseRopeType(typeValue.toString())) {
            config.ropeType = *type;
        } else {
            in.fail(QStringLiteral("%1 \"%2\" is not a rope type pescope knows (%3)")
                        .arg(QLatin1String(typeKey), typeValue.toString(), typeList()));
        }
    }
    const RopeType type = config.ropeType;

    // Required keys per type, as v5's _validate_<type>_rope_parameters list them (pescope's ntk
    // needs its factor). standardize_rope_params fills original_max_position_embeddings first.
    const bool fillOriginal =
        readsOriginalContext(type) && !in.has("original_max_position_embeddings");
    if (fillOriginal && maxPositionEmbeddings > 0)
        config.originalMaxPositionEmbeddings = maxPositionEmbeddings;
    switch (type) {
    case RopeType::Default:
        break;
    case RopeType::Linear:
    case RopeType::Dynamic:
    case RopeType::Ntk:
        in.require("factor", type);
        break;
    case RopeType::Yarn:
        in.require("factor", type);
        if (fillOriginal && maxPositionEmbeddings <= 0)
            in.require("original_max_position_embeddings", type);
        break;
    case RopeType::Longrope:
        in.require("short_factor", type);
        in.require("long_factor", type);
        if (fillOriginal && maxPositionEmbeddings <= 0)
            in.require("original_max_position_embeddings", type);
        break;
    case RopeType::Llama3:
        in.require("factor", type);
        if (fillOriginal && maxPositionEmbeddings <= 0)
            in.require("original_max_position_embeddings", type);
        in.require("low_freq_factor", type);
        in.require("high_freq_factor", type);
        in.require("rope_theta", type);
        break;
    case RopeType::Proportional:
        in.require("rope_theta", type);
        break;
    }
    // A key present with null is HF's None: computing with it fails (TypeError) except where HF
    // tests it (yarn / longrope infer a None factor; attention_factor, beta_*, mscale* fall back).
    if (type != RopeType::Yarn && type != RopeType::Longrope && type != RopeType::Default)
        in.notNull("factor");
    in.notNull("rope_theta");
    in.notNull("partial_rotary_factor");
    if (type == RopeType::Llama3) {
        in.notNull("low_freq_factor");
        in.notNull("high_freq_factor");
    }
    if (readsOriginalContext(type))
        in.notNull("original_max_position_embeddings");
    if (type == RopeType::Longrope) {
        in.notNull("short_factor");
        in.notNull("long_factor");
    }
    // `truncate = rope_parameters.get("truncate", True)` then `if truncate:`: null is false.
    if (in.has("truncate") && ropeParameters.value(QLatin1String("truncate")).isNull())
        config.truncate = false;

    in.number("rope_theta", &config.ropeTheta);
    in.number("partial_rotary_factor", &config.partialRotaryFactor);
    in.number("factor", &config.factor);
    in.whole("original_max_position_embeddings", &config.originalMaxPositionEmbeddings);
    in.number("attention_factor", &config.attentionFactor);
    in.number("beta_fast", &config.betaFast);
    in.number("beta_slow", &config.betaSlow);
    in.number("mscale", &config.mscale);
    in.number("mscale_all_dim", &config.mscaleAllDim);
    in.boolean("truncate", &config.truncate);
    in.array("short_factor", &config.shortFactor, false);
    in.array("long_factor", &config.longFactor, false);
    in.number("low_freq_factor", &config.lowFreqFactor);
    in.number("high_freq_factor", &config.highFreqFactor);
    in.array("mrope_section", &config.mropeSection, true);
    in.boolean("mrope_interleaved", &config.mropeInterleaved);
    bool interleave = false;
    in.boolean("rope_interleave", &interleave);
    config.pairing = ropePairingForRopeInterleave(interleave);

    if (!in.failed()) {
        const QString problem = ropeConfigProblem(headDim, config);
        if (!problem.isEmpty())
            in.fail(problem);
    }
    if (in.failed()) {
        if (error)
            *error = in.error();
        return {};
    }
    return config;
}

QJsonObject ropeConfigToJson(const RopeConfig &config)
{
    const RopeConfig defaults;
    const RopeType type = config.ropeType;
    QJsonObject out;
    out.insert(QStringLiteral("rope_type"), ropeTypeName(type));
    out.insert(QStringLiteral("rope_theta"), config.ropeTheta);
    if (config.partialRotaryFactor != defaults.partialRotaryFactor)
        out.insert(QStringLiteral("partial_rotary_factor"), config.partialRotaryFactor);
    if (config.factor)
        out.insert(QStringLiteral("factor"), *config.factor);
    else if (type == RopeType::Linear || type == RopeType::Dynamic || type == RopeType::Yarn ||
             type == RopeType::Llama3 || type == RopeType::Ntk)
        out.insert(QStringLiteral("factor"), QJsonValue::Null); // required key, left to HF
    if (config.originalMaxPositionEmbeddings > 0)
        out.insert(QStringLiteral("original_max_position_embeddings"),
                   config.originalMaxPositionEmbeddings);
    if (config.attentionFactor)
        out.insert(QStringLiteral("attention_factor"), *config.attentionFactor);
    if (config.betaFast != defaults.betaFast)
        out.insert(QStringLiteral("beta_fast"), config.betaFast);
    if (config.betaSlow != defaults.betaSlow)
        out.insert(QStringLiteral("beta_slow"), config.betaSlow);
    if (config.mscale)
        out.insert(QStringLiteral("mscale"), *config.mscale);
    if (config.mscaleAllDim)
        out.insert(QStringLiteral("mscale_all_dim"), *config.mscaleAllDim);
    if (config.truncate != defaults.truncate)
        out.insert(QStringLiteral("truncate"), config.truncate);
    const auto numbers = [](const auto &values) {
        QJsonArray array;
        for (const auto x : values)
            array.append(QJsonValue(x));
        return array;
    };
    if (type == RopeType::Longrope || !config.shortFactor.empty())
        out.insert(QStringLiteral("short_factor"), numbers(config.shortFactor));
    if (type == RopeType::Longrope || !config.longFactor.empty())
        out.insert(QStringLiteral("long_factor"), numbers(config.longFactor));
    if (type == RopeType::Llama3 || config.lowFreqFactor != defaults.lowFreqFactor)
        out.insert(QStringLiteral("low_freq_factor"), config.lowFreqFactor);
    if (type == RopeType::Llama3 || config.highFreqFactor != defaults.highFreqFactor)
        out.insert(QStringLiteral("high_freq_factor"), config.highFreqFactor);
    if (!config.mropeSection.empty())
        out.insert(QStringLiteral("mrope_section"), numbers(config.mropeSection));
    if (config.mropeInterleaved)
        out.insert(QStringLiteral("mrope_interleaved"), true);
    if (config.pairing == RopePairing::Interleaved)
        out.insert(QStringLiteral("rope_interleave"), true);
    return out;
}

} // namespace pe
