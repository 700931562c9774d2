// `kiln quickstart --task classify`: the SpamAssassin emails' split and labels, the reduction of a raw
// email to what a reader sees, and the whole job at a tiny size (mlm-tiny, 32 tokens, a few steps):
// held-out metrics and confusion matrix, classified examples, and the PyTorch peer's files.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isHeldOut, readableEmail, spamAssassinSplits } from "../../src/data/spam-assassin.js";
import { pythonSkip, venvPythonPath } from "../helpers/python.js";
import { repoRoot } from "../helpers/repo-paths.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-quickstart-classify-");

test("the emails split one in ten by checksum, disjoint, labelled by their group", () => {
  const { train, heldOut } = spamAssassinSplits(10);
  assert.equal(train.length + heldOut.length, 6046, "every email of the corpus is in one split");
  assert.equal(heldOut.length, 640);
  const ids = new Set(train.map((e) => e.id));
  assert.ok(heldOut.every((e) => !ids.has(e.id) && isHeldOut(e.id, 10)));
  assert.ok(train.every((e) => !isHeldOut(e.id, 10)));
  for (const e of [...train, ...heldOut]) assert.equal(e.label, e.group.startsWith("spam") ? "spam" : "ham", e.id);
  assert.deepEqual(
    ["ham", "spam"].map((l) => heldOut.filter((e) => e.label === l).length),
    [445, 195],
  );
  // The same split on a second read (nothing depends on the package's order or on chance).
  assert.deepEqual(
    spamAssassinSplits(10).heldOut.map((e) => e.id),
    heldOut.map((e) => e.id),
  );
});

test("an email is reduced to its subject and readable body", () => {
  const raw = [
    "From: a@b.example",
    "Subject: Cheap =",
    "  watches",
    "Content-Type: text/html",
    "Content-Transfer-Encoding: quoted-printable",
    "",
    "<html><style>p { color: red }</style><p>Buy n=",
    "ow&nbsp;&amp; save =3D 50%</p></html>",
  ].join("\n");
  assert.equal(readableEmail(raw), "Cheap = watches Buy now & save = 50%");
});

let tinyRun: { dir: string; accuracy: number } | undefined;

test("kiln quickstart --task classify runs end to end at a tiny size", () => {
  const dir = join(root, "run");
  const args = ["--task", "classify", "--dir", dir, "--preset", "mlm-tiny", "--vocab-size", "1024", "--max-length", "32"];
  const r = spawnSync(process.execPath, [cli, "quickstart", ...args, "--pretrain-steps", "2", "--steps", "6", "--batch", "8"], {
    encoding: "utf8",
    timeout: 600_000,
  });
  assert.equal(r.status, 0, r.stderr.slice(-3000));
  const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  tinyRun = { dir, accuracy: summary.eval_accuracy };
  assert.equal(summary.task, "classify");
  assert.equal(summary.steps, 6);
  assert.equal(summary.held_out, 640);
  assert.ok(summary.eval_accuracy >= 0 && summary.eval_accuracy <= 1);
  assert.match(r.stdout, /held-out emails: 640 — accuracy [\d.]+%, macro F1 [\d.]+/);
  assert.match(r.stdout, /true \\ predicted\s+ham\s+spam/);
  assert.match(r.stdout, /(right|WRONG) {2}true (ham|spam) +predicted (ham|spam) +\d\.\d{3} {2}\S/);
  // What the PyTorch peer reads: the starting weights, the recipe, the training batches in order.
  const recipe = JSON.parse(readFileSync(join(dir, "peer", "recipe.json"), "utf8"));
  assert.equal(recipe.steps, 6);
  assert.ok(existsSync(join(recipe.init_dir, "model.safetensors")));
  const batches = readFileSync(join(dir, "peer", "train-batches.jsonl"), "utf8")
    .trim()
    .split("\n");
  assert.equal(batches.length, 6);
  for (const line of batches) {
    const b = JSON.parse(line) as { input_ids: number[][]; attention_mask: number[][]; labels: number[] };
    assert.equal(b.input_ids.length, 8);
    assert.ok(b.input_ids.every((row) => row.length === b.input_ids[0]!.length && row.length % 32 === 0));
    assert.ok(b.labels.every((l) => l === 0 || l === 1 || l === -100));
  }
  // Refused before any work: flags of the other tasks.
  const bad = spawnSync(process.execPath, [cli, "quickstart", "--task", "classify", "--corpus", "x.txt", "--dir", join(root, "no")], {
    encoding: "utf8",
  });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--corpus goes with --task mlm or causal-lm/);
});

test(
  "the PyTorch peer fine-tunes from the tiny job's start on its batches and scores the same held-out emails",
  { skip: pythonSkip },
  () => {
    assert.ok(tinyRun, "the end-to-end test ran first");
    const r = spawnSync(venvPythonPath(), [join(repoRoot(), "bench", "peers", "hf_classify_cpu.py"), tinyRun.dir], {
      encoding: "utf8",
      timeout: 300_000,
      env: { ...process.env, HF_HUB_OFFLINE: "1", TRANSFORMERS_OFFLINE: "1" },
    });
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    const peer = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    assert.equal(peer.steps, 6);
    assert.equal(peer.held_out, 640);
    assert.equal(peer.kiln_eval_accuracy, tinyRun.accuracy);
    assert.ok(peer.eval_accuracy >= 0 && peer.eval_accuracy <= 1);
  },
);
