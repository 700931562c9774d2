// `kiln train --task sequence-classification` end to end: labelled JSON Lines prepared with `kiln data
// prepare --task classification`, a tiny masked LM's directory fine-tuned with a new head (named as it
// is made), eval lines with accuracy and macro F1, the confusion matrix at the end, accuracy clearly
// above always guessing the majority class; the saved directory classifies with `kiln classify`, and
// transformers' AutoModelForSequenceClassification loads it with no missing keys and the same logits.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k from "../../src/index.js";
import { createModel, loadModel, presetConfig, saveModel } from "../../src/models/index.js";
import type { Params } from "../../src/models/language-model.js";
import { readSafetensors } from "../../src/models/safetensors.js";
import { loadTokenizer } from "../../src/text/index.js";
import { maxAbsDiff, padBatch, writeBatch } from "../helpers/hf-interop.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { LABELS, MAX_LENGTH, makeTinyClassification } from "../helpers/tiny-classification.js";
import { tempDir } from "../helpers/temp-dir.js";

const main = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const data = await makeTinyClassification();
const out = join(data.dir, "classifier");
/** `kiln classify`'s class for "the state of the union" (the Python test compares transformers' pipeline with it). */
let kilnTopLabel: string | undefined;

function kiln(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...args], { maxBuffer: 1 << 24 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const prepare = ["data", "prepare", "--task", "classification", "--tokenizer", data.tokenizerDir, "--text-column", "text"];
const prepared = join(data.dir, "cli-data");
const train = [
  "train",
  "--task",
  "sequence-classification",
  "--init-from",
  data.baseModel,
  "--tokenizer",
  data.tokenizerDir,
  "--train-data",
  join(prepared, "train"),
  "--per-replica-batch-size",
  "16",
  "--learning-rate",
  "3e-3",
];

test("kiln train --task sequence-classification fine-tunes a masked LM's directory into a classifier", async () => {
  for (const [input, split] of [
    [data.trainJsonl, "train"],
    [data.validationJsonl, "validation"],
  ] as const) {
    const r = await kiln(
      ...prepare,
      "--input",
      input,
      "--label-column",
      "label",
      "--labels",
      LABELS.join(","),
      "--split",
      split,
      "--out",
      prepared,
      "--max-length",
      String(MAX_LENGTH),
      "--pad-to-multiple-of",
      "8",
    );
    assert.equal(r.code, 0, r.stderr);
  }
  const r = await kiln(
    ...train,
    "--eval-data",
    join(prepared, "validation"),
    "--output-dir",
    out,
    "--max-steps",
    "100",
    "--eval-every",
    "50",
    "--num-labels",
    "2",
    "--class-weights",
    "1,1.2",
  );
  assert.equal(r.code, 0, r.stderr);
  // The head the masked LM lacks is made fresh and named; the LM head is left unused.
  assert.match(
    r.stderr,
    /newly initialized: classifier\.dense\.bias, classifier\.dense\.weight, classifier\.out_proj\.bias, classifier\.out_proj\.weight/,
  );
  assert.match(r.stderr, /lm_head\.\S+ .*unused|unused by RobertaForSequenceClassification/);
  assert.match(r.stderr, /in 2 classes \(other, has-of\)/);
  assert.match(r.stderr, /step 50: eval loss \d+\.\d+, accuracy \d+\.\d+%, macro F1 \d\.\d{4} over 95 examples/);
  assert.match(
    r.stderr,
    new RegExp(
      String.raw`confusion matrix \(rows: true label, columns: predicted\):\n.*true \\ predicted\s+other\s+has-of\n` +
        String.raw`.*other\s+\d+\s+\d+\n.*has-of\s+\d+\s+\d+`,
    ),
  );
  assert.match(r.stderr, /batch lengths met: [1-4] in training \([1-4] training step compiles\), [1-4] in evaluation/);
  const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert.equal(summary.task, "sequence-classification");
  assert.ok(summary.eval_accuracy > data.chance + 0.1, `accuracy ${summary.eval_accuracy} against chance ${data.chance}`);
  assert.ok(summary.eval_macro_f1 > 0.6, `macro F1 ${summary.eval_macro_f1}`);
  // The summary's confusion matrix holds every validation example once, its diagonal the accuracy.
  assert.deepEqual(summary.labels, LABELS);
  const m = summary.confusion_matrix as number[][];
  assert.equal(
    m.flat().reduce((a, b) => a + b, 0),
    95,
  );
  assert.equal((m[0]![0]! + m[1]![1]!) / 95, summary.eval_accuracy);
  const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
  assert.deepEqual(config.architectures, ["RobertaForSequenceClassification"]);
  assert.deepEqual(config.id2label, { 0: "other", 1: "has-of" });

  const classified = await kiln("classify", "--model", out, "the state of the union", "we thank you", "--json");
  assert.equal(classified.code, 0, classified.stderr);
  const records = JSON.parse(classified.stdout) as { label: string; score: number }[][];
  assert.equal(records.length, 2);
  for (const [rec] of records) assert.ok(LABELS.includes(rec!.label) && rec!.score > 0.5, JSON.stringify(rec));
  kilnTopLabel = records[0]![0]!.label;
});

test("transformers loads the fine-tuned directory with no missing keys and the same logits", { skip: pythonSkip }, async () => {
  const tokenizer = await loadTokenizer(out);
  const rows = ["The state of the Union is strong", "We have", "Of all the blessings of the year"].map((t) => tokenizer.encode(t));
  const batch = padBatch(rows, tokenizer.padId!);
  const batchPath = join(data.dir, "batch.safetensors");
  await writeBatch(batchPath, batch);
  const loaded = await loadModel(out, { task: "sequence-classification" });
  assert.equal(loaded.head, "loaded");
  assert.deepEqual(loaded.notices, []);
  const ours = (await k
    .jit((p: Params, ids: k.Array, mask: k.Array) => loaded.model.logits(p, ids, mask))(
      loaded.params,
      k.array(batch.inputIds, { shape: batch.shape }),
      k.array(batch.attentionMask, { shape: batch.shape }),
    )
    .data()) as Float32Array;
  type Report = { class: string; loading_info: Record<string, string[]>; texts: { label: string; score: number }[][] };
  const report = runPython<Record<string, Report>>("hf_classification.py", [], {
    input: JSON.stringify({
      mode: "check",
      dirs: { roberta: out },
      batch: batchPath,
      texts: ["the state of the union"],
      pairs: [["the state", "of the union"]],
    }),
  });
  assert.equal(report.roberta!.class, "RobertaForSequenceClassification");
  assert.deepEqual(report.roberta!.loading_info.missing_keys, []);
  assert.deepEqual(report.roberta!.loading_info.unexpected_keys, []);
  const theirs = (await readSafetensors(join(out, "hf.safetensors"))).tensors.logits!.data as Float32Array;
  assert.ok(maxAbsDiff(ours, theirs) < 1e-4, `max |logit difference| ${maxAbsDiff(ours, theirs)}`);
  // transformers' text-classification pipeline, with the tokenizer saved beside the model, agrees with `kiln classify`.
  if (kilnTopLabel) assert.equal(report.roberta!.texts[0]![0]!.label, kilnTopLabel);
});

test("a classifier's settings that cannot train are refused by flag, before any step", async () => {
  const cases: [string[], RegExp][] = [
    [["--num-labels", "3"], /--num-labels "?3"?: differs from the data's 2 classes \(other, has-of, from its prepare\.json\)/],
    [["--class-weights", "1,2,3"], /--class-weights .*must be 2 finite weights ≥ 0 \(one per class of the model\)/],
    [["--class-weights", "1,x"], /--class-weights 1,x: give one number per class/],
    [["--max-length", "16"], /--max-length does not apply to --task sequence-classification/],
  ];
  for (const [i, [flags, message]] of cases.entries()) {
    const r = await kiln(...train, "--output-dir", join(prepared, `refused-${i}`), ...flags);
    assert.notEqual(r.code, 0, flags.join(" "));
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /step 1\b|eval loss/);
  }
  const lm = await kiln(
    "train",
    "--task",
    "mlm",
    "--preset",
    "mlm-tiny",
    "--tokenizer",
    data.tokenizerDir,
    "--train-data",
    join(prepared, "train"),
    "--output-dir",
    join(prepared, "refused-lm"),
    "--class-weights",
    "1,2",
  );
  assert.notEqual(lm.code, 0);
  assert.match(lm.stderr, /--class-weights is for --task sequence-classification, not --task mlm/);
});

test(
  "a classifier 128 wide trains on the CPU executor a probe of its own shape chose (two layers, its data's length)",
  { skip: xlaCpuSkip },
  async () => {
    const tokenizer = await loadTokenizer(data.tokenizerDir);
    const config = { ...presetConfig("mlm-tiny", tokenizer, MAX_LENGTH), hidden_size: 128, intermediate_size: 256 };
    const model = createModel(config);
    const wide = join(data.dir, "wide-base");
    await saveModel(wide, model, k.jit((key: k.Array) => model.init(key))(k.randomKey(5)));
    cpSync(join(data.tokenizerDir, "tokenizer.json"), join(wide, "tokenizer.json"));
    // A cache of its own: the probe runs here rather than reading an earlier run's choice.
    const env = { ...process.env, XDG_CACHE_HOME: tempDir("kiln-probe-cache-") };
    const args = [main, "train", "--task", "sequence-classification", "--init-from", wide, "--tokenizer", data.tokenizerDir];
    args.push("--train-data", data.train, "--per-replica-batch-size", "16", "--max-steps", "1", "--quiet");
    args.push("--output-dir", join(data.dir, "wide-classifier"));
    const r = spawnSync(process.execPath, args, { env, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    // Batches of 16 records padded to at most 32 tokens (the data's maxLength): the probe's 16×32.
    // Both candidates' timings, the faster first (either may win on a given machine and load).
    const line = /^kiln train: executor (ort|xla) \(32\): .* per step of .*$/m.exec(r.stderr)?.[0];
    assert.ok(line, r.stderr);
    assert.match(line, /\(((ort|xla) f32 \d+ ms), (?!\2)(ort|xla) f32 \d+ ms per step of /);
    assert.match(r.stderr, / per step of roberta classifier width 128, vocab \d+, 16×32 tokens, 2 layers\b/);
    assert.match(r.stderr, /tokens, 2 layers\), probed .*, cached in /);
  },
);
