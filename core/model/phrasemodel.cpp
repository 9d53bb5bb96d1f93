#include "model/phrasemodel.h"

#include "formats/hfcache.h"

#include <cmath>
#include <limits>

namespace pe {

PhraseModel::PhraseModel(Tokenizer tokenizer, std::unique_ptr<LayerZero> layerZero, QString folder)
    : m_tokenizer(std::move(tokenizer)), m_layerZero(std::move(layerZero)),
      m_folder(std::move(folder))
{}

std::unique_ptr<PhraseModel> PhraseModel::open(const QString &model, QString *error, int layer)
{
    const std::optional<ModelLocation> location = resolveModel(model, error);
    if (!location)
        return nullptr;
    // The weights first: a folder without config.json or safetensors is named for what layer 0
    // needs, before its tokenizer is read (which may be large).
    std::unique_ptr<LayerZero> layerZero = LayerZero::open(model, error, layer > 0 ? 0 : layer);
    if (!layerZero)
        return nullptr;
    std::unique_ptr<ForwardPass> forward;
    if (layer > 0) {
        forward = ForwardPass::open(model, error);
        if (!forward)
            return nullptr;
        if (layer >= forward->layers()) {
            *error = QStringLiteral("layer %1: %2 has %3 layers (0 to %4)")
                         .arg(layer)
                         .arg(forward->architecture())
                         .arg(forward->layers())
                         .arg(forward->layers() - 1);
            return nullptr;
        }
    }
    std::optional<Tokenizer> tokenizer = Tokenizer::fromPath(location->folder, error);
    if (!tokenizer)
        return nullptr;
    std::unique_ptr<PhraseModel> out(
        new PhraseModel(std::move(*tokenizer), std::move(layerZero), location->folder));
    out->m_forward = std::move(forward);
    out->m_layer = layer;
    return out;
}

qint64 PhraseModel::maxTokens(PhraseArray what) const
{
    qint64 tokens = m_layerZero->maxTokens();
    if (m_forward)
        tokens = std::min(tokens, m_forward->maxTokens());
    if (what == PhraseArray::Attention) {
        // heads x n x n values at most: n = floor(sqrt(limit / heads)).
        const qint64 perHead =
            limits::maxLayerZeroAttentionValues / std::max<qint64>(1, m_layerZero->heads());
        qint64 n = qint64(std::sqrt(double(perHead)));
        while (n * n > perHead)
            --n;
        while ((n + 1) * (n + 1) <= perHead)
            ++n;
        tokens = std::min(tokens, n);
    }
    return tokens;
}

std::optional<TokenEncoding> PhraseModel::encode(const QString &text, QString *error) const
{
    return m_tokenizer.encode(text, true, error);
}

TokenEncoding PhraseModel::firstTokens(const TokenEncoding &encoding, qint64 count)
{
    if (encoding.size() <= count)
        return encoding;
    const auto n = std::size_t(std::max<qint64>(count, 0));
    TokenEncoding out;
    out.ids.assign(encoding.ids.begin(), encoding.ids.begin() + qsizetype(n));
    out.tokens = encoding.tokens.first(qsizetype(n));
    out.offsets.assign(encoding.offsets.begin(), encoding.offsets.begin() + qsizetype(n));
    out.typeIds.assign(encoding.typeIds.begin(),
                       encoding.typeIds.begin() + qsizetype(std::min(n, encoding.typeIds.size())));
    out.special.assign(encoding.special.begin(),
                       encoding.special.begin() + qsizetype(std::min(n, encoding.special.size())));
    return out;
}

QString PhraseModel::problem(const TokenEncoding &encoding, PhraseArray what) const
{
    if (encoding.size() == 0)
        return QStringLiteral("the phrase has no tokens with this tokenizer");
    if (m_layer > 0 && what == PhraseArray::Embeddings)
        return QStringLiteral("the embeddings are hidden_states[0], the input of layer 0; layer "
                              "%1 applies to the attention")
            .arg(m_layer);
    if (encoding.size() > maxTokens(what))
        return QStringLiteral("the phrase has %1 tokens; %2 of %3 is computed for at most %4")
            .arg(encoding.size())
            .arg(labelOf(phraseArrayNames, what), m_layerZero->architecture())
            .arg(maxTokens(what));
    for (std::size_t p = 0; p < encoding.ids.size(); ++p) {
        const qint64 id = encoding.ids[p];
        if (id < 0 || id >= m_layerZero->vocabularyRows() || id > std::numeric_limits<int>::max())
            return QStringLiteral("token %1 (\"%2\") has id %3, outside the model's %4 token "
                                  "rows: its tokenizer.json and weights do not belong together")
                .arg(p)
                .arg(encoding.tokens.value(qsizetype(p)))
                .arg(id)
                .arg(m_layerZero->vocabularyRows());
    }
    return {};
}

std::optional<LayerZeroArray> PhraseModel::laterAttention(std::span<const int> ids,
                                                          bool withPositions, QString *error)
{
    ForwardOptions options;
    options.withPositions = withPositions;
    options.attentionLayer = m_layer;
    options.hiddenStates = false;
    options.logits = false;
    std::optional<ForwardResult> result = m_forward->run(ids, options, error);
    if (!result)
        return std::nullopt;
    m_warnings = result->warnings;
    LayerZeroArray out = std::move(result->attentions);
    out.shape.erase(out.shape.begin()); // {1, heads, n, n} -> {heads, n, n}
    return out;
}

std::optional<LayerZeroArray> PhraseModel::compute(const TokenEncoding &encoding, PhraseArray what,
                                                   bool withPositions, QString *error)
{
    if (QString why = problem(encoding, what); !why.isEmpty()) {
        *error = why;
        return std::nullopt;
    }
    // problem() checked every id against the token table, whose rows LayerZero holds as ints.
    const std::vector<int> ids(encoding.ids.begin(), encoding.ids.end());
    m_warnings.clear();
    if (m_forward && what == PhraseArray::Attention)
        return laterAttention(ids, withPositions, error);
    return what == PhraseArray::Attention ? m_layerZero->attention(ids, withPositions, error)
                                          : m_layerZero->embeddings(ids, withPositions, error);
}

} // namespace pe
