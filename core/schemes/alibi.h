// ALiBi (Press et al., "Train Short, Test Long"): per-head slopes and the attention bias
// -m_h * |i - j| that replaces position embeddings.
#pragma once

#include <QString>
#include <QtGlobal>

#include <vector>

namespace pe {

namespace limits {
constexpr qint64 maxHeads = 4096;
} // namespace limits

// Empty when 1 <= heads <= limits::maxHeads; otherwise one sentence naming "heads".
QString alibiProblem(qint64 heads);

// The reference get_slopes (ofirpress/attention_with_linear_biases): for a power of two n,
// m_h = 2^(-8/n)^(h+1); otherwise the slopes of the closest lower power of two n0, followed by
// every other slope of 2 n0 (the interleaved rule) until there are `heads` of them.
std::vector<double> alibiSlopes(qint64 heads);

// The bias of query i against key j for a head with `slope`: -slope * |i - j|. The causal view
// (a decoder's) masks keys after the query: j > i gives -infinity, the value its mask adds.
double alibiBias(double slope, qint64 query, qint64 key, bool causal);

// Rows [firstRow, firstRow + rowCount) of one head's positions x positions bias matrix,
// row-major (query rows, key columns), as float32.
void alibiBiasRows(double slope, qint64 positions, qint64 firstRow, qint64 rowCount, bool causal,
                   float *out);

} // namespace pe
