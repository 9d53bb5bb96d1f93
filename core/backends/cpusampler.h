// The CPU half of Backend::sample(): a SamplingPlan evaluated with vectorised fixed-point phases,
// pixel rows spread over all cores.
#pragma once

#include "backends/backend.h"
#include "backends/samplingplan.h"

namespace pe {

// Backend::sample() semantics; threadCount 0 means one per hardware thread.
[[nodiscard]] bool sampleOnCpu(const EncodingSpec &spec, const MatrixWindow &window, int width,
                               int height, float *out, QString *error, int threadCount = 0);

// Evaluates an already built plan (the benchmark times plan and evaluation apart).
void evaluatePlanOnCpu(const EncodingSpec &spec, const SamplingPlan &plan, float *out,
                       int threadCount = 0);

} // namespace pe
