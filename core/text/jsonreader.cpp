#include "jsonreader.h"

#include "fields/wholenumber.h"

#include <cmath>

namespace pe {

bool JsonReader::fail(const QString &path, const QString &message)
{
    if (m_error.isEmpty())
        m_error = path.isEmpty() ? QStringLiteral("%1: %2").arg(m_file, message)
                                 : QStringLiteral("%1: %2: %3").arg(m_file, path, message);
    return false;
}

QString JsonReader::child(const QString &path, const char *key)
{
    const QString name = QString::fromLatin1(key);
    return path.isEmpty() ? name : path + QLatin1Char('.') + name;
}

QString JsonReader::element(const QString &path, qsizetype index)
{
    return QStringLiteral("%1[%2]").arg(path).arg(index);
}

QJsonValue JsonReader::field(const QJsonObject &object, const char *key) const
{
    return object.value(QLatin1StringView(key));
}

bool JsonReader::wrongType(const QString &path, const char *key, const char *expected)
{
    return fail(child(path, key), QStringLiteral("should be %1").arg(QLatin1StringView(expected)));
}

QString JsonReader::string(const QJsonObject &object, const QString &path, const char *key,
                           const QString &fallback)
{
    const QJsonValue v = field(object, key);
    if (v.isUndefined() || v.isNull())
        return fallback;
    if (!v.isString()) {
        wrongType(path, key, "a string");
        return fallback;
    }
    return v.toString();
}

bool JsonReader::boolean(const QJsonObject &object, const QString &path, const char *key,
                         bool fallback)
{
    const QJsonValue v = field(object, key);
    if (v.isUndefined() || v.isNull())
        return fallback;
    if (!v.isBool()) {
        wrongType(path, key, "true or false");
        return fallback;
    }
    return v.toBool();
}

qint64 JsonReader::integer(const QJsonObject &object, const QString &path, const char *key,
                           qint64 fallback, qint64 min, qint64 max)
{
    const QJsonValue v = field(object, key);
    if (v.isUndefined() || v.isNull())
        return fallback;
    const std::optional<qint64> whole =
        v.isDouble() ? wholeNumberIn(v.toDouble(), min, max) : std::nullopt;
    if (!whole) {
        fail(child(path, key),
             QStringLiteral("should be a whole number from %1 to %2").arg(min).arg(max));
        return fallback;
    }
    return *whole;
}

QString JsonReader::requiredString(const QJsonObject &object, const QString &path, const char *key)
{
    const QJsonValue v = field(object, key);
    if (!v.isString())
        wrongType(path, key, "a string");
    return v.toString();
}

QJsonArray JsonReader::requiredArray(const QJsonObject &object, const QString &path,
                                     const char *key)
{
    const QJsonValue v = field(object, key);
    if (!v.isArray())
        wrongType(path, key, "a list");
    return v.toArray();
}

char32_t JsonReader::character(const QJsonObject &object, const QString &path, const char *key,
                               char32_t fallback)
{
    const QJsonValue v = field(object, key);
    if (v.isUndefined() || v.isNull())
        return fallback;
    const QList<uint> ucs4 = v.toString().toUcs4();
    if (!v.isString() || ucs4.size() != 1) {
        wrongType(path, key, "one character");
        return fallback;
    }
    return char32_t(ucs4.front());
}

QJsonObject JsonReader::component(const QJsonValue &value, const QString &path)
{
    if (!value.isObject())
        fail(path, QStringLiteral("should be an object"));
    return value.toObject();
}

QString JsonReader::type(const QJsonObject &object, const QString &path)
{
    const QJsonValue v = object.value(QLatin1StringView("type"));
    if (!v.isString()) {
        fail(path, QStringLiteral("has no \"type\""));
        return {};
    }
    return v.toString();
}

qint64 JsonReader::id(const QJsonValue &value, const QString &path)
{
    const std::optional<qint64> whole =
        value.isDouble() ? wholeNumberIn(value.toDouble(), 0, 2147483647) : std::nullopt;
    if (!whole) {
        fail(path, QStringLiteral("should be a token id, a whole number from 0 to 2147483647"));
        return -1;
    }
    return *whole;
}

} // namespace pe
