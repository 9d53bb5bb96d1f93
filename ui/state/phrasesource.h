// PhraseSource: where the Phrases page's tokens and embeddings come from - the Keras tutorial's
// TextVectorization with its random and sinusoidal tables (seed 001, the default), or the open
// model's own tokenizer.json, embedding layer and layer 0 (core/model/phrasemodel.h). Part of the
// ExplorerState, so sessions save it and undo covers it.
#pragma once

#include "fields/field.h"

#include <QString>

namespace pe {

enum class PhraseTokenizer { TextVectorization, Model };
inline constexpr ChoiceName phraseTokenizerNames[] = {
    choice(PhraseTokenizer::TextVectorization, "textvectorization",
           "TextVectorization (the tutorial's)", "keras"),
    choice(PhraseTokenizer::Model, "model", "The model's own"),
};

namespace limits {
// The longest model path a session holds.
constexpr qint64 maxModelPathLength = 4096;
} // namespace limits

struct PhraseSource
{
    PhraseTokenizer tokenizer = PhraseTokenizer::TextVectorization;
    // The model whose tokenizer and layer 0 are used: the one last opened (File > Open model).
    QString model;
    static FieldTable<PhraseSource> fields();
    bool operator==(const PhraseSource &) const = default;
};

} // namespace pe
