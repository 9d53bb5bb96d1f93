#include "fieldvalue.h"

#include "wholenumber.h"

#include <QJsonArray>
#include <QLocale>

#include <charconv>
#include <cmath>
#include <limits>

namespace pe {

namespace {

QString quoted(QStringView text)
{
    constexpr qsizetype shown = 40;
    const QString t = text.toString();
    return QLatin1Char('"') + (t.size() > shown ? t.left(shown) + QStringLiteral("...") : t) +
           QLatin1Char('"');
}

// "must be between 1 and 8 (got 0)" for a number out of range; "must be a whole number (got
// "x")" for text that is not one.
QString integerMessage(const IntegerRange &range, const QString &got)
{
    return QStringLiteral("must be %1 (got %2)").arg(range.describe(), got);
}

QString notInteger(const QString &got)
{
    return QStringLiteral("must be a whole number (got %1)").arg(got);
}

QString realMessage(const RealRange &range, const QString &got)
{
    return QStringLiteral("must be %1 (got %2)").arg(range.describe(), got);
}

QString notReal(const QString &got)
{
    return QStringLiteral("must be a finite number (got %1)").arg(got);
}

QList<QStringView> splitItems(QStringView text)
{
    QList<QStringView> items;
    for (QStringView part : text.split(QLatin1Char(','))) {
        part = part.trimmed();
        if (!part.isEmpty())
            items.append(part);
    }
    return items;
}

QString tooMany(qint64 maxCount, qint64 got)
{
    return QStringLiteral("takes at most %1 values (got %2)").arg(maxCount).arg(got);
}

} // namespace

QString jsonTypeName(const QJsonValue &json)
{
    switch (json.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return json.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double:
        return formatReal(json.toDouble());
    case QJsonValue::String:
        return quoted(json.toString());
    case QJsonValue::Array:
        return QStringLiteral("a list");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

QString IntegerRange::describe() const
{
    return QStringLiteral("between %1 and %2").arg(min).arg(max);
}

bool RealRange::contains(double v) const
{
    if (!std::isfinite(v))
        return false;
    const bool aboveMin = minOpen ? v > min : v >= min;
    const bool belowMax = maxOpen ? v < max : v <= max;
    return aboveMin && belowMax && !(nonZero && v == 0.0);
}

QString RealRange::describe() const
{
    // ", and not 0" only where the bounds alone would take 0.
    const bool zeroWithin =
        (minOpen ? 0.0 > min : 0.0 >= min) && (maxOpen ? 0.0 < max : 0.0 <= max);
    const QString notZero = nonZero && zeroWithin ? QStringLiteral(", and not 0") : QString();
    if (!minOpen && !maxOpen && max < std::numeric_limits<double>::max())
        return QStringLiteral("between %1 and %2").arg(formatReal(min), formatReal(max)) + notZero;
    QString low =
        (minOpen ? QStringLiteral("greater than ") : QStringLiteral("at least ")) + formatReal(min);
    const QString high =
        (maxOpen ? QStringLiteral("less than ") : QStringLiteral("at most ")) + formatReal(max);
    if (max >= std::numeric_limits<double>::max())
        return low + notZero;
    return low + QStringLiteral(" and ") + high + notZero;
}

QString formatReal(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    // The shortest text that reads back as the same double, in plain digits below 1e9 (Llama 3's
    // rope_theta is "500000", not to_chars' shorter "5e+05"); a round number above stays
    // short ("1e+12").
    char buffer[64];
    const double magnitude = std::fabs(value);
    const bool plain = magnitude == 0.0 || (magnitude >= 1e-4 && magnitude < 1e9);
    const auto result =
        plain ? std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed)
              : std::to_chars(buffer, buffer + sizeof buffer, value);
    return QString::fromLatin1(buffer, result.ptr - buffer);
}

QString formatGrouped(double value, int precision)
{
    if (value == std::floor(value) && std::fabs(value) < 1e15)
        return QLocale(QLocale::English).toString(qint64(value));
    return QString::number(value, 'g', precision);
}

namespace fieldvalue {

QString parseInteger(QStringView text, const IntegerRange &range, qint64 *out)
{
    bool ok = false;
    const qint64 value = text.trimmed().toLongLong(&ok);
    // Not a whole number (2.5, 1e308, "ten"): the range is said too, as for one outside it.
    if (!ok)
        return QStringLiteral("must be a whole number %1 (got %2)")
            .arg(range.describe(), quoted(text));
    if (!range.contains(value))
        return integerMessage(range, QString::number(value));
    *out = value;
    return {};
}

QString parseSeed(QStringView text, quint64 *out)
{
    bool ok = false;
    const quint64 value = text.trimmed().toULongLong(&ok);
    if (!ok)
        return QStringLiteral("must be a whole number from 0 to %1 (got %2)")
            .arg(std::numeric_limits<quint64>::max())
            .arg(quoted(text));
    *out = value;
    return {};
}

QString parseReal(QStringView text, const RealRange &range, double *out)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value))
        return notReal(quoted(text));
    if (!range.contains(value))
        return realMessage(range, formatReal(value));
    *out = value;
    return {};
}

QString parseBool(QStringView text, bool *out)
{
    const QStringView t = text.trimmed();
    if (t == QLatin1String("true") || t == QLatin1String("1") || t == QLatin1String("yes")) {
        *out = true;
        return {};
    }
    if (t == QLatin1String("false") || t == QLatin1String("0") || t == QLatin1String("no")) {
        *out = false;
        return {};
    }
    return QStringLiteral("must be true or false (got %1)").arg(quoted(text));
}

QString parseIntegerList(QStringView text, const IntegerRange &range, qint64 maxCount,
                         QList<qint64> *out)
{
    const QList<QStringView> items = splitItems(text);
    if (items.size() > maxCount)
        return tooMany(maxCount, items.size());
    QList<qint64> values;
    for (QStringView item : items) {
        qint64 v = 0;
        bool ok = false;
        v = item.toLongLong(&ok);
        if (!ok || !range.contains(v))
            return QStringLiteral("must be whole numbers %1 separated by commas (got %2)")
                .arg(range.describe(), quoted(item));
        values.append(v);
    }
    *out = values;
    return {};
}

QString parseRealList(QStringView text, const RealRange &range, qint64 maxCount,
                      std::vector<double> *out)
{
    const QList<QStringView> items = splitItems(text);
    if (items.size() > maxCount)
        return tooMany(maxCount, items.size());
    std::vector<double> values;
    values.reserve(std::size_t(items.size()));
    for (QStringView item : items) {
        bool ok = false;
        const double v = item.toDouble(&ok);
        if (!ok || !range.contains(v))
            return QStringLiteral("must be numbers %1 separated by commas (got %2)")
                .arg(range.describe(), quoted(item));
        values.push_back(v);
    }
    *out = std::move(values);
    return {};
}

QString parseCrossList(QStringView text, qint64 maxCount, QList<MatrixCell> *out)
{
    const QList<QStringView> items = splitItems(text);
    if (items.size() > maxCount)
        return tooMany(maxCount, items.size());
    QList<MatrixCell> crosses;
    for (QStringView item : items) {
        const qsizetype at = item.indexOf(QLatin1Char('@'));
        MatrixCell cross{0, -1};
        bool okPosition = false, okDim = true;
        cross.position = (at < 0 ? item : item.left(at)).trimmed().toLongLong(&okPosition);
        if (at >= 0)
            cross.dim = item.mid(at + 1).trimmed().toLongLong(&okDim);
        if (!okPosition || !okDim || cross.position < 0 || (at >= 0 && cross.dim < 0))
            return QStringLiteral("must be crosses written P@D (position P on the wave of dim D; "
                                  "P alone: the first wave dim), separated by commas (got %1)")
                .arg(quoted(item));
        crosses.append(cross);
    }
    *out = crosses;
    return {};
}

QString parseCell(QStringView text, MatrixCell *out)
{
    QList<MatrixCell> cells;
    if (parseCrossList(text, 1, &cells).isEmpty() && cells.size() == 1 && cells[0].dim >= 0) {
        *out = cells[0];
        return {};
    }
    return QStringLiteral("must be a cell written P@D (position P, dim D) (got %1)")
        .arg(quoted(text));
}

QString formatIntegerList(const QList<qint64> &values)
{
    QStringList parts;
    for (qint64 v : values)
        parts.append(QString::number(v));
    return parts.join(QLatin1Char(','));
}

QString formatRealList(const std::vector<double> &values)
{
    QStringList parts;
    for (double v : values)
        parts.append(formatReal(v));
    return parts.join(QLatin1Char(','));
}

QString formatCross(const MatrixCell &cross)
{
    return cross.dim < 0 ? QString::number(cross.position)
                         : QStringLiteral("%1@%2").arg(cross.position).arg(cross.dim);
}

QString formatCrossList(const QList<MatrixCell> &crosses)
{
    QStringList parts;
    for (const MatrixCell &c : crosses)
        parts.append(formatCross(c));
    return parts.join(QLatin1Char(','));
}

QString readInteger(const QJsonValue &json, const IntegerRange &range, qint64 *out)
{
    const std::optional<qint64> whole =
        json.isDouble() ? wholeNumberIn(json.toDouble(), -maxExactJsonInteger, maxExactJsonInteger)
                        : std::nullopt;
    if (!whole)
        return notInteger(jsonTypeName(json));
    if (!range.contains(*whole))
        return integerMessage(range, jsonTypeName(json));
    *out = *whole;
    return {};
}

QString readSeed(const QJsonValue &json, quint64 *out)
{
    if (json.isString())
        return parseSeed(json.toString(), out);
    const std::optional<qint64> whole =
        json.isDouble() ? wholeNumberIn(json.toDouble(), 0, maxExactJsonInteger) : std::nullopt;
    if (!whole)
        return QStringLiteral("must be a whole number from 0 to %1, best written as a string "
                              "(got %2)")
            .arg(std::numeric_limits<quint64>::max())
            .arg(jsonTypeName(json));
    *out = quint64(*whole);
    return {};
}

QString readReal(const QJsonValue &json, const RealRange &range, double *out)
{
    if (!json.isDouble())
        return notReal(jsonTypeName(json));
    if (!range.contains(json.toDouble()))
        return realMessage(range, jsonTypeName(json));
    *out = json.toDouble();
    return {};
}

QString readBool(const QJsonValue &json, bool *out)
{
    if (!json.isBool())
        return QStringLiteral("must be true or false (got %1)").arg(jsonTypeName(json));
    *out = json.toBool();
    return {};
}

QString readText(const QJsonValue &json, qint64 maxLength, QString *out)
{
    if (!json.isString())
        return QStringLiteral("must be a string (got %1)").arg(jsonTypeName(json));
    if (json.toString().size() > maxLength)
        return QStringLiteral("must be at most %1 characters long (got %2)")
            .arg(maxLength)
            .arg(json.toString().size());
    *out = json.toString();
    return {};
}

QString readIntegerList(const QJsonValue &json, const IntegerRange &range, qint64 maxCount,
                        QList<qint64> *out)
{
    if (!json.isArray())
        return QStringLiteral("must be a list of whole numbers (got %1)").arg(jsonTypeName(json));
    const QJsonArray array = json.toArray();
    if (array.size() > maxCount)
        return tooMany(maxCount, array.size());
    QList<qint64> values;
    for (const QJsonValue item : array) {
        qint64 v = 0;
        if (const QString problem = readInteger(item, range, &v); !problem.isEmpty())
            return QStringLiteral("holds a value that ") + problem;
        values.append(v);
    }
    *out = values;
    return {};
}

QString readRealList(const QJsonValue &json, const RealRange &range, qint64 maxCount,
                     std::vector<double> *out)
{
    if (!json.isArray())
        return QStringLiteral("must be a list of numbers (got %1)").arg(jsonTypeName(json));
    const QJsonArray array = json.toArray();
    if (array.size() > maxCount)
        return tooMany(maxCount, array.size());
    std::vector<double> values;
    values.reserve(std::size_t(array.size()));
    for (const QJsonValue item : array) {
        double v = 0;
        if (const QString problem = readReal(item, range, &v); !problem.isEmpty())
            return QStringLiteral("holds a value that ") + problem;
        values.push_back(v);
    }
    *out = std::move(values);
    return {};
}

QString readTextList(const QJsonValue &json, qint64 maxCount, qint64 maxLength, QStringList *out)
{
    if (!json.isArray())
        return QStringLiteral("must be a list of strings (got %1)").arg(jsonTypeName(json));
    const QJsonArray array = json.toArray();
    if (array.size() > maxCount)
        return tooMany(maxCount, array.size());
    QStringList values;
    for (const QJsonValue item : array) {
        QString text;
        if (const QString problem = readText(item, maxLength, &text); !problem.isEmpty())
            return QStringLiteral("holds a value that ") + problem;
        values.append(text);
    }
    *out = values;
    return {};
}

QString readCrossList(const QJsonValue &json, qint64 maxCount, QList<MatrixCell> *out)
{
    if (!json.isArray())
        return QStringLiteral("must be a list of crosses such as [\"35@100\"] (got %1)")
            .arg(jsonTypeName(json));
    const QJsonArray array = json.toArray();
    if (array.size() > maxCount)
        return tooMany(maxCount, array.size());
    QStringList texts;
    for (const QJsonValue item : array) {
        if (!item.isString())
            return QStringLiteral("must be a list of crosses such as [\"35@100\"] (got %1)")
                .arg(jsonTypeName(item));
        texts.append(item.toString());
    }
    return parseCrossList(texts.join(QLatin1Char(',')), maxCount, out);
}

QString readCell(const QJsonValue &json, MatrixCell *out)
{
    if (!json.isString())
        return QStringLiteral("must be a cell such as \"22@100\" (got %1)").arg(jsonTypeName(json));
    return parseCell(json.toString(), out);
}

QJsonValue seedJson(quint64 seed)
{
    return QString::number(seed);
}

QJsonValue integerListJson(const QList<qint64> &values)
{
    QJsonArray array;
    for (qint64 v : values)
        array.append(v);
    return array;
}

QJsonValue realListJson(const std::vector<double> &values)
{
    QJsonArray array;
    for (double v : values)
        array.append(v);
    return array;
}

QJsonValue textListJson(const QStringList &values)
{
    return QJsonArray::fromStringList(values);
}

QJsonValue crossListJson(const QList<MatrixCell> &crosses)
{
    QJsonArray array;
    for (const MatrixCell &c : crosses)
        array.append(formatCross(c));
    return array;
}

} // namespace fieldvalue

} // namespace pe
