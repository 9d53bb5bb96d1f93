// The "pre_tokenizer" of a tokenizer.json: how normalized text is cut into the pieces the model
// tokenizes one by one (tokenizers' pre_tokenizers/).
#pragma once

#include "jsonreader.h"
#include "pretokenizedstring.h"

#include <memory>

namespace pe {

class PreTokenizer
{
public:
    virtual ~PreTokenizer() = default;
    // PreTokenizer::pre_tokenize; false with the reason in `context`.
    virtual bool preTokenize(PreTokenizedString &text, EncodeContext &context) const = 0;
    virtual QString describe() const = 0;
};

std::unique_ptr<PreTokenizer> readPreTokenizer(const QJsonValue &value, const QString &path,
                                               JsonReader &reader);

// SplitDelimiterBehavior from its JSON name ("Isolated", "MergedWithPrevious", ...).
std::optional<SplitBehavior> splitBehaviorFromName(const QString &name);

} // namespace pe
