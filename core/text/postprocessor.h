// The "post_processor" of a tokenizer.json: the special tokens around an encoded text or pair
// ([CLS] A [SEP] B [SEP], <s> A), type ids, and byte-level offset trimming (tokenizers'
// processors/).
#pragma once

#include "jsonreader.h"
#include "tokenizer.h"

#include <memory>
#include <vector>

namespace pe {

class PostProcessor
{
public:
    virtual ~PostProcessor() = default;
    // process_encodings: one encoding per sequence in, the processed ones out (concatenated by
    // the caller).
    virtual std::vector<TokenEncoding> process(std::vector<TokenEncoding> encodings,
                                               bool addSpecialTokens) const = 0;
    virtual QString describe() const = 0;
};

// Encoding::merge_with without growing offsets: `from`'s tokens after `to`'s.
void appendEncoding(TokenEncoding &to, const TokenEncoding &from);

std::unique_ptr<PostProcessor> readPostProcessor(const QJsonValue &value, const QString &path,
                                                 JsonReader &reader);

} // namespace pe
