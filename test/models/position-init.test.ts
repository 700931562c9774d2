// The sinusoidal start of an encoder's position table: Vaswani et al.'s values at the embedding init's
// scale, the same relation between every pair of positions the same distance apart, and nothing else
// about the model's init changed.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { sinusoidalInit } from "../../src/nn/init.js";
import { createMaskedLM, validateConfig, type MlmConfig } from "../../src/models/index.js";
import { differingLeafPaths } from "../helpers/param-diff.js";

k.setDefaultDevice("ref:0");

const ROWS = 40,
  DIM = 16,
  STD = 0.02;

function rows(table: k.Array): number[][] {
  const data = Array.from(table.dataSync() as Float32Array);
  return Array.from({ length: table.shape[0]! }, (_, r) => data.slice(r * table.shape[1]!, (r + 1) * table.shape[1]!));
}

test("sinusoidalInit holds sin(p·ωᵢ) then cos(p·ωᵢ), ωᵢ = 10000^(−2i/d), scaled to entries of standard deviation std", () => {
  const table = rows(sinusoidalInit(ROWS, DIM, STD));
  for (const [p, i] of [
    [0, 0],
    [1, 0],
    [7, 3],
    [39, 7],
  ] as const) {
    const w = 10000 ** ((-2 * i) / DIM);
    assert.ok(Math.abs(table[p]![i]! - STD * Math.SQRT2 * Math.sin(p * w)) < 1e-6, `sin at ${p}, ${i}`);
    assert.ok(Math.abs(table[p]![DIM / 2 + i]! - STD * Math.SQRT2 * Math.cos(p * w)) < 1e-6, `cos at ${p}, ${i}`);
  }
  // The fastest pair spins through every phase, so its entries have exactly the RMS of the scale.
  const fastest = table.flatMap((r) => [r[0]!, r[DIM / 2]!]);
  assert.ok(Math.abs(Math.sqrt(fastest.reduce((s, x) => s + x * x, 0) / fastest.length) - STD) < 1e-6);
});

test("sinusoidal positions the same distance apart have the same dot product wherever they are", () => {
  const table = rows(sinusoidalInit(ROWS, DIM, STD));
  const dot = (a: number, b: number) => table[a]!.reduce((s, x, i) => s + x * table[b]![i]!, 0);
  for (const d of [1, 2, 5]) {
    for (const p of [3, 11, 30]) assert.ok(Math.abs(dot(p, p + d) - dot(0, d)) < 1e-7, `distance ${d} at ${p}`);
  }
  // …and neighbours are more alike than far-apart positions, which a random table does not give.
  assert.ok(dot(0, 1) > dot(0, 20));
});

const config: MlmConfig = validateConfig(
  {
    model_type: "roberta",
    vocab_size: 50,
    hidden_size: DIM,
    num_hidden_layers: 2,
    num_attention_heads: 2,
    intermediate_size: 32,
    max_position_embeddings: ROWS,
    type_vocab_size: 1,
    pad_token_id: 1,
  },
  "tiny roberta",
);

test("positionInit sinusoidal changes only the position table of a masked LM's init", () => {
  const key = k.randomKey(7);
  const sinusoidal = createMaskedLM(config, { positionInit: "sinusoidal" }).init(key);
  assert.deepEqual(differingLeafPaths(createMaskedLM(config).init(key), sinusoidal), ["roberta.embeddings.position_embeddings.weight"]);
  assert.deepEqual(
    sinusoidal.roberta.embeddings.position_embeddings.weight.dataSync(),
    sinusoidalInit(ROWS, DIM, config.initializer_range).dataSync(),
  );
});
