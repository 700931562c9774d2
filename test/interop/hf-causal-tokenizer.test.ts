// A causal LM's directory follows transformers' convention for decoders: `tok(prompt)` gives the bos
// token and the prompt's ids, with no end-of-sequence token after them, so that the usual
// `model.generate(**tok(prompt))` continues the prompt and agrees with Kiln's greedy generation. Tiny
// Llama and GPT-2 trained for a few steps with the CLI (whose data still ends every line with [SEP]), and
// a Llama with a byte-level BPE tokenizer (`--model bpe`); one Python process
// (test/python/hf_causal_tokenizer.py) reads their directories.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadTokenizer } from "../../src/text/index.js";
import { TextGenerationPipeline } from "../../src/index.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { kiln, prepareTinyCausalData, tinyCausalTrainArgs } from "../helpers/tiny-causal-cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const PROMPTS = ["The state of the Union is", "Congress shall", "We must act now, and"];
const NEW_TOKENS = 8;

interface HfSide {
  ids: number[][];
  pair: number[];
  generated: number[][];
}

const root = tempDir("kiln-causal-tok-");

test(
  "transformers' tok(prompt) on a Kiln causal LM's directory is bos + ids, and its greedy generate is Kiln's",
  { skip: pythonSkip },
  async () => {
    const data = prepareTinyCausalData(root);
    // The same corpus with a byte-level BPE tokenizer (`--model bpe`).
    const bpe = { tokenizer: join(root, "bpe-tokenizer"), shards: join(root, "bpe-shards") };
    kiln(..."tokenizer train --model bpe --vocab-size 400 --input".split(" "), join(root, "corpus.txt"), "--out", bpe.tokenizer);
    kiln(
      ..."data prepare --max-length 32 --validation-fraction 0.1 --quiet --tokenizer".split(" "),
      bpe.tokenizer,
      "--input",
      join(root, "corpus.txt"),
      "--out",
      bpe.shards,
    );
    const runs = { "llama-tiny": data, "gpt2-tiny": data, "llama-tiny with BPE": bpe };
    const dirs: Record<string, string> = {};
    for (const [name, d] of Object.entries(runs)) {
      dirs[name] = join(root, name.replaceAll(" ", "-"));
      kiln(...tinyCausalTrainArgs(d, dirs[name], 4).map((a) => (a === "llama-tiny" ? name.split(" ")[0]! : a)));
    }
    const hf = runPython<Record<string, HfSide>>("hf_causal_tokenizer.py", [], {
      input: JSON.stringify({ dirs: Object.values(dirs), prompts: PROMPTS, max_new_tokens: NEW_TOKENS }),
    });
    for (const [preset, dir] of Object.entries(dirs)) {
      const trainingTok = await loadTokenizer(runs[preset as keyof typeof runs].tokenizer);
      const theirs = hf[dir]!;
      const ownTok = await loadTokenizer(dir);
      const pipe = await TextGenerationPipeline.fromPretrained(dir);
      for (const [i, prompt] of PROMPTS.entries()) {
        const body = trainingTok.encode(prompt, { addSpecialTokens: false });
        assert.deepEqual(theirs.ids[i], [trainingTok.clsId, ...body], `${preset}: tok(${JSON.stringify(prompt)}) is bos + ids, no eos`);
        assert.deepEqual(ownTok.encode(prompt), theirs.ids[i], `${preset}: Kiln reads the directory's template`);
        assert.deepEqual(pipe.encode(prompt), theirs.ids[i], `${preset}: kiln generate's prompt ids`);
        const kilnGen = await pipe.generate(prompt, { greedy: true, maxNewTokens: NEW_TOKENS });
        assert.deepEqual(kilnGen.tokenIds[0], theirs.generated[i], `${preset}: greedy continuation of ${JSON.stringify(prompt)}`);
      }
      assert.deepEqual(theirs.pair, ownTok.encode(PROMPTS[0]!).concat(ownTok.encode(PROMPTS[1]!)), `${preset}: a pair is bos A bos B`);
      // The training tokenizer still wraps lines in [CLS] … [SEP]: the model learns where a text ends.
      assert.equal(trainingTok.encode(PROMPTS[0]!).at(-1), trainingTok.sepId);
    }
  },
);
