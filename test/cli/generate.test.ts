// `kiln generate` on a tiny Llama directory: one prompt streamed (the same text --json gives for the
// seed), several prompts in a batch, the compile report, --help; and every bad flag refused with exit 2
// and one line naming it, before the model is loaded.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k from "../../src/index.js";
import { presetConfig, createCausalLM, saveModel } from "../../src/models/index.js";
import { loadTokenizer, saveTokenizer } from "../../src/text/index.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { ONE_LAYER_CONFIG } from "../helpers/tiny-config.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-generate-");

const model = join(root, "model");
const tokenizer = await loadTokenizer((await makeTestCorpus(2, 300)).tokenizerDir);
const llama = createCausalLM({ ...presetConfig("llama-tiny", tokenizer), initializer_range: 0.3 });
await saveModel(model, llama, k.jit((key: k.Array) => llama.init(key))(k.randomKey(0)));
await saveTokenizer(tokenizer, model);

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

interface Record {
  prompt: string;
  generated_text: string;
  new_text: string;
  token_ids: number[];
  finish_reason: string;
}

test("one prompt streams its continuation; --json gives the same text for the seed; stderr reports the compiles", () => {
  const prompt = "The state of the Union";
  const r = kiln("generate", "--model", model, prompt, "--max-new-tokens", "12", "--seed", "4", "--top-p", "0.9");
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^compiled 2 programs \(prefill 16, decode\) in \d+\.\d s; prefill \d+\.\d\d s; \d+ decoded tokens in /m);
  const json = kiln("generate", "--model", model, prompt, "--max-new-tokens", "12", "--seed", "4", "--top-p", "0.9", "--json");
  assert.equal(json.code, 0, json.err);
  const [rec] = JSON.parse(json.out) as Record[];
  assert.equal(r.out, `${rec!.generated_text}\n`);
  assert.equal(rec!.generated_text, prompt + rec!.new_text);
  assert.ok(rec!.new_text.length > 0);
  assert.ok(rec!.token_ids.length >= 1 && rec!.token_ids.length <= 12);
  assert.ok(["eos", "length"].includes(rec!.finish_reason));
  const other = kiln("generate", "--model", model, prompt, "--max-new-tokens", "12", "--seed", "5", "--top-p", "0.9", "--json");
  assert.notEqual((JSON.parse(other.out) as Record[])[0]!.new_text, rec!.new_text, "another seed, another text");
});

test("several prompts run as one batch (greedy: each as it would alone), printed when done", () => {
  const prompts = ["We the people", "The economy of the United States grew"];
  const both = kiln("generate", "--model", model, ...prompts, "--max-new-tokens", "8", "--greedy", "--json");
  assert.equal(both.code, 0, both.err);
  const recs = JSON.parse(both.out) as Record[];
  assert.deepEqual(
    recs.map((x) => x.prompt),
    prompts,
  );
  for (const [i, p] of prompts.entries()) {
    const alone = JSON.parse(kiln("generate", "--model", model, p, "--max-new-tokens", "8", "--greedy", "--json").out) as Record[];
    assert.deepEqual(recs[i]!.token_ids, alone[0]!.token_ids, p);
  }
  const text = kiln("generate", "--model", model, ...prompts, "--max-new-tokens", "8", "--greedy");
  assert.equal(text.code, 0, text.err);
  assert.equal(text.out, `${recs.map((x) => x.generated_text).join("\n\n")}\n`);
  assert.match(text.err, /compiled 2 programs \(prefill \d+, decode ×8\)/);
});

test("kiln generate --help describes the flags", () => {
  const r = kiln("generate", "--help");
  assert.equal(r.code, 0);
  for (const flag of ["--max-new-tokens", "--temperature", "--top-k", "--top-p", "--seed", "--greedy", "--json"])
    assert.ok(r.out.includes(flag), flag);
});

test("bad flags and prompts that do not fit are refused with exit 2 and one line naming them", () => {
  const cases: [string[], RegExp][] = [
    [["generate", "prompt"], /^kiln generate: --model is required/],
    [["generate", "--model", model], /^kiln generate: give at least one prompt/],
    [
      ["generate", "--model", model, "p", "--greedy", "--temperature", "0.5"],
      /^kiln generate: --greedy takes the most likely token, so --temperature would do nothing/,
    ],
    [["generate", "--model", model, "p", "--temperature", "0"], /^kiln generate: --temperature must be a number > 0, got 0/],
    [["generate", "--model", model, "p", "--top-p", "1.5"], /^kiln generate: --top-p must be a number in \(0, 1\]/],
    [["generate", "--model", model, "p", "--top-k=-1"], /^--top-k must be an integer ≥ 0, got "-1"/],
    [["generate", "--model", model, "p", "--max-new-tokens", "0"], /^--max-new-tokens must be an integer ≥ 1, got "0"/],
    [["generate", "--model", model, "p", "--seed", "x"], /^--seed must be an integer ≥ 0, got "x"/],
    [["generate", "--model", model, "p", "--beams", "2"], /^kiln generate: unknown flag --beams\n/],
    [
      ["generate", "--model", model, "p", "--max-new-tokens", "100"],
      /^kiln generate: the prompt is \d+ tokens; with 100 new tokens that is \d+ positions, but the model has positions for 64/,
    ],
  ];
  const masked = join(root, "masked");
  mkdirSync(masked);
  writeFileSync(join(masked, "config.json"), JSON.stringify(ONE_LAYER_CONFIG));
  cases.push([
    ["generate", "--model", masked, "p"],
    /^kiln generate: .*masked\/config.json describes a roberta masked language model; .*use fill-mask/,
  ]);
  for (const [args, message] of cases) {
    const r = kiln(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, message);
    assert.equal(r.out, "");
  }
});
