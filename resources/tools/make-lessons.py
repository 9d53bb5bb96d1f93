# Writes the lessons shipped in resources/lessons (Help > Lessons): run from the repository root,
# `python3 resources/tools/make-lessons.py`. The states are partial: a step opens as the
# defaults plus these keys (ExplorerState::applyJson starts from the defaults), as presets do.
import json, copy
def preset(name): return json.load(open(f'resources/presets/{name}.json'))['state']
def doc(title, steps):
    return {"format":"pescope-lesson","format_version":1,"session_format_version":2,
            "generator":"pescope (hand-written for Help > Lessons)","title":title,"steps":steps}
def step(title, view, state, caption, animation=None):
    s={"title":title,"caption":caption,"view":view,"state":state}
    if animation: s["animation"]=animation
    return s
sin = lambda **kw: {"scheme":"sinusoidal","positions":kw.get("positions",128),"dims":kw.get("dims",128),"base":kw.get("base",10000),"layout":kw.get("layout","interleaved")}
geron = preset('geron-16-9')
L1 = doc("The sinusoidal encoding", [
 step("One vector per position", "waves+heatmap",
      {"page":"encoding","spec":sin(positions=100,dims=128),"colormap":"viridis","waveDims":[0,1,10,11],"selection":"10@0"},
      "Vaswani et al. (2017) add to each token's embedding a vector that depends only on its position p.\n"
      "PE(p, 2i) = sin(p / 10000^(2i/d))    PE(p, 2i+1) = cos(p / 10000^(2i/d))\n"
      "Each row of the heatmap is one position's vector; the curves above are single dimensions i across all positions."),
 step("Géron's Figure 16-9", "waves+heatmap", geron,
      "Hands-On Machine Learning, Figure 16-9: 201 positions, 512 dimensions, dimension 0 at the bottom.\n"
      "Dimensions 100 and 101 are a sine and a cosine of the *same* frequency; the markers at p = 22 and 60 show one vector each.",
      {"parameter":"position","from":22,"to":200,"frames":179}),
 step("Fast and slow dimensions", "waves+heatmap",
      {"page":"encoding","spec":sin(positions=200,dims=128),"colormap":"viridis","waveDims":[0,16,48,96]},
      "The wavelength grows geometrically with i: from 2π at i = 0 to 10000 · 2π at the last pair.\n"
      "Low dimensions change at every step (fine position), high ones barely move (coarse position): like the hands of a clock."),
 step("Nearby positions look alike", "similarity",
      {"page":"schemes","spec":sin(positions=128,dims=128),"schemes":{"view":"similarity"}},
      "Cosine similarity of PE(p) and PE(q) for every pair of positions.\n"
      "PE(p) · PE(q) = Σ_i cos(ω_i (p − q)) depends only on the offset p − q: a bright diagonal band, the same everywhere along it."),
 step("The base sets the range", "waves+heatmap",
      {"page":"encoding","spec":sin(positions=200,dims=64,base=100),"colormap":"viridis","waveDims":[0,20,40]},
      "With base 100 instead of 10,000 the slowest pair turns once in about 100 · 2π ≈ 600 positions instead of 63,000.\n"
      "Play the animation to sweep the base from 100 to 10,000.",
      {"parameter":"base","from":100,"to":10000,"frames":60}),
 step("Interleaved or split", "waves+heatmap",
      {"page":"encoding","spec":sin(positions=100,dims=128,layout="split"),"colormap":"viridis","waveDims":[0,64]},
      "The paper interleaves sin and cos (2i, 2i+1); tensor2tensor and many libraries put all sines first, then all cosines (split).\n"
      "The same numbers, a different column order: check which one a model uses before comparing tables."),
 step("Why it works", "similarity",
      {"page":"schemes","spec":sin(positions=512,dims=128),"schemes":{"view":"similarity"}},
      "For every offset k, PE(p + k) is a rotation of PE(p) (sin and cos pairs): a linear map the model can learn.\n"
      "The slowest pair takes 10000 · 2π ≈ 63,000 positions to turn once, so far positions still differ while nearby ones stay close: *relative* position is easy to read."),
])
keras = preset('keras-phrases')
def kp(mode="fixed", token=2, phrase=0, extra=None):
    s=copy.deepcopy(keras); s["phrases"]["selection"]={"phrase":phrase,"token":token,"mode":mode}
    if extra: s.update(extra)
    return s
L2 = doc("Phrases with positions (the Keras tutorial)", [
 step("Two phrases as token ids", "phrases", kp(),
      "Machine Learning Mastery's Keras tutorial: TextVectorization(max_tokens = 200, output_sequence_length = 20) turns each phrase into 20 token ids, padded with 0.\n"
      "Each row of the grid is one token's embedding plus its position's encoding (output dim 50)."),
 step("Random position embeddings", "phrases", kp(mode="random"),
      "Keras's Embedding layers start random: out[b, p] = word_table[id[b, p]] + position_table[p], both tables drawn at random (seeded).\n"
      "Before training, nothing about the position table tells position 3 from position 4: training must shape it."),
 step("Fixed (sinusoidal) position embeddings", "phrases", kp(mode="fixed"),
      "The tutorial's fixed variant makes both tables sinusoidal: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d)).\n"
      "Compare it with the random grid: here neighbouring positions change smoothly."),
 step("Follow one token", "phrases", kp(token=0),
      "Play the animation: the highlighted token walks along the phrase and its position vector changes smoothly.",
      {"parameter":"position","from":0,"to":19,"frames":20}),
 step("Tech phrase minus wise phrase", "phrase-difference", kp(),
      "Phrase B minus phrase A, token by token.\n"
      "Where both hold the same word at the same position the difference is zero: the same word at the same position embeds the same."),
 step("Which tokens look alike", "token-similarity", kp(),
      "How alike the clicked token of one phrase is to every token of the other: the cosine of their vectors, word plus position.\n"
      "Click another token in the grid to compare it."),
])
def rope(theta=10000, rtype="default", **kw):
    s={"scheme":"rope","positions":kw.pop("positions",1024),"dims":128,"rope_theta":theta,"pairing":"half","rope_type":rtype}
    s.update(kw); return s
llama3 = dict(factor=8, original_max_position_embeddings=8192, low_freq_factor=1, high_freq_factor=4)
L3 = doc("RoPE and context extension", [
 step("Rotation, not addition", "rotation",
      {"page":"schemes","spec":rope(),"schemes":{"view":"rotation","rotationPair":0,"rotationPosition":12}},
      "RoPE (Su et al., 2021) rotates each pair of a query or key by the angle p · θ_i, θ_i = base^(−2i/d).\n"
      "The dot product of a rotated q at p and k at q depends only on p − q: relative position, for free.",
      {"parameter":"position","from":0,"to":64,"frames":65}),
 step("Fast and slow pairs", "spectrum",
      {"page":"schemes","spec":rope(),"schemes":{"view":"spectrum"}},
      "The wavelength of pair i is 2π / θ_i: from about 6 positions to about 54,000 at base 10,000.\n"
      "Pairs whose wavelength exceeds the training context never complete a turn during training."),
 step("Long-term decay", "decay",
      {"page":"schemes","spec":rope(),"schemes":{"view":"decay","decayDistance":4096,"decayReferences":False}},
      "The score of identical all-ones q and k against their distance: it falls as the distance grows, with ripples.\n"
      "This decay is why RoPE models prefer nearby tokens."),
 step("A larger base", "decay", preset('rope-decay'),
      "A is base 10,000; B is base 500,000 with Llama 3.1's scaling; the thin curves are bases 500,000 and 1,000,000 unscaled.\n"
      "A larger base slows every pair, so the decay stretches over longer distances."),
 step("Llama 3.1's rule against YaRN", "spectrum", preset('rope-llama31-vs-yarn'),
      "Both extend 8,192 tokens 8x. llama3 keeps the pairs whose wavelength is under 8192 / 4 = 2048, divides those over 8192 / 1 by 8 and blends between.\n"
      "YaRN ramps between β_fast = 32 and β_slow = 1 rotations within the original context, and scales attention by 0.1 ln(s) + 1."),
 step("Plain interpolation", "spectrum",
      {"page":"schemes","spec":rope(theta=500000,rtype="linear",factor=8),"schemes":{"view":"spectrum","compare":{"rope_theta":500000,"pairing":"half","rope_type":"default"}}},
      "Linear interpolation (position interpolation) divides every angle by the factor: fast pairs too,\n"
      "so nearby tokens become hard to tell apart. Compare A (linear, factor 8) with B (no scaling)."),
 step("Sweep the factor", "spectrum",
      {"page":"schemes","spec":rope(theta=500000,rtype="llama3",**llama3),"schemes":{"view":"spectrum"}},
      "Play the animation to sweep llama3's factor from 1 to 32: the fast pairs stay, the slow pairs stretch, those between blend.",
      {"parameter":"factor","from":1,"to":32,"frames":60}),
])
for name, L in [("01-sinusoidal", L1), ("02-keras-phrases", L2), ("03-rope-context", L3)]:
    with open(f'resources/lessons/{name}.pescope-lesson.json','w') as f:
        json.dump(L, f, indent=2, ensure_ascii=False); f.write('\n')
print("ok")
