#include "model/layerzeronorms.h"

#include "model/torchmath.h"

#include <QFloat16>

#include <cmath>
#include <cstring>
#include <vector>

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
    // LlamaRMSNorm.forward / GemmaRMSNorm._norm: x * rsqrt(x.pow(2).mean(-1) + eps) in float32,
    // each step rounded as torch rounds it: the squares, their sum in torch's order
    // (torchmath.h), the mean, eps added as a float32, then 1 / sqrt. A float64 mean instead
    // moved llama-tiny4's fourth-layer attention by up to 1.2e-5 (tst_forwardpass).
    thread_local std::vector<float> squares;
    squares.resize(std::size_t(n));
    for (qint64 i = 0; i < n; ++i)
        squares[std::size_t(i)] = row[i] * row[i];
    const float variance = torchmath::sum(squares.data(), n) / float(n);
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
