// Transformers' known answers for the test model folders (tests/data/models/*/ref, made by
// Hugging Face's libraries): where they are, the typed phrases' cases, and .npy arrays read back.
// Shared by tst_phrasedata and tst_modelviews.
#pragma once

#include "formats/npyfile.h"
#include "tolerance.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QTest>

#include <vector>

namespace pe::test {

// Relative (1e-30 absolute lets an exact zero pass) and absolute.
inline constexpr Tolerance embeddingTolerance{.absolute = 1e-30, .relative = 1e-5};
inline constexpr Tolerance attentionTolerance{.absolute = 1e-4};

inline QString modelFolder(const char *name)
{
    return QFINDTESTDATA(QStringLiteral("data/models/") + QLatin1String(name));
}

// ref/phrases.json's "cases": each typed phrase's ids, tokens and arrays.
inline QJsonArray phraseCases(const QString &folder)
{
    QFile file(folder + QStringLiteral("/ref/phrases.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("cases")).toArray();
}

struct Array
{
    std::vector<qint64> shape;
    std::vector<float> values;
};

// A float32 .npy file; empty (no shape) when it cannot be read.
inline Array readNpy(const QString &path)
{
    NpyFile file;
    QString error;
    Array out;
    if (!file.open(path, &error) || !file.read(&out.values, &error))
        return {};
    out.shape = file.tensor().shape;
    return out;
}

} // namespace pe::test
