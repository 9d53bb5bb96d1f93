// ConfigKeys: typed reads of a model's config.json keys, each with the default of transformers'
// configuration class; a failure names the file and the key. What the layer-0 plan and the
// forward plan read a config with (one reader, so the two plans refuse a key alike).
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <cmath>

namespace pe {

class ConfigKeys
{
public:
    ConfigKeys(const QJsonObject &json, const QString &source, QString *error)
        : m_json(json), m_source(source), m_error(error)
    {}

    // A finite number, `fallback` when absent or null.
    bool real(const char *key, double fallback, double *out)
    {
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) {
            *out = fallback;
            return true;
        }
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            return fail(QStringLiteral("%1 must be a number").arg(QLatin1String(key)));
        *out = v.toDouble();
        return true;
    }
    // A finite number >= 0 (a soft cap, a multiplier), `fallback` when absent or null.
    bool nonNegative(const char *key, double fallback, double *out)
    {
        if (!real(key, fallback, out))
            return false;
        if (*out < 0)
            return fail(QStringLiteral("%1 must be a number >= 0 (got %2)")
                            .arg(QLatin1String(key))
                            .arg(*out));
        return true;
    }
    // A norm's epsilon: a number >= 0. It is added to a variance under a square root; a negative
    // one makes every row of the attention NaN, which would be drawn as if it were data.
    bool epsilon(const char *key, double fallback, double *out)
    {
        if (!real(key, fallback, out))
            return false;
        if (*out < 0)
            return fail(QStringLiteral("%1 must be a number >= 0 (got %2): a norm's epsilon is "
                                       "added to a variance under a square root")
                            .arg(QLatin1String(key))
                            .arg(*out));
        return true;
    }
    // A whole number in [1, 2^24], `fallback` when absent or null.
    bool count(const char *key, qint64 fallback, qint64 *out)
    {
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) {
            *out = fallback;
            return true;
        }
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d < 1 || d > double(1 << 24) || d != std::floor(d))
            return fail(
                QStringLiteral("%1 must be a whole number from 1 to 2^24").arg(QLatin1String(key)));
        *out = qint64(d);
        return true;
    }
    bool boolean(const char *key, bool fallback, bool *out)
    {
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) {
            *out = fallback;
            return true;
        }
        if (!v.isBool())
            return fail(QStringLiteral("%1 must be true or false").arg(QLatin1String(key)));
        *out = v.toBool();
        return true;
    }
    bool text(const char *key, const QString &fallback, QString *out)
    {
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) {
            *out = fallback;
            return true;
        }
        if (!v.isString())
            return fail(QStringLiteral("%1 must be a string").arg(QLatin1String(key)));
        *out = v.toString();
        return true;
    }
    bool fail(const QString &why)
    {
        if (m_error)
            *m_error = QStringLiteral("%1: %2").arg(m_source, why);
        return false;
    }

private:
    const QJsonObject &m_json;
    const QString &m_source;
    QString *m_error;
};

} // namespace pe
