#include "ropeconfig.h"

#include "fields/wholenumber.h"
#include "ropefields.h"
#include "ropefrequencies.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QLocale>

#include <cmath>

namespace pe {

namespace {

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

using Row = RopeField<RopeConfig>;

// Reads one rope_parameters object into a RopeConfig, row by row of the field table
// (ropefields.h); stops at the first problem.
class Reader
{
public:
    Reader(const QJsonObject &object, RopeConfig *config) : m_object(object), m_config(*config) {}

    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    void fail(const QString &message)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("rope_parameters: ") + message;
    }

    // The key a row is read from: its own, or its legacy one when only that is given
    // (standardize_rope_params: rope_type = rope_parameters.get("type", "default")).
    QString keyOf(const Row &row) const
    {
        QString key = QString::fromUtf8(ropeHfKey(row));
        if (!m_object.contains(key) && row.hf.legacyKey &&
            m_object.contains(QLatin1String(row.hf.legacyKey)))
            return QString::fromUtf8(row.hf.legacyKey);
        return key;
    }
    bool has(const Row &row) const { return m_object.contains(keyOf(row)); }

    void readChoice(const Row &row);
    void requireKey(const Row &row);
    void readNull(const Row &row);
    void readValue(const Row &row);

private:
    double number(const QString &key, const QJsonValue &value)
    {
        if (!value.isDouble())
            fail(QStringLiteral("%1 must be a number (got %2)").arg(key, jsonKind(value)));
        return value.toDouble();
    }
    qint64 whole(const QString &key, const QJsonValue &value)
    {
        const double x = number(key, value);
        if (failed())
            return 0;
        const std::optional<qint64> whole =
            wholeNumberIn(x, -maxExactJsonInteger, maxExactJsonInteger);
        if (!whole)
            fail(QStringLiteral("%1 must be a whole number (got %2)")
                     .arg(key, QString::number(x, 'g', QLocale::FloatingPointShortest)));
        return whole.value_or(0);
    }
    bool boolean(const QString &key, const QJsonValue &value)
    {
        if (!value.isBool())
            fail(QStringLiteral("%1 must be true or false (got %2)").arg(key, jsonKind(value)));
        return value.toBool();
    }
    template <typename List> List array(const QString &key, const QJsonValue &value)
    {
        constexpr bool wholeNumbers = std::is_integral_v<typename List::value_type>;
        if (!value.isArray()) {
            fail(QStringLiteral("%1 must be an array of numbers (got %2)")
                     .arg(key, jsonKind(value)));
            return {};
        }
        const QJsonArray items = value.toArray();
        List read;
        read.reserve(items.size());
        for (qsizetype i = 0; i < items.size() && !failed(); ++i) {
            const QString item = QStringLiteral("%1[%2]").arg(key).arg(i);
            read.push_back(typename List::value_type(wholeNumbers ? double(whole(item, items.at(i)))
                                                                  : number(item, items.at(i))));
        }
        return read;
    }

    const QJsonObject &m_object;
    RopeConfig &m_config;
    QString m_error;
};

// A choice, by name (rope_type); one HF keeps as a boolean (rope_interleave) is its false
// choice unless the object says true.
void Reader::readChoice(const Row &row)
{
    const auto &choice = std::get<ChoiceKind<RopeConfig>>(row.field.kind);
    const QString key = keyOf(row);
    const QJsonValue value = m_object.value(key);
    if (row.hf.trueChoice >= 0) {
        const bool on = has(row) && !value.isNull() && boolean(key, value);
        choice.set(m_config, on ? row.hf.trueChoice : row.hf.falseChoice);
    } else if (!has(row)) {
        return;
    } else if (!value.isString()) {
        fail(QStringLiteral("%1 must be a string (got %2)").arg(key, jsonKind(value)));
    } else if (const std::optional<int> parsed = parseChoice(choice.names, value.toString())) {
        choice.set(m_config, *parsed);
    } else {
        fail(QStringLiteral("%1 \"%2\" is not a %3 pescope knows (%4)")
                 .arg(key, value.toString(), QString::fromUtf8(row.field.label).toLower(),
                      choiceNameList(choice.names).join(QStringLiteral(", "))));
    }
}

// HF's _check_received_keys: a key the type requires must be present (its value may be null).
void Reader::requireKey(const Row &row)
{
    const RopeType type = m_config.ropeType;
    if (((row.hf.keyRequired >> int(type)) & 1u) && !has(row))
        fail(QStringLiteral("%1 is required by rope_type \"%2\"")
                 .arg(QString::fromUtf8(ropeHfKey(row)), ropeTypeName(type)));
}

// A key present with null is HF's None: what the types that test for None make of it, an error
// for the other types that compute with the field, nothing for the types that never read it.
void Reader::readNull(const Row &row)
{
    if (!has(row) || !m_object.value(keyOf(row)).isNull())
        return;
    const RopeNull meaning =
        ((row.hf.nullFor >> int(m_config.ropeType)) & 1u) ? row.hf.null : RopeNull::Refused;
    if (meaning == RopeNull::Unset)
        m_config.*std::get<OptionalRealKind<RopeConfig>>(row.field.kind).member = std::nullopt;
    else if (meaning == RopeNull::False)
        m_config.*std::get<BoolKind<RopeConfig>>(row.field.kind).member = false;
    else if (meaning == RopeNull::Refused &&
             fieldApplies(ropeFieldTable<RopeConfig>(), row.field, m_config))
        fail(QStringLiteral("%1 must not be null").arg(keyOf(row)));
}

// A value present and not null, read as the row's kind; its bounds are ropeConfigProblem()'s.
void Reader::readValue(const Row &row)
{
    const QString key = keyOf(row);
    const QJsonValue value = m_object.value(key);
    if (value.isUndefined() || value.isNull())
        return;
    RopeConfig &c = m_config;
    std::visit(Overloaded{
                   [&](const IntegerKind<RopeConfig> &k) { c.*k.member = whole(key, value); },
                   [&](const RealKind<RopeConfig> &k) { c.*k.member = number(key, value); },
                   [&](const OptionalRealKind<RopeConfig> &k) { c.*k.member = number(key, value); },
                   [&](const BoolKind<RopeConfig> &k) { c.*k.member = boolean(key, value); },
                   [&](const IntegerListKind<RopeConfig> &k) {
                       c.*k.member = array<QList<qint64>>(key, value);
                   },
                   [&](const RealListKind<RopeConfig> &k) {
                       c.*k.member = array<std::vector<double>>(key, value);
                   },
                   [](const auto &) {}, // choices are read first; no other kind is a rope field
               },
               row.field.kind);
}

} // namespace

RopeConfig ropeConfigFromJson(const QJsonObject &ropeParameters, qint64 headDim,
                              qint64 maxPositionEmbeddings, QString *error)
{
    RopeConfig config;
    config.maxPositionEmbeddings = maxPositionEmbeddings;
    Reader in(ropeParameters, &config);
    std::vector<const Row *> rows;
    for (const Row &row : ropeFields<RopeConfig>())
        if (row.hf.inRopeParameters)
            rows.push_back(&row);
    const auto isChoice = [](const Row *row) {
        return std::holds_alternative<ChoiceKind<RopeConfig>>(row->field.kind);
    };
    // The choices first: rope_type decides which keys are required and which are read.
    for (const Row *row : rows)
        if (isChoice(row))
            in.readChoice(*row);
    // standardize_rope_params: the types that read the original context get
    // max_position_embeddings when the object has none.
    const Row &original = ropeFieldOf(&RopeConfig::originalMaxPositionEmbeddings);
    const bool fillOriginal =
        ropeReadsOriginalContext(config.ropeType) && !in.has(original) && maxPositionEmbeddings > 0;
    if (fillOriginal)
        config.originalMaxPositionEmbeddings = maxPositionEmbeddings;
    for (const Row *row : rows)
        in.requireKey(*row);
    for (const Row *row : rows)
        in.readNull(*row);
    for (const Row *row : rows)
        if (!isChoice(row))
            in.readValue(*row);

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
    const int type = int(config.ropeType);
    QJsonObject out;
    for (const Row &row : ropeFields<RopeConfig>()) {
        if (!row.hf.inRopeParameters)
            continue;
        const QString key = QString::fromUtf8(ropeHfKey(row));
        const bool required = (row.hf.keyRequired >> type) & 1u;
        if (row.hf.trueChoice >= 0) { // absent is the false choice
            if (std::get<ChoiceKind<RopeConfig>>(row.field.kind).get(config) == row.hf.trueChoice)
                out.insert(key, true);
            continue;
        }
        const QJsonValue value = fieldJson(row.field, config);
        if (value.isNull()) { // an optional number not given: HF's None where the key is required
            if (required)
                out.insert(key, QJsonValue::Null);
        } else if (row.hf.alwaysWritten || required || value != fieldJson(row.field, defaults)) {
            out.insert(key, value);
        }
    }
    return out;
}

} // namespace pe
