// Reads the NumPy-made RoPE references in tests/data/rope (see make_references.py there).
#pragma once

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <vector>

namespace pe::test {

// The parsed JSON file; an empty object (and a qWarning) when it cannot be read.
inline QJsonObject loadRopeData(const QString &path)
{
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly)) {
        qWarning("cannot read the RoPE reference file %s", qPrintable(path));
        return {};
    }
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("%s: %s", qPrintable(path), qPrintable(error.errorString()));
    return document.object();
}

inline std::vector<double> jsonDoubles(const QJsonValue &value)
{
    std::vector<double> out;
    for (const QJsonValue &item : value.toArray())
        out.push_back(item.toDouble());
    return out;
}

inline std::vector<qint64> jsonIntegers(const QJsonValue &value)
{
    std::vector<qint64> out;
    for (const QJsonValue &item : value.toArray())
        out.push_back(qint64(item.toDouble()));
    return out;
}

} // namespace pe::test
