#include "state/phrasesource.h"

namespace pe {

FieldTable<PhraseSource> PhraseSource::fields()
{
    using S = PhraseSource;
    static const Field<S> table[] = {
        {.key = "tokenizer",
         .flag = "phrase-tokenizer",
         .label = "Tokenizer",
         .help = "Where the phrases' tokens and embeddings come from: the Keras tutorial's "
                 "TextVectorization with random and sinusoidal tables, or the open model's own "
                 "tokenizer, embeddings and layer 0.",
         .kind = choiceKind<&S::tokenizer>(phraseTokenizerNames)},
        {.key = "model",
         .label = "Phrase model",
         .help = "The model folder whose tokenizer and layer 0 the Phrases page uses (the one "
                 "last opened).",
         .kind = TextKind<S>{&S::model, limits::maxModelPathLength}},
    };
    return table;
}

} // namespace pe
