// `kiln train --push-to gs://…`: checkpoints are uploaded in the background while training goes on,
// a push during a running upload is skipped, a failed upload is retried once and reported, and the
// final model is in the bucket when fit() returns. Against the in-process GCS fake.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeGcs } from "../helpers/fake-gcs.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { PushToStorage, RemoteSync } from "../../src/train/remote-sync.js";
import { listLocalFiles } from "../../src/data/storage/transfer.js";
import type { Callback } from "../../src/train/callbacks.js";
import { tempDir } from "../helpers/temp-dir.js";

const gcs = await startFakeGcs();
process.env.STORAGE_EMULATOR_HOST = gcs.host;
test.after(() => gcs.close());
const root = tempDir("kiln-push-");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uploadedName = (url: string) => new URL(url, "http://x").searchParams.get("name") ?? "";

test("a failed upload is retried once, then reported and counted; training-time pushes never throw", async () => {
  const dir = join(root, "sync");
  for (const [f, text] of [
    ["a/x.bin", "x"],
    ["b/y.bin", "y"],
    ["b/trainer_state.json", "{}"],
  ]) {
    mkdirSync(join(dir, f, ".."), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  const logs: string[] = [];
  const sync = new RemoteSync(dir, "gs://sync/run", (m) => logs.push(m));
  const failures = new Map<string, number>(); // object name → failures left
  gcs.intercept = ({ method, url }) => {
    const name = uploadedName(url);
    const left = failures.get(name) ?? 0;
    if (method !== "POST" || left === 0) return undefined;
    failures.set(name, left - 1);
    return { status: 403, message: `injected failure for ${name}` };
  };
  try {
    failures.set("run/a/x.bin", 2); // fails, and fails again on the retry
    assert.equal(sync.push(["a"], "checkpoint-a"), true);
    await sync.idle();
    assert.deepEqual(sync.counts, { uploads: 0, skipped: 0, failed: 1, retried: 1 });
    assert.ok(!gcs.objects.has("sync/run/a/x.bin"));
    assert.match(
      logs.join("\n"),
      /push to gs:\/\/sync\/run: uploading checkpoint-a failed \(.*permission denied \(403\).*\); trying once more/,
    );
    assert.match(logs.join("\n"), /uploading checkpoint-a failed again .*; 1 failed uploads so far/);

    failures.set("run/b/y.bin", 1); // fails once: the retry succeeds
    sync.push(["b"], "checkpoint-b");
    await sync.idle();
    assert.deepEqual(sync.counts, { uploads: 1, skipped: 0, failed: 1, retried: 2 });
    assert.equal(gcs.objects.get("sync/run/b/y.bin")?.toString(), "y");
    // trainer_state.json goes last: a checkpoint cut short never looks complete in the bucket.
    const order = gcs.requests.filter((r) => r.startsWith("POST") && r.includes("name=run%2Fb")).map((r) => uploadedName(r.slice(5)));
    assert.equal(order.at(-1), "run/b/trainer_state.json");

    failures.set("run/a/x.bin", 2);
    await assert.rejects(
      sync.finish(["a"], "the final model"),
      /the final upload failed twice; the outputs are in .*sync \(upload them with `gsutil -m cp -r/,
    );
  } finally {
    gcs.intercept = undefined;
  }
});

test("fit() keeps training while a slow upload runs, skips pushes meanwhile, and returns after the final upload", async () => {
  const data = join(root, "data");
  await writeTinyShards(data, 48);
  const out = join(root, "out");
  const logs: string[] = [];
  const push = new PushToStorage(out, "gs://push/run", (m) => logs.push(m));
  const stepTimes: number[] = [];
  const timer: Callback = { onStepEnd: () => void stepTimes.push(performance.now()) };
  gcs.intercept = async ({ method }) => {
    if (method === "POST") await sleep(150); // a slow network: each object takes 150 ms
    return undefined;
  };
  let result;
  try {
    result = await trainTiny(data, out, 12, { callbacks: [push, timer] });
  } finally {
    gcs.intercept = undefined;
  }
  assert.equal(result.globalStep, 12);
  const first = push.sync.history[0]!;
  const during = stepTimes.filter((t) => t > first.start && t < first.end).length;
  assert.ok(during >= 2, `steps completed while the first upload ran: ${during}`);
  assert.ok(push.sync.counts.skipped >= 1, `skipped pushes: ${push.sync.counts.skipped}`);
  assert.equal(push.sync.counts.failed, 0);
  assert.equal(push.sync.history.at(-1)!.label, "the final model and the last checkpoint");
  assert.match(
    logs.join("\n"),
    /push to gs:\/\/push\/run: checkpoint-\d+ skipped, the previous upload is still running \(1 skipped so far\)/,
  );
  assert.match(
    logs.join("\n"),
    /push to gs:\/\/push\/run: uploaded the final model and the last checkpoint \(\d+ files, [\d.]+ MB in [\d.]+ s\)/,
  );
  // Every file of the final model and of the last checkpoint is in the bucket, byte for byte.
  const files = (await listLocalFiles(out)).filter((f) => !f.startsWith("checkpoint-") || f.startsWith("checkpoint-12/"));
  for (const f of ["config.json", "model.safetensors", "metrics.jsonl", "loss_curve.html", "checkpoint-12/trainer_state.json"])
    assert.ok(files.includes(f), f);
  assert.ok(files.some((f) => f.startsWith("runs/")));
  for (const f of files) assert.deepEqual(gcs.objects.get(`push/run/${f}`), readFileSync(join(out, f)), f);
});
