// The whole forward pass's known answers (tests/data/models-layers: transformers' arrays;
// tests/data/models-forward: the NumPy port's, see their READMEs): where the models are, a
// phrase's ids and arrays, `pescope data --phrase` read back, and how near a result comes to
// them. Shared by tst_forwardpass, tst_forwardablation, tst_layeranalysis, tst_layerviews,
// tst_layerablation, tst_phrasedata and tst_phraseablation.
#pragma once

#include "modelreference.h"
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace pe::test {

inline QString layersFolder(const QString &name)
{
    return QFINDTESTDATA(QStringLiteral("data/models-layers/") + name);
}

inline QString layersFolder(const char *name)
{
    return layersFolder(QString::fromLatin1(name));
}

inline QString forwardFolder(const QString &name)
{
    return QFINDTESTDATA(QStringLiteral("data/models-forward/") + name);
}

// A phrase's "ids" (an entry of ref/phrases.json's cases, or ref/ids.json).
inline std::vector<int> idsOf(const QJsonObject &phrase)
{
    std::vector<int> ids;
    for (const QJsonValue v : phrase.value(QLatin1String("ids")).toArray())
        ids.push_back(v.toInt());
    return ids;
}

// The ids of `folder`'s ref/ids.json (a models-forward folder); empty when it cannot be read.
inline std::vector<int> refIds(const QString &folder)
{
    QFile file(folder + QStringLiteral("/ref/ids.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return idsOf(QJsonDocument::fromJson(file.readAll()).object());
}

// The array a phrase case names under `key` ("attn", "hidden"), from `folder`'s ref/.
inline Array reference(const QString &folder, const QJsonObject &phrase, const char *key)
{
    return readNpy(folder + QStringLiteral("/ref/") + phrase.value(QLatin1String(key)).toString());
}

// The largest |a - b|, and the largest |a - b| / max|b| over rows of rowLength (hidden states
// grow from about 3 to 200 over the layers, so a relative measure per row is the fair one).
// NaN counts as 1e30; so do arrays of different sizes.
struct Difference
{
    double absolute = 0;
    double relative = 0;
};

inline Difference compare(const std::vector<float> &ours, const std::vector<float> &expected,
                          qint64 rowLength)
{
    Difference out;
    if (ours.size() != expected.size() || rowLength <= 0)
        return {1e30, 1e30};
    for (std::size_t start = 0; start < expected.size(); start += std::size_t(rowLength)) {
        double scale = 0, worst = 0;
        for (qint64 c = 0; c < rowLength; ++c) {
            const std::size_t i = start + std::size_t(c);
            scale = std::max(scale, std::abs(double(expected[i])));
            const double diff = std::abs(double(ours[i]) - double(expected[i]));
            worst = std::isnan(diff) ? 1e30 : std::max(worst, diff);
        }
        out.absolute = std::max(out.absolute, worst);
        out.relative = std::max(out.relative, scale > 0 ? worst / scale : worst);
    }
    return out;
}

// The largest |ours - expected| against a float64 loop; infinite for a NaN or another size.
inline double largestDifference(const std::vector<float> &ours, const std::vector<double> &expected)
{
    if (ours.size() != expected.size())
        return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (std::size_t i = 0; i < ours.size(); ++i) {
        const double d = std::abs(double(ours[i]) - expected[i]);
        worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
    }
    return worst;
}

// `pescope data --model folder --phrase text --out out` with `extra`: the array it wrote, or an
// empty one and a failed test (its stderr) when it exits with an error.
inline Array runPhraseData(const QString &out, const QString &folder, const QString &text,
                           const QStringList &extra)
{
    QFile::remove(out);
    const RunResult r =
        runPescope(QStringList{QStringLiteral("data"), QStringLiteral("--model"), folder,
                               QStringLiteral("--phrase"), text, QStringLiteral("--out"), out} +
                   extra);
    if (r.exitCode != 0) {
        QTest::qFail(r.err.constData(), __FILE__, __LINE__);
        return {};
    }
    return readNpy(out);
}

} // namespace pe::test
