#include "compute/modelread.h"

#include "model/phrasemodel.h"

namespace pe {

namespace {

// The card of `source`, with the learned table read from it where there is one.
std::shared_ptr<const ModelCard> cardOf(const QString &source, const PositionTable *table)
{
    QString ignored; // a card is extra: the spec's own error is what the user hears
    std::optional<ModelCard> card = readModelCard(source, &ignored);
    if (!card)
        return nullptr;
    if (table)
        setCardTable(&*card, *table);
    return std::make_shared<const ModelCard>(std::move(*card));
}

} // namespace

ModelRead readModel(const ModelReadRequest &request)
{
    ModelRead read;
    read.kind = request.kind;
    switch (request.kind) {
    case ModelReadRequest::Kind::Open: {
        // A tokenizer alone has no layer map to read: its file is checked here, on the worker
        // (Qwen's is 11 MB), for the Phrases page to take.
        if (const QString alone = PhraseModel::tokenizerAlone(request.source); !alone.isEmpty()) {
            if (Tokenizer::fromPath(alone, &read.error))
                read.tokenizerAlone = alone;
            break;
        }
        ModelRequest open;
        open.source = request.source;
        read.opened = openModelSpec(open, &read.error);
        if (read.opened) {
            const TableScheme *table = read.opened->spec.get<TableScheme>();
            read.card = cardOf(request.source, table ? table->table.get() : nullptr);
        }
        break;
    }
    case ModelReadRequest::Kind::Card:
        if (request.table)
            read.card = cardOf(request.table->source, request.table.get());
        break;
    case ModelReadRequest::Kind::Spec: {
        EncodingSpec spec = request.spec;
        if (spec.resolve(&read.error))
            read.resolved = std::move(spec);
        break;
    }
    }
    return read;
}

} // namespace pe
