// The "post_processor" of a tokenizer.json: the special tokens around an encoded text or pair
// ([CLS] A [SEP] B [SEP], <s> A), type ids, and byte-level offset trimming (tokenizers'
// processors/).
#pragma once

#include "jsonreader.h"
#include "tokenizer.h"

#include <memory>
#include <vector>

namespace pe {

// Bounded output: a post-processor may make at most maxGrowth times the text's tokens plus
// margin (tokenizers' own add at most 4 special tokens; a template may repeat $A, but 100 $A
// over a 40 KB text made 2 million tokens and half a gigabyte).
struct PostProcessLimit
{
    static constexpr qsizetype maxGrowth = 4;
    static constexpr qsizetype margin = 1024;
    explicit PostProcessLimit(qsizetype textTokens) : maxTokens(maxGrowth * textTokens + margin) {}
    qsizetype maxTokens;
    // The step that would have made more than maxTokens tokens, as a Sequence names it; empty
    // while none has.
    QString exceededBy;
};

// The tokens of `encodings` together.
qsizetype tokenCount(const std::vector<TokenEncoding> &encodings);

class PostProcessor
{
public:
    virtual ~PostProcessor() = default;
    // process_encodings: one encoding per sequence in, the processed ones out (concatenated by
    // the caller). A step that would make more than limit.maxTokens tokens sets
    // limit.exceededBy and returns nothing.
    virtual std::vector<TokenEncoding> process(std::vector<TokenEncoding> encodings,
                                               bool addSpecialTokens,
                                               PostProcessLimit &limit) const = 0;
    virtual QString describe() const = 0;
};

// Encoding::merge_with without growing offsets: `from`'s tokens after `to`'s.
void appendEncoding(TokenEncoding &to, const TokenEncoding &from);
// Room for `tokens` tokens in every list of `e`, each list reserved in turn (so that a long
// encoding's lists are not all reallocated at once).
void reserveEncoding(TokenEncoding &e, qsizetype tokens);

std::unique_ptr<PostProcessor> readPostProcessor(const QJsonValue &value, const QString &path,
                                                 JsonReader &reader);

} // namespace pe
