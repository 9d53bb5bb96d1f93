// The value types a parameter field can hold and their one text syntax and JSON form, shared by
// the command line, sessions, forms and captions. Each parse returns an empty string on success
// or a message fragment ("must be a whole number from 1 to 16777216 (got \"x\")") that the caller
// prefixes with the field's name in its own terms (--flag, "key" or the form label).
#pragma once

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>
#include <vector>

namespace pe {

struct IntegerRange
{
    qint64 min = 0;
    qint64 max = 0;
    bool contains(qint64 v) const { return v >= min && v <= max; }
    QString describe() const; // "from 1 to 16777216"
};

struct RealRange
{
    double min = 0;
    double max = 0;
    bool minOpen = false; // min itself is excluded
    bool maxOpen = false;
    bool nonZero = false; // 0 itself is excluded (a divisor that may be negative)
    bool contains(double v) const;
    QString describe() const; // "greater than 1 and at most 1e+12"
};

// A cell of the encoding matrix: the selection, or a cross drawn on the wave of `dim` at
// `position` (Fig 16-9's x at p = 35 on i = 100). Its one text syntax is "P@D"; in a cross list
// "P" alone means "on the first wave dim" (dim = -1 until the state resolves it).
struct MatrixCell
{
    qint64 position = 0;
    qint64 dim = 0;
    bool operator==(const MatrixCell &) const = default;
};

// Shortest text that reads back to the same double, in plain digits from 1e-4 to 1e9
// ("10000", "500000", "0.1", "1e+12").
QString formatReal(double value);
// A JSON value as a message quotes what was found: the number, the string in quotes (its first
// 40 characters), true/false/null, "a list", "an object", "nothing" for a missing one.
QString jsonTypeName(const QJsonValue &json);
// For people: whole numbers with thousands separators ("500,000"), others to `precision`
// significant digits.
QString formatGrouped(double value, int precision = 6);
// Numbers inside formulas (F1, the hover readout): values to 6 significant digits ("0.000748"),
// parameters to 12, as people write them ("500000", not "5e+05").
inline QString formulaValue(double value)
{
    return QString::number(value, 'g', 6);
}
inline QString formulaParameter(double value)
{
    return QString::number(value, 'g', 12);
}

namespace fieldvalue {

QString parseInteger(QStringView text, const IntegerRange &range, qint64 *out);
QString parseSeed(QStringView text, quint64 *out);
QString parseReal(QStringView text, const RealRange &range, double *out);
QString parseBool(QStringView text, bool *out);
// Comma-separated; at most maxCount items; each in range.
QString parseIntegerList(QStringView text, const IntegerRange &range, qint64 maxCount,
                         QList<qint64> *out);
QString parseRealList(QStringView text, const RealRange &range, qint64 maxCount,
                      std::vector<double> *out);
QString parseCrossList(QStringView text, qint64 maxCount, QList<MatrixCell> *out);
QString parseCell(QStringView text, MatrixCell *out);

QString formatIntegerList(const QList<qint64> &values);
QString formatRealList(const std::vector<double> &values);
QString formatCross(const MatrixCell &cross);
QString formatCrossList(const QList<MatrixCell> &crosses);

// JSON: integers as numbers (whole, |v| <= 2^53), seeds as decimal strings (JSON numbers lose
// bits above 2^53; numbers are read too), lists as arrays, crosses as ["35@100", ...].
QString readInteger(const QJsonValue &json, const IntegerRange &range, qint64 *out);
QString readSeed(const QJsonValue &json, quint64 *out);
QString readReal(const QJsonValue &json, const RealRange &range, double *out);
QString readBool(const QJsonValue &json, bool *out);
QString readText(const QJsonValue &json, qint64 maxLength, QString *out);
QString readIntegerList(const QJsonValue &json, const IntegerRange &range, qint64 maxCount,
                        QList<qint64> *out);
QString readRealList(const QJsonValue &json, const RealRange &range, qint64 maxCount,
                     std::vector<double> *out);
QString readTextList(const QJsonValue &json, qint64 maxCount, qint64 maxLength, QStringList *out);
QString readCrossList(const QJsonValue &json, qint64 maxCount, QList<MatrixCell> *out);
QString readCell(const QJsonValue &json, MatrixCell *out);

QJsonValue seedJson(quint64 seed);
QJsonValue integerListJson(const QList<qint64> &values);
QJsonValue realListJson(const std::vector<double> &values);
QJsonValue textListJson(const QStringList &values);
QJsonValue crossListJson(const QList<MatrixCell> &crosses);

} // namespace fieldvalue

} // namespace pe
