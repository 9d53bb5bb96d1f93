// LayerZeroWeights: the tensors a LayerZeroPlan needs, found in a model's safetensors (one file
// or shards) under the checkpoint's prefix, checked (shape, readable type) and read. Layer 0's
// query / key projections and norms are read once, in float32; the token table and the position
// table stay in the mapped file and only the rows of a phrase are read.
// Internal to core/model (Eigen types).
#pragma once

#include "formats/modeltensors.h"
#include "model/layerzeroplan.h"

#include <Eigen/Core>

#include <QString>

#include <vector>

namespace pe {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace limits {
// Layer 0's query and key projections held in float32 (Llama 3 70B: 288 MiB).
constexpr qint64 maxLayerZeroWeightBytes = qint64(2) << 30;
} // namespace limits

// One LayerNorm / RMSNorm's parameters; an empty weight is the identity (no affine parameters).
struct NormWeights
{
    std::vector<float> weight;
    std::vector<float> bias;
};

// A linear map as nn.Linear stores it: out x in, plus an optional bias.
struct Projection
{
    RowMatrix weight;
    Eigen::VectorXf bias; // empty: no bias
    // The forward pass (forwardweights.h) keeps Conv1D's in x out as stored, which its matrix
    // products read as they are: y = x @ W + b. Layer 0's readers always give out x in.
    bool inputMajor = false;
};

struct LayerZeroWeights
{
    QString prefix;      // the checkpoint's prefix: "model.", "transformer.", "" ...
    QString embedTensor; // full names
    QString positionTensor;
    qint64 vocabRows = 0;                     // rows of the token table
    qint64 positionRows = 0;                  // rows of the position table
    TensorDType tableType = TensorDType::F32; // the token table's stored type
    std::vector<float> tokenTypeRow;          // BERT: token type 0
    NormWeights embedNorm;                    // BERT's embeddings.LayerNorm
    RowMatrix projectIn;                      // OPT: hidden x word_embed_proj_dim
    NormWeights inputNorm;
    Projection query;             // heads * head_dim x hidden
    Projection key;               // kv_heads * head_dim x hidden
    std::vector<float> queryNorm; // Qwen3 / Gemma 3: head_dim
    std::vector<float> keyNorm;
    // The tensors read whole above that hold NaN or infinite values, one line each: they make
    // the attention NaN, which must not pass for data.
    QStringList nonFinite;
};

// Finds and reads what `plan` names. Fails with one sentence naming the tensor (missing,
// quantized or of another type, of the wrong shape) or the limit.
[[nodiscard]] bool loadLayerZeroWeights(const LayerZeroPlan &plan, ModelTensors &tensors,
                                        LayerZeroWeights *out, QString *error);

} // namespace pe
