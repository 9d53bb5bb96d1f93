// A model's own tokenizer: Hugging Face's tokenizer.json read and applied exactly as the
// `tokenizers` library (0.23) does for transformers, offline. Text goes through the added tokens,
// the normalizer, the pre-tokenizer, the model (BPE, WordPiece, Unigram, WordLevel) and the
// post-processor; offsets are Unicode code points into the text, as Python's
// `Tokenizer.encode(text).offsets` gives them. A file using a component this reader does not
// know is refused with a message naming it, never tokenized differently.
#pragma once

#include "tokendisplay.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace pe {

class LargeJsonValues;
struct TokenizerData;

// One encoded text (or pair of texts), one entry per token in every list.
struct TokenEncoding
{
    std::vector<qint64> ids;
    QStringList tokens;
    // [start, end) in Unicode code points of the text the token came from (the second text's
    // for a pair's second part); (0, 0) for the tokens the post-processor adds.
    std::vector<std::pair<qint64, qint64>> offsets;
    std::vector<qint64> typeIds;
    // true for the tokens the post-processor added ([CLS], <s>...), as special_tokens_mask.
    std::vector<bool> special;

    qsizetype size() const { return qsizetype(ids.size()); }
};

class Tokenizer
{
public:
    // A tokenizer.json (at most maxFileBytes), or a model folder holding one. A folder with a
    // SentencePiece tokenizer.model (or vocab.txt, vocab.json + merges.txt) but no
    // tokenizer.json is named as such. Messages start with the file's path.
    static std::optional<Tokenizer> fromPath(const QString &path, QString *error);
    // The text of a tokenizer.json; `what` names it in messages.
    static std::optional<Tokenizer> fromJson(QByteArrayView json, const QString &what,
                                             QString *error);

    static constexpr qint64 maxFileBytes = qint64(256) << 20;
    // Texts longer than this (in code points) are refused by encode().
    static constexpr qint64 maxTextLength = qint64(16) << 20;

    // Tokenizer.encode(text, add_special_tokens=...): ids, tokens, offsets, type ids. nullopt
    // with one sentence in *error when the text cannot be encoded (a token the model needs is
    // missing from its vocabulary, a pattern of the file backtracks too much, the text is too
    // long, memory ran out: "out of memory while tokenizing ..."); truncation and padding are
    // not applied, as transformers' tokenizer(text) does not.
    std::optional<TokenEncoding> encode(const QString &text, bool addSpecialTokens,
                                        QString *error) const;
    // The pair form, Tokenizer.encode(first, second).
    std::optional<TokenEncoding> encodePair(const QString &first, const QString &second,
                                            bool addSpecialTokens, QString *error) const;

    // normalizer.normalize_str(text): the text as the file's normalizer makes it before it is
    // split (the text itself without a normalizer); nullopt with *error as encode() has it.
    std::optional<QString> normalized(const QString &text, QString *error) const;

    // Tokenizer.decode(ids, skip_special_tokens): the text for display, through the file's
    // decoder (tokens joined by spaces without one). Unknown ids are left out.
    QString decode(const std::vector<qint64> &ids, bool skipSpecialTokens = true) const;

    // The marker its tokens carry for a space, as its decoder reads them: ByteLevel when the
    // decoder turns "Ġ" into a space, Metaspace when it turns "▁" into one (Llama's Replace
    // decoder as well as Metaspace), else None. For displayToken().
    SpaceMarks spaceMarks() const;

    // The model's vocabulary plus the added tokens not in it (get_vocab_size(True)).
    qint64 vocabularySize() const;
    std::optional<qint64> tokenToId(const QString &token) const;
    // The token of an id (added tokens first, then the model's); a null QString when none.
    QString idToToken(qint64 id) const;
    // The file it was read from.
    QString source() const;
    // "truncation" and "padding" when the file sets them: encode() applies neither, as
    // transformers' tokenizer(text) does not unless asked.
    QStringList unappliedSettings() const;
    // One line for people: "BPE (byte-level), 50257 tokens, 1 added; normalizer ...".
    QString summary() const;

private:
    explicit Tokenizer(std::shared_ptr<const TokenizerData> data);
    // encode(), encodePair() and normalized() without their catch of std::bad_alloc.
    std::optional<TokenEncoding> encodeUnguarded(const QString &text, bool addSpecialTokens,
                                                 QString *error) const;
    std::optional<TokenEncoding> encodePairUnguarded(const QString &first, const QString &second,
                                                     bool addSpecialTokens, QString *error) const;
    std::optional<QString> normalizedUnguarded(const QString &text, QString *error) const;
    // fromJson with `readable` bytes readable from json.data() on (0: json.size()).
    static std::optional<Tokenizer> fromText(QByteArrayView json, qsizetype readable,
                                             const QString &what, QString *error);
    // fromJson's reading, with the large values of `large` taken from the text; `*retry` true
    // when they need reading from Qt's document after all.
    static std::optional<Tokenizer> read(QByteArrayView json, const QString &what, QString *error,
                                         const LargeJsonValues *large, bool *retry);
    std::shared_ptr<const TokenizerData> m_d; // immutable once read: copies share it, threads too
};

} // namespace pe
