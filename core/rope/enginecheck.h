// An inference engine's RoPE numbers checked against the Hugging Face reference: the file read at
// its own precision (a .npy array, a safetensors tensor, a GGUF file's rope_freqs), its shape
// turned into a table (leading dimensions of 1 dropped: HF's forward returns batch x positions x
// dims; a trailing 2 is complex pairs), what it holds guessed, and ropeVerify() run on it. Shared
// by `pescope verify`, `pescope export --view verify` and the window's File > Check engine table.
#pragma once

#include "ropeverify.h"

#include <QStringList>

namespace pe {

// Largest candidate compared (values; the reference and each hypothesis are as large).
constexpr qint64 maxRopeCandidateValues = qint64(1) << 25;

// Which of a GGUF's frequency factor tensors a candidate is.
enum class RopeFactorSet { Single, Long, Short };

struct RopeCandidate
{
    QString file;
    QString tensor;
    QString typeName;                     // as stored: "<f4", "F32", "BF16"
    TensorDType dtype = TensorDType::F32; // the precision it was read at
    std::vector<qint64> shape;            // as stored
    RopeTable values;                     // rows x columns; complex pairs flattened
    bool complexPairs = false;            // a trailing dimension of 2: (real, imag) per pair
    // llama.cpp's per-pair divisors of theta_i: a GGUF's rope_freqs.weight (llama3),
    // rope_factors_long.weight or rope_factors_short.weight (longrope).
    bool ggufFrequencyFactors = false;
    RopeFactorSet factorSet = RopeFactorSet::Single;

    // "cos of /path/engine.npy, <f4 [1, 4096, 64]"; brief: the file's name only.
    QString description(bool brief = false) const;
};

// FILE or FILE:TENSOR (a path that exists as given wins over a split at its last colon); a .gguf
// file without TENSOR is its rope_freqs.weight, or, where it has none, the longrope factor set
// llama.cpp uses (rope_factors_long.weight when `longContext`, the context beyond the original
// one, else rope_factors_short.weight); a file with one tensor needs no name. nullopt with *error
// naming the file and the problem (not a tensor file, no such tensor, a shape that is no RoPE
// table, more than maxRopeCandidateValues values).
std::optional<RopeCandidate> readRopeCandidate(const QString &against, QString *error,
                                               bool longContext = false);

// Sets `c`'s rows and columns from its shape (as stored): leading dimensions of 1 dropped (HF's
// forward returns batch x positions x dims), a trailing 2 read as complex pairs. false with
// *error naming the candidate where the shape is no RoPE table: more than 2 dimensions (3 for
// complex pairs), or empty (no positions or no columns). readRopeCandidate() and pescope.verify
// both shape their candidates here, so both refuse the same arrays with the same message.
bool ropeCandidateShape(RopeCandidate *c, QString *error);

// What the candidate holds when not told: a GGUF's rope_freqs and 1-D arrays are inverse
// frequencies, one value the attention factor, complex pairs cos-sin, a matrix whose first row
// (position 0) is half zeros and half one value cos-sin (vLLM's cos_sin_cache, ggml's cache),
// another matrix a cos table.
RopeQuantity guessRopeQuantity(const RopeCandidate &candidate);

struct EngineCheckRequest
{
    qint64 headDim = 0;
    RopeConfig config; // the model layer's parameters; sequenceLength is set by the check
    QString reference; // "layer 0 (full_attention): rope, base 500,000, ... (config.json)"
    QString against;   // FILE[:TENSOR]
    std::optional<RopeQuantity> what;     // guessed when unset
    std::optional<qint64> sequenceLength; // HF's seq_len; unset: the table's rows (tables)
    RopeVerifyOptions options;            // what and precision are filled in; layout Auto detects
    qint64 errorGridRows = 0;             // > 0: the result's error grid, for the figure
};

struct EngineCheck
{
    EngineCheckRequest request;
    QString candidate;         // RopeCandidate::description()
    QString candidateBrief;    // the same with the file's name only, for figure titles
    RopeVerifyOptions options; // as compared
    RopeConfig config;         // as compared (sequenceLength set)
    RopeVerifyResult result;
    // For inv_freq candidates, their frequencies; the result's error grid then holds the cos /
    // sin difference they make over max_position_embeddings (at most 2^20 positions).
    std::vector<double> candidateFrequencies;
    // What the command prints: reference, checked, layout, sequence length, the verdict lines.
    QStringList lines;
    QString verdict() const;   // the first verdict line
    QString diagnosis() const; // "diagnosis: ..." or empty
};

// Reads the candidate and compares it. nullopt with *error (one line naming the problem) for a
// file that cannot be read or a candidate no layout explains.
std::optional<EngineCheck> runEngineCheck(const EngineCheckRequest &request, QString *error);

// The same for a candidate already in memory (pescope.verify's arrays; request.against unused):
// its description is the "checked:" line's.
std::optional<EngineCheck> checkRopeCandidate(const EngineCheckRequest &request,
                                              RopeCandidate candidate, QString *error);

} // namespace pe
