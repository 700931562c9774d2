// The causal LMs (Llama, GPT-2) on tiny shapes: Hugging Face's parameter names; the causal and padding
// properties of the hidden states; the cached forward (prefill, then one token at a time, with a traced
// start under jit) equal to the whole-sequence forward at every step, left-padded rows included;
// grouped-query attention equal to the same model with its key/value heads repeated; gradients against
// finite differences; and ONNX Runtime and XLA's CPU plugin against the reference interpreter.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import {
  createCausalLM,
  parameterLayout,
  validateGpt2Config,
  validateLlamaConfig,
  type CausalConfig,
  type CausalLanguageModel,
  type Params,
} from "../../src/models/index.js";
import { checkGrad } from "../helpers/gradcheck.js";
import { rng } from "../helpers/random.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";

k.setDefaultDevice("ref:0");

const VOCAB = 23;

function llamaConfig(over: Record<string, unknown> = {}) {
  return validateLlamaConfig(
    {
      model_type: "llama",
      vocab_size: VOCAB,
      hidden_size: 16,
      intermediate_size: 24,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      max_position_embeddings: 32,
      // Large weights, so that every layer changes the hidden states visibly.
      initializer_range: 0.4,
      tie_word_embeddings: true,
      pad_token_id: 0,
      bos_token_id: 1,
      eos_token_id: 2,
      ...over,
    },
    "test llama",
  );
}

function gpt2Config(over: Record<string, unknown> = {}) {
  return validateGpt2Config(
    {
      model_type: "gpt2",
      vocab_size: VOCAB,
      n_embd: 16,
      n_layer: 2,
      n_head: 2,
      n_positions: 32,
      initializer_range: 0.4,
      pad_token_id: 0,
      bos_token_id: 1,
      eos_token_id: 2,
      ...over,
    },
    "test gpt2",
  );
}

const MODELS: Record<string, () => CausalConfig> = { llama: () => llamaConfig(), gpt2: () => gpt2Config() };

function tokens(seed: number, b: number, t: number): k.Array {
  const r = rng(seed);
  return k.array(
    Int32Array.from({ length: b * t }, () => 3 + Math.floor(r() * (VOCAB - 3))),
    { shape: [b, t], dtype: "i32" },
  );
}

function ints(rows: number[][]): k.Array {
  return k.array(Int32Array.from(rows.flat()), { shape: [rows.length, rows[0]!.length], dtype: "i32" });
}

function build(config: CausalConfig, seed = 0): { model: CausalLanguageModel; params: Params } {
  const model = createCausalLM(config);
  return { model, params: model.init(k.randomKey(seed)) };
}

/** Largest |a - b| over the rows [b, positions, hidden] of two hidden-state arrays. */
function maxDiff(a: k.Array, b: k.Array): number {
  const x = a.dataSync(),
    y = b.dataSync();
  assert.equal(x.length, y.length);
  let worst = 0;
  for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(Number(x[i]) - Number(y[i])));
  return worst;
}

/** hidden[row, position, :] */
function at(h: k.Array, row: number, pos: number): k.Array {
  const d = h.shape[2]!;
  return h.slice([row, pos, 0], [row + 1, pos + 1, d]);
}

test("Llama's parameters carry LlamaForCausalLM's names and shapes (grouped k/v projections, tied head stored once)", () => {
  const tied = parameterLayout(createCausalLM(llamaConfig()));
  const shape = (l: typeof tied, n: string) => l.avals[l.names.indexOf(n)]?.shape;
  assert.deepEqual(shape(tied, "model.embed_tokens.weight"), [VOCAB, 16]);
  assert.deepEqual(shape(tied, "model.layers.1.self_attn.q_proj.weight"), [16, 16]);
  assert.deepEqual(shape(tied, "model.layers.1.self_attn.k_proj.weight"), [8, 16], "2 kv heads of 4");
  assert.deepEqual(shape(tied, "model.layers.0.mlp.gate_proj.weight"), [24, 16]);
  assert.deepEqual(shape(tied, "model.layers.0.mlp.down_proj.weight"), [16, 24]);
  assert.deepEqual(shape(tied, "model.layers.0.post_attention_layernorm.weight"), [16]);
  assert.deepEqual(shape(tied, "model.norm.weight"), [16]);
  assert.equal(tied.names.length, 1 + 2 * 9 + 1, "no biases, no lm_head when tied");
  const untied = parameterLayout(createCausalLM(llamaConfig({ tie_word_embeddings: false, attention_bias: true })));
  assert.deepEqual(shape(untied, "lm_head.weight"), [VOCAB, 16]);
  assert.deepEqual(shape(untied, "model.layers.0.self_attn.v_proj.bias"), [8]);
  assert.equal(untied.names.length, 1 + 2 * 13 + 1 + 1);
});

test("GPT-2's parameters carry GPT2LMHeadModel's names, Conv1D weights [in, out]", () => {
  const l = parameterLayout(createCausalLM(gpt2Config()));
  const shape = (n: string) => l.avals[l.names.indexOf(n)]?.shape;
  assert.deepEqual(shape("transformer.wte.weight"), [VOCAB, 16]);
  assert.deepEqual(shape("transformer.wpe.weight"), [32, 16]);
  assert.deepEqual(shape("transformer.h.1.attn.c_attn.weight"), [16, 48]);
  assert.deepEqual(shape("transformer.h.1.attn.c_attn.bias"), [48]);
  assert.deepEqual(shape("transformer.h.0.mlp.c_fc.weight"), [16, 64]);
  assert.deepEqual(shape("transformer.h.0.mlp.c_proj.weight"), [64, 16]);
  assert.deepEqual(shape("transformer.ln_f.bias"), [16]);
  assert.equal(l.names.length, 2 + 2 * 12 + 2);
});

for (const [name, config] of Object.entries(MODELS)) {
  test(`${name}: hidden states and logits have their shapes; token j changes no position before j`, () => {
    const { model, params } = build(config());
    const ids = tokens(1, 2, 7);
    const mask = k.ones([2, 7], "i32");
    const h = model.hidden(params, ids, mask);
    assert.deepEqual(h.shape, [2, 7, 16]);
    assert.deepEqual(model.lmHead(params, h).shape, [2, 7, VOCAB]);
    const changed = ids.dataSync().slice() as Int32Array;
    changed[4] = changed[4] === 5 ? 6 : 5; // row 0, position 4
    const h2 = model.hidden(params, k.array(changed, { shape: [2, 7], dtype: "i32" }), mask);
    assert.equal(maxDiff(h.slice([0, 0, 0], [1, 4, 16]), h2.slice([0, 0, 0], [1, 4, 16])), 0, "positions 0-3 unchanged");
    assert.ok(maxDiff(at(h, 0, 4), at(h2, 0, 4)) > 1e-3, "position 4 changes");
    assert.ok(maxDiff(at(h, 0, 6), at(h2, 0, 6)) > 1e-3, "later positions change");
    assert.equal(maxDiff(h.slice([1, 0, 0], [2, 7, 16]), h2.slice([1, 0, 0], [2, 7, 16])), 0, "the other row is untouched");
  });

  test(`${name}: padding changes no real token's hidden state (right padding, and left padding with its position ids)`, () => {
    const { model, params } = build(config());
    const real = ints([[5, 9, 4, 12]]);
    const alone = model.hidden(params, real, k.ones([1, 4], "i32"));
    const right = model.hidden(params, ints([[5, 9, 4, 12, 0, 0]]), ints([[1, 1, 1, 1, 0, 0]]));
    assert.ok(maxDiff(right.slice([0, 0, 0], [1, 4, 16]), alone) < 1e-6);
    const leftMask = ints([[0, 0, 1, 1, 1, 1]]);
    const positions = leftMask.cumsum(1).sub(1);
    const left = model.hidden(params, ints([[0, 0, 5, 9, 4, 12]]), leftMask, { positionIds: positions });
    assert.ok(maxDiff(left.slice([0, 2, 0], [1, 6, 16]), alone) < 1e-5);
    // A fully padded row (every key masked) stays finite.
    const empty = model.hidden(params, ints([[0, 0, 0]]), ints([[0, 0, 0]]));
    assert.ok([...empty.dataSync()].every((v) => Number.isFinite(v)));
  });

  test(`${name}: prefill, then a token at a time through the cache, equals the whole forward at every step (traced start)`, () => {
    const { model, params } = build(config());
    const B = 3,
      T = 7,
      prefill = 2,
      capacity = 9;
    const ids = tokens(2, B, T);
    // Row 1 is left-padded by two, row 2 by one; their positions count real tokens only.
    const mask = ints([
      [1, 1, 1, 1, 1, 1, 1],
      [0, 0, 1, 1, 1, 1, 1],
      [0, 1, 1, 1, 1, 1, 1],
    ]);
    const positions = mask.cumsum(1).sub(1);
    const real = mask.dataSync() as Int32Array;
    const slots = (n: number) => k.concat([mask.slice([0, 0], [B, n]), k.zeros([B, capacity - n], "i32")], 1);
    const decode = k.jit(
      (p: Params, i: k.Array, pos: k.Array, m: k.Array, cache: any, start: k.Array) => model.forwardCached(p, i, pos, m, cache, start),
      { name: `${name}_decode` },
    );
    let cache = model.initCache(B, capacity);
    const first = model.forwardCached(
      params,
      ids.slice([0, 0], [B, prefill]),
      positions.slice([0, 0], [B, prefill]),
      slots(prefill),
      cache,
      0,
    );
    cache = first.cache;
    const compare = (got: k.Array, upTo: number, from: number) => {
      const whole = model.hidden(params, ids.slice([0, 0], [B, upTo]), mask.slice([0, 0], [B, upTo]), {
        positionIds: positions.slice([0, 0], [B, upTo]),
      });
      for (let row = 0; row < B; row++)
        for (let p = from; p < upTo; p++) {
          if (!real[row * T + p]) continue;
          const diff = maxDiff(at(got, row, p - from), at(whole, row, p));
          assert.ok(diff < 1e-5, `row ${row} position ${p} (after ${upTo} tokens): ${diff}`);
        }
    };
    compare(first.hidden, prefill, 0);
    // Two tokens at a traced start, then one at a time: one program per chunk length.
    for (const [s, e] of [
      [prefill, prefill + 2],
      [prefill + 2, prefill + 3],
      [prefill + 3, T],
    ] as const) {
      const out = decode(params, ids.slice([0, s], [B, e]), positions.slice([0, s], [B, e]), slots(e), cache, k.scalar(s, "i32"));
      cache = out.cache;
      compare(out.hidden, e, s);
    }
    assert.equal(decode.metrics.compiles, 2, "one program for each chunk length, whatever the start");
  });
}

test("grouped-query attention equals the model whose key/value heads are repeated for each query head (repeat_kv)", () => {
  const grouped = build(llamaConfig({ num_key_value_heads: 2 }), 3);
  const full = createCausalLM(llamaConfig({ num_key_value_heads: 4 }));
  // k/v weights [kvHeads · d, hidden] → each kv head's rows twice, in repeat_kv's order (head h reads kv head h / 2).
  const repeat = (w: k.Array) => {
    const [rows, h] = w.shape as [number, number];
    const d = 4;
    return w
      .reshape([rows / d, 1, d, h])
      .broadcastTo([rows / d, 2, d, h])
      .reshape([2 * rows, h]);
  };
  const p = grouped.params;
  const fullParams = {
    ...p,
    model: {
      ...p.model,
      layers: p.model.layers.map((l: any) => ({
        ...l,
        self_attn: {
          ...l.self_attn,
          k_proj: { weight: repeat(l.self_attn.k_proj.weight) },
          v_proj: { weight: repeat(l.self_attn.v_proj.weight) },
        },
      })),
    },
  };
  const ids = tokens(4, 2, 6);
  const mask = ints([
    [1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 0, 0],
  ]);
  const a = grouped.model.hidden(p, ids, mask);
  const b = full.hidden(fullParams, ids, mask);
  assert.ok(maxDiff(a, b) < 1e-6, `grouped vs repeated: ${maxDiff(a, b)}`);
  // And the grouping matters: pairing query heads with the wrong kv heads gives other states.
  const swapped = {
    ...p,
    model: {
      ...p.model,
      layers: p.model.layers.map((l: any) => ({
        ...l,
        self_attn: {
          ...l.self_attn,
          k_proj: {
            weight: k.concat([l.self_attn.k_proj.weight.slice([4, 0], [8, 16]), l.self_attn.k_proj.weight.slice([0, 0], [4, 16])]),
          },
        },
      })),
    },
  };
  assert.ok(maxDiff(grouped.model.hidden(swapped, ids, mask), a) > 1e-3);
});

test("the scan layer loop gives the unrolled stack's hidden states, dropout included", () => {
  for (const config of [llamaConfig({ attention_dropout: 0.2 }), gpt2Config()]) {
    const { model, params } = build(config);
    const ids = tokens(5, 2, 5);
    const mask = ints([
      [1, 1, 1, 1, 1],
      [1, 1, 1, 0, 0],
    ]);
    const opts = { dropoutKey: k.randomKey(9) };
    const unrolled = model.hidden(params, ids, mask, opts);
    const looped = k.jit((p: Params, i: k.Array, m: k.Array) => model.hidden(p, i, m, { ...opts, layerLoop: "scan" }))(params, ids, mask);
    assert.ok(maxDiff(unrolled, looped) < 1e-6, `${config.model_type}: ${maxDiff(unrolled, looped)}`);
    assert.ok(maxDiff(unrolled, model.hidden(params, ids, mask)) > 1e-4, `${config.model_type}: dropout is active`);
  }
});

test("mixed precision: bf16 activations (weights cast on use, norms and softmax in f32) stay close to f32, cache included", () => {
  for (const config of [llamaConfig(), gpt2Config()]) {
    const { model, params } = build(config, 2);
    const ids = tokens(3, 2, 5);
    const mask = ints([
      [1, 1, 1, 1, 1],
      [1, 1, 1, 0, 0],
    ]);
    const f32 = model.hidden(params, ids, mask);
    const bf16 = model.hidden(params, ids, mask, { dtype: "bf16" });
    assert.equal(bf16.dtype, "bf16");
    const scale = Math.max(...[...(f32.dataSync() as Float32Array)].map(Math.abs));
    const diff = maxDiff(f32, bf16.astype("f32"));
    assert.ok(diff < 0.05 * scale, `${config.model_type}: bf16 vs f32 ${diff} (scale ${scale})`);
    const cached = model.forwardCached(params, ids, mask.cumsum(1).sub(1), mask, model.initCache(2, 5, "bf16"), 0, { dtype: "bf16" });
    assert.equal(cached.hidden.dtype, "bf16");
    assert.equal(cached.cache.layers[0]!.key.dtype, "bf16");
    assert.ok(maxDiff(cached.hidden.slice([0, 0, 0], [1, 5, 16]).astype("f32"), f32.slice([0, 0, 0], [1, 5, 16])) < 0.05 * scale);
  }
});

/** Next-token cross-entropy over the real positions: what training differentiates. */
function nextTokenLoss(model: CausalLanguageModel, p: Params, ids: k.Array, mask: k.Array, dtype: k.DType = "f32"): k.Array {
  const [b, t] = ids.shape as [number, number];
  const logits = model.lmHead(p, model.hidden(p, ids, mask, { dtype }).slice([0, 0, 0], [b, t - 1, 16]));
  const labels = k.where(mask.slice([0, 1], [b, t]).equal(1), ids.slice([0, 1], [b, t]), -100);
  return k.crossEntropy(logits, labels);
}

for (const [name, config, pick] of [
  [
    "llama",
    llamaConfig({ tie_word_embeddings: false }),
    ["model.layers.1.self_attn.k_proj.weight", "model.layers.0.input_layernorm.weight"],
  ],
  ["gpt2", gpt2Config(), ["transformer.h.1.attn.c_attn.bias", "transformer.h.0.ln_2.bias", "transformer.ln_f.weight"]],
] as const) {
  test(`${name}: gradients of the next-token loss match finite differences (f64)`, () => {
    const { model, params } = build(config, 5);
    const p64 = k.treeMap((a: k.Array) => a.astype("f64"), params);
    const names = k.leafPaths(p64);
    const leaves = k.leaves<k.Array>(p64);
    const { treedef } = k.flatten(p64);
    const idx = pick.map((n) => names.indexOf(n));
    assert.ok(idx.every((i) => i >= 0));
    const ids = tokens(6, 2, 5);
    const mask = ints([
      [1, 1, 1, 1, 1],
      [1, 1, 1, 0, 0],
    ]);
    const f = (...xs: k.Array[]) => {
      const ls = leaves.slice();
      idx.forEach((i, j) => {
        ls[i] = xs[j]!;
      });
      return nextTokenLoss(model, treedef.unflatten(ls) as Params, ids, mask, "f64");
    };
    checkGrad(
      name,
      f,
      idx.map((i) => leaves[i]!),
      { tol: 1e-5 },
    );
  });
}

/**
 * An executor's logits and cached decode (traced start), and with `gradients` the loss and its gradients,
 * against the reference interpreter's (1e-5 normwise).
 */
function matchesReference(device: k.Device, gradients: boolean): void {
  const ref = k.findDevice("ref:0");
  for (const config of [llamaConfig(), gpt2Config()]) {
    const { model, params } = build(config, 7);
    const ids = tokens(8, 2, 6);
    const mask = ints([
      [1, 1, 1, 1, 1, 1],
      [1, 1, 1, 1, 0, 0],
    ]);
    const run = (on: k.Device) => {
      const f = k.jit(
        (p: Params, i: k.Array, m: k.Array, start: k.Array) => {
          const step = model.forwardCached(
            p,
            i.slice([0, 0], [2, 4]),
            m.cumsum(1).sub(1).slice([0, 0], [2, 4]),
            k.ones([2, 5], "i32"),
            model.initCache(2, 5),
            start,
          );
          const forward = { logits: model.lmHead(p, model.hidden(p, i, m)), decoded: step.hidden, cache: step.cache };
          if (!gradients) return forward;
          const [loss, grads] = k.valueAndGrad((q: Params) => nextTokenLoss(model, q, i, m))(p);
          return { ...forward, loss, grads };
        },
        { name: `${config.model_type}_executors_${on.id}`, device: on },
      );
      const out = f(params, ids, mask, k.scalar(1, "i32"));
      return k.leaves<k.Array>(out as unknown as k.PyTree).map((a) => a.dataSync() as Float32Array);
    };
    const want = run(ref),
      got = run(device);
    want.forEach((w, j) => {
      let scale = 0;
      for (const v of w) scale = Math.max(scale, Math.abs(v));
      for (let i = 0; i < w.length; i++)
        assert.ok(
          Math.abs(got[j]![i]! - w[i]!) <= 1e-5 * Math.max(scale, 1e-3),
          `${config.model_type} on ${device.id}: output ${j}[${i}]: ${got[j]![i]} vs ${w[i]}`,
        );
    });
  }
}

test("ONNX Runtime gives the reference interpreter's loss, gradients, logits and cached decode (llama and gpt2)", () => {
  matchesReference(k.findDevice("cpu:0"), true);
});

test("XLA's CPU plugin gives the reference interpreter's logits and cached decode (llama and gpt2)", { skip: xlaCpuSkip }, () => {
  const [device] = k.selectDevices({ accelerator: "cpu", executor: "xla", devices: 1, pjrtPlugin: xlaCpuPluginPath() });
  // Forward programs only: XLA compiles a gradient program for long, and the VJPs are the same primitives.
  matchesReference(device!, false);
});
