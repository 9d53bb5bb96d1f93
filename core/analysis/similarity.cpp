#include "analysis/similarity.h"

#include <cmath>
#include <vector>

namespace pe {

double cosineFromProducts(double dot, double aa, double bb)
{
    if (aa == 0.0 || bb == 0.0)
        return 0.0;
    return dot / std::sqrt(aa * bb);
}

double cosineSimilarity(const float *a, const float *b, qint64 n)
{
    double dot = 0.0, aa = 0.0, bb = 0.0;
    for (qint64 i = 0; i < n; ++i) {
        dot += double(a[i]) * double(b[i]);
        aa += double(a[i]) * double(a[i]);
        bb += double(b[i]) * double(b[i]);
    }
    return cosineFromProducts(dot, aa, bb);
}

void crossCosines(const float *a, qint64 na, const float *b, qint64 nb, qint64 d, float *out)
{
    for (qint64 i = 0; i < na; ++i)
        for (qint64 j = 0; j < nb; ++j)
            out[i * nb + j] = float(cosineSimilarity(a + i * d, b + j * d, d));
}

std::vector<float> meanPooled(const float *rows, qint64 n, qint64 d)
{
    std::vector<double> sum(std::size_t(d), 0.0);
    for (qint64 t = 0; t < n; ++t)
        for (qint64 i = 0; i < d; ++i)
            sum[std::size_t(i)] += double(rows[t * d + i]);
    std::vector<float> mean(std::size_t(d), 0.0f);
    if (n > 0)
        for (qint64 i = 0; i < d; ++i)
            mean[std::size_t(i)] = float(sum[std::size_t(i)] / double(n));
    return mean;
}

bool similarityMatrix(const float *rows, qint64 n, qint64 d, SimilarityMetric metric, float *out,
                      const std::function<bool()> &cancel)
{
    // Long float32 dot products lose digits: every product is taken and summed in float64.
    const auto dot = [d](const float *a, const float *b) {
        double sum = 0.0;
        for (qint64 k = 0; k < d; ++k)
            sum += double(a[k]) * double(b[k]);
        return sum;
    };
    std::vector<double> squares(std::size_t(n), 0.0);
    for (qint64 i = 0; i < n; ++i)
        squares[std::size_t(i)] = dot(rows + i * d, rows + i * d);
    for (qint64 i = 0; i < n; ++i) {
        if (cancel && cancel())
            return false;
        for (qint64 j = i; j < n; ++j) {
            const double product = dot(rows + i * d, rows + j * d);
            const double value =
                metric == SimilarityMetric::Cosine
                    ? cosineFromProducts(product, squares[std::size_t(i)], squares[std::size_t(j)])
                    : product;
            out[std::size_t(i * n + j)] = float(value);
            out[std::size_t(j * n + i)] = float(value);
        }
    }
    return true;
}

} // namespace pe
