#include "analysis/phraseanalysis.h"

#include "analysis/similarity.h"

#include <algorithm>
#include <cmath>

namespace pe {

PhraseDifference phraseDifference(const PhraseEmbedding &embedding, qint64 a, qint64 b)
{
    PhraseDifference d;
    const qint64 phrases = embedding.phraseCount();
    if (a < 0 || b < 0 || a >= phrases || b >= phrases)
        return d;
    d.sequenceLength = embedding.sequenceLength;
    d.dims = embedding.dims;
    const qint64 cells = d.sequenceLength * d.dims;
    const float *pa = embedding.vector(a, 0);
    const float *pb = embedding.vector(b, 0);
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
                                    qint64 other)
{
    const qint64 phrases = embedding.phraseCount();
    if (phrase < 0 || other < 0 || phrase >= phrases || other >= phrases || token < 0 ||
        token >= embedding.sequenceLength)
        return {};
    const float *v = embedding.vector(phrase, token);
    std::vector<double> out;
    out.reserve(std::size_t(embedding.sequenceLength));
    for (qint64 q = 0; q < embedding.sequenceLength; ++q)
        out.push_back(cosineSimilarity(v, embedding.vector(other, q), embedding.dims));
    return out;
}

} // namespace pe
