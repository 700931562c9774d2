// A tokenizer directory: three files written atomically, read back into the same tokenizer, and clear
// errors for directories Kiln did not write.
import test from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadTokenizer, saveTokenizer, trainUnigram } from "../../src/text/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const dir = tempDir("kiln-tokenizer-files-");
const corpus = Array.from({ length: 40 }, (_, i) => `We the People of the United States, in Order to form a more perfect Union ${i}.`);
const trained = await trainUnigram(corpus, { vocabSize: 120 });
const saved = join(dir, "tok");
await saveTokenizer(trained, saved, { modelMaxLength: 256 });
const read = (name: string) => JSON.parse(readFileSync(join(saved, name), "utf8"));

test("saving writes the three files and nothing else", () => {
  assert.deepEqual(readdirSync(saved).sort(), ["special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"]);
});

test("loading gives back a tokenizer that encodes and saves identically", async () => {
  const loaded = await loadTokenizer(saved);
  for (const text of [...corpus.slice(0, 5), "Goal of my life is to [MASK]."]) assert.deepEqual(loaded.encode(text), trained.encode(text));
  const again = join(dir, "again");
  await saveTokenizer(loaded, again, { modelMaxLength: 256 });
  for (const name of ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]) {
    assert.equal(readFileSync(join(again, name), "utf8"), readFileSync(join(saved, name), "utf8"), name);
  }
});

test("tokenizer_config.json tells transformers what to build", () => {
  const config = read("tokenizer_config.json");
  assert.equal(config.tokenizer_class, "PreTrainedTokenizerFast");
  assert.equal(config.model_max_length, 256);
  assert.deepEqual(
    [config.cls_token, config.sep_token, config.unk_token, config.pad_token, config.mask_token],
    ["[CLS]", "[SEP]", "<unk>", "<pad>", "[MASK]"],
  );
  assert.equal(config.added_tokens_decoder["4"].lstrip, true);
  assert.deepEqual(read("special_tokens_map.json").mask_token, {
    content: "[MASK]",
    lstrip: true,
    normalized: false,
    rstrip: false,
    single_word: false,
  });
});

test("pad and mask roles come from tokenizer_config.json", async () => {
  const other = join(dir, "roles");
  await saveTokenizer(trained, other);
  const config = JSON.parse(readFileSync(join(other, "tokenizer_config.json"), "utf8"));
  writeFileSync(join(other, "tokenizer_config.json"), JSON.stringify({ ...config, pad_token: "[SEP]", mask_token: { content: "<unk>" } }));
  const loaded = await loadTokenizer(other);
  assert.equal(loaded.padId, 1);
  assert.equal(loaded.maskId, 2);
});

test("a directory without a Kiln tokenizer.json is refused with the reason", async () => {
  await assert.rejects(
    loadTokenizer(join(dir, "nowhere")),
    /nowhere\/tokenizer\.json does not exist: pass the directory that `kiln tokenizer train --out DIR` wrote/,
  );
  const bad = join(dir, "bad");
  const original = readFileSync(join(saved, "tokenizer.json"), "utf8");
  const variants: Array<[string, string, RegExp]> = [
    ["not json", "{", /tokenizer\.json: not valid JSON/],
    ["normalizer", JSON.stringify({ ...JSON.parse(original), normalizer: { type: "NFC" } }), /"normalizer" is \{"type":"NFC"\}, expected/],
    ["truncation", JSON.stringify({ ...JSON.parse(original), truncation: { max_length: 8 } }), /"truncation" is set/],
    ["model", JSON.stringify({ ...JSON.parse(original), model: { type: "BPE" } }), /"model.vocab" is undefined, expected an object/],
  ];
  for (const [what, text, message] of variants) {
    await saveTokenizer(trained, bad);
    writeFileSync(join(bad, "tokenizer.json"), text);
    await assert.rejects(loadTokenizer(bad), message, what);
  }
});
