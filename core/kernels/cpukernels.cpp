#include "kernels/cpukernels.h"

#include "backends/phasekernels.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace pe::kernels {

// Why one file with function attributes rather than one file per set compiled with -mavx2 etc.:
// inline helpers (sinOfPhase, mix32) compiled out of line in an AVX file could be the copy the
// linker keeps for every caller, and an older CPU would then fault. Here the out-of-line
// copies are baseline code and only the attributed functions hold wide instructions.
// This file is compiled with -ffp-contract=off (core/CMakeLists.txt) so that no set fuses a
// multiply and an add the others round twice.

#define PE_KERNEL_NS sse2
#define PE_KERNEL_TARGET [[gnu::flatten]]
#include "kernels/kernelloops.inc"
#undef PE_KERNEL_NS
#undef PE_KERNEL_TARGET

#if defined(__x86_64__) && defined(__GNUC__)
#define PE_KERNEL_NS avx2
#define PE_KERNEL_TARGET [[gnu::flatten, gnu::target("avx2")]]
#include "kernels/kernelloops.inc"
#undef PE_KERNEL_NS
#undef PE_KERNEL_TARGET

#define PE_KERNEL_NS avx512
#if defined(__clang__) // the sanitizer and fuzz builds: Clang spells the vector width its own way
#define PE_KERNEL_TARGET                                                                           \
    [[gnu::flatten, gnu::target("avx512f,avx512bw,avx512dq,avx512vl"),                             \
      clang::min_vector_width(512)]]
#else
#define PE_KERNEL_TARGET                                                                           \
    [[gnu::flatten, gnu::target("avx512f,avx512bw,avx512dq,avx512vl,prefer-vector-width=512")]]
#endif
#include "kernels/kernelloops.inc"
#undef PE_KERNEL_NS
#undef PE_KERNEL_TARGET
#define PE_HAVE_X86_KERNELS 1
#endif

namespace {

#define PE_KERNEL_TABLE(ns, isa)                                                                   \
    CpuKernels                                                                                     \
    {                                                                                              \
        isa, ns::phaseRows, ns::phaseAt, ns::learnedRows, ns::learnedAccumulate, ns::accumulate,   \
            ns::closedFormRow, ns::pngFilterRow                                                    \
    }

const CpuKernels sse2Kernels = PE_KERNEL_TABLE(sse2, CpuIsa::Sse2);
#ifdef PE_HAVE_X86_KERNELS
const CpuKernels avx2Kernels = PE_KERNEL_TABLE(avx2, CpuIsa::Avx2);
const CpuKernels avx512Kernels = PE_KERNEL_TABLE(avx512, CpuIsa::Avx512);
#endif

bool cpuRuns(CpuIsa isa)
{
#ifdef PE_HAVE_X86_KERNELS
    // libgcc's checks include the OS's support for the wider registers (XCR0).
    __builtin_cpu_init();
    switch (isa) {
    case CpuIsa::Sse2:
        return true;
    case CpuIsa::Avx2:
        return __builtin_cpu_supports("avx2");
    case CpuIsa::Avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    }
    return false;
#else
    return isa == CpuIsa::Sse2; // the portable loops, whatever the architecture
#endif
}

const CpuKernels *best()
{
    for (const CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2, CpuIsa::Sse2})
        if (const CpuKernels *k = cpuKernelsFor(isa))
            return k;
    return &sse2Kernels;
}

const CpuKernels *fromEnvironment()
{
    const char *value = std::getenv("PE_CPU_KERNELS");
    if (!value || !*value || std::string_view(value) == "auto")
        return best();
    const std::optional<CpuIsa> isa = parseCpuIsa(value);
    if (!isa) {
        std::fprintf(stderr,
                     "pescope: PE_CPU_KERNELS=%s is not avx512, avx2, sse2 or auto; using %s\n",
                     value, cpuIsaName(best()->isa));
        return best();
    }
    const CpuKernels *k = cpuKernelsFor(*isa);
    if (!k) {
        std::fprintf(stderr, "pescope: PE_CPU_KERNELS=%s: this CPU cannot run them; using %s\n",
                     value, cpuIsaName(best()->isa));
        return best();
    }
    return k;
}

std::atomic<const CpuKernels *> forced{nullptr};

} // namespace

const CpuKernels *cpuKernelsFor(CpuIsa isa)
{
    if (!cpuRuns(isa))
        return nullptr;
    switch (isa) {
    case CpuIsa::Sse2:
        return &sse2Kernels;
#ifdef PE_HAVE_X86_KERNELS
    case CpuIsa::Avx2:
        return &avx2Kernels;
    case CpuIsa::Avx512:
        return &avx512Kernels;
#else
    default:
        break;
#endif
    }
    return nullptr;
}

const CpuKernels &cpuKernels()
{
    if (const CpuKernels *k = forced.load(std::memory_order_acquire))
        return *k;
    static const CpuKernels *const chosen = fromEnvironment(); // thread-safe, warns once
    return *chosen;
}

std::vector<CpuIsa> supportedCpuIsas()
{
    std::vector<CpuIsa> isas;
    for (const CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2, CpuIsa::Sse2})
        if (cpuKernelsFor(isa))
            isas.push_back(isa);
    return isas;
}

bool forceCpuKernels(std::optional<CpuIsa> isa)
{
    const CpuKernels *k = isa ? cpuKernelsFor(*isa) : nullptr;
    if (isa && !k)
        return false;
    forced.store(k, std::memory_order_release);
    return true;
}

const char *cpuIsaName(CpuIsa isa)
{
    switch (isa) {
    case CpuIsa::Sse2:
        return "sse2";
    case CpuIsa::Avx2:
        return "avx2";
    case CpuIsa::Avx512:
        return "avx512";
    }
    return "?";
}

std::optional<CpuIsa> parseCpuIsa(std::string_view name)
{
    for (const CpuIsa isa : {CpuIsa::Sse2, CpuIsa::Avx2, CpuIsa::Avx512})
        if (name == cpuIsaName(isa))
            return isa;
    return std::nullopt;
}

} // namespace pe::kernels
