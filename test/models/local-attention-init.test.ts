// The local-attention start of a masked LM: at step 0 every first-layer head already attends to its
// neighbour (-1, +1, -2, +2 …) on random text, and nothing but the position table and the first layer's
// query/key weights differs from transformers' init (their biases start at zero either way).
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { createMaskedLM, validateConfig, type MlmConfig } from "../../src/models/index.js";
import { robertaPositionIds } from "../../src/models/roberta/model.js";
import { headOffset, localAttentionPositions } from "../../src/models/local-attention-init.js";
import { dense, embed, layerNorm } from "../../src/nn/layers.js";
import { rng } from "../helpers/random.js";
import { differingLeafPaths } from "../helpers/param-diff.js";

k.setDefaultDevice("ref:0");

// mlm-mini's width and heads: 32 sin/cos pairs per head (with fewer, other tokens' random parts of q·k compete with the peak).
const SEQ = 48;
const config: MlmConfig = validateConfig(
  {
    model_type: "roberta",
    vocab_size: 60,
    hidden_size: 256,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 64,
    max_position_embeddings: SEQ + 2,
    type_vocab_size: 1,
    pad_token_id: 1,
  },
  "tiny roberta",
);

test("headOffset gives the heads the tokens before and after, nearest first", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5].map(headOffset), [-1, 1, -2, 2, -3, 3]);
});

test("at the local-attention start each first-layer head attends most to its neighbour on random text", () => {
  const p = createMaskedLM(config, { positionInit: "local-attention" }).init(k.randomKey(3));
  const r = rng(5);
  const ids = Int32Array.from({ length: 2 * SEQ }, () => 3 + Math.floor(r() * (config.vocab_size - 3)));
  const input = k.array(ids, { shape: [2, SEQ], dtype: "i32" });
  const e = p.roberta.embeddings;
  const x0 = embed(e.word_embeddings, input)
    .add(embed(e.position_embeddings, robertaPositionIds(input, config.pad_token_id)))
    .add(e.token_type_embeddings.weight.reshape([config.hidden_size]));
  const x = layerNorm(e.LayerNorm, x0, config.layer_norm_eps);
  const self = p.roberta.encoder.layer[0].attention.self;
  const heads = config.num_attention_heads,
    width = config.hidden_size / heads;
  const split = (t: k.Array) => t.reshape([2, SEQ, heads, width]).transpose([0, 2, 1, 3]);
  const scores = k.einsum("bhid,bhjd->bhij", split(dense(self.query, x)), split(dense(self.key, x)));
  const best = scores.argmax(-1).dataSync() as Int32Array;
  for (let h = 0; h < heads; h++) {
    const offset = headOffset(h);
    let hits = 0,
      counted = 0;
    for (let b = 0; b < 2; b++) {
      for (let i = 3; i < SEQ - 3; i++) {
        counted++;
        if (best[(b * heads + h) * SEQ + i] === i + offset) hits++;
      }
    }
    assert.ok(hits / counted > 0.75, `head ${h} (offset ${offset}): ${hits} of ${counted} queries look hardest at their neighbour`);
  }
});

test("positionInit local-attention changes only the position table and the first layer's query and key", () => {
  const key = k.randomKey(7);
  const local = createMaskedLM(config, { positionInit: "local-attention" }).init(key);
  assert.deepEqual(differingLeafPaths(createMaskedLM(config).init(key), local), [
    "roberta.embeddings.position_embeddings.weight",
    "roberta.encoder.layer.0.attention.self.key.weight",
    "roberta.encoder.layer.0.attention.self.query.weight",
  ]);
  assert.deepEqual(local.roberta.embeddings.position_embeddings.weight.dataSync(), localAttentionPositions(config).dataSync());
});
