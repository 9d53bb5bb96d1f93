// Which logits a caller of the forward pass keeps (ForwardOptions::logits, lastLogitsOnly),
// by the name pescope.forward(logits=...) and `pescope data --what logits --logits ...` use.
#pragma once

#include "fields/choicenames.h"
#include "model/forwardpass.h"

namespace pe {

// Every token's logits (transformers' plain forward), the last token's only (its
// logits_to_keep=1, what generation reads), or none. Every token's logits of a large vocabulary
// are the largest array the pass makes (GPT-2 at 1,024 tokens: 196 MiB, 0.41x its weights); the
// last token's are one row.
enum class LogitsKept { All, Last, None };

inline constexpr ChoiceName logitsKeptNames[] = {
    choice(LogitsKept::All, "all", "every token's logits (tokens x vocabulary)"),
    choice(LogitsKept::Last, "last", "the last token's logits (1 x vocabulary)"),
    choice(LogitsKept::None, "none", "no logits"),
};

// options->logits and lastLogitsOnly as `kept` says.
inline void keepLogits(ForwardOptions *options, LogitsKept kept)
{
    options->logits = kept != LogitsKept::None;
    options->lastLogitsOnly = kept == LogitsKept::Last;
}

} // namespace pe
