// Similarity of vectors: the one cosine (token similarity on the phrase page, position similarity
// on the Schemes page) and the position-similarity matrix PE(p)·PE(q), all accumulated in float64.
#pragma once

#include "fields/choicenames.h"

#include <QtGlobal>

#include <functional>
#include <vector>

namespace pe {

enum class SimilarityMetric { Dot, Cosine };
inline constexpr ChoiceName similarityMetricNames[] = {
    choice(SimilarityMetric::Dot, "dot", "Dot product"),
    choice(SimilarityMetric::Cosine, "cosine", "Cosine"),
};

// The cosine of two vectors from their dot product and squared norms: dot / √(aa·bb); 0 when
// either vector is all zeros (it has no direction).
double cosineFromProducts(double dot, double aa, double bb);

// The cosine similarity of the n floats at a and at b.
double cosineSimilarity(const float *a, const float *b, qint64 n);

// The cosine of every row of a with every row of b (rows of d floats, row-major):
// out[i·nb + j] = cos(a's row i, b's row j), as float32 (a phrase's tokens against another's).
void crossCosines(const float *a, qint64 na, const float *b, qint64 nb, qint64 d, float *out);

// The mean of n rows of d floats (row-major), summed in float64: mean pooling of a phrase's
// token vectors. Zeros when n is 0.
std::vector<float> meanPooled(const float *rows, qint64 n, qint64 d);

// The n x n similarity of n rows of d floats (row-major): out[i·n + j] = row i · row j, or their
// cosine. Symmetric, each pair computed once. False when `cancel` says stop (checked per row);
// out is then incomplete.
bool similarityMatrix(const float *rows, qint64 n, qint64 d, SimilarityMetric metric, float *out,
                      const std::function<bool()> &cancel = {});

} // namespace pe
