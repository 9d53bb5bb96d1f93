#include "model/phrasemodel.h"

#include "formats/hfcache.h"

#include <QDir>
#include <QFileInfo>

#include <cmath>
#include <limits>

namespace pe {

namespace {

const QString tokenizerName = QStringLiteral("tokenizer.json");

// A file named as Hugging Face saves a tokenizer ("tokenizer.json"), or a download renamed
// after its model ("gpt2-tokenizer.json").
bool isTokenizerFile(const QFileInfo &info)
{
    return info.isFile() && info.fileName().endsWith(tokenizerName, Qt::CaseInsensitive);
}

// The files that make a folder a model pescope computes with (or at least a layer map).
bool holdsModelFiles(const QDir &dir)
{
    return !dir.entryList({QStringLiteral("config.json"), QStringLiteral("*.safetensors"),
                           QStringLiteral("*.gguf")},
                          QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot)
                .isEmpty();
}

} // namespace

PhraseModel::PhraseModel(Tokenizer tokenizer, std::unique_ptr<LayerZero> layerZero, QString folder)
    : m_tokenizer(std::move(tokenizer)), m_layerZero(std::move(layerZero)),
      m_folder(std::move(folder))
{}

QString PhraseModel::tokenizerAlone(const QString &model)
{
    const QFileInfo info(model);
    if (isTokenizerFile(info))
        return QFileInfo(info.absoluteDir().filePath(QStringLiteral("config.json"))).exists()
                   ? QString()
                   : QDir::toNativeSeparators(info.absoluteFilePath());
    if (info.isDir()) {
        const QDir dir(info.absoluteFilePath());
        if (QFileInfo(dir.filePath(tokenizerName)).isFile() && !holdsModelFiles(dir))
            return QDir::toNativeSeparators(dir.filePath(tokenizerName));
    }
    return {};
}

QString PhraseModel::modelOfTokenizerFile(const QString &model)
{
    const QFileInfo info(model);
    if (isTokenizerFile(info) &&
        QFileInfo(info.absoluteDir().filePath(QStringLiteral("config.json"))).exists())
        return QDir::toNativeSeparators(info.absolutePath());
    return model;
}

std::unique_ptr<PhraseModel> PhraseModel::tokensOnly(const QString &tokenizerPath,
                                                     const QString &why, int layer, QString *error)
{
    std::optional<Tokenizer> tokenizer = Tokenizer::fromPath(tokenizerPath, error);
    if (!tokenizer)
        return nullptr;
    std::unique_ptr<PhraseModel> out(
        new PhraseModel(std::move(*tokenizer), nullptr,
                        QDir::toNativeSeparators(QFileInfo(tokenizerPath).absolutePath())));
    out->m_layer = layer;
    out->m_weightsNote =
        QStringLiteral("%1: it gives the tokens alone; the embeddings, the token similarity "
                       "and the attention need the model's config.json and safetensors weights "
                       "beside its tokenizer.json")
            .arg(why);
    return out;
}

std::unique_ptr<PhraseModel> PhraseModel::open(const QString &model, QString *error, int layer)
{
    // A tokenizer alone: its tokens, no layer map or weights to look for.
    if (const QString alone = tokenizerAlone(model); !alone.isEmpty())
        return tokensOnly(alone,
                          QStringLiteral("%1 is a tokenizer alone (no config.json or weights "
                                         "beside it)")
                              .arg(alone),
                          layer, error);
    const QString source = modelOfTokenizerFile(model);
    const std::optional<ModelLocation> location = resolveModel(source, error);
    if (!location)
        return nullptr;
    // A model without safetensors weights (config.json alone, a GGUF file) still has its
    // tokenizer's tokens to show; why layer 0 cannot be computed is LayerZero's sentence.
    const QString besideTokenizer = QDir(location->folder).filePath(tokenizerName);
    if ((location->configPath.isEmpty() ||
         (location->kind != ModelSourceKind::Safetensors &&
          location->kind != ModelSourceKind::ShardedSafetensors)) &&
        QFileInfo(besideTokenizer).isFile()) {
        QString why;
        if (!LayerZero::open(source, &why, 0))
            return tokensOnly(besideTokenizer, why, layer, error);
    }
    // The weights first: a folder without config.json or safetensors is named for what layer 0
    // needs, before its tokenizer is read (which may be large).
    std::unique_ptr<LayerZero> layerZero = LayerZero::open(source, error, layer > 0 ? 0 : layer);
    if (!layerZero)
        return nullptr;
    std::unique_ptr<ForwardPass> forward;
    if (layer > 0) {
        forward = ForwardPass::open(source, error);
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
    if (!hasWeights()) // no model's limit: the tokenizer's own (Tokenizer::maxTextLength)
        return Tokenizer::maxTextLength;
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
    if (!hasWeights())
        return m_weightsNote;
    if (m_layer > 0 && what == PhraseArray::Embeddings)
        return QStringLiteral("the embeddings are hidden_states[0], the input of layer 0; layer "
                              "%1 applies to the attention")
            .arg(m_layer);
    if (encoding.size() > maxTokens(what))
        return QStringLiteral("the phrase has %1 tokens; %2 of %3 is computed for at most %4")
            .arg(encoding.size())
            .arg(labelOf(phraseArrayNames, what), m_layerZero->architecture())
            .arg(maxTokens(what));
    return idProblem(encoding);
}

QString PhraseModel::idProblem(const TokenEncoding &encoding) const
{
    if (!hasWeights())
        return {};
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
