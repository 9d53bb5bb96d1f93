// What the phrase page shows besides the embeddings themselves: the difference of two phrases
// and the cosine similarity of one token to every token of another phrase.
#pragma once

#include "text/phrases.h"

#include <vector>

namespace pe {

// Phrase b minus phrase a, cell by cell (sequenceLength x dims, C order, float32 as the
// embeddings are), and the largest |b − a| taken in float64: the half-width of a colour scale
// centred on zero (1 when the phrases embed identically).
struct PhraseDifference
{
    qint64 firstToken = 0;
    qint64 sequenceLength = 0; // tokens held, from firstToken
    qint64 dims = 0;
    std::vector<float> values;
    double extent = 1.0;
    float at(qint64 token, qint64 dim) const
    {
        return values[std::size_t((token - firstToken) * dims + dim)];
    }
};

// Over tokens [firstToken, firstToken + tokenCount) (tokenCount < 0: to the end; a view shows
// a window of a long sequence, and only that window is computed). Empty (no values) when a or b
// is not a phrase of the embedding.
PhraseDifference phraseDifference(const PhraseEmbedding &embedding, qint64 a, qint64 b,
                                  qint64 firstToken = 0, qint64 tokenCount = -1);

// cos(token `token` of phrase `phrase`, token q of phrase `other`) for q in [firstToken,
// firstToken + tokenCount) (tokenCount < 0: to the end), out[q - firstToken]; empty when a
// phrase or the token is out of range.
std::vector<double> tokenSimilarity(const PhraseEmbedding &embedding, qint64 phrase, qint64 token,
                                    qint64 other, qint64 firstToken = 0, qint64 tokenCount = -1);

} // namespace pe
