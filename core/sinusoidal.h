// Sinusoidal encodings (Vaswani et al.) as per-column fixed-point phase tables.
#pragma once

#include "encodingspec.h"
#include "phasekernels.h"

#include <vector>

namespace pe {

// omega_i = base^(-2i/d) in radians per position, d = dims as given (odd d allowed).
double angularFrequency(double base, qint64 pairIndex, qint64 dims);

// The 64-bit fixed-point step, in turns per position, of an angular frequency omega <= 1.
std::uint64_t turnsStep(double omega);

// One ColumnPhase per column of a sinusoidal spec:
//  interleaved: column j uses pair i = j/2; even j sine, odd j cosine.
//  split:       [sin_0 .. sin_{h-1} | cos_0 .. cos_{h-1}] with h = d/2, odd d ends in a 0 column.
//  Scheme::Rope: the cos/sin table of ropeColumnPhases() (rope.h).
std::vector<kernels::ColumnPhase> columnPhases(const EncodingSpec &spec);

} // namespace pe
