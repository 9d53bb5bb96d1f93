// What the attention view draws of a layer's heads x tokens x tokens probabilities: one head or
// the mean of the heads, and the difference of two such grids (with positions − without). Plain
// functions of float arrays, so that the window, `pescope data --view attention` and Python
// write the same numbers.
#pragma once

#include <QtGlobal>

#include <span>
#include <vector>

namespace pe {

// The head argument of headAttention that asks for the mean of every head.
inline constexpr int meanOfAttentionHeads = -1;

// Head `head` (from 0) of `attention`, heads x tokens x tokens row-major, as tokens x tokens; with
// meanOfAttentionHeads, the mean over the heads cell by cell, summed in float64 and rounded to
// float32 once. Empty when the sizes do not match or `head` is out of range.
std::vector<float> headAttention(std::span<const float> attention, qint64 heads, qint64 tokens,
                                 int head);

// with − without cell by cell, in float32 as the grids are (NaN stays NaN); empty when the sizes
// differ.
std::vector<float> attentionDifference(std::span<const float> with, std::span<const float> without);

} // namespace pe
