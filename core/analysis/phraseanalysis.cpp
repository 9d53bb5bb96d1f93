#include "analysis/phraseanalysis.h"

#include "analysis/similarity.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace pe {

namespace {

// [first, first + count) clipped to the sequence; count < 0: to its end.
std::pair<qint64, qint64> tokenRange(const PhraseEmbedding &embedding, qint64 first, qint64 count)
{
    first = std::clamp<qint64>(first, 0, embedding.sequenceLength);
    const qint64 available = embedding.sequenceLength - first;
    return {first, count < 0 ? available : std::min(count, available)};
}

} // namespace

PhraseDifference phraseDifference(const PhraseEmbedding &embedding, qint64 a, qint64 b,
                                  qint64 firstToken, qint64 tokenCount)
{
    PhraseDifference d;
    const qint64 phrases = embedding.phraseCount();
    if (a < 0 || b < 0 || a >= phrases || b >= phrases)
        return d;
    std::tie(d.firstToken, d.sequenceLength) = tokenRange(embedding, firstToken, tokenCount);
    d.dims = embedding.dims;
    const qint64 cells = d.sequenceLength * d.dims;
    const float *pa = embedding.vector(a, d.firstToken);
    const float *pb = embedding.vector(b, d.firstToken);
    d.values.resize(std::size_t(cells));
    double extent = 0.0;
    for (qint64 i = 0; i < cells; ++i) {
        d.values[std::size_t(i)] = pb[i] - pa[i];
        extent = std::max(extent, std::abs(double(pb[i]) - double(pa[i])));
    }
    d.extent = extent == 0.0 ? 1.0 : extent;
    return d;
}

std::vector<double> tokenSimilarity(const PhraseEmbedding &embedding, qint64 phrase, qint64 token,
                                    qint64 other, qint64 firstToken, qint64 tokenCount)
{
    const qint64 phrases = embedding.phraseCount();
    if (phrase < 0 || other < 0 || phrase >= phrases || other >= phrases || token < 0 ||
        token >= embedding.sequenceLength)
        return {};
    const float *v = embedding.vector(phrase, token);
    const auto [first, count] = tokenRange(embedding, firstToken, tokenCount);
    std::vector<double> out;
    out.reserve(std::size_t(count));
    for (qint64 q = first; q < first + count; ++q)
        out.push_back(cosineSimilarity(v, embedding.vector(other, q), embedding.dims));
    return out;
}

} // namespace pe
