// Causal LM configs and directories without Python: presets with the shapes they name (SmolLM-135M's and
// GPT-2's parameter counts), config.json fields refused by name (scaled rope, GPT-2 settings Kiln does not
// implement), both rope spellings, readModelConfig dispatching on model_type, config.json written as
// transformers 5 writes it, and loadModel's round trip of a causal LM and its errors.
import test from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import {
  presetNames,
  presetConfig,
  createCausalLM,
  GPT2LMHeadModel,
  LlamaForCausalLM,
  loadModel,
  namedTensors,
  parameterLayout,
  readModelConfig,
  saveModel,
  validateCausalConfig,
  type CausalConfig,
} from "../../src/models/index.js";
import { writeSafetensors, type NamedTensor } from "../../src/models/safetensors.js";
import { fixture } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp-dir.js";

k.setDefaultDevice("ref:0");

const root = tempDir("kiln-causal-config-");

const tokenizer = { vocabSize: 300, padId: 3, clsId: 0, sepId: 1 };

function parameterCount(c: CausalConfig): number {
  return parameterLayout(createCausalLM(c)).avals.reduce((n, a) => n + a.shape.reduce((p, d) => p * d, 1), 0);
}

test("presets: every one builds from a tokenizer's ids; smollm-135m and gpt2-124m have their models' parameter counts", () => {
  for (const name of presetNames("causal-lm")) {
    const c = presetConfig(name, tokenizer, 32);
    assert.equal(c.vocab_size, 300);
    assert.deepEqual([c.pad_token_id, c.bos_token_id, c.eos_token_id], [3, 0, 1], name);
    assert.equal(createCausalLM(c).maxLength, 32);
  }
  assert.equal(createCausalLM(presetConfig("llama-small", tokenizer)).maxLength, 128);
  // HuggingFaceTB/SmolLM-135M: 134,515,008 parameters with its 49,152-token vocabulary.
  assert.equal(parameterCount(presetConfig("smollm-135m", { vocabSize: 49152, bosId: 1, eosId: 2 })), 134_515_008);
  // OpenAI's GPT-2 small: 124,439,808 parameters with 50,257 tokens and 1,024 positions.
  assert.equal(parameterCount(presetConfig("gpt2-124m", { vocabSize: 50257, bosId: 50256, eosId: 50256 })), 124_439_808);
  const tiny = parameterCount(presetConfig("llama-tiny", { vocabSize: 1 }));
  assert.ok(tiny > 1000 && tiny < 10_000, `llama-tiny has ${tiny} parameters besides a 1-token vocabulary`);
  // Names read at run time (a string, not a literal, which the types refuse) are checked when called.
  const runtime = (name: string) => name;
  assert.throws(() => presetConfig(runtime("llama-huge"), tokenizer), /unknown preset "llama-huge"; presets: mlm-tiny, .*, llama-tiny, /);
  assert.throws(() => LlamaForCausalLM.fromPreset(runtime("gpt2-tiny"), tokenizer), /preset "gpt2-tiny" is a gpt2 model, not llama/);
  assert.equal(GPT2LMHeadModel.fromPreset("gpt2-tiny", tokenizer).config.n_embd, 16);
});

const llama = { model_type: "llama", vocab_size: 40, hidden_size: 16, intermediate_size: 24, num_hidden_layers: 1, num_attention_heads: 4 };
const gpt2 = { model_type: "gpt2", vocab_size: 40, n_embd: 16, n_layer: 1, n_head: 2, n_positions: 16, bos_token_id: 1, eos_token_id: 2 };

async function refusal(raw: Record<string, unknown>): Promise<string> {
  const path = join(root, "config.json");
  writeFileSync(path, JSON.stringify(raw));
  return readModelConfig(path).then(
    () => assert.fail(`${JSON.stringify(raw)} was accepted`),
    (e: Error) => {
      assert.ok(e.message.startsWith(`${path}: `), e.message);
      return e.message;
    },
  );
}

test("config.json settings Kiln does not implement are refused by file and field", async () => {
  assert.match(
    await refusal({ ...llama, rope_scaling: { rope_type: "linear", factor: 2 } }),
    /"rope_scaling" asks for rope type "linear": Kiln implements the default rotary embedding only/,
  );
  assert.match(
    await refusal({ ...llama, rope_parameters: { rope_type: "llama3", rope_theta: 5e5 } }),
    /"rope_parameters" asks for rope type "llama3"/,
  );
  assert.match(await refusal({ ...llama, num_key_value_heads: 3 }), /num_attention_heads 4 is not a multiple of num_key_value_heads 3/);
  assert.match(
    await refusal({ ...llama, hidden_act: "swish2" }),
    /"hidden_act" "swish2" is not supported \(gelu, relu, tanh, silu, gelu_new\)/,
  );
  assert.match(await refusal({ ...llama, num_hidden_layers: 0 }), /"num_hidden_layers" must be a positive integer, got 0/);
  assert.match(await refusal({ ...llama, eos_token_id: [2, 40] }), /"eos_token_id" must be null or a token id in \[0, 40\)/);
  for (const field of ["scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "add_cross_attention"])
    assert.match(await refusal({ ...gpt2, [field]: true }), new RegExp(`"${field}" is true: .* is not implemented; set it to false`));
  assert.match(await refusal({ ...gpt2, attn_pdrop: 1 }), /"attn_pdrop" must be in \[0, 1\), got 1/);
  assert.match(await refusal({ ...gpt2, model_type: "gptj" }), /model_type "gptj" is not supported \(roberta, bert, llama, gpt2\)/);
});

test("readModelConfig dispatches on model_type; both rope spellings read; transformers' nulls take their defaults", async () => {
  const path = join(root, "read.json");
  writeFileSync(path, JSON.stringify({ ...llama, rope_theta: 5e5, rope_scaling: null, head_dim: null, num_key_value_heads: null }));
  const c = await readModelConfig(path);
  assert.equal(c.model_type, "llama");
  const l = c as Extract<CausalConfig, { model_type: "llama" }>;
  assert.deepEqual(l.rope_parameters, { rope_type: "default", rope_theta: 5e5 });
  assert.equal("rope_theta" in l, false, "one spelling kept: transformers 5's rope_parameters");
  assert.deepEqual([l.head_dim, l.num_key_value_heads, l.rms_norm_eps, l.tie_word_embeddings], [4, 4, 1e-6, false]);
  const g = validateCausalConfig(gpt2, "gpt2");
  assert.deepEqual([g.model_type, g.activation_function, g.n_inner, g.tie_word_embeddings], ["gpt2", "gelu_new", null, true]);
  assert.equal((await readModelConfig(fixture("roberta-tiny.json"))).model_type, "roberta");
});

test("config.json of a causal LM: its architecture, the tie as configured, f32, transformers 5's rope_parameters", async () => {
  for (const [raw, arch] of [
    [{ ...llama, tie_word_embeddings: true, rope_theta: 1234 }, "LlamaForCausalLM"],
    [{ ...gpt2, tie_word_embeddings: false }, "GPT2LMHeadModel"],
  ] as const) {
    const model = createCausalLM(validateCausalConfig(raw, "test"));
    const dir = join(root, `json-${raw.model_type}`);
    await saveModel(dir, model, model.init(k.randomKey(0)));
    const c = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
    assert.deepEqual(c.architectures, [arch]);
    assert.equal(c.tie_word_embeddings, raw.tie_word_embeddings);
    assert.equal(c.dtype, "float32");
    assert.match(c.transformers_version, /^\d+\.\d+\.\d+$/);
    if (arch === "LlamaForCausalLM") {
      assert.deepEqual(c.rope_parameters, { rope_type: "default", rope_theta: 1234 });
      assert.equal(c.rope_theta, undefined);
    }
    const stored = Object.keys(await namedTensors(model.init(k.randomKey(0))));
    assert.equal(stored.includes("lm_head.weight"), !raw.tie_word_embeddings, "the tied head is stored once");
  }
});

const model = createCausalLM(validateCausalConfig({ ...llama, num_key_value_heads: 2, tie_word_embeddings: true }, "test"));
const params = model.init(k.randomKey(4));
const original = await namedTensors(params);

async function dirWith(name: string, tensors: Record<string, NamedTensor>): Promise<string> {
  const dir = join(root, name);
  await saveModel(dir, model, params);
  await writeSafetensors(join(dir, "model.safetensors"), tensors, { format: "pt" });
  rmSync(join(dir, "checksums.json")); // as another tool writes it: Kiln's digests would refuse the edit
  return dir;
}

test("loadModel: Kiln's directory round-trips; a head stored twice loads when equal; no prefix loads too", async () => {
  const dir = join(root, "round-trip");
  await saveModel(dir, model, params);
  const loaded = await loadModel(dir, { task: "causal-lm" });
  assert.deepEqual(loaded.notices, []);
  const back = await namedTensors(loaded.params);
  for (const [name, t] of Object.entries(original)) assert.deepEqual(back[name]!.data, t.data, name);
  const twice = await loadModel(await dirWith("twice", { ...original, "lm_head.weight": original["model.embed_tokens.weight"]! }), {
    task: "causal-lm",
  });
  assert.deepEqual(twice.notices, []);
  const base = Object.fromEntries(Object.entries(original).map(([n, t]) => [n.replace(/^model\./, ""), t]));
  assert.deepEqual(
    (await loadModel(await dirWith("base", { ...base, "rotary_emb.inv_freq": original["model.norm.weight"]! }), { task: "causal-lm" }))
      .notices.length,
    1,
  );
  const viaClass = await LlamaForCausalLM.fromPretrained(dir);
  assert.ok(viaClass.model instanceof LlamaForCausalLM);
  await assert.rejects(GPT2LMHeadModel.fromPretrained(dir), /model_type "llama" is not "gpt2" \(GPT2LMHeadModel\.fromPretrained\)/);
});

test("loadModel refuses what it cannot map one to one, by name", async () => {
  const { "model.layers.0.mlp.up_proj.weight": _dropped, ...missing } = original;
  await assert.rejects(
    loadModel(await dirWith("missing", missing), { task: "causal-lm" }),
    /missing 1 parameter\(s\): model\.layers\.0\.mlp\.up_proj\.weight/,
  );
  const other = {
    ...original["model.embed_tokens.weight"]!,
    data: (original["model.embed_tokens.weight"]!.data as Float32Array).map((v) => v + 1),
  };
  await assert.rejects(
    loadModel(await dirWith("untied", { ...original, "lm_head.weight": other }), { task: "causal-lm" }),
    /"lm_head\.weight" differs from "model\.embed_tokens\.weight", but .*config\.json sets tie_word_embeddings: set it to false/,
  );
  const roberta = join(root, "roberta");
  mkdirSync(roberta);
  copyFileSync(fixture("roberta-tiny.json"), join(roberta, "config.json"));
  await assert.rejects(
    loadModel(roberta, { task: "causal-lm" }),
    /model_type "roberta" is a masked language model, not a causal language model \(task "causal-lm"\); load it with task "mlm"/,
  );
  await assert.rejects(
    loadModel(join(root, "round-trip"), { task: "mlm" }),
    /model_type "llama" is a causal language model, not a masked language model \(task "mlm"\); load it with task "causal-lm"/,
  );
});
