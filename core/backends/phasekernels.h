// The exact-phase arithmetic shared by every backend (the GLSL shaders mirror it line by line).
//
// Why: p * omega in float32 loses ~5e-4 at p = 4096. Instead each column keeps its frequency in
// turns, omega / (2*pi), as a 64-bit fixed-point fraction. The phase of row p is then
// frac(p * step + offset), exact in wrapping uint64 arithmetic, and only the final
// sin(2*pi*t), t in [-1/4, 1/4], is evaluated in float32.
#pragma once

#include <cstdint>

namespace pe::kernels {

// One output column: value(p) = sin(2*pi * frac(p * step + offset) / 2^64).
// A cosine column has offset = 2^62 (a quarter turn); an all-zero padding column has both 0.
struct ColumnPhase
{
    std::uint64_t step = 0;
    std::uint64_t offset = 0;
};

constexpr std::uint64_t quarterTurn = std::uint64_t(1) << 62;

// A signed count k of 2^-32 turns folded into [-2^30, 2^30] (a quarter turn either way) with
// sin(pi - x) = sin(x). Exact.
inline std::int32_t foldedTurns(std::int32_t k)
{
    const bool beyondQuarter = k > (1 << 30) || k < -(1 << 30);
    return beyondQuarter ? std::int32_t(0x80000000u - std::uint32_t(k)) : k;
}

// The phase's top 32 bits, rounded, as a signed count of 2^-32 turns, folded (foldedTurns).
inline std::int32_t foldedPhase(std::uint64_t phase)
{
    return foldedTurns(std::int32_t(std::uint32_t((phase + (std::uint64_t(1) << 31)) >> 32)));
}

// sin(2*pi*t) for t in [-1/4, 1/4]: odd Taylor polynomial to t^13, truncation error < 7e-10.
inline float sinTurns(float t)
{
    constexpr float c1 = 6.283185307179586f;    // 2 pi
    constexpr float c3 = -41.341702240399755f;  // -(2 pi)^3 / 3!
    constexpr float c5 = 81.60524927607504f;    //  (2 pi)^5 / 5!
    constexpr float c7 = -76.70585975306136f;   // -(2 pi)^7 / 7!
    constexpr float c9 = 42.058693944897634f;   //  (2 pi)^9 / 9!
    constexpr float c11 = -15.094642576822984f; // -(2 pi)^11 / 11!
    constexpr float c13 = 3.8199525848482803f;  //  (2 pi)^13 / 13!
    const float s = t * t;
    return t * (c1 + s * (c3 + s * (c5 + s * (c7 + s * (c9 + s * (c11 + s * c13))))));
}

constexpr float turnsPerUnit = 1.0f / 4294967296.0f; // 2^-32

inline float sinOfPhase(std::uint64_t phase)
{
    return sinTurns(float(foldedPhase(phase)) * turnsPerUnit);
}

// Learned ("random") embedding: Keras' default Embedding init, uniform in [-0.05, 0.05),
// from a counter-based hash so any cell can be computed alone, on any backend, in any order.
inline std::uint32_t mix32(std::uint32_t x)
{
    // "lowbias32" (C. Wellons): a well-tested 32-bit integer finaliser.
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

inline std::uint32_t rowKey(std::uint64_t seed, std::uint32_t row)
{
    return mix32(row + mix32(std::uint32_t(seed) + mix32(std::uint32_t(seed >> 32))));
}

inline float learnedValue(std::uint32_t rowKey, std::uint32_t column)
{
    // 24 random bits centred on 0: k in [-2^23, 2^23), scaled by 0.1 / 2^24 (exact in float).
    const auto k = std::int32_t(mix32(column + rowKey) >> 8) - (1 << 23);
    constexpr float scale = 0.1f / 16777216.0f;
    return float(k) * scale;
}

} // namespace pe::kernels
