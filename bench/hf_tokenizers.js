// Hugging Face's tokenizers (the Rust library, through its official Node binding, npm
// "tokenizers") timed as bench_tokenizer --tokenizer times pescope: median seconds to read a
// tokenizer.json and to encode a text (special tokens added) after a warm-up, one JSON line.
//
//   node hf_tokenizers.js TOKENIZER_JSON TEXT_FILE RUNS
const fs = require("fs");
const { Tokenizer } = require("tokenizers");

const [file, textFile, runsText] = process.argv.slice(2);
const runs = Number(runsText || 5);
const text = fs.readFileSync(textFile, "utf8");

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeRuns(work) {
  await work(); // warm-up
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const start = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return median(times);
}

(async () => {
  let tokenizer = null;
  const load = await timeRuns(async () => { tokenizer = Tokenizer.fromFile(file); });
  let tokens = 0;
  const encode = await timeRuns(async () => {
    const e = await tokenizer.encode(text, null, { addSpecialTokens: true });
    tokens = e.getIds().length;
  });
  console.log(JSON.stringify({ load_s: load, encode_s: encode, tokens }));
})();
