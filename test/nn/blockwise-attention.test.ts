// Blockwise attention (src/nn/blockwise-attention.ts) against the whole-matrix softmax of
// groupedAttention: outputs and gradients equal on the reference interpreter (f64) and on ONNX Runtime
// (f32), causal or not, with padded keys and a sequence that is not a multiple of the tile; gradients
// against finite differences; no value of the compiled forward-and-backward program as large as one
// [seq × seq] score matrix, and its values growing linearly with the sequence; and Llama and GPT-2 with
// attention_block_size equal to the plain ones.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { blockwiseAttention } from "../../src/nn/blockwise-attention.js";
import { causalVisibility, groupedAttention } from "../../src/nn/causal-attention.js";
import { createCausalLM, validateGpt2Config, validateLlamaConfig } from "../../src/models/index.js";
import { checkGrad } from "../helpers/gradcheck.js";
import { randn, rng } from "../helpers/random.js";

k.setDefaultDevice("ref:0");

const rand = (r: () => number, shape: number[], dtype: k.DType) =>
  k.array(
    randn(
      r,
      shape.reduce((a, b) => a * b, 1),
    ),
    { shape, dtype },
  );

/** Row 0 sees every key; row 1 is left-padded by 2 (its first queries see no real key at all). */
const keyMask = (b: number, t: number) =>
  k.array(
    Int32Array.from({ length: b * t }, (_, i) => (Math.floor(i / t) === 1 && i % t < 2 ? 0 : 1)),
    { shape: [b, t], dtype: "i32" },
  );

function plain(q: k.Array, keys: k.Array, values: k.Array, mask: k.Array, causal: boolean, scale: number): k.Array {
  const [b, t] = mask.shape as [number, number];
  const visible = causal ? causalVisibility(mask) : mask.notEqual(0).reshape([b, 1, 1, 1, t]);
  return groupedAttention(q, keys, values, visible, scale);
}

/** Output and gradients (of a fixed random weighting of the output) for q, keys, values. */
function valueAndGrads(
  attend: (q: k.Array, kk: k.Array, v: k.Array) => k.Array,
  args: [k.Array, k.Array, k.Array],
  weights: k.Array,
  device: string,
) {
  return k.jit(
    (q: k.Array, kk: k.Array, v: k.Array) => {
      const out = attend(q, kk, v);
      const grads = k.grad((q: k.Array, kk: k.Array, v: k.Array) => attend(q, kk, v).mul(weights.astype(q.dtype)).sum(), {
        argnums: [0, 1, 2],
      })(q, kk, v);
      return [out, ...grads];
    },
    { device: k.findDevice(device) },
  )(...args) as unknown as k.Array[];
}

function maxRelDiff(a: k.Array, b: k.Array): number {
  assert.deepEqual(a.shape, b.shape);
  const x = a.dataSync(),
    y = b.dataSync();
  let scale = 0,
    worst = 0;
  for (let i = 0; i < x.length; i++) scale = Math.max(scale, Math.abs(Number(y[i])));
  for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(Number(x[i]) - Number(y[i])));
  return worst / Math.max(scale, 1e-30);
}

function compare(device: string, dtype: k.DType, tol: number) {
  const [b, t, heads, kvHeads, d, block] = [2, 11, 4, 2, 4, 4];
  const r = rng(3);
  const args: [k.Array, k.Array, k.Array] = [
    rand(r, [b, t, heads, d], dtype),
    rand(r, [b, kvHeads, t, d], dtype),
    rand(r, [b, kvHeads, t, d], dtype),
  ];
  const weights = rand(r, [b, t, heads * d], dtype);
  const mask = keyMask(b, t);
  const scale = 1 / Math.sqrt(d);
  for (const causal of [true, false]) {
    const want = valueAndGrads((q, kk, v) => plain(q, kk, v, mask, causal, scale), args, weights, device);
    const got = valueAndGrads((q, kk, v) => blockwiseAttention(q, kk, v, mask, { blockSize: block, causal, scale }), args, weights, device);
    ["output", "d q", "d keys", "d values"].forEach((what, i) => {
      const diff = maxRelDiff(got[i]!, want[i]!);
      assert.ok(
        diff < tol,
        `${device} ${dtype} causal=${causal}: ${what} differs by ${diff.toExponential(2)} (relative to its largest element)`,
      );
    });
  }
}

test("blockwise attention equals the whole-matrix softmax, outputs and gradients, on the reference interpreter (f64)", () => {
  compare("ref:0", "f64", 1e-12);
});

test("blockwise attention equals the whole-matrix softmax, outputs and gradients, on ONNX Runtime (f32)", () => {
  compare("cpu:0", "f32", 2e-6);
});

test("blockwise attention's gradients pass central finite differences (f64)", () => {
  const r = rng(7);
  const mask = k.array(Int32Array.from([0, 1, 1, 1, 1]), { shape: [1, 5], dtype: "i32" });
  const weights = rand(r, [1, 5, 4], "f64");
  checkGrad(
    "blockwise_attention",
    (q, kk, v) => blockwiseAttention(q, kk, v, mask, { blockSize: 2, causal: true, scale: 0.7 }).mul(weights).sum(),
    [rand(r, [1, 5, 2, 2], "f64"), rand(r, [1, 1, 5, 2], "f64"), rand(r, [1, 1, 5, 2], "f64")],
  );
});

/** The compiled forward and backward of `attend` at length t: its largest value and all its values' elements. */
function programSize(attend: (q: k.Array, kk: k.Array, v: k.Array, mask: k.Array) => k.Array, t: number) {
  const [b, heads, d] = [1, 2, 4];
  const q = k.zeros([b, t, heads, d]),
    kv = k.zeros([b, 1, t, d]);
  const mask = k.ones([b, t], "i32");
  const program = k
    .jit((q: k.Array, kk: k.Array, v: k.Array) =>
      k.valueAndGrad((q: k.Array, kk: k.Array, v: k.Array) => attend(q, kk, v, mask).sum(), { argnums: [0, 1, 2] })(q, kk, v),
    )
    .lower(q, kv, kv);
  let largest = 0,
    total = 0;
  for (const e of k.allEquations(program))
    for (const v of k.eqnOuts(e)) {
      const size = v.aval.shape.reduce((x, y) => x * y, 1);
      largest = Math.max(largest, size);
      total += size;
    }
  return { largest, total, scores: b * heads * t * t };
}

test("the compiled forward and backward hold no [seq × seq] score matrix, and grow linearly with the sequence", () => {
  const plainAttend = (q: k.Array, kk: k.Array, v: k.Array, mask: k.Array) => plain(q, kk, v, mask, true, 0.5);
  const p64 = programSize(plainAttend, 64),
    p128 = programSize(plainAttend, 128);
  assert.ok(p64.largest >= p64.scores, "the plain path builds the score matrix");
  assert.ok(p128.total / p64.total > 3.5, `the plain path grows with the square of the sequence (${p128.total / p64.total})`);
  for (const causal of [true, false]) {
    const tiled = (q: k.Array, kk: k.Array, v: k.Array, mask: k.Array) =>
      blockwiseAttention(q, kk, v, mask, { blockSize: 16, causal, scale: 0.5 });
    const at64 = programSize(tiled, 64),
      at128 = programSize(tiled, 128);
    assert.ok(
      at128.largest < at128.scores / 2,
      `causal=${causal}: the largest value has ${at128.largest} elements; scores ${at128.scores}`,
    );
    const growth = at128.total / at64.total;
    assert.ok(growth < 2.5, `causal=${causal}: the program's values grow ${growth.toFixed(2)}× when the sequence doubles`);
  }
});

const CAUSAL_CONFIGS = {
  llama: (over: Record<string, unknown>) =>
    validateLlamaConfig(
      {
        model_type: "llama",
        vocab_size: 31,
        hidden_size: 16,
        intermediate_size: 24,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        max_position_embeddings: 32,
        initializer_range: 0.4,
        pad_token_id: 0,
        ...over,
      },
      "test llama",
    ),
  gpt2: (over: Record<string, unknown>) =>
    validateGpt2Config(
      {
        model_type: "gpt2",
        vocab_size: 31,
        n_embd: 16,
        n_layer: 2,
        bos_token_id: 1,
        eos_token_id: 2,
        n_head: 2,
        n_positions: 32,
        initializer_range: 0.4,
        attn_pdrop: 0,
        ...over,
      },
      "test gpt2",
    ),
};

for (const [family, config] of Object.entries(CAUSAL_CONFIGS))
  test(`${family} with attention_block_size: the plain model's hidden states and gradients, left padding included (ORT)`, () => {
    const plainModel = createCausalLM(config({})),
      tiled = createCausalLM(config({ attention_block_size: 4 }));
    const device = k.findDevice("cpu:0");
    const params = k.jit((key: k.Array) => plainModel.init(key), { device })(k.randomKey(0, device));
    const r = rng(11);
    const ids = k.array(
      Int32Array.from({ length: 2 * 13 }, () => 1 + Math.floor(r() * 30)),
      { shape: [2, 13], dtype: "i32" },
    );
    const mask = keyMask(2, 13);
    // A random weighting of the hidden states (their mean square is 1 whatever the weights, after the norm).
    const weights = rand(r, [2, 13, 16], "f32");
    const lossAndGrad = (model: typeof plainModel) =>
      k.jit(
        (p: unknown) =>
          k.valueAndGrad((p: unknown) =>
            model
              .hidden(p as never, ids, mask)
              .mul(weights)
              .sum(),
          )(p),
        { device },
      )(params);
    const [lossA, gradA] = lossAndGrad(plainModel);
    const [lossB, gradB] = lossAndGrad(tiled);
    assert.ok(Math.abs(lossA.item() - lossB.item()) <= 1e-5 * Math.abs(lossA.item()), `loss ${lossB.item()} vs ${lossA.item()}`);
    const a = k.leaves<k.Array>(gradA as k.PyTree),
      bb = k.leaves<k.Array>(gradB as k.PyTree);
    a.forEach((g, i) => assert.ok(maxRelDiff(bb[i]!, g) < 1e-5, `gradient leaf ${i} differs by ${maxRelDiff(bb[i]!, g)}`));
  });

test("attention_block_size is checked: a positive whole number, and no attention dropout beside it (Llama, GPT-2)", () => {
  const base = {
    model_type: "llama",
    vocab_size: 31,
    hidden_size: 16,
    intermediate_size: 24,
    num_hidden_layers: 1,
    num_attention_heads: 4,
  };
  assert.throws(
    () => validateLlamaConfig({ ...base, attention_block_size: 0 }, "c.json"),
    /c\.json: "attention_block_size" must be null or a positive integer, got 0/,
  );
  assert.throws(
    () => validateLlamaConfig({ ...base, attention_block_size: 64, attention_dropout: 0.1 }, "c.json"),
    /set attention_dropout to 0/,
  );
  assert.equal(validateLlamaConfig({ ...base, attention_block_size: null }, "c.json").attention_block_size, null);
  const gpt2 = { model_type: "gpt2", vocab_size: 31, n_embd: 16, n_layer: 1, n_head: 2, n_positions: 32, bos_token_id: 1, eos_token_id: 2 };
  assert.throws(
    () => validateGpt2Config({ ...gpt2, attention_block_size: 64 }, "g.json"),
    /g\.json: .*cannot apply attn_pdrop 0\.1: set attn_pdrop to 0/,
  );
  assert.equal(validateGpt2Config({ ...gpt2, attention_block_size: 64, attn_pdrop: 0 }, "g.json").attention_block_size, 64);
});
