// The "normalizer" of a tokenizer.json: what text becomes before it is split (tokenizers'
// normalizers/). Every normalizer keeps the alignment of each character to the original text.
#pragma once

#include "encodecontext.h"
#include "jsonreader.h"
#include "normalizedstring.h"
#include "textpattern.h"

#include <memory>

namespace pe {

class Normalizer
{
public:
    virtual ~Normalizer() = default;
    // Normalizer::normalize; false with the reason in `context` (a pattern that gave up).
    virtual bool normalize(NormalizedString &text, EncodeContext &context) const = 0;
    // Its "type" and settings, for the tokenizer's summary.
    virtual QString describe() const = 0;
};

// The normalizer at `path`; nullptr with the problem in `reader` for an unknown type or a bad
// field.
std::unique_ptr<Normalizer> readNormalizer(const QJsonValue &value, const QString &path,
                                           JsonReader &reader);

// Replace's and Split's "pattern": {"String": ...} (a literal) or {"Regex": ...} at `path`.
std::optional<TextPattern> readTextPattern(const QJsonObject &object, const QString &path,
                                           JsonReader &reader);

} // namespace pe
