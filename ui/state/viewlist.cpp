#include "state/viewlist.h"

#include <QStringList>

#include <algorithm>

#include <vector>

namespace pe {

namespace {

using J = ViewJob;
using M = ViewMotion;
using F = ViewFormula;

// One view an entry, in menu order; an entry's index is its view's value (checked below).
// clang-format off
constexpr ViewEntry entries[] = {
    {.view = FigureView::Heatmap, .name = "heatmap", .label = "Heatmap", .title = "Heatmap",
     .page = Page::Encoding, .job = J::Encoding, .motion = M::Marker,
     .help = "The whole encoding matrix: one row per position <i>p</i>, one column per dimension "
             "<i>i</i> (dims across the rows when transposed, as in Géron's Fig 16-9), coloured "
             "by value. Hover a cell for its numbers (the status bar shows its formula); click to "
             "select it.",
     .parameters = F::Encoding,
     .dataShape = "positions x dims float32, as shown (dims x positions when transposed)"},
    {.view = FigureView::Waves, .name = "waves", .label = "Waves", .title = "Waves",
     .page = Page::Encoding, .job = J::Encoding, .motion = M::Marker,
     .help = "Chosen columns of the matrix against the position: each curve is one dimension "
             "<i>i</i>. Markers put dots on every curve at their positions; the readout lists the "
             "positions whose values in every plotted dim lie within the tolerance of the "
             "selected position's (Fig 16-9's p = 22 and p = 60).",
     .parameters = F::Encoding,
     .dataShape = "positions x (1 + plotted dims) float32; column 0 is p"},
    {.view = FigureView::Phrases, .name = "phrases", .label = "Phrases",
     .title = "Random vs fixed (seed 001)",
     .page = Page::Phrases, .job = J::Phrases, .motion = M::Token,
     .help = "Each phrase as its model sees it (MachineLearningMastery, Keras): lower-cased, "
             "punctuation stripped, split on spaces, each word an id (by frequency; 1 for unknown "
             "words, 0 for padding), padded or cut to the sequence length. Each row is one "
             "token's vector; <i>random</i> draws both tables, <i>fixed</i> makes both "
             "sinusoidal.",
     .formula = "out[<i>t</i>] = word_table[id<sub><i>t</i></sub>] + position_table[<i>t</i>]",
     .dataShape = "2 x phrases x sequence length x dims float32 (random, fixed)"},
    {.view = FigureView::PhraseDifference, .name = "phrase-difference",
     .label = "Phrase difference", .title = "Phrase difference",
     .page = Page::Phrases, .job = J::Phrases, .motion = M::Token, .needs = {.phrases = 2},
     .help = "Phrase B minus phrase A, token by token: where both have the same word at the same "
             "position the difference is zero, since the same word at the same position embeds "
             "the same.",
     .formula = "diff[<i>t</i>, <i>i</i>] = out<sub>B</sub>[<i>t</i>, <i>i</i>] − "
                "out<sub>A</sub>[<i>t</i>, <i>i</i>]",
     .dataShape = "2 x sequence length x dims float32: B - A (random, fixed)"},
    {.view = FigureView::TokenSimilarity, .name = "token-similarity",
     .label = "Token similarity", .title = "Token similarity",
     .page = Page::Phrases, .job = J::Phrases, .motion = M::Token,
     .help = "How alike the clicked token of one phrase is to every token of the other: the "
             "cosine of their embedding vectors.",
     .formula = "cos(<i>u</i>, <i>v</i>) = <i>u</i>·<i>v</i> / (|<i>u</i>| |<i>v</i>|)",
     .dataShape = "2 x sequence length float32 cosines (random, fixed)"},
    {.view = FigureView::Spectrum, .name = "spectrum", .label = "Spectrum",
     .title = "RoPE spectrum", .page = Page::Schemes, .job = J::Schemes,
     .help = "Each rotary pair's wavelength, the positions one full turn takes, for "
             "configuration A (the window's encoding) and B, against the original context: "
             "scaling rules stretch the long wavelengths.",
     .formula = "λ<sub><i>i</i></sub> = 2π / θ<sub><i>i</i></sub>; A: ",
     .parameters = F::RopeA,
     .keys = {"compare"},
     .tip = "Wavelength 2π/θ per pair, unscaled and scaled, and the original context: how PI, NTK, "
            "YaRN and Llama 3 stretch the spectrum",
     .guestOn = Page::Model,
     .guestTip = "The chosen layer's wavelength 2π/θ per pair, unscaled and scaled, and its "
                 "original context (B: the Schemes page's comparison, when it differs)"},
    {.view = FigureView::Rotation, .name = "rotation", .label = "Rotation",
     .title = "RoPE rotation", .page = Page::Schemes, .job = J::Schemes,
     .motion = M::RotationPosition,
     .help = "The vector of a few pairs as the position advances: pair <i>i</i> turns by "
             "θ<sub><i>i</i></sub> per position, so fast pairs circle many times while slow ones "
             "barely move.",
     .formula = "(x′, y′) = (x cos <i>p</i>θ<sub><i>i</i></sub> − y sin "
                "<i>p</i>θ<sub><i>i</i></sub>, x sin <i>p</i>θ<sub><i>i</i></sub> + "
                "y cos <i>p</i>θ<sub><i>i</i></sub>); ",
     .parameters = F::RopeA,
     .keys = {"rotationPair", "rotationPosition"},
     .tip = "The rotating vector of a few pairs as the position advances",
     .guestOn = Page::Model,
     .guestTip = "The chosen layer's rotating vector of a few pairs as the position advances"},
    {.view = FigureView::Decay, .name = "decay", .label = "Decay",
     .title = "RoPE long-term decay", .page = Page::Schemes, .job = J::Schemes,
     .help = "RoFormer §3.4.3: the score of an all-ones query and key at relative distance "
             "<i>n</i>, over the score at 0. It falls with distance; scaling moves where.",
     .formula = "score(<i>n</i>) = [(<i>d</i> − <i>r</i>) + 2 Σ<sub><i>i</i></sub> "
                "cos(<i>n</i>θ<sub><i>i</i></sub>)] / <i>d</i>, <i>r</i> rotated dims; ",
     .parameters = F::RopeA,
     .keys = {"decayDistance", "decayReferences", "decayEnvelope", "decayLog", "compare"},
     .tip = "RoFormer §3.4.3: the score of identical all-ones q and k against relative distance",
     .guestOn = Page::Model,
     .guestTip = "RoFormer §3.4.3: the chosen layer's score of identical all-ones q and k against "
                 "relative distance"},
    {.view = FigureView::Similarity, .name = "similarity", .label = "Similarity",
     .title = "Position similarity", .page = Page::Schemes, .job = J::Schemes,
     .help = "How alike two positions' vectors are: near the diagonal alike, far from it less "
             "so, for a good encoding.",
     .helpTitle = "Position similarity",
     .formula = "sim(<i>p</i>, <i>q</i>) = PE(<i>p</i>)·PE(<i>q</i>) or its cosine; ",
     .parameters = F::Encoding,
     .keys = {"metric", "squarePositions"},
     .tip = "PE(p) · PE(q) (dot or cosine) of the encoding page's scheme"},
    {.view = FigureView::Alibi, .name = "alibi", .label = "ALiBi", .title = "ALiBi bias",
     .page = Page::Schemes, .job = J::Schemes,
     .help = "No position vectors at all: attention scores get a penalty growing linearly with "
             "the distance between query and key.",
     .parameters = F::Scheme,
     .keys = {"squarePositions", "alibi"},
     .tip = "ALiBi's bias −m·|i − j| of one head"},
    {.view = FigureView::T5, .name = "t5", .label = "T5", .title = "T5 buckets",
     .page = Page::Schemes, .job = J::Schemes,
     .help = "T5's relative positions: each query-key distance falls in a bucket, and each "
             "bucket has a learned bias.",
     .helpTitle = "T5 buckets",
     .parameters = F::Scheme,
     .keys = {"squarePositions", "t5"},
     .tip = "T5's relative position bucket ids"},
    {.view = FigureView::Compare, .name = "compare", .label = "Compare A/B",
     .title = "Compare A / B", .page = Page::Schemes, .job = J::Schemes,
     .help = "Two RoPE configurations side by side: A is the window's encoding, B the Schemes "
             "page's configuration B.",
     .parameters = F::RopeAB,
     .keys = {"metric", "squarePositions", "compare"},
     .tip = "Similarity of configuration A (the encoding page) and B side by side, one colour "
            "scale"},
    {.view = FigureView::Pca, .name = "pca", .label = "Table: PCA", .title = "PCA",
     .page = Page::Model, .job = J::Table,
     .help = "Each position's row projected on the table's first principal components, "
             "coloured by position: GPT-2's table draws a helix.",
     .formula = "x<sub><i>p</i></sub> = (W[<i>p</i>] − mean)·<i>v</i><sub>k</sub>, "
                "<i>v</i><sub>k</sub> the covariance's top eigenvectors",
     .dataShape = "positions x components float32 principal component scores",
     .tip = "Principal components of the position vectors, coloured by position: GPT-2's table "
            "draws a helix"},
    {.view = FigureView::TableSimilarity, .name = "table-similarity",
     .label = "Table: position similarity", .title = "Position similarity",
     .page = Page::Model, .job = J::Table,
     .help = "The cosine of every pair of rows of the model's learned position table: a band "
             "along the diagonal means nearby positions look alike.",
     .formula = "sim(<i>p</i>, <i>q</i>) = cos(W[<i>p</i>], W[<i>q</i>])",
     .dataShape = "positions x positions float32 cosines of the table's rows",
     .tip = "Cosine similarity of every pair of positions of the learned table"},
    {.view = FigureView::SinusoidFit, .name = "sinusoid-fit", .label = "Table: sinusoid fit",
     .title = "Sinusoid fit", .page = Page::Model, .job = J::Table,
     .help = "For one dimension of the learned table, its values against the position and the "
             "sinusoid that fits them best (R² says how well): how close training came to the "
             "formula.",
     .formula = "W[<i>p</i>, <i>i</i>] ≈ <i>a</i> sin(ω<i>p</i> + φ) + <i>c</i>, least squares",
     .dataShape = "dims x 3 float32: angular frequency, phase, R^2 of each dim's fit",
     .tip = "For each dimension the best-fitting sinusoid (frequency, phase, R²): how close the "
            "learned table is to the formula"},
    {.view = FigureView::EngineCheck, .name = "verify", .label = "Engine check",
     .title = "Engine check", .page = Page::Model, .job = J::EngineCheck,
     .help = "An inference engine's RoPE table against Hugging Face's for the model's config: "
             "the error per position and pair, the verdict, and the known mistake the difference "
             "matches.",
     .formula = "err(<i>p</i>, <i>i</i>) = max |table − HF| over pair <i>i</i>'s columns at "
                "position <i>p</i>; HF: cos / sin(<i>p</i>θ<sub><i>i</i></sub>) × attention "
                "factor"},
    {.view = FigureView::ModelTokens, .name = "tokens", .label = "Model tokens",
     .title = "The model's tokens", .page = Page::Phrases, .job = J::ModelPhrases,
     .needs = {.model = true},
     .help = "Each phrase goes through the open model's tokenizer.json as Hugging Face's "
             "<i>tokenizers</i> splits it: the strips show its tokens with their ids. <b>␣</b> "
             "marks the space a token starts or ends with (byte-level BPE writes it Ġ, "
             "SentencePiece ▁); a token's tooltip gives the raw token, the text it covers and the "
             "normalized phrase.",
     .helpTitle = "The model's own tokens",
     .formula = "ids = tokenizer.encode(phrase), with the model's special tokens",
     .dataShape = "tokens float32: the chosen phrase's token ids"},
    {.view = FigureView::ModelAttention, .name = "attention",
     .label = "Positions in attention", .title = "Positions in attention",
     .page = Page::Phrases, .job = J::ModelPhrases,
     .needs = {.model = true},
     .help = "<b>Positions in attention</b>: layer 0's attention weights of phrase A or B, for "
             "one head or the mean of the heads, computed with the model's position encoding "
             "and without it, and the difference: what positions change in who attends to whom.",
     .formula = "softmax(<i>q</i>·<i>k</i> / √<i>d</i>) of layer 0, with positions, without, "
                "and with − without",
     .dataShape = "2 x heads x tokens x tokens float32: layer 0's attention with positions, "
                  "without (with --attention-head N|mean: 3 x tokens x tokens, that head or the "
                  "mean of the heads with, without, with − without)"},
    {.view = FigureView::ModelEmbeddings, .name = "embeddings", .label = "Model embeddings",
     .title = "The model's embeddings", .page = Page::Phrases, .job = J::ModelPhrases,
     .needs = {.model = true},
     .help = "hidden_states[0], the vectors layer 0 receives (token embeddings, plus the "
             "position table for models that add one at the input), with and without positions.",
     .formula = "hidden_states[0][<i>t</i>] = embed[id<sub><i>t</i></sub>] (+ wpe[<i>t</i>] "
                "where the model adds a position table)",
     .dataShape = "2 x tokens x hidden float32: hidden_states[0] with positions, without",
     .tab = "Embeddings"},
    {.view = FigureView::ModelTokenCosine, .name = "token-cosine",
     .label = "Model token similarity", .title = "The model's token similarity",
     .page = Page::Phrases, .job = J::ModelPhrases, .needs = {.phrases = 2, .model = true},
     .help = "The cosine of every token of A with every token of B, and of the two phrases' "
             "mean vectors, with and without positions.",
     .formula = "cos(<i>u</i>, <i>v</i>) = <i>u</i>·<i>v</i> / (|<i>u</i>| |<i>v</i>|); a "
                "phrase's vector is the mean of its tokens'",
     .dataShape = "2 x tokens(A) x tokens(B) float32 cosines, with positions, without",
     .tab = "Token similarity"},
    {.view = FigureView::ContextPairs, .name = "context-pairs", .label = "Context: pairs",
     .title = "Long context: pairs", .page = Page::Schemes, .job = J::Schemes,
     .help = "Configuration A at the context it claims (its positions; a config's "
             "max_position_embeddings): each rotary pair's wavelength without the scaling rule "
             "and with it, against the training context and the claimed one. Shaded: the pairs "
             "the rule leaves unchanged, blends (llama3's middle band, YaRN's ramp) or "
             "interpolates by its full factor. A wavelength above the training context never "
             "completed a turn in training: Liu et al. 2023's critical dimension. The numbers are "
             "`pescope context`'s.",
     .helpTitle = "Long context: wavelengths and the rule's bands",
     .formula = "λ<sub><i>i</i></sub> = 2π / θ<sub><i>i</i></sub>; turns = <i>L</i> / "
                "λ<sub><i>i</i></sub>; rule: θ<sub><i>i</i></sub> unscaled / scaled = 1 "
                "unchanged, = <i>s</i> interpolated, between blended; A: ",
     .parameters = F::RopeA,
     .dataShape = "pairs x 5 float32: pair, wavelength unscaled, wavelength scaled, theta ratio "
                  "unscaled/scaled, rule (0 unchanged, 1 blended, 2 interpolated, 3 sped up, "
                  "4 not rotated)",
     .tip = "Wavelength per pair, scaled and unscaled, with the training and claimed contexts "
            "and the rule's bands"},
    {.view = FigureView::ContextBaseBound, .name = "context-base-bound",
     .label = "Context: base bound", .title = "Long context: base bound",
     .page = Page::Schemes, .job = J::Schemes,
     .help = "Men et al. 2024, \"Base of RoPE Bounds Context Length\": a model can tell "
             "similar tokens at distance <i>m</i> from random ones only while B(<i>m</i>) "
             "stays non-negative, so the first negative <i>m</i> bounds the context its base "
             "supports. Drawn over configuration A's own (scaled) frequencies up to the claimed "
             "context (sampled for drawing; the first negative <i>m</i> is exact and marked), "
             "with the smallest base that keeps B ≥ 0 that far for this head size.",
     .helpTitle = "Long context: Men et al.'s base bound B(m)",
     .formula = "B(<i>m</i>) = Σ<sub><i>i</i></sub> cos(<i>m</i> θ<sub><i>i</i></sub>); A: ",
     .parameters = F::RopeA,
     .dataShape = "samples x 2 float32: distance m, B(m)",
     .tip = "Men et al. 2024's B(m) = Σ cos(m θᵢ) up to the claimed context, its first negative "
            "m marked"},
    {.view = FigureView::ContextPrecision, .name = "context-precision",
     .label = "Context: precision", .title = "Long context: precision",
     .page = Page::Schemes, .job = J::Schemes,
     .help = "Where the dtype breaks, per pair. Top: the error of HF's float32 angle "
             "(float32(<i>p</i>) · float32(θ<sub><i>i</i></sub>)) against float64 at the last "
             "position, in turns, with the 1/1000-turn line. Bottom: the first position whose "
             "angle, formed in bfloat16 or float16, equals its neighbour's (position ids are "
             "exact only up to 256 in bfloat16, 2,048 in float16), against the claimed context.",
     .helpTitle = "Long context: precision of the angles",
     .formula = "err<sub><i>i</i></sub> = |fl32(fl32(<i>L</i> − 1) · fl32(θ<sub><i>i</i></sub>)) "
                "− (<i>L</i> − 1) θ<sub><i>i</i></sub>| / 2π; collision: first <i>p</i> with "
                "fl(fl(<i>p</i> + 1) · fl(θ<sub><i>i</i></sub>)) = fl(fl(<i>p</i>) · "
                "fl(θ<sub><i>i</i></sub>)); A: ",
     .parameters = F::RopeA,
     .dataShape = "pairs x 4 float32: pair, float32 angle error at the last position (turns), "
                  "first bfloat16 collision, first float16 collision (-1: none in the context)",
     .tip = "float32 angle error at the last position and the bfloat16 / float16 collision "
            "positions per pair"},
    {.view = FigureView::LayerAttention, .name = "layer-attention",
     .label = "Attention, every layer", .title = "Attention of every layer and head",
     .page = Page::Phrases, .job = J::ModelForward,
     .needs = {.model = true},
     .help = "Phrase A through the model's whole forward pass: the attention probabilities of "
             "every layer (rows) and head (columns) as small multiples, query rows x key "
             "columns, as transformers' <code>output_attentions=True</code> gives them. Click a "
             "cell to enlarge that layer's head (Layer and Head above the figure; "
             "<code>--attention-layer</code> and <code>--attention-head</code> on the command "
             "line); Layer \"every layer\" returns to the grid. A bright first column is an "
             "attention sink, a bright sub-diagonal a previous-token head.",
     .helpTitle = "Attention of every layer and head (Vaswani et al. 2017)",
     .formula = "<i>A</i><sup>(<i>l</i>,<i>h</i>)</sup>[<i>i</i>, <i>j</i>] = softmax<sub><i>j</i>"
                "</sub>(<i>q</i><sub><i>i</i></sub>·<i>k</i><sub><i>j</i></sub> / √<i>d</i> + "
                "mask) of layer <i>l</i>, head <i>h</i>",
     .dataShape = "layers x heads x tokens x tokens float32: every layer's attention of phrase "
                  "A"},
    {.view = FigureView::DistanceProfiles, .name = "distance-profiles",
     .label = "Attention by distance", .title = "Attention by distance",
     .page = Page::Phrases, .job = J::ModelForward,
     .needs = {.model = true},
     .help = "Each head's mean attention at each relative offset <i>d</i> = query − key, one row "
             "per layer.head: a head whose mass sits at offset 1 looks at the previous token, "
             "one spread evenly ignores distance, one at the largest offsets looks at the first "
             "tokens. Phrase A, every layer.",
     .helpTitle = "Attention by distance (layer.head x offset)",
     .formula = "profile<sup>(<i>l</i>,<i>h</i>)</sup>[<i>d</i>] = (1 / (<i>T</i> − <i>d</i>)) "
                "Σ<sub><i>i</i> ≥ <i>d</i></sub> <i>A</i><sup>(<i>l</i>,<i>h</i>)</sup>[<i>i</i>, "
                "<i>i</i> − <i>d</i>]",
     .dataShape = "layers x heads x tokens float32: mean attention at offset 0 .. tokens - 1"},
    {.view = FigureView::FrequencyAtlas, .name = "frequency-atlas",
     .label = "RoPE frequency atlas", .title = "RoPE frequency atlas",
     .page = Page::Phrases, .job = J::ModelForward,
     .needs = {.model = true},
     .help = "Which rotary frequencies each head uses, after Barbero et al. 2024 (\"Round and "
             "Round We Go! What makes Rotary Positional Encodings useful?\"): each rotary pair's "
             "share of |<i>q</i>·<i>k</i>| over phrase A's query-key pairs, one row per "
             "layer.head, pair 0 the fastest. Heads whose share sits in the fast pairs are "
             "positional; those in the slow pairs use them as semantic channels. A last column "
             "holds the dims the rotation leaves alone (partial rotary). RoPE models only.",
     .helpTitle = "RoPE frequency atlas (Barbero et al. 2024)",
     .formula = "share<sup>(<i>l</i>,<i>h</i>)</sup>[<i>p</i>] = mean<sub><i>j</i> ≤ <i>i</i>"
                "</sub> |<i>q</i><sub><i>i</i>,<i>p</i></sub>·<i>k</i><sub><i>j</i>,<i>p</i></sub>| "
                "/ Σ<sub><i>p′</i></sub> mean |<i>q</i><sub><i>i</i>,<i>p′</i></sub>·"
                "<i>k</i><sub><i>j</i>,<i>p′</i></sub>|, <i>q</i>, <i>k</i> after RoPE",
     .dataShape = "layers x heads x pairs (+1) float32: each rotary pair's share of |q.k|"},
    {.view = FigureView::Sinks, .name = "sinks", .label = "Attention sinks",
     .title = "Attention sinks", .page = Page::Phrases, .job = J::ModelForward,
     .needs = {.model = true},
     .help = "The first-token share of each head (layers x heads): the mean attention every "
             "query of phrase A pays to token 0. Heads above ε = 0.3 are sink heads (outlined), "
             "and each layer's sink rate, the fraction of its heads that are, is beside its row: "
             "the metric of Gu et al. 2024, \"When Attention Sink Emerges in Language Models: An "
             "Empirical View\".",
     .helpTitle = "Attention sinks (Gu et al. 2024)",
     .formula = "α<sub>1</sub><sup>(<i>l</i>,<i>h</i>)</sup> = (1 / <i>T</i>) Σ<sub><i>i</i></sub> "
                "<i>A</i><sup>(<i>l</i>,<i>h</i>)</sup>[<i>i</i>, 0]; sink head: α<sub>1</sub> "
                "&gt; ε = 0.3; sink rate of layer <i>l</i>: the fraction of its heads",
     .dataShape = "layers x heads float32: the first-token share of each head"},
    {.view = FigureView::HiddenNorms, .name = "hidden-norms", .label = "Hidden-state norms",
     .title = "Hidden-state norms", .page = Page::Phrases, .job = J::ModelForward,
     .needs = {.model = true},
     .help = "The L2 norm of every token's hidden state after each layer (hidden_states[0] is "
             "the embedding output, the last after the final norm), as a heatmap of layers x "
             "tokens, with each layer's largest |activation| named: its value, token and "
             "dimension, and its ratio to the layer's median |activation|. Ratios in the "
             "hundreds or thousands at a fixed dimension are the massive activations of Sun et "
             "al. 2024, \"Massive Activations in Large Language Models\".",
     .helpTitle = "Hidden-state norms and massive activations (Sun et al. 2024)",
     .formula = "‖<i>h</i><sub><i>t</i></sub><sup>(<i>l</i>)</sup>‖<sub>2</sub>; largest: "
                "max<sub><i>t</i>,<i>d</i></sub> |<i>h</i><sub><i>t</i>,<i>d</i></sub><sup>"
                "(<i>l</i>)</sup>| / median<sub><i>t</i>,<i>d</i></sub> |<i>h</i><sub><i>t</i>,"
                "<i>d</i></sub><sup>(<i>l</i>)</sup>|",
     .dataShape = "layers + 1 x tokens float32: each token's hidden-state L2 norm"},
    {.view = FigureView::PositionProbe, .name = "position-probe", .label = "Position probe",
     .title = "Position probe", .page = Page::Phrases, .job = J::ModelForward,
     .needs = {.model = true},
     .help = "How well a linear readout recovers each token's position from the hidden states "
             "after each layer: ridge regression (λ = 1, unpenalised intercept) of the position "
             "0 .. <i>T</i> − 1 on phrase A's hidden states, 5-fold cross-validated (token "
             "<i>t</i> in fold <i>t</i> mod 5), R² over the layers. A long phrase gives a "
             "meaningful curve; at least 5 tokens are needed. After the probing method of Alain "
             "and Bengio 2016 (\"Understanding intermediate layers using linear classifier "
             "probes\").",
     .helpTitle = "Position probe (linear probe, cross-validated R²)",
     .formula = "<i>w</i> = (<i>X</i><sup>T</sup><i>X</i> + λ<i>I</i>)<sup>−1</sup><i>X</i>"
                "<sup>T</sup><i>y</i> on centred <i>X</i>, <i>y</i>; R² = 1 − Σ(<i>y</i> − "
                "<i>ŷ</i>)² / Σ(<i>y</i> − <i>ȳ</i>)², <i>ŷ</i> from the fold's held-out fit",
     .dataShape = "layers + 1 float32: the cross-validated R^2 after each layer (0: the "
                  "embeddings)"},
};
// clang-format on

constexpr bool inOrder()
{
    for (std::size_t i = 0; i < std::size(entries); ++i)
        if (std::size_t(entries[i].view) != i)
            return false;
    return std::size(entries) == figureViewCount;
}
static_assert(inOrder(), "viewlist.cpp: one entry for each view, at its view's index");

} // namespace

std::span<const ViewEntry> viewList()
{
    return entries;
}

const ViewEntry &viewEntry(FigureView view)
{
    return entries[std::size_t(view)];
}

QList<FigureView> allFigureViews()
{
    QList<FigureView> views;
    for (const ViewEntry &e : entries)
        views.append(e.view);
    return views;
}

QList<FigureView> viewsOf(Page page)
{
    QList<FigureView> views;
    for (const ViewEntry &e : entries)
        if (e.page == page && e.job != ViewJob::EngineCheck)
            views.append(e.view);
    return views;
}

QList<FigureView> guestsOf(Page page)
{
    QList<FigureView> views;
    for (const ViewEntry &e : entries)
        if (e.guestOn == page)
            views.append(e.view);
    return views;
}

QString viewTabTip(FigureView view, Page page)
{
    const ViewEntry &e = viewEntry(view);
    return QString::fromUtf8(e.page == page ? e.tip : e.guestTip);
}

ChoiceNames schemeViewNames()
{
    // Built once from the constant list above.
    static const std::vector<ChoiceName> names = [] {
        std::vector<ChoiceName> out;
        for (const ViewEntry &e : entries)
            if (e.page == Page::Schemes)
                out.push_back({int(e.view), e.name, e.label, nullptr});
        return out;
    }();
    return names;
}

QList<FigureView> viewsNeeding(const QList<FigureView> &views, ViewJob job)
{
    QList<FigureView> out;
    for (FigureView view : views)
        if (viewNeeds(view, job))
            out.append(view);
    return out;
}

bool anyViewNeeds(const QList<FigureView> &views, ViewJob job)
{
    return std::any_of(views.begin(), views.end(),
                       [job](FigureView view) { return viewNeeds(view, job); });
}

bool viewReadsModelPhrases(FigureView view)
{
    return viewNeeds(view, ViewJob::ModelPhrases) || viewNeeds(view, ViewJob::ModelForward);
}

bool anyViewReadsModelPhrases(const QList<FigureView> &views)
{
    return std::any_of(views.begin(), views.end(), viewReadsModelPhrases);
}

QString viewNeedsProblem(const QList<FigureView> &views, const ViewInputs &given)
{
    // A missing model first: without it no phrase can be counted.
    for (FigureView view : views)
        if (viewEntry(view).needs.model && !given.model)
            return QStringLiteral("the %1 view needs a model").arg(figureViewName(view));
    static const char *const counts[] = {"a phrase", "two phrases", "three phrases"};
    for (FigureView view : views) {
        const ViewNeeds &needs = viewEntry(view).needs;
        if (given.phrases < needs.phrases)
            return QStringLiteral("the %1 view needs %2")
                .arg(figureViewName(view),
                     QLatin1String(counts[std::clamp(needs.phrases, 1, 3) - 1]));
    }
    return {};
}

QStringList schemeKeysReadBy(FigureView view)
{
    QStringList keys;
    for (const char *key : viewEntry(view).keys)
        if (key)
            keys.append(QString::fromUtf8(key));
    return keys;
}

bool anyViewReads(const QList<FigureView> &views, const char *key)
{
    const QString wanted = QString::fromUtf8(key);
    return std::any_of(views.begin(), views.end(), [&wanted](FigureView view) {
        return schemeKeysReadBy(view).contains(wanted);
    });
}

} // namespace pe
