#!/usr/bin/env bash
# Regenerates the teaching figures of docs/figures.md, one `pescope export` process per figure.
#   docs/figures/make-figures.sh [PATH/TO/pescope] [OUT_FOLDER] [png|svg|pdf]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pescope=${1:-$here/../../build/app/pescope}
out=${2:-$here}
ext=${3:-png}

# Géron, Hands-On ML, Figure 16-9: waves i = 100, 101 over the transposed grey heatmap.
"$pescope" export --view waves+heatmap --positions 201 --dims 512 \
  --mark-dims 100,101 --mark-positions 22,60 --cross 35 \
  --transpose --origin lower --crop-dims 150 --colormap gray \
  --title "Sinusoidal positional encoding (Géron, Fig 16-9)" \
  --width 1000 --height 850 --out "$out/fig16-9.$ext"

# Machine Learning Mastery, Keras part 2 (seed 001): random vs fixed embeddings of two phrases.
"$pescope" export --view phrases \
  --text "to understand machine learning algorithms you need to understand concepts such as gradient of a function Hessians of a matrix and optimization etc" \
  --text "patrick henry said give me liberty or give me death when he addressed the second virginia convention in march" \
  --phrase-title "Tech Phrase" --phrase-title "Wise Phrase" \
  --max-tokens 200 --sequence-length 20 --phrase-dims 50 \
  --width 1200 --height 700 --out "$out/seed001-phrases.$ext"

# RoPE rotation, animated (issue 13): each pair turns by θᵢ per position. Always a GIF.
"$pescope" export --view rotation --scheme rope --positions 200 --dims 128 \
  --animate position --from 0 --to 96 --frames 97 --fps 12 --width 720 --height 480 \
  --title "RoPE: each pair turns by θᵢ per position" --out "$out/rope-rotation.gif"

# Longrope's two factor sets (issue 11): Phi-3-mini-128k's published config.json.
"$pescope" export --model "$here/../../tests/data/configs/phi-3-mini-128k-instruct.json" \
  --view spectrum --width 1200 --height 800 --out "$out/spectrum-phi3-longrope.$ext"

# mrope sections (issue 11): Qwen3-VL's interleaved t/h/w pairs, mrope_section [24, 20, 20].
qwen3vl=$(mktemp --suffix=.json)
trap 'rm -f "$qwen3vl"' EXIT
cat >"$qwen3vl" <<'JSON'
{"model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
 "num_hidden_layers": 2, "max_position_embeddings": 128000, "rope_theta": 5000000.0,
 "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}
JSON
"$pescope" export --model "$qwen3vl" --view spectrum --width 1200 --height 800 \
  --out "$out/spectrum-qwen3vl-mrope.$ext"

# Compare A/B with the A − B panel: Llama 3.1's scaling against YaRN (the preset's B).
"$pescope" export --preset rope-llama31-vs-yarn --view compare --width 1500 --height 560 \
  --out "$out/compare-llama31-vs-yarn.$ext"

# The decay view readable: one curve per configuration as its envelope, over log distance.
"$pescope" export --preset rope-decay --view decay --no-decay-references --decay-envelope \
  --decay-log --decay-distance 65536 --width 1200 --height 700 \
  --out "$out/decay-envelope-log.$ext"
