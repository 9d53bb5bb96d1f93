// pescope.encode() and pescope.rope_table(): arrays computed straight into the memory of a new
// NumPy array (no copy), with the GIL released while the backend or the formula works.
#pragma once

#include "pybindinclude.h"

namespace pe::python {

// Rows first .. first + positions - 1 of the scheme's positions x dims float32 matrix, as
// `pescope data SPEC` writes it; `params` are the scheme's options (base=, rope_type=, ...).
pybind11::array encode(const pybind11::object &scheme, const pybind11::object &positions,
                       const pybind11::object &dims, const pybind11::object &first,
                       const pybind11::object &backend, const pybind11::kwargs &params);

// One output of a model's RoPE (`pescope data --config F --what W`): inv_freq, cos, sin,
// attention_factor (float64), or matrix (pescope's float32 encoding matrix).
pybind11::array ropeTable(const pybind11::object &config, const pybind11::object &what,
                          const pybind11::object &positions, const pybind11::object &layer,
                          const pybind11::object &scaled);

// Drops the backends kept between calls (GPU contexts); called when the interpreter exits.
void releaseBackends();

} // namespace pe::python
