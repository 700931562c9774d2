// Reading model directories the way transformers' from_pretrained does, without Python: Kiln's own
// directories round-trip; encoder-only checkpoints (no base-model prefix, a pooler, buffers) load with a
// notice and a fresh head; everything Kiln cannot map one to one is an error that names it.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { createMaskedLM, loadModel, namedTensors, saveModel, TRANSFORMERS_FORMAT_VERSION, validateConfig } from "../../src/models/index.js";
import { writeSafetensors, type NamedTensor } from "../../src/models/safetensors.js";
import { tempDir } from "../helpers/temp-dir.js";

k.setDefaultDevice("ref:0");

const root = tempDir("kiln-pretrained-");

const config = validateConfig(
  {
    model_type: "roberta",
    vocab_size: 20,
    hidden_size: 8,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    intermediate_size: 16,
    max_position_embeddings: 12,
    type_vocab_size: 1,
    pad_token_id: 1,
    torch_dtype: "float16",
    architectures: ["RobertaModel"],
  },
  "test config",
);
const model = createMaskedLM(config);
const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(3));
const original = await namedTensors(params);

/** A directory holding `tensors` as model.safetensors beside Kiln's config.json. */
async function dirWith(name: string, tensors: Record<string, NamedTensor>, configPatch: Record<string, unknown> = {}): Promise<string> {
  const dir = join(root, name);
  await saveModel(dir, model, params);
  await writeSafetensors(join(dir, "model.safetensors"), tensors, { format: "pt" });
  const c = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
  writeFileSync(join(dir, "config.json"), JSON.stringify({ ...c, ...configPatch }));
  // A directory written by other tools has no checksums.json (Kiln's would refuse the edits above).
  rmSync(join(dir, "checksums.json"));
  return dir;
}

const without = (names: (n: string) => boolean) => Object.fromEntries(Object.entries(original).filter(([n]) => !names(n)));

test("config.json is written as transformers' save_pretrained writes it", async () => {
  const dir = join(root, "saved");
  await saveModel(dir, model, params);
  const c = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
  assert.deepEqual(c.architectures, ["RobertaForMaskedLM"], "what Kiln saves is always a masked LM");
  assert.equal(c.dtype, "float32");
  assert.equal(c.torch_dtype, undefined, "the superseded key is not carried over");
  assert.equal(c.tie_word_embeddings, true);
  assert.equal(c.transformers_version, TRANSFORMERS_FORMAT_VERSION);
  assert.equal("bos_token_id" in c, false, "no special ids are invented");
});

test("Kiln's own directory loads back exactly, with nothing to report", async () => {
  const dir = join(root, "saved");
  const loaded = await loadModel(dir, { task: "mlm" });
  assert.equal(loaded.mlmHead, "loaded");
  assert.deepEqual(loaded.notices, []);
  const back = await namedTensors(loaded.params);
  for (const [n, t] of Object.entries(original)) assert.deepEqual(back[n]!.data, t.data, n);
});

test("an encoder-only checkpoint (no prefix, pooler, position_ids buffer) loads for the encoder with a notice", async () => {
  const encoderOnly = Object.fromEntries(
    Object.entries(original)
      .filter(([n]) => n.startsWith("roberta."))
      .map(([n, t]) => [n.slice("roberta.".length), t]),
  );
  const dir = await dirWith("encoder-only", {
    ...encoderOnly,
    "pooler.dense.weight": original["lm_head.dense.weight"]!,
    "embeddings.position_ids": { dtype: "i64", shape: [1, 12], data: BigInt64Array.from({ length: 12 }, (_, i) => BigInt(i)) },
  });
  await assert.rejects(
    loadModel(dir, { task: "mlm" }),
    /no masked-LM head \(lm_head\..* are missing\): an encoder-only checkpoint cannot predict tokens/,
  );
  const loaded = await loadModel(dir, { task: "mlm", missingHead: "init", seed: 5 });
  assert.equal(loaded.mlmHead, "initialized");
  assert.equal(loaded.notices.length, 2);
  assert.match(loaded.notices[0]!, /no masked-LM head .*RobertaModel.* freshly initialized/);
  assert.match(loaded.notices[1]!, /1 tensor\(s\) unused by RobertaForMaskedLM: pooler\.dense\.weight$/);
  const back = await namedTensors(loaded.params);
  for (const n of Object.keys(encoderOnly)) assert.deepEqual(back[`roberta.${n}`]!.data, original[`roberta.${n}`]!.data, n);
  // The fresh head is the one a full init from the same seed has.
  const full = await namedTensors(k.jit((key: k.Array) => model.init(key))(k.randomKey(5)));
  for (const n of ["lm_head.dense.weight", "lm_head.layer_norm.weight", "lm_head.bias"]) assert.deepEqual(back[n]!.data, full[n]!.data, n);
});

test("a partial head, a missing encoder weight, or a decoder stored apart and different are errors", async () => {
  let dir = await dirWith(
    "partial-head",
    without((n) => n === "lm_head.dense.weight"),
  );
  await assert.rejects(
    loadModel(dir, { task: "mlm", missingHead: "init" }),
    /the masked-LM head is incomplete: missing lm_head\.dense\.weight/,
  );
  dir = await dirWith(
    "missing-encoder",
    without((n) => n.includes("layer.0.attention.self.key.")),
  );
  await assert.rejects(
    loadModel(dir, { task: "mlm" }),
    new RegExp(
      "missing 2 encoder parameter\\(s\\): roberta\\.encoder\\.layer\\.0\\.attention\\.self\\.key\\.bias, " +
        "roberta\\.encoder\\.layer\\.0\\.attention\\.self\\.key\\.weight$",
    ),
  );
  const emb = original["roberta.embeddings.word_embeddings.weight"]!;
  dir = await dirWith("tie-stored", { ...original, "lm_head.decoder.weight": emb });
  assert.deepEqual((await loadModel(dir, { task: "mlm" })).notices, [], "a tied weight stored twice, equal, is fine");
  const other = { ...emb, data: (emb.data as Float32Array).map((x) => x + 1) };
  dir = await dirWith("tie-differs", { ...original, "lm_head.decoder.weight": other });
  await assert.rejects(
    loadModel(dir, { task: "mlm" }),
    /"lm_head\.decoder\.weight" differs from "roberta\.embeddings\.word_embeddings\.weight"/,
  );
});

test("sharded safetensors load through their index; pickles and empty directories are refused with the remedy", async () => {
  const dir = await dirWith("sharded", {});
  rmSync(join(dir, "model.safetensors"));
  const names = Object.keys(original);
  const half = Math.floor(names.length / 2);
  const parts = [names.slice(0, half), names.slice(half)];
  const weightMap: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const file = `model-0000${i + 1}-of-00002.safetensors`;
    await writeSafetensors(join(dir, file), Object.fromEntries(part.map((n) => [n, original[n]!])), { format: "pt" });
    for (const n of part) weightMap[n] = file;
  }
  writeFileSync(join(dir, "model.safetensors.index.json"), JSON.stringify({ metadata: {}, weight_map: weightMap }));
  const back = await namedTensors((await loadModel(dir, { task: "mlm" })).params);
  for (const [n, t] of Object.entries(original)) assert.deepEqual(back[n]!.data, t.data, n);

  const pickle = join(root, "pickle");
  mkdirSync(pickle);
  writeFileSync(join(pickle, "config.json"), readFileSync(join(dir, "config.json")));
  writeFileSync(join(pickle, "pytorch_model.bin"), "not read");
  await assert.rejects(
    loadModel(pickle, { task: "mlm" }),
    /pickle holds pytorch_model\.bin \(a PyTorch pickle\) but no model\.safetensors: Kiln reads safetensors only/,
  );
  rmSync(join(pickle, "pytorch_model.bin"));
  await assert.rejects(loadModel(pickle, { task: "mlm" }), /no model\.safetensors \(nor model\.safetensors\.index\.json\)/);
});

test("config settings Kiln cannot honour are refused, naming the field", () => {
  const base = { ...config } as Record<string, unknown>;
  assert.throws(() => validateConfig({ ...base, is_decoder: true }, "c.json"), /c\.json: is_decoder\/add_cross_attention is set/);
  assert.throws(() => validateConfig({ ...base, tie_word_embeddings: false }, "c.json"), /tie_word_embeddings is false/);
  assert.throws(
    () => validateConfig({ ...base, position_embedding_type: "relative_key" }, "c.json"),
    /position_embedding_type "relative_key" is not supported/,
  );
  assert.throws(() => validateConfig({ ...base, type_vocab_size: 0 }, "c.json"), /"type_vocab_size" must be a positive integer, got 0/);
  assert.equal(validateConfig({ ...base, position_embedding_type: "absolute", bos_token_id: null }, "c.json").bos_token_id, null);
});
