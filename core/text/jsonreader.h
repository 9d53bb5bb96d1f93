// Reading the parts of a tokenizer.json: typed fields whose problems are reported once, as
// "FILE: PATH: what is wrong" with PATH the place in the document ("model.merges[12]").
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <QStringList>

#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace pe {

class JsonReader
{
public:
    explicit JsonReader(QString file) : m_file(std::move(file)) {}

    // Records the first problem; returns false so that readers can `return r.fail(...)`.
    bool fail(const QString &path, const QString &message);
    bool ok() const { return m_error.isEmpty(); }
    const QString &error() const { return m_error; }
    const QString &file() const { return m_file; }

    // Field `key` of `object` (at `path`). A missing or null field gives `fallback`; a field of
    // the wrong type is a problem (and gives `fallback`).
    QString string(const QJsonObject &object, const QString &path, const char *key,
                   const QString &fallback = {});
    bool boolean(const QJsonObject &object, const QString &path, const char *key, bool fallback);
    qint64 integer(const QJsonObject &object, const QString &path, const char *key, qint64 fallback,
                   qint64 min = 0, qint64 max = std::numeric_limits<qint32>::max());
    // Required fields: missing or null is a problem too.
    QString requiredString(const QJsonObject &object, const QString &path, const char *key);
    QJsonArray requiredArray(const QJsonObject &object, const QString &path, const char *key);
    // One character (Metaspace's replacement, Strip's content).
    char32_t character(const QJsonObject &object, const QString &path, const char *key,
                       char32_t fallback);
    // A value that must be an object (a component): its "type" or, when `required`, a problem.
    QJsonObject component(const QJsonValue &value, const QString &path);
    QString type(const QJsonObject &object, const QString &path);
    // An integer token id at `path`: a whole number in [0, 2^31).
    qint64 id(const QJsonValue &value, const QString &path);

    static QString child(const QString &path, const char *key);
    static QString element(const QString &path, qsizetype index);

    // The JSON text of a value left out of Qt's document (a large vocabulary or merge list),
    // for a reader of its own: `json` lies in a buffer readable to json.data() + `capacity`
    // (simdjson reads up to 64 bytes past the end).
    struct RawValue
    {
        std::string_view json;
        std::size_t capacity = 0;
    };
    void setRaw(const QString &path, RawValue value) { m_raw.emplace_back(path, value); }
    const RawValue *raw(const QString &path) const
    {
        for (const auto &[at, value] : m_raw)
            if (at == path)
                return &value;
        return nullptr;
    }
    // A raw value whose reading needs Qt's document after all (an id that is not a plain
    // integer, two tokens with one id: the messages follow Qt's reading): reading stops, and the
    // caller reads the text again without raw values.
    bool requestRetry()
    {
        m_retry = true;
        return fail(QString(), QStringLiteral("read again without raw values"));
    }
    bool retryRequested() const { return m_retry; }

private:
    QJsonValue field(const QJsonObject &object, const char *key) const;
    bool wrongType(const QString &path, const char *key, const char *expected);

    QString m_file;
    QString m_error;
    std::vector<std::pair<QString, RawValue>> m_raw;
    bool m_retry = false;
};

// A Sequence's steps: the list `key` of `object`, each element read by
// read(value, path, reader); stops at the first problem (left in `reader`).
template <class T, class Read>
std::vector<std::unique_ptr<T>> readSteps(const QJsonObject &object, const QString &path,
                                          const char *key, JsonReader &reader, Read read)
{
    std::vector<std::unique_ptr<T>> steps;
    const QString listPath = JsonReader::child(path, key);
    const QJsonArray list = reader.requiredArray(object, path, key);
    for (qsizetype i = 0; i < list.size() && reader.ok(); ++i)
        if (std::unique_ptr<T> step = read(list[i], JsonReader::element(listPath, i), reader))
            steps.push_back(std::move(step));
    return steps;
}

// "Sequence [NFC, Lowercase]", for a tokenizer's summary.
template <class Steps> QString describeSteps(const Steps &steps)
{
    QStringList names;
    for (const auto &step : steps)
        names.append(step->describe());
    return QStringLiteral("Sequence [%1]").arg(names.join(u", "));
}

} // namespace pe
