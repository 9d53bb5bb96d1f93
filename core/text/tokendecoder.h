// The "decoder" of a tokenizer.json: tokens back to text for display (tokenizers' decoders/):
// byte-level characters to bytes, "##" and "▁" markers to spaces, <0xNN> tokens to bytes.
#pragma once

#include "jsonreader.h"

#include <QStringList>

#include <memory>

namespace pe {

class TokenDecoder
{
public:
    virtual ~TokenDecoder() = default;
    // Decoder::decode_chain; decode() joins its result.
    virtual QStringList decodeChain(QStringList tokens) const = 0;
    QString decode(QStringList tokens) const
    {
        return decodeChain(std::move(tokens)).join(QString());
    }
};

std::unique_ptr<TokenDecoder> readTokenDecoder(const QJsonValue &value, const QString &path,
                                               JsonReader &reader);

} // namespace pe
