// A model's files read on the scheduler's worker, never on the UI thread (a table can be
// hundreds of MB): File > Open model (the spec of the model's layer and its card), the Model
// page's card for a table opened another way (a session, the command line), and the table a
// session's spec names (issue 30).
#pragma once

#include "encodingspec.h"
#include "model/modelcard.h"
#include "model/modelspec.h"
#include "model/positiontable.h"

#include <QMetaType>
#include <QString>

#include <memory>
#include <optional>

namespace pe {

struct ModelReadRequest
{
    enum class Kind {
        Open, // `source`'s spec (openModelSpec) and card, or a tokenizer alone
        Card, // the card of `table`'s model, the table already read
        Spec, // the files `spec` names (EncodingSpec::resolve), e.g. a session's table
    };
    Kind kind = Kind::Open;
    QString source;                             // Open
    std::shared_ptr<const PositionTable> table; // Card
    EncodingSpec spec;                          // Spec
};

struct ModelRead
{
    ModelReadRequest::Kind kind = ModelReadRequest::Kind::Open;
    std::optional<ModelLayerSpec> opened;  // Open: the model's spec, when it could be read
    std::shared_ptr<const ModelCard> card; // Open, Card: null where it could not be read
    std::optional<EncodingSpec> resolved;  // Spec: the spec with its files read
    // Open: the tokenizer.json `source` names when it is a tokenizer alone
    // (PhraseModel::tokenizerAlone()), read and valid; it has no spec or card.
    QString tokenizerAlone;
    QString error; // why the spec (Open, Spec) or the tokenizer alone could not be read
};

// Reads what `request` asks for (file I/O: on the worker).
ModelRead readModel(const ModelReadRequest &request);

} // namespace pe

Q_DECLARE_METATYPE(std::shared_ptr<const pe::ModelRead>)
