// Greedy generation, Kiln against transformers: tiny Llama (grouped key/value heads) and GPT-2
// directories Kiln wrote, loaded by AutoModelForCausalLM.from_pretrained, generate 32 tokens with
// generate(do_sample=False) token for token as Kiln's greedy generation does: for a batch of two
// prompts of different lengths (left padding, pad_token_id set; rows that end early padded after their
// end-of-sequence token in both) and for each prompt alone. The weights are initialized with a large
// spread so that no two logits come near a tie. One Python process (test/python/hf_generate.py).
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { presetConfig, createCausalLM, loadModel, saveModel, type CausalConfig } from "../../src/models/index.js";
import { Generator } from "../../src/pipelines/generation/generator.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { rng } from "../helpers/random.js";
import { tempDir } from "../helpers/temp-dir.js";

const NEW_TOKENS = 32;
const VOCAB = 96;
const IDS = { vocabSize: VOCAB, padId: 0, bosId: 1, eosId: 2 };

interface HfRows {
  class: string;
  batch: number[][];
  single: number[][];
  pad: number;
}

const root = tempDir("kiln-hf-generate-");

function prompt(seed: number, n: number): number[] {
  const r = rng(seed);
  return [IDS.bosId, ...Array.from({ length: n - 1 }, () => 3 + Math.floor(r() * (VOCAB - 3)))];
}

const PROMPTS = [prompt(1, 5), prompt(2, 13)];

// End-of-sequence ids that one row of each batch meets before its 32nd token and the other does not
// (checked below): llama's </s> comes up by itself; for GPT-2 a token its first row emits is the end.
const MODELS: Record<string, { config: CausalConfig; cls: string }> = {
  "llama-tiny": { config: { ...presetConfig("llama-tiny", IDS), initializer_range: 0.35 } as CausalConfig, cls: "LlamaForCausalLM" },
  "gpt2-tiny": {
    config: { ...presetConfig("gpt2-tiny", { ...IDS, eosId: 82 }), initializer_range: 0.35 } as CausalConfig,
    cls: "GPT2LMHeadModel",
  },
};

test(
  "greedy generation of 32 tokens: Kiln's tokens are transformers' generate(do_sample=False), batched and alone",
  { skip: pythonSkip },
  async () => {
    const dirs: Record<string, string> = {};
    for (const [name, { config }] of Object.entries(MODELS)) {
      const model = createCausalLM(config);
      dirs[name] = join(root, name);
      await saveModel(dirs[name], model, k.jit((key: k.Array) => model.init(key))(k.randomKey(11)));
    }
    const hf = runPython<Record<string, HfRows>>("hf_generate.py", [], {
      input: JSON.stringify({
        models: Object.entries(dirs).map(([name, dir]) => ({ name, dir })),
        prompts: PROMPTS,
        max_new_tokens: NEW_TOKENS,
      }),
    });
    for (const name of Object.keys(MODELS)) {
      const theirs = hf[name]!;
      assert.equal(theirs.class, MODELS[name]!.cls);
      // Generation reads the directory as any user would.
      const { model, params } = await loadModel(dirs[name]!, { task: "causal-lm" });
      const gen = new Generator(model, params);
      const batch = await gen.generate(PROMPTS, { greedy: true, maxNewTokens: NEW_TOKENS });
      assert.deepEqual(batch.sequences, theirs.batch, `${name}: the left-padded batch`);
      for (const [i, p] of PROMPTS.entries()) {
        const alone = await gen.generate([p], { greedy: true, maxNewTokens: NEW_TOKENS });
        assert.deepEqual(alone.tokens[0], theirs.single[i], `${name}: prompt ${i + 1} alone`);
      }
      // The end-of-sequence path is part of the check: one row stopped early (then padding), one ran to the end.
      assert.deepEqual(batch.finishReasons, name === "llama-tiny" ? ["length", "eos"] : ["eos", "length"], name);
      assert.equal(batch.sequences[0]!.length, NEW_TOKENS);
    }
  },
);
