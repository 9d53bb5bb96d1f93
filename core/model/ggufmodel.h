// GgufModel: a llama.cpp GGUF file as layer 0 and the forward pass read it. llama.cpp's metadata
// becomes the config.json keys the plans read (layerzeroplan.h, forwardplan.h), llama.cpp's
// tensor names replace transformers' in the plans, and the query / key rows that llama.cpp's
// converter permuted for its rotary layout are put back in transformers' order. The computation
// then is the safetensors model's: transformers' eager float32 forward of the same weights.
//
// Architectures (general.architecture): llama (Llama and Mistral, which convert_hf_to_gguf.py
// writes as llama), qwen2, qwen3 and gpt2; every other one is refused by name. Tensor types:
// F32, F16, BF16 and Q8_0 (tensorinfo.h), read one layer at a time like safetensors weights.
#pragma once

#include "model/forwardplan.h"
#include "model/layerzeroweights.h"
#include "model/safetensorsmodel.h"

#include <optional>

namespace pe {

class GgufFile;

// The keys of a config.json that `file` (whose metadata read as `config`) stands for:
// model_type, intermediate_size (feed_forward_length), the norms' epsilon, attention_bias and
// mlp_bias (whether layer 0 has those bias tensors), tie_word_embeddings (no output.weight),
// the activation llama.cpp applies, and dtype float32 (transformers dequantizes a GGUF file to
// float32). Nullopt with one sentence naming the file and the architecture or key.
std::optional<QJsonObject> ggufConfigJson(const GgufFile &file, const ModelConfig &config,
                                          QString *error);

// `location` (a GGUF file) opened for `what` ("layer 0", "the forward pass"): its config from
// the metadata and the JSON above.
std::optional<SafetensorsModel> openGgufModel(ModelLocation location, const QString &what,
                                              QString *error);

// llama.cpp's tensor names (llama-arch.cpp LLM_TENSOR_NAMES) in place of transformers', and
// the layouts llama.cpp stores: GPT-2's fused attn_qkv as nn.Linear ([q | k | v] rows, the
// converter transposes Conv1D), the other GPT-2 matrices as nn.Linear too.
void useGgufNames(LayerZeroPlan *plan);
void useGgufNames(ForwardPlan *plan);

// Undoes convert_hf_to_gguf.py's LlamaModel.permute(w, n_head, n_head) (queries) and
// permute(w, n_head, n_head_kv) (keys): w.reshape(n, 2, head_dim / 2, ...).swapaxes(1, 2), which
// moves row h * head_dim + j * head_dim / 2 + i (transformers' rotate_half halves) to
// h * head_dim + 2 i + j (llama.cpp's interleaved pairs). Rows and bias of `p`, `heads` heads.
void unpermuteGgufRope(Projection *p, qint64 heads, qint64 headDim);

} // namespace pe
