#include "model/layerzeronorms.h"

#include <QFloat16>

#include <cmath>
#include <cstring>

namespace pe {

void applyNorm(NormKind kind, const NormWeights &weights, double eps, float *row, qint64 n)
{
    if (kind == NormKind::None || n <= 0)
        return;
    const bool affine = qint64(weights.weight.size()) == n;
    const bool biased = qint64(weights.bias.size()) == n;
    if (kind == NormKind::LayerNorm) { // torch.nn.functional.layer_norm
        double mean = 0;
        for (qint64 i = 0; i < n; ++i)
            mean += row[i];
        mean /= double(n);
        double variance = 0;
        for (qint64 i = 0; i < n; ++i)
            variance += (row[i] - mean) * (row[i] - mean);
        variance /= double(n);
        const double inverse = 1.0 / std::sqrt(variance + eps);
        for (qint64 i = 0; i < n; ++i) {
            const float normalized = float((row[i] - mean) * inverse);
            row[i] = affine ? normalized * weights.weight[std::size_t(i)] : normalized;
            if (biased)
                row[i] += weights.bias[std::size_t(i)];
        }
        return;
    }
    // LlamaRMSNorm.forward / GemmaRMSNorm._norm: x * rsqrt(mean(x^2) + eps) in float32 (the
    // mean rounded to float32 and eps added in float32 as torch does: over four layers this
    // keeps the whole pass about 10% closer to transformers' numbers, tst_forwardpass).
    double squares = 0;
    for (qint64 i = 0; i < n; ++i)
        squares += double(row[i]) * row[i];
    // torch.rsqrt(variance + eps) on the float32 mean, with eps rounded to float32.
    const float variance = float(squares / double(n));
    const float inverse = 1.0f / std::sqrt(variance + float(eps));
    for (qint64 i = 0; i < n; ++i) {
        const float normalized = row[i] * inverse;
        if (!affine)
            row[i] = normalized;
        else if (kind == NormKind::GemmaRmsNorm) // output * (1.0 + self.weight.float())
            row[i] = normalized * (1.0f + weights.weight[std::size_t(i)]);
        else // self.weight * hidden_states.to(input_dtype)
            row[i] = weights.weight[std::size_t(i)] * normalized;
    }
}

float roundToDType(float value, TensorDType dtype)
{
    switch (dtype) {
    case TensorDType::F16:
        return float(qfloat16(value));
    case TensorDType::BF16: { // c10::detail::round_to_nearest_even
        if (std::isnan(value))
            return value;
        quint32 bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        bits += 0x7fffu + ((bits >> 16) & 1u);
        bits &= 0xffff0000u;
        float rounded = 0;
        std::memcpy(&rounded, &bits, sizeof rounded);
        return rounded;
    }
    case TensorDType::F32:
    case TensorDType::F64:
    case TensorDType::Q8_0: // dequantized to float32, as transformers loads a GGUF file
    case TensorDType::Unsupported:
        break;
    }
    return value;
}

} // namespace pe
