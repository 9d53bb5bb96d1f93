// The hot CPU loops (phase tables, viewport sampling, PNG row filters), compiled once per x86-64
// instruction set (SSE2, AVX2, AVX-512) and picked at run time, so one binary is fast everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pe::kernels {

// Ordered from the baseline every x86-64 CPU has to the widest.
enum class CpuIsa { Sse2, Avx2, Avx512 };

// One pixel row of a closed-form viewport sample (see cpusampler.cpp): for each of `columns`
// window columns, the box-filtered value over the cells the row covers.
struct ClosedFormRow
{
    const std::uint64_t *step = nullptr; // the window's column phases
    const std::uint64_t *offset = nullptr;
    const std::uint64_t *centre = nullptr; // the row run's phase to its centre, per column
    const std::uint64_t *span = nullptr;   // and to the cell above the whole cells
    const float *dirichlet = nullptr;      // the run's Dirichlet factors
    const float *low = nullptr;            // values at the partly covered cell below
    float *high = nullptr;                 // out: values at the partly covered cell above
    float *values = nullptr;               // out: the row's values
    std::uint64_t firstCell = 0;           // the first wholly covered cell
    bool wholeCells = false;               // whether any cell is wholly covered
    float lowWeight = 0;
    float highWeight = 0;
    float scale = 0;
    std::int64_t columns = 0;
};

// Every function of one instruction set. Results are bit-identical across sets (no FMA
// contraction, no reassociation): tests compare them.
struct CpuKernels
{
    CpuIsa isa;
    // out[r * dims + j] = sinOfPhase(phase[j] + r * step[j]) for r < rows (phasekernels.h);
    // phase[] is left advanced by rows * step[].
    void (*phaseRows)(const std::uint64_t *step, std::uint64_t *phase, std::int64_t dims,
                      std::int64_t rows, float *out);
    // out[j] = sinOfPhase(cell * step[j] + offset[j]).
    void (*phaseAt)(const std::uint64_t *step, const std::uint64_t *offset, std::uint64_t cell,
                    float *out, std::int64_t n);
    // Learned rows firstRow.. : out[r * dims + j] = learnedValue(rowKey(seed, firstRow + r), j).
    void (*learnedRows)(std::uint64_t seed, std::int64_t dims, std::int64_t firstRow,
                        std::int64_t rows, float *out);
    // acc[j] += weight * learnedValue(key, firstColumn + j).
    void (*learnedAccumulate)(std::uint32_t key, std::uint32_t firstColumn, double weight,
                              double *acc, std::int64_t n);
    // acc[j] += weight * values[j].
    void (*accumulate)(const float *values, double weight, double *acc, std::int64_t n);
    void (*closedFormRow)(const ClosedFormRow &row);
    // One PNG scanline: `pixels` (0xAARRGGBB) unpacked to RGB in `current`, then written to
    // `line` as a filter byte and the filtered bytes; the filter (none, sub or up against
    // `previous`, the row above's RGB) whose output has the smallest sum of absolute signed
    // values wins, libpng's heuristic. current and previous hold 3 * width bytes, line one more.
    void (*pngFilterRow)(const std::uint32_t *pixels, std::int64_t width,
                         const std::uint8_t *previous, std::uint8_t *current, std::uint8_t *line);
};

// The set in use: chosen on first use from the environment variable PE_CPU_KERNELS
// (avx512, avx2, sse2 or auto; unset means auto: the widest this CPU and its OS support) unless
// forceCpuKernels() chose one. A forced set the CPU lacks falls back to auto, with a warning.
const CpuKernels &cpuKernels();

// The set for `isa`, or nullptr when this CPU (or this build) cannot run it.
const CpuKernels *cpuKernelsFor(CpuIsa isa);

// The sets this CPU can run, widest first.
std::vector<CpuIsa> supportedCpuIsas();

// Makes cpuKernels() return `isa`'s set from now on (tests, benchmarks); false when unsupported.
// std::nullopt goes back to the environment's or the automatic choice.
bool forceCpuKernels(std::optional<CpuIsa> isa);

const char *cpuIsaName(CpuIsa isa);
std::optional<CpuIsa> parseCpuIsa(std::string_view name);

} // namespace pe::kernels
