// `kiln classify` on a tiny RoBERTa classifier's directory: one text prints its best class (the
// pipeline's score), --json the pipeline's records, --all every class, --pair a pair; a masked LM's
// directory works with the fresh head reported on stderr; bad flags are refused with exit 2.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k from "../../src/index.js";
import { classifierConfig, createModel, createSequenceClassifier, presetConfig, saveModel } from "../../src/models/index.js";
import { loadTokenizer, saveTokenizer } from "../../src/text/index.js";
import { pipeline, type ClassificationResult } from "../../src/pipelines/index.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-classify-");

const tokenizer = await loadTokenizer((await makeTestCorpus(2, 300)).tokenizerDir);
const base = { ...presetConfig("mlm-tiny", tokenizer, 64), initializer_range: 0.3 };
const dir = join(root, "classifier");
const model = createSequenceClassifier(classifierConfig(base, "test", { labels: ["low", "mid", "high"] }));
await saveModel(dir, model, k.jit((key: k.Array) => model.init(key))(k.randomKey(0)));
await saveTokenizer(tokenizer, dir);
const mlmDir = join(root, "mlm");
const mlm = createModel(base);
await saveModel(mlmDir, mlm, k.jit((key: k.Array) => mlm.init(key))(k.randomKey(1)));
await saveTokenizer(tokenizer, mlmDir);
const classify = await pipeline("text-classification", dir);

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, "classify", ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const TEXT = "Taxes will go down next year.";

test("one text prints its best class with the pipeline's score; --json gives the pipeline's records", async () => {
  const [best] = await classify(TEXT);
  const r = kiln("--model", dir, TEXT);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `${best!.score.toFixed(4)}  ${best!.label}\n`);
  const json = kiln("--model", dir, TEXT, "--json", "--all");
  assert.equal(json.code, 0, json.err);
  const records = JSON.parse(json.out) as ClassificationResult[];
  assert.deepEqual(
    records.map((x) => x.label),
    (await classify(TEXT, { topK: null })).map((x) => x.label),
  );
  assert.equal(records.length, 3);
});

test("several texts print a block each; --pair classifies two texts together", async () => {
  const r = kiln("--model", dir, TEXT, "The war is over.", "--top-k", "2");
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trimEnd().split("\n");
  assert.equal(lines.length, 6);
  assert.equal(lines[0], JSON.stringify(TEXT));
  assert.match(lines[1]!, /^ {2}\d\.\d{4} {2}(low|mid|high)$/);
  const pair = kiln("--model", dir, TEXT, "--pair", "The war is over.", "--json");
  assert.equal(pair.code, 0, pair.err);
  const [want] = await classify({ text: TEXT, textPair: "The war is over." });
  const [got] = JSON.parse(pair.out) as ClassificationResult[];
  assert.equal(got!.label, want!.label);
  assert.ok(Math.abs(got!.score - want!.score) < 1e-6);
});

test("a masked LM's directory is classified with a fresh head, reported on stderr", () => {
  const r = kiln("--model", mlmDir, TEXT);
  assert.equal(r.code, 0, r.err);
  const head = "classifier.dense.bias, classifier.dense.weight, classifier.out_proj.bias, classifier.out_proj.weight";
  assert.ok(r.err.includes(`newly initialized: ${head}`), r.err);
  assert.match(r.out, /^\d\.\d{4} {2}LABEL_[01]\n$/);
});

test("bad flags are refused with exit 2 and a line naming them", () => {
  for (const [args, message] of [
    [["--model", dir], /give at least one text/],
    [["--model", dir, "a", "b", "--pair", "c"], /--pair goes with exactly one text, got 2/],
    [["--model", dir, "a", "--all", "--top-k", "2"], /--top-k or --all, not both/],
    [["--model", dir, "a", "--top-k", "0"], /--top-k/],
  ] as const) {
    const r = kiln(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, message);
  }
});
