// gs:// outputs and inputs of the `kiln` commands against the in-process GCS fake, the output-location
// checks (a bad --output-dir fails in well under a second, before any work), and gs:// failures as one
// line on stderr naming the path, with no library warnings.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeOneLayerConfig } from "../helpers/tiny-config.js";
import { startFakeGcs } from "../helpers/fake-gcs.js";
import { writeTinyShards } from "../helpers/tiny-training.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { listLocalFiles } from "../../src/data/storage/transfer.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const gcs = await startFakeGcs();
test.after(() => gcs.close());
const root = tempDir("kiln-cli-gcs-");
const cache = join(root, "cache");
const shards = join(root, "shards");
await writeTinyShards(shards, 16);
const corpus = await makeTestCorpus(2, 300);
const config = writeOneLayerConfig(join(root, "tiny-config.json"));

/** Runs the CLI without blocking this process (the fake GCS server answers from here). */
function kiln(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = performance.now();
  const merged: Record<string, string | undefined> = { ...process.env, STORAGE_EMULATOR_HOST: gcs.host, KILN_CACHE_DIR: cache, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const child = spawn(process.execPath, [cli, ...args], { env: merged as NodeJS.ProcessEnv });
  let out = "",
    err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err, ms: performance.now() - started })));
}

const trainArgs = (outputDir: string, steps: number, ...more: string[]) => [
  "train",
  "--tokenizer",
  corpus.tokenizerDir,
  "--train-data",
  shards,
  "--model-config",
  config,
  "--per-replica-batch-size",
  "4",
  "--max-steps",
  String(steps),
  "--checkpoint-every",
  "2",
  "--quiet",
  "--output-dir",
  outputDir,
  ...more,
];

/** Asserts that every file under `localDir` is the object under `prefix` ("bucket/path"), byte for byte. */
async function assertUploaded(localDir: string, prefix: string, only: (f: string) => boolean = () => true): Promise<string[]> {
  const files = (await listLocalFiles(localDir)).filter(only);
  for (const f of files) assert.deepEqual(gcs.objects.get(`${prefix}/${f}`), readFileSync(join(localDir, f)), f);
  return files;
}

test("kiln train --output-dir gs:// pushes the run to the bucket, refuses to start over it, and --resume continues from it", async () => {
  let r = await kiln(trainArgs("gs://runs/model", 4));
  assert.equal(r.code, 0, r.err);
  const staging = join(cache, "staging", "runs", "model");
  assert.match(
    r.err,
    new RegExp(`--output-dir gs://runs/model: training in ${staging}, pushed to the bucket at each checkpoint and at the end`),
  );
  assert.match(r.err, /push to gs:\/\/runs\/model: uploaded the final model and the last checkpoint \(\d+ files/);
  assert.match(r.err, /push to gs:\/\/runs\/model: \d+ uploads, \d+ pushes skipped while an upload ran, 0 failed/);
  assert.equal(JSON.parse(r.out).output_dir, "gs://runs/model");
  const files = await assertUploaded(staging, "runs/model", (f) => !f.startsWith("checkpoint-") || f.startsWith("checkpoint-4/"));
  for (const f of ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"])
    assert.ok(files.includes(f), f);
  for (const f of ["metrics.jsonl", "loss_curve.html", "checkpoint-4/optimizer.safetensors", "checkpoint-4/trainer_state.json"])
    assert.ok(files.includes(f), f);
  assert.ok(files.some((f) => f.startsWith("runs/events.out.tfevents")));

  r = await kiln(trainArgs("gs://runs/model", 6));
  assert.equal(r.code, 2);
  assert.equal(
    r.err.trim(),
    "--output-dir gs://runs/model already holds objects; pass --resume to continue from its newest checkpoint, or give an empty prefix",
  );

  r = await kiln(trainArgs("gs://runs/model", 6, "--resume"));
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /kiln train: resuming from gs:\/\/runs\/model\/checkpoint-4\n/);
  assert.equal(JSON.parse(r.out).steps, 6);
  const state = JSON.parse(gcs.objects.get("runs/model/checkpoint-6/trainer_state.json")!.toString());
  assert.equal(state.global_step, 6);
  const logged = gcs.objects
    .get("runs/model/metrics.jsonl")!
    .toString()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).step);
  assert.ok(logged.includes(4) && logged.includes(6) && !logged.includes(7), `steps logged: ${logged}`);
});

test("kiln train --push-to keeps the local run and copies it to the bucket; gs:// inputs are read through the storage layer", async () => {
  // The tokenizer and the model config come from the bucket.
  for (const f of ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"])
    gcs.objects.set(`inputs/tok/${f}`, readFileSync(join(corpus.tokenizerDir, f)));
  gcs.objects.set("inputs/config.json", readFileSync(config));
  const out = join(root, "pushed");
  const args = trainArgs(out, 2, "--push-to", "gs://runs/pushed").map((a) =>
    a === corpus.tokenizerDir ? "gs://inputs/tok" : a === config ? "gs://inputs/config.json" : a,
  );
  const r = await kiln(args);
  assert.equal(r.code, 0, r.err);
  const files = await assertUploaded(out, "runs/pushed");
  assert.ok(files.includes("model.safetensors") && files.includes("tokenizer.json") && files.includes("checkpoint-2/trainer_state.json"));

  const bad = await kiln(trainArgs(join(root, "x"), 2, "--push-to", join(root, "copy")));
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^--push-to .*copy: give a gs:\/\/bucket\/prefix/);
  // fill-mask reads the model from the bucket.
  const fill = await kiln(["fill-mask", "--model", "gs://runs/pushed", "The [MASK] of the people.", "--top-k", "2", "--json"]);
  assert.equal(fill.code, 0, fill.err);
  assert.equal(JSON.parse(fill.out).length, 2);
  // export reads the model from the bucket and writes its ONNX layout there.
  const exp = await kiln(["export", "--model", "gs://runs/pushed", "--format", "onnx", "--max-length", "16", "--out", "gs://runs/onnx"]);
  assert.equal(exp.code, 0, exp.err);
  assert.match(exp.out, /^wrote gs:\/\/runs\/onnx\/onnx\/model\.onnx/);
  for (const f of ["onnx/model.onnx", "config.json", "tokenizer.json"]) assert.ok(gcs.objects.has(`runs/onnx/${f}`), f);
});

test("kiln tokenizer train --out gs:// writes the three tokenizer files to the bucket, from a gs:// corpus", async () => {
  gcs.objects.set("text/corpus.txt", readFileSync(corpus.corpus));
  const r = await kiln(["tokenizer", "train", "--input", "gs://text/corpus.txt", "--vocab-size", "200", "--out", "gs://tok/unigram"]);
  assert.equal(r.code, 0, r.err);
  const local = await kiln(["tokenizer", "train", "--input", corpus.corpus, "--vocab-size", "200", "--out", join(root, "tok-local")]);
  assert.equal(local.code, 0, local.err);
  for (const f of ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"])
    assert.deepEqual(gcs.objects.get(`tok/unigram/${f}`), readFileSync(join(root, "tok-local", f)), f);
  assert.match(r.err, /wrote gs:\/\/tok\/unigram\/tokenizer\.json/);
  const enc = await kiln(["tokenizer", "encode", "--tokenizer", "gs://tok/unigram", "the people"]);
  assert.equal(enc.code, 0, enc.err);
  assert.ok(JSON.parse(enc.out).ids.length > 2);
});

test("a bad output location fails in under a second with exit code 2, naming the flag", async () => {
  const file = join(root, "a-file");
  writeFileSync(file, "x");
  const cases: [string[], RegExp][] = [
    [trainArgs("/proc/kiln-test", 2), /^--output-dir \/proc\/kiln-test: cannot write there: it is under \/proc, a virtual file system/],
    [
      ["tokenizer", "train", "--input", corpus.corpus, "--vocab-size", "100", "--out", "/proc/x"],
      /^--out \/proc\/x: cannot write there: it is under \/proc/,
    ],
    [
      ["data", "prepare", "--tokenizer", corpus.tokenizerDir, "--input", corpus.corpus, "--out", "/sys/kiln"],
      /^--out \/sys\/kiln: .*under \/sys/,
    ],
    [
      trainArgs(join(file, "model"), 2),
      /^--output-dir .*a-file\/model: cannot write there: .*a-file is a file, so no directory can be made under it/,
    ],
    [
      ["tokenizer", "train", "--input", corpus.corpus, "--vocab-size", "100", "--out", file],
      /^--out .*a-file: cannot write there: it is a file, not a directory/,
    ],
    [["quickstart", "--dir", "/dev/kiln"], /^--dir \/dev\/kiln: .*under \/dev/],
    [["quickstart", "--dir", "gs://b/q"], /^--dir gs:\/\/b\/q: the quickstart's working directory must be local; copy it here first/],
    [["export", "--model", "/proc/self", "--format", "onnx"], /^--model \/proc\/self: cannot write there: it is under \/proc/],
  ];
  for (const [args, expected] of cases) {
    const r = await kiln(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, expected);
    assert.equal(r.err.trim().split("\n").length, 1, r.err);
    assert.ok(r.ms < 3000, `${args.join(" ")} took ${r.ms.toFixed(0)} ms`); // the process start included; the check itself is milliseconds
  }
});

test("gs:// failures are one line naming the path: no network, refused permission, missing bucket, missing credentials", async () => {
  const tok = (out: string, env: Record<string, string | undefined> = {}) =>
    kiln(["tokenizer", "train", "--input", corpus.corpus, "--vocab-size", "100", "--out", out], env);
  const oneLine = (r: { code: number | null; err: string }, expected: RegExp) => {
    assert.equal(r.code, 1, r.err);
    assert.equal(r.err.trim().split("\n").length, 1, `stderr is one line: ${r.err}`);
    assert.match(r.err.trim(), expected);
    assert.doesNotMatch(r.err, /Warning|    at /);
  };
  oneLine(
    await tok("gs://b/tok", { STORAGE_EMULATOR_HOST: "http://127.0.0.1:9" }),
    new RegExp(
      "^kiln: --out gs:\\/\\/b\\/tok: cannot reach Google Cloud Storage at http:\\/\\/127\\.0\\.0\\.1:9 \\(ECONNREFUSED\\): " +
        "is the emulator named by STORAGE_EMULATOR_HOST running\\?$",
    ),
  );
  // No emulator and no credentials: this machine reaches no Google host (a network error), one that
  // does gets no credentials (an auth error); either is one line.
  oneLine(
    await kiln(trainArgs("gs://b/model", 2), { STORAGE_EMULATOR_HOST: undefined, GOOGLE_APPLICATION_CREDENTIALS: undefined }),
    new RegExp(
      "^kiln: --output-dir gs:\\/\\/b\\/model: (cannot reach Google Cloud Storage at storage\\.googleapis\\.com " +
        "\\((ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT)\\)|no Google Cloud credentials were found)",
    ),
  );
  gcs.intercept = ({ url }) => {
    if (url.startsWith("/b/denied/")) return { status: 403, message: "caller does not have storage.objects.list access" };
    if (url.startsWith("/b/missing/")) return { status: 404, message: "The specified bucket does not exist." };
    if (url.startsWith("/b/anonymous/")) return { status: 401, message: "Anonymous caller does not have storage.objects.list access" };
    return undefined;
  };
  try {
    oneLine(
      await tok("gs://denied/tok"),
      /^kiln: --out gs:\/\/denied\/tok: permission denied \(403\): the credentials in use may not access bucket "denied"/,
    );
    oneLine(await tok("gs://missing/tok"), /^kiln: --out gs:\/\/missing\/tok: bucket "missing" does not exist \(404\); create it/);
    oneLine(
      await tok("gs://anonymous/tok"),
      new RegExp(
        "^kiln: --out gs:\\/\\/anonymous\\/tok: no Google Cloud credentials were found\\. " +
          "Set GOOGLE_APPLICATION_CREDENTIALS .* or run `gcloud auth application-default login`$",
      ),
    );
    oneLine(
      await kiln(["fill-mask", "--model", "gs://denied/model", "a [MASK]"]),
      /^kiln: --model gs:\/\/denied\/model: permission denied \(403\)/,
    );
  } finally {
    gcs.intercept = undefined;
  }
});
