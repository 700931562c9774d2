// A --model-config file with an impossible size is refused by name before anything is built, instead of
// failing later inside the runtime's shape inference.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readConfig } from "../../src/models/index.js";
import { fixture } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-config-");

const base = JSON.parse(readFileSync(fixture("roberta-tiny.json"), "utf8")) as Record<string, unknown>;

async function refusal(change: Record<string, unknown>): Promise<string> {
  const path = join(root, "config.json");
  writeFileSync(path, JSON.stringify({ ...base, ...change }));
  const error = await readConfig(path).then(
    () => assert.fail(`${JSON.stringify(change)} was accepted`),
    (e: Error) => e,
  );
  return error.message;
}

test("a zero or negative size in a model config is a config error naming the file and field", async () => {
  const path = join(root, "config.json");
  assert.equal(await refusal({ hidden_size: 0 }), `${path}: "hidden_size" must be a positive integer, got 0`);
  for (const field of ["vocab_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "max_position_embeddings"]) {
    assert.match(await refusal({ [field]: 0 }), new RegExp(`^${path}: "${field}" must be a positive integer, got 0$`));
  }
  assert.match(await refusal({ intermediate_size: 2.5 }), /"intermediate_size" must be a positive integer, got 2\.5/);
  assert.match(await refusal({ hidden_size: 18, num_attention_heads: 4 }), /hidden_size 18 is not a multiple of num_attention_heads 4/);
  assert.match(await refusal({ layer_norm_eps: 0 }), /"layer_norm_eps" must be a positive number, got 0/);
  assert.match(await refusal({ pad_token_id: -1 }), /"pad_token_id" must be a non-negative integer, got -1/);
  assert.equal((await readConfig(fixture("roberta-tiny.json"))).hidden_size, 16);
});
