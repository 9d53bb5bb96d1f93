// Reads the NumPy-made RoPE references in tests/data/rope (see make_references.py there), and
// float64 transcriptions of transformers' rope rules for expected values.
#pragma once

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <algorithm>
#include <cmath>
#include <numbers>
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

// Float64 transcriptions of transformers v5's rope rules (modeling_rope_utils.py), written here
// for the suites' expected values, independent of pescope's core/rope.

// 1 / base^(2i / dim): compute_default_rope_parameters.
inline std::vector<double> defaultTheta(double base, qint64 dim)
{
    std::vector<double> out;
    for (qint64 i = 0; i < dim; i += 2)
        out.push_back(1.0 / std::pow(base, double(i) / double(dim)));
    return out;
}

// _compute_llama3_parameters.
inline std::vector<double> llama3Theta(double base, double factor, double low, double high,
                                       double original, qint64 dim)
{
    std::vector<double> out;
    for (double inv : defaultTheta(base, dim)) {
        const double wavelen = 2 * std::numbers::pi / inv;
        if (wavelen > original / low) {
            out.push_back(inv / factor);
        } else if (wavelen < original / high) {
            out.push_back(inv);
        } else {
            const double smooth = (original / wavelen - low) / (high - low);
            out.push_back((1 - smooth) * inv / factor + smooth * inv);
        }
    }
    return out;
}

// _compute_yarn_parameters (beta_fast 32, beta_slow 1, truncated correction range); its
// attention factor is get_mscale(factor) = 0.1 ln(factor) + 1.
inline std::vector<double> yarnTheta(double base, qint64 dim, double factor, double original)
{
    const auto correction = [&](double rotations) {
        return double(dim) * std::log(original / (rotations * 2 * std::numbers::pi)) /
               (2 * std::log(base));
    };
    const double low = std::max(std::floor(correction(32)), 0.0);
    double high = std::min(std::ceil(correction(1)), double(dim - 1));
    if (low == high)
        high += 0.001;
    std::vector<double> out;
    for (qint64 i = 0; i < dim / 2; ++i) {
        const double pos = std::pow(base, double(2 * i) / double(dim));
        const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
        out.push_back(1.0 / (factor * pos) * ramp + 1.0 / pos * (1.0 - ramp));
    }
    return out;
}

} // namespace pe::test
