#include "sinusoidal.h"

#include "rope.h"

#include <cmath>
#include <numbers>

namespace pe {

double angularFrequency(double base, qint64 pairIndex, qint64 dims)
{
    return std::pow(base, -2.0 * double(pairIndex) / double(dims));
}

std::uint64_t turnsStep(double omega)
{
    // omega / (2 pi) < 0.16, so the fraction times 2^64 fits below 2^63. The conversion keeps
    // the 53 significant bits of the double; the phase error this leaves at p = 2^24 is ~1e-9.
    const double turns = omega / (2.0 * std::numbers::pi);
    return std::uint64_t(std::ldexp(turns, 64));
}

std::vector<kernels::ColumnPhase> columnPhases(const EncodingSpec &spec)
{
    if (spec.scheme == Scheme::Rope)
        return ropeColumnPhases(spec); // cos/sin pairs from the scaled inverse frequencies
    const qint64 d = spec.dims;
    std::vector<kernels::ColumnPhase> columns(std::size_t(d), kernels::ColumnPhase{});
    for (qint64 j = 0; j < d; ++j) {
        qint64 pair = 0;
        bool cosine = false;
        if (spec.layout == Layout::Interleaved) {
            pair = j / 2;
            cosine = (j % 2) == 1;
        } else {
            const qint64 half = d / 2;
            if (j >= 2 * half)
                continue; // odd d: the last column stays 0 (step 0, offset 0 -> sin(0))
            pair = j < half ? j : j - half;
            cosine = j >= half;
        }
        columns[std::size_t(j)].step = turnsStep(angularFrequency(spec.base, pair, d));
        columns[std::size_t(j)].offset = cosine ? kernels::quarterTurn : 0;
    }
    return columns;
}

} // namespace pe
