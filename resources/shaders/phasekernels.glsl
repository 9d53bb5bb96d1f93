// Shared by every pescope compute shader (prepended to each .comp by GpuBackend). It mirrors
// core/phasekernels.h line by line; a 64-bit phase in 2^-64 turns is uvec2(low word, high word).

uvec2 add64(uvec2 a, uvec2 b)
{
    uint carry;
    uint lo = uaddCarry(a.x, b.x, carry);
    return uvec2(lo, a.y + b.y + carry);
}

uvec2 sub64(uvec2 a, uvec2 b)
{
    uint borrow;
    uint lo = usubBorrow(a.x, b.x, borrow);
    return uvec2(lo, a.y - b.y - borrow);
}

// p * s modulo 2^64, for p < 2^32.
uvec2 mul64(uvec2 s, uint p)
{
    uint hi, lo;
    umulExtended(p, s.x, hi, lo);
    return uvec2(lo, hi + p * s.y);
}

// kernels::foldedPhase: the top 32 bits, rounded, folded into a quarter turn either way.
int foldedPhase(uvec2 phase)
{
    uint carry;
    uaddCarry(phase.x, 0x80000000u, carry);
    int k = int(phase.y + carry);
    bool beyondQuarter = k > (1 << 30) || k < -(1 << 30);
    return beyondQuarter ? int(0x80000000u - uint(k)) : k;
}

// kernels::sinTurns. GLSL's sin() is not used: NVIDIA's is not accurate to 1e-6.
float sinTurns(float t)
{
    const float c1 = 6.283185307179586;
    const float c3 = -41.341702240399755;
    const float c5 = 81.60524927607504;
    const float c7 = -76.70585975306136;
    const float c9 = 42.058693944897634;
    const float c11 = -15.094642576822984;
    const float c13 = 3.8199525848482803;
    float s = t * t;
    return t * (c1 + s * (c3 + s * (c5 + s * (c7 + s * (c9 + s * (c11 + s * c13))))));
}

float sinOfPhase(uvec2 phase)
{
    return sinTurns(float(foldedPhase(phase)) * (1.0 / 4294967296.0));
}

// kernels::mix32 ("lowbias32") and kernels::learnedValue; rowKey is mix32(row + seedKey) with
// seedKey = mix32(uint(seed) + mix32(uint(seed >> 32))) computed on the host.
uint mix32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

float learnedValue(uint rowKey, uint column)
{
    int k = int(mix32(column + rowKey) >> 8) - (1 << 23);
    return float(k) * (0.1 / 16777216.0);
}

// One pixel's footprint along an axis (SamplingPlan's AxisSpan): cells [first, first + count)
// whole, cell first - 1 by lowWeight, cell first + count by highWeight; `run` indexes the
// closed-form tables of this row's whole-cell count (rows only).
struct Span
{
    uint first;
    uint count;
    uint run;
    float lowWeight;
    float highWeight;
    float scale;
};
