// PhraseModel: a model folder's own tokenizer and its layer 0 together, for typed phrases: the
// text to token ids as transformers' `tokenizer(text)` gives them (the tokenizer's default
// special tokens), and those ids to the embedding output (`hidden_states[0]`) or layer 0's
// attention probabilities, with or without the model's positions. What `pescope data --phrase`,
// pescope.tokens() / pescope.phrase() and the window's model phrases share. Like LayerZero, not
// for concurrent use: one thread at a time.
#pragma once

#include "fields/choicenames.h"
#include "model/forwardpass.h"
#include "model/layerzero.h"
#include "text/tokenizer.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <span>

namespace pe {

enum class PhraseArray { Embeddings, Attention };

inline constexpr ChoiceName phraseArrayNames[] = {
    choice(PhraseArray::Embeddings, "embeddings", "embeddings (hidden_states[0])"),
    choice(PhraseArray::Attention, "attention", "a layer's attention probabilities"),
};

class PhraseModel
{
public:
    // `model`: a model folder (or a file in one, or a cached repo id) with tokenizer.json,
    // config.json and safetensors weights. Null with one sentence in *error naming the file at
    // fault. `layer` is the layer whose attention compute() gives: 0 from the embedding output;
    // a later one through the model's whole forward pass (forwardpass.h), every layer before it
    // computed; one the model does not have is refused.
    // A tokenizer without weights opens tokens only (hasWeights() false): a tokenizer file
    // alone (tokenizerAlone()), or a folder whose tokenizer.json has no config.json and
    // safetensors weights beside it; encode() works, problem() and compute() say what is missing.
    static std::unique_ptr<PhraseModel> open(const QString &model, QString *error, int layer = 0);

    // The tokenizer.json that `model` names when it is a tokenizer without a model to compute
    // with: a file whose name ends in "tokenizer.json" with no config.json beside it, or a folder
    // holding tokenizer.json but no config.json, .safetensors or .gguf file; empty otherwise.
    // Such a source has no layer map: File > Open model and `pescope export --model` take it to
    // the model phrase views alone.
    static QString tokenizerAlone(const QString &model);
    // `model` as the model to open: a *tokenizer.json file with a config.json beside it is its
    // folder (the model it belongs to); anything else as it is.
    static QString modelOfTokenizerFile(const QString &model);

    const Tokenizer &tokenizer() const { return m_tokenizer; }
    // False for a tokenizer opened without weights: layerZero() must not be called then.
    bool hasWeights() const { return m_layerZero != nullptr; }
    // Without weights: one sentence saying why and what cannot be computed; empty with them.
    const QString &weightsNote() const { return m_weightsNote; }
    LayerZero &layerZero() { return *m_layerZero; }
    const LayerZero &layerZero() const { return *m_layerZero; }
    // The folder the files were read from.
    const QString &folder() const { return m_folder; }
    int layer() const { return m_layer; }
    // What the last compute() through the forward pass warned of (weights that are not finite,
    // by tensor name); empty otherwise.
    const QStringList &warnings() const { return m_warnings; }

    // The most tokens `what` is computed for: the model's maxTokens(), and for the attention
    // also the tokens whose heads x tokens x tokens fit limits::maxLayerZeroAttentionValues.
    qint64 maxTokens(PhraseArray what) const;

    // The text's tokens with the tokenizer's default special tokens; nullopt with *error when
    // the tokenizer cannot encode it.
    std::optional<TokenEncoding> encode(const QString &text, QString *error) const;
    // The first `count` tokens of `encoding` (all when it has fewer).
    static TokenEncoding firstTokens(const TokenEncoding &encoding, qint64 count);

    // Why `what` cannot be computed for `encoding` (no tokens, no weights, more than
    // maxTokens(what), an id outside the model's token table, the embeddings with a layer other
    // than 0), found without computing; empty when it can.
    QString problem(const TokenEncoding &encoding, PhraseArray what) const;
    // The first token whose id is outside the model's token rows, as a sentence; empty when
    // every id has a row (and without weights, where there are no rows).
    QString idProblem(const TokenEncoding &encoding) const;

    // `what` for the encoding's ids: {tokens, hidden} or {heads, tokens, tokens} float32.
    // Without positions: the model without them in every layer up to the one asked for.
    std::optional<LayerZeroArray> compute(const TokenEncoding &encoding, PhraseArray what,
                                          bool withPositions, QString *error);

private:
    PhraseModel(Tokenizer tokenizer, std::unique_ptr<LayerZero> layerZero, QString folder);
    // A tokenizer without weights; `why` says what is missing.
    static std::unique_ptr<PhraseModel> tokensOnly(const QString &tokenizerPath, const QString &why,
                                                   int layer, QString *error);
    std::optional<LayerZeroArray> laterAttention(std::span<const int> ids, bool withPositions,
                                                 QString *error);
    Tokenizer m_tokenizer;
    std::unique_ptr<LayerZero> m_layerZero;
    std::unique_ptr<ForwardPass> m_forward; // layer > 0
    QString m_folder;
    QStringList m_warnings;
    QString m_weightsNote;
    int m_layer = 0;
};

} // namespace pe
