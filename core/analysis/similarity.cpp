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

bool similarityMatrix(const float *rows, qint64 n, qint64 d, SimilarityMetric metric, float *out,
                      const std::function<bool()> &cancel)
{
    // Long float32 dot products lose digits: the rows are widened once.
    const std::vector<double> wide(rows, rows + n * d);
    std::vector<double> squares(std::size_t(n), 0.0);
    for (qint64 i = 0; i < n; ++i) {
        const double *a = wide.data() + i * d;
        double sum = 0.0;
        for (qint64 k = 0; k < d; ++k)
            sum += a[k] * a[k];
        squares[std::size_t(i)] = sum;
    }
    for (qint64 i = 0; i < n; ++i) {
        if (cancel && cancel())
            return false;
        const double *a = wide.data() + i * d;
        for (qint64 j = i; j < n; ++j) {
            const double *b = wide.data() + j * d;
            double dot = 0.0;
            for (qint64 k = 0; k < d; ++k)
                dot += a[k] * b[k];
            const double value = metric == SimilarityMetric::Cosine
                                     ? cosineFromProducts(dot, squares[std::size_t(i)],
                                                          squares[std::size_t(j)])
                                     : dot;
            out[std::size_t(i * n + j)] = float(value);
            out[std::size_t(j * n + i)] = float(value);
        }
    }
    return true;
}

} // namespace pe
