// Causal LMs across the Kiln / transformers boundary, both ways. (a) Kiln-initialized tiny Llama (grouped
// key/value heads; tied, and untied with biases) and GPT-2 saved with saveModel load with
// LlamaForCausalLM/GPT2LMHeadModel.from_pretrained with nothing missing or unexpected and no warnings,
// and give Kiln's logits on a right-padded batch and on a left-padded one with position ids. (b)
// transformers' save_pretrained of random tiny models (and a GPT-2 stored the way the original OpenAI
// checkpoints are: no prefix, old attention-mask buffers) load into Kiln with loadModel and give
// transformers' logits. One Python process (test/python/hf_causal_models.py) does the Python side.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import {
  createCausalLM,
  loadModel,
  saveModel,
  validateCausalConfig,
  type CausalConfig,
  type CausalLanguageModel,
  type Params,
} from "../../src/models/index.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOLERANCE = 1e-4;
const VOCAB = 50,
  PAD = 0,
  BOS = 1,
  EOS = 2;

type Logits = Record<string, number[][][]>;
interface Report {
  kiln: Record<
    string,
    {
      info: Record<string, string[]>;
      warnings: string[];
      config: { tie_word_embeddings: boolean; num_key_value_heads: number | null };
      tied: boolean;
      logits: Logits;
    }
  >;
  hf: Record<string, { logits: Logits }>;
}

interface Batch {
  input_ids: number[][];
  attention_mask: number[][];
  position_ids?: number[][];
}

/** Rows of different lengths, padded on the right (as training batches are) or on the left (as generation pads prompts). */
function batches(): Record<string, Batch> {
  const rows = [
    [BOS, 7, 19, 33, 4, 41, 12, 9],
    [BOS, 25, 8, 30, 16],
    [BOS, 44, 6, 21, 38, 11, 27],
  ];
  const len = Math.max(...rows.map((r) => r.length));
  const pad = (r: number[], left: boolean) => {
    const fill = Array<number>(len - r.length).fill(PAD);
    return left ? [...fill, ...r] : [...r, ...fill];
  };
  const mask = (r: number[], left: boolean) =>
    pad(
      r.map(() => 1),
      left,
    ).map((v) => (v === 1 ? 1 : 0));
  const leftMask = rows.map((r) => mask(r, true));
  return {
    right: { input_ids: rows.map((r) => pad(r, false)), attention_mask: rows.map((r) => mask(r, false)) },
    // Positions count real tokens from 0; padding gets position 0 (GPT-2's table has no -1).
    left: {
      input_ids: rows.map((r) => pad(r, true)),
      attention_mask: leftMask,
      position_ids: leftMask.map((m) => {
        let seen = 0;
        return m.map((v) => (v ? seen++ : 0));
      }),
    },
  };
}

const ids = { vocab_size: VOCAB, pad_token_id: PAD, bos_token_id: BOS, eos_token_id: EOS };
const KILN_CONFIGS: Record<string, Record<string, unknown>> = {
  llama: {
    model_type: "llama",
    ...ids,
    hidden_size: 32,
    intermediate_size: 40,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    max_position_embeddings: 64,
    rms_norm_eps: 1e-5,
    tie_word_embeddings: true,
  },
  "llama-untied": {
    model_type: "llama",
    ...ids,
    hidden_size: 32,
    intermediate_size: 40,
    num_hidden_layers: 2,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    max_position_embeddings: 64,
    rope_theta: 20000,
    tie_word_embeddings: false,
    attention_bias: true,
  },
  gpt2: { model_type: "gpt2", ...ids, n_embd: 32, n_layer: 2, n_head: 4, n_positions: 64 },
};

/** Every weight random (norm weights around 1): a parameter read into the wrong place cannot go unnoticed. */
function randomParams(model: CausalLanguageModel, seed: number): Params {
  const params = model.init(k.randomKey(seed));
  let i = 0;
  return k.treeMap((p: k.Array) => p.add(k.normal(k.randomKey(1000 * seed + i++), p.shape, { std: 0.2 })), params) as Params;
}

async function logitsOf(model: CausalLanguageModel, params: Params, b: Batch): Promise<Float32Array> {
  const arr = (rows: number[][]) => k.array(Int32Array.from(rows.flat()), { shape: [rows.length, rows[0]!.length], dtype: "i32" });
  const f = k.jit((p: Params, i: k.Array, m: k.Array, pos: k.Array) => model.lmHead(p, model.hidden(p, i, m, { positionIds: pos })));
  const positions = b.position_ids ?? b.input_ids.map((r) => r.map((_, j) => j));
  return (await f(params, arr(b.input_ids), arr(b.attention_mask), arr(positions)).data()) as Float32Array;
}

/** Largest |ours - theirs| over the real (unpadded) positions. */
function realDiff(ours: Float32Array, theirs: number[][][], mask: number[][]): number {
  let worst = 0,
    at = 0;
  theirs.forEach((row, r) =>
    row.forEach((pos, p) =>
      pos.forEach((v) => {
        if (mask[r]![p]) worst = Math.max(worst, Math.abs(ours[at]! - v));
        at++;
      }),
    ),
  );
  assert.equal(at, ours.length);
  return worst;
}

const root = tempDir("kiln-hf-causal-");
const hfDir = join(root, "hf");
const kiln: Record<string, { model: CausalLanguageModel; params: Params; dir: string }> = {};
let report: Report | undefined;
let setupError: unknown;

if (!pythonSkip) {
  try {
    let seed = 1;
    for (const [name, raw] of Object.entries(KILN_CONFIGS)) {
      const model = createCausalLM(validateCausalConfig(raw, `test config ${name}`));
      const params = randomParams(model, seed++);
      const dir = join(root, "kiln", name);
      await saveModel(dir, model, params);
      kiln[name] = { model, params, dir };
    }
    mkdirSync(hfDir);
    report = runPython<Report>("hf_causal_models.py", [], {
      input: JSON.stringify({
        kiln: Object.fromEntries(Object.entries(kiln).map(([n, m]) => [n, m.dir])),
        out: hfDir,
        vocab_size: VOCAB,
        pad_id: PAD,
        bos_id: BOS,
        eos_id: EOS,
        batches: batches(),
      }),
    });
  } catch (e) {
    setupError = e;
  }
}

function seen(): Report {
  if (setupError) throw setupError;
  return report!;
}

for (const name of Object.keys(KILN_CONFIGS)) {
  test(
    `(a) Kiln's ${name} loads in transformers with nothing missing and no warnings, and gives Kiln's logits`,
    { skip: pythonSkip },
    async (t) => {
      const r = seen().kiln[name]!;
      for (const key of ["missing_keys", "unexpected_keys", "mismatched_keys", "error_msgs"])
        assert.deepEqual(r.info[key] ?? [], [], `${key}: ${r.info[key]}`);
      assert.deepEqual(r.warnings, []);
      const { model, params } = kiln[name]!;
      const tied = (model.config as CausalConfig).tie_word_embeddings;
      assert.equal(r.config.tie_word_embeddings, tied);
      assert.equal(r.tied, tied, "transformers ties the head exactly when Kiln does");
      for (const [batchName, b] of Object.entries(batches())) {
        const diff = realDiff(await logitsOf(model, params, b), r.logits[batchName]!, b.attention_mask);
        t.diagnostic(`${name}, ${batchName}-padded: max |logit difference| ${diff.toExponential(2)}`);
        assert.ok(diff < TOLERANCE, `${batchName}-padded: max |logit difference| ${diff}`);
      }
    },
  );
}

for (const name of ["llama-gqa", "llama-untied", "gpt2", "gpt2-base-old"]) {
  test(`(b) transformers' ${name} loads into Kiln and gives transformers' logits`, { skip: pythonSkip }, async (t) => {
    const r = seen().hf[name]!;
    const loaded = await loadModel(join(hfDir, name), { task: "causal-lm" });
    if (name === "gpt2-base-old") {
      assert.equal(loaded.notices.length, 1, loaded.notices.join("\n"));
      assert.match(loaded.notices[0]!, /4 tensor\(s\) unused by GPT2LMHeadModel: (h\.\d\.attn\.(masked_)?bias(, | and 1 more)){3}$/);
    } else assert.deepEqual(loaded.notices, []);
    for (const [batchName, b] of Object.entries(batches())) {
      const diff = realDiff(await logitsOf(loaded.model, loaded.params, b), r.logits[batchName]!, b.attention_mask);
      t.diagnostic(`${name}, ${batchName}-padded: max |logit difference| ${diff.toExponential(2)}`);
      assert.ok(diff < TOLERANCE, `${batchName}-padded: max |logit difference| ${diff}`);
    }
  });
}
