// Every example in examples/ runs, for a few steps on tiny data, as a user would run it: the compiled
// file under dist/examples, importing "kiln" (the package's own exports) in a process of its own.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSentenceCorpus } from "../helpers/sotu-slice.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { tempDir } from "../helpers/temp-dir.js";

const examples = fileURLToPath(new URL("../../examples/", import.meta.url));
const root = tempDir("kiln-examples-");
// The MiniLM fine-tune alone writes about 350 MB of checkpoints here.
const corpus = writeSentenceCorpus(join(root, "corpus.txt"));

function example(name: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(examples, `${name}.js`), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 180_000,
    env: { ...process.env, KILN_EXAMPLE_STEPS: "2", KILN_EXAMPLE_SIZE: "tiny", ...env },
  });
  assert.equal(r.status, 0, `${name} failed:\n${r.stderr.slice(-3000)}`);
  return r.stdout;
}

const pipeline = join(root, "pipeline");

test("every example is tested here", () => {
  const names = readdirSync(examples)
    .filter((f) => f.endsWith(".js"))
    .sort();
  assert.deepEqual(names, ["01-pipeline.js", "02-custom-loop.js", "03-lightning-trainer.js", "04-fine-tune.js", "05-classify-minilm.js"]);
});

test("01: tokenizer → shards → Trainer.fit → fill-mask", () => {
  const out = example("01-pipeline", [corpus, pipeline]);
  assert.match(out, /^trained 2 steps; eval loss \d+\.\d+$/m);
  assert.equal(
    out
      .trim()
      .split("\n")
      .filter((l) => l.endsWith(" of the United States.")).length,
    3,
  );
  for (const f of ["tokenizer/tokenizer.json", "shards/train", "model/model.safetensors"]) assert.ok(existsSync(join(pipeline, f)), f);
});

test("02: a custom loop with strategy.run, strategy.reduce and a distributed dataset over 2 replicas, compiled once", () => {
  const out = example("02-custom-loop", [join(pipeline, "tokenizer"), join(pipeline, "shards", "train")]);
  assert.match(out, /^step 1: loss \d+\.\d+$/m);
  assert.match(out, /^step 2: loss \d+\.\d+$/m);
  assert.match(out, /function replicaStep: compiles 1 .*cache hits 1/);
});

test("03: Trainer({ accelerator, devices, precision })", () => {
  const out = example("03-lightning-trainer", [join(pipeline, "tokenizer"), join(pipeline, "shards"), join(root, "lightning")], {
    KILN_EXAMPLE_ACCELERATOR: "cpu",
  });
  assert.match(out, /^data-parallel on cpu:0, cpu:1, precision bf16-mixed$/m);
  const summary = JSON.parse(out.trim().split("\n").at(-1)!) as { steps: number; eval_loss: number };
  assert.equal(summary.steps, 2);
  assert.ok(Number.isFinite(summary.eval_loss));
});

test("04: fine-tuning from a transformers save_pretrained directory", { skip: pythonSkip }, () => {
  const hf = join(root, "hf-roberta");
  mkdirSync(hf);
  // A random RobertaForMaskedLM sized to the tokenizer of example 01 (300 pieces, pad 3, [CLS] 0, [SEP] 1).
  runPython("hf_save_roberta.py", [], {
    input: JSON.stringify({ out: hf, vocab_size: 300, pad_id: 3, bos_id: 0, eos_id: 1, max_length: 32 }),
  });
  cpSync(join(pipeline, "tokenizer"), hf, { recursive: true });
  const out = example("04-fine-tune", [hf, corpus, join(root, "fine-tune")]);
  assert.match(out, /^RobertaForMaskedLM from .* \(masked-LM head loaded\)$/m);
  assert.match(out, /^eval loss \d+\.\d+ → \d+\.\d+ after 2 steps/m);
  assert.ok(existsSync(join(root, "fine-tune", "model", "model.safetensors")));
});

test("05: fine-tuning all-MiniLM-L6-v2 (WordPiece, a fresh head) as a spam classifier", { skip: pythonSkip }, () => {
  const { dir: minilm } = runPython<{ dir: string }>("hf_classification.py", [], { input: JSON.stringify({ mode: "minilm" }) });
  // Labelled emails in the layout `npm run main -- --task classify` writes (a few of each class).
  const emails = join(root, "emails");
  mkdirSync(emails);
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      JSON.stringify(
        i % 2
          ? { text: `Claim your FREE prize number ${i} now, click the link!!!`, label: "spam" }
          : { text: `The meeting notes for week ${i} are attached; see you on Monday.`, label: "ham" },
      ),
    ).join("\n") + "\n";
  writeFileSync(join(emails, "train.jsonl"), rows(12));
  writeFileSync(join(emails, "held-out.jsonl"), rows(6));
  const out = example("05-classify-minilm", [minilm, emails, join(root, "classify-minilm")]);
  assert.match(out, /newly initialized: classifier\.bias, classifier\.weight/);
  assert.match(out, /^held-out accuracy \d+\.\d{2}%, macro F1 \d\.\d{4}$/m);
  assert.match(out, /^confusion matrix/m);
  assert.match(out, /WIN a FREE cruise.* → \[ \{ label: '(ham|spam)', score: /);
  assert.ok(existsSync(join(root, "classify-minilm", "model", "model.safetensors")));
});
