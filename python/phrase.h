// pescope.tokens() and pescope.phrase(): a typed text through a model's own tokenizer, and its
// embedding output or layer 0's attention, as `pescope tokens` and `pescope data --phrase` give
// them (core/model/phrasemodel.h).
#pragma once

#include "pybindinclude.h"

#include <QtGlobal>

namespace pe::python {

// `pescope tokens --json`'s object for `text` ({"text", "ids", "tokens", "offsets"}; offsets as
// (start, end) tuples of code points), or a list of them for a list of texts. `model`: a model
// folder, a file in one, a cached repo id, or a tokenizer.json.
pybind11::object tokens(const pybind11::object &model, const pybind11::object &text,
                        bool noSpecialTokens);

// `pescope data --model M --phrase TEXT --what WHAT [--layer N] [--no-positions]`'s array:
// tokens x hidden (embeddings) or heads x tokens x tokens (attention), float32; with `head` (a
// head from 0 or "mean") the attention view's tokens x tokens of that head or the mean of the
// heads (core/analysis/attentionheads.h).
pybind11::array phrase(const pybind11::object &model, const pybind11::object &text,
                       const pybind11::object &what, const pybind11::object &layer, bool positions,
                       const pybind11::object &head);

// The whole forward pass of `text` and its layer analyses (core/analysis/layeranalysis.h) as a
// dict of float32 arrays: pescope.forward(). shift, scale, theta (None: the model's) and
// ropeScaling (None, a dict or a JSON str): the positions ablated in every layer
// (PositionAblation). logits: "all", "last" or "none" (LogitsKept).
pybind11::dict forward(const pybind11::object &model, const pybind11::object &text, bool positions,
                       qint64 window, qint64 topK, double ridge, int folds, qint64 shift,
                       double scale, const pybind11::object &theta,
                       const pybind11::object &ropeScaling, const pybind11::object &logits);

} // namespace pe::python
