// The `pescope` Python module: pescope's encodings, model readers, verify and figures over the
// same libraries as the command line, for NumPy, PyTorch and Jupyter (docs/python.md).
#include "encoding.h"
#include "figure.h"
#include "modelinput.h"
#include "phrase.h"
#include "pythonerror.h"
#include "verification.h"

#include "pybindinclude.h"

namespace py = pybind11;
using namespace pe::python;

PYBIND11_MODULE(pescope, module)
{
    module.doc() =
        "pescope: transformer positional encodings - the matrices, a model's RoPE tables, what "
        "a model file holds, a check of someone's RoPE numbers against Hugging Face, and the "
        "figures of `pescope export`. Keyword names are the command line's long options with _ "
        "for -; bad values raise ValueError with the command line's message.";
    module.attr("__version__") = PE_VERSION;
    registerErrorTranslators();

    module.def("encode", &encode, py::arg("scheme") = "sinusoidal", py::kw_only(),
               py::arg("positions") = py::none(), py::arg("dims") = py::none(),
               py::arg("first") = 0, py::arg("backend") = "auto",
               R"(The scheme's encoding matrix: a positions x dims float32 array.

Rows first .. first + positions - 1 of the matrix `pescope data --scheme SCHEME --positions
first + positions --dims DIMS` writes (positions and dims default to the command line's 200 and
128). The scheme's own options are keywords named as its command-line options: base=,
layout= (sinusoidal), rope_type=, factor=, pairing= (rope), seed= (learned), heads= (alibi), ...
(`pescope data --help` lists them). backend: "auto", "cpu" or "gpu". The values are written
straight into the new array's memory with the GIL released. out: a writable C-contiguous float32
array of shape (positions, dims) to write into instead, and return (NumPy's out= convention:
a buffer reused across calls costs no new memory).)");

    module.def("rope_table", &ropeTable, py::arg("config"), py::arg("what") = "inv_freq",
               py::arg("positions") = py::none(), py::arg("layer") = py::none(),
               py::arg("scaled") = false,
               R"(One of a model's RoPE arrays, as `pescope data --config F --what WHAT` writes it.

config: a path to config.json, a model folder, a .gguf file (or a cached repo id), or a dict of
config.json. what: "inv_freq" (float64, one per pair), "attention_factor" (float64, one value),
"cos" or "sin" (float64, positions x rotated dims, Hugging Face's layout), or "matrix" (pescope's
float32 matrix). positions: rows of cos and sin, or the sequence length the dynamic and longrope
rules see (default: max_position_embeddings). layer: the layer (default: the first rotary one).
scaled: cos and sin times the attention factor, as transformers' rotary forward returns them.)");

    module.def("inspect", &inspectModel, py::arg("path"),
               R"(What pescope reads from a model: the dict `pescope inspect PATH --json` prints.

path: a model folder, config.json, a .safetensors, .gguf or .npy file, or a repo id in the
Hugging Face cache. Reads headers only.)");

    module.def("tokens", &tokens, py::arg("model"), py::arg("text"), py::kw_only(),
               py::arg("no_special_tokens") = false,
               R"(A text's tokens as the model's own tokenizer.json gives them (`pescope tokens`).

model: a model folder, a file in one, a repo id in the Hugging Face cache, or a tokenizer.json.
Returns {"text", "ids", "tokens", "offsets"} - offsets as (start, end) Unicode code points into
the text, as the tokenizers library's Encoding.offsets - or a list of them for a list of texts.
The tokenizer's special tokens are added unless no_special_tokens=True.)");

    module.def("phrase", &phrase, py::arg("model"), py::arg("text"), py::kw_only(),
               py::arg("what") = "embeddings", py::arg("layer") = 0, py::arg("positions") = true,
               py::arg("head") = py::none(),
               R"(A typed phrase's embeddings or a layer's attention, as transformers computes them.

`pescope data --model MODEL --phrase TEXT --what WHAT` as a float32 array: "embeddings" is
hidden_states[0] (tokens x hidden), "attention" the attention probabilities of layer `layer`
(heads x tokens x tokens; a later layer through the whole forward pass), for the tokens of the
model's own tokenizer with its special tokens. positions=False: the same without the model's
positions (no rotation in any RoPE layer, no position table added at an absolute model's
input). head (what="attention"): a head from 0 or "mean", tokens x tokens of that head or the
mean of the heads (summed in float64), as the attention view draws it; its with - without panel
is phrase(..., head=h) - phrase(..., head=h, positions=False). A layer the model lacks, or a
phrase longer than the model takes, raises ValueError.)");

    module.def("forward", &forward, py::arg("model"), py::arg("text"), py::kw_only(),
               py::arg("positions") = true, py::arg("window") = 8, py::arg("top_k") = 5,
               py::arg("ridge") = 1.0, py::arg("folds") = 5, py::arg("shift") = 0,
               py::arg("scale") = 1.0, py::arg("theta") = py::none(),
               py::arg("rope_scaling") = py::none(), py::arg("logits") = "all",
               R"(A text through the model's whole forward pass, with what its positions do there.

Returns a dict: "text", "ids", "tokens", "offsets" (as tokens()), and float32 arrays
"attentions" (layers x heads x tokens x tokens), "hidden_states" (layers + 1 x tokens x hidden;
the last after the final norm), "logits" (tokens x vocabulary; logits="last": 1 x vocabulary,
the last token's as transformers' logits_to_keep=1; logits="none": None), and the layer analyses of
`pescope data --what ...` (docs/models.md): "distance" (layers x heads x offset), "head_scores"
(layers x heads x [previous, self, first, window, sink]), "sink_rate" (layers; Gu et al.'s
fraction of heads whose first-token share exceeds 0.3), "frequency_atlas" (layers x heads x
rotary pairs [+ 1 for the values outside them]; None without RoPE), "norms" (layers + 1 x
tokens), "top_activations" (layers + 1 x top_k x [value, token, dim, ratio to median]), "probe"
(layers + 1: the cross-validated R^2 of the token position; None with fewer tokens than folds).
window: the head scores' local window; ridge, folds: the probe's lambda and folds (row r in
fold r % folds). positions=False: the model without its positions in every layer.
The positions ablated in every layer (`pescope data --shift/--scale/--theta/--rope-scaling`):
shift=K: position ids K .. K + L - 1 (RoPE turns by p + K; a learned table adds row p + K);
scale=S: RoPE positions p -> p / S (transformers' rope_type "linear"; refused for a learned
table); theta=B: another rope_theta in every RoPE layer; rope_scaling: another rule, a dict as
transformers' rope_scaling ({"rope_type": "yarn", "factor": 4}). Values the model cannot take
raise ValueError naming them.)");

    bindVerification(module);
    module.def("verify", &verify, py::arg("config"), py::arg("table"), py::arg("what") = py::none(),
               py::arg("positions") = py::none(), py::arg("tolerance") = py::none(),
               py::arg("layout") = py::none(), py::arg("strict") = false,
               py::arg("unscaled") = false,
               R"(Checks RoPE numbers against Hugging Face's rotary embedding for a model's config.

table: anything with __array__ or __dlpack__ (NumPy, a PyTorch tensor on the CPU, JAX), read in
place where it is float32 or float64. what: "inv_freq", "attention_factor", "cos", "sin" or
"cos_sin" (default: inv_freq for 1-D, attention_factor for one value, cos for a table).
positions: the sequence length the rules see (default: the table's rows). tolerance: absolute
for tables, relative for inv_freq and the attention factor (default 1e-6). layout: "half",
"interleaved", "pairs" or "complex" (default: detected). strict: float64 exactness (a table
within float32 rounding then differs). unscaled: the tables are not multiplied by the attention
factor. Returns a pescope.Verification: true when the table
agrees; str() is `pescope verify`'s report, with the diagnosis of a known mistake.)");

    bindFigure(module);
    // The formats from their table (media/outputformats.h); pybind11 keeps the pointer.
    static const std::string figureDoc =
        QStringLiteral(R"(A figure of `pescope export --view VIEW`, with its options as keywords.

preset=, session=, width=, height=, dpi=, print_theme=, font_scale=, colormap=, transpose=,
mark_dims=, mark_positions=, cross=, text= (a list of phrases), the scheme's options, ... (`pescope
export --help` lists them). Shows inline in Jupyter; .save(path) writes %1. Qt runs
on its offscreen platform: no display is needed and no window opens.)")
            .arg(pe::outputLabelList(pe::OutputKind::Figure))
            .toStdString();
    module.def("figure", &makeFigure, py::arg("view") = "heatmap", figureDoc.c_str());

    // GPU contexts are given back while the interpreter still runs.
    module.add_object("_release_backends", py::cpp_function(&releaseBackends));
    py::module_::import("atexit").attr("register")(module.attr("_release_backends"));
}
