// Independent float64 loops for the layer analyses (core/analysis/layeranalysis.h), written
// from their definitions (docs/models.md) over transformers' own arrays
// (tests/data/models-layers/*/ref): what tst_layeranalysis and tst_phrasedata compare against.
#pragma once

#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <vector>

namespace pe::test {

// attn {layers, heads, n, n} flat. Out [layer][head][offset].
inline std::vector<double> referenceDistance(const std::vector<float> &attn, qint64 layers,
                                             qint64 heads, qint64 n)
{
    std::vector<double> out;
    for (qint64 lh = 0; lh < layers * heads; ++lh)
        for (qint64 d = 0; d < n; ++d) {
            double sum = 0;
            qint64 count = 0;
            for (qint64 i = 0; i < n; ++i)
                for (qint64 j = 0; j < n; ++j)
                    if (i - j == d) {
                        sum += attn[std::size_t(lh * n * n + i * n + j)];
                        ++count;
                    }
            out.push_back(sum / double(count));
        }
    return out;
}

// Out [layer][head][previous, self, first, window, sink].
inline std::vector<double> referenceHeadScores(const std::vector<float> &attn, qint64 layers,
                                               qint64 heads, qint64 n, qint64 window)
{
    std::vector<double> out;
    for (qint64 lh = 0; lh < layers * heads; ++lh) {
        const auto a = [&](qint64 i, qint64 j) {
            return double(attn[std::size_t(lh * n * n + i * n + j)]);
        };
        double previous = 0, self = 0, first = 0, local = 0;
        for (qint64 i = 0; i < n; ++i) {
            previous += i > 0 ? a(i, i - 1) : 0.0;
            self += a(i, i);
            first += a(i, 0);
            for (qint64 j = 0; j < n; ++j)
                local += (j <= i && i - j < window) ? a(i, j) : 0.0;
        }
        first /= double(n);
        for (const double v : {previous / double(n - 1), self / double(n), first, local / double(n),
                               first > 0.3 ? 1.0 : 0.0})
            out.push_back(v);
    }
    return out;
}

// hidden {rows, width} flat: each row's L2 norm.
inline std::vector<double> referenceNorms(const std::vector<float> &hidden, qint64 width)
{
    std::vector<double> out;
    for (std::size_t r = 0; r < hidden.size(); r += std::size_t(width)) {
        double sum = 0;
        for (qint64 c = 0; c < width; ++c)
            sum += double(hidden[r + std::size_t(c)]) * double(hidden[r + std::size_t(c)]);
        out.push_back(std::sqrt(sum));
    }
    return out;
}

// The median of |x| over one layer's values, as numpy.median (sorted, middle two averaged).
inline double referenceMedianAbs(const float *x, qint64 count)
{
    std::vector<double> m;
    for (qint64 i = 0; i < count; ++i)
        m.push_back(std::abs(double(x[i])));
    std::sort(m.begin(), m.end());
    return count % 2 ? m[std::size_t(count / 2)]
                     : (m[std::size_t(count / 2 - 1)] + m[std::size_t(count / 2)]) / 2;
}

} // namespace pe::test
