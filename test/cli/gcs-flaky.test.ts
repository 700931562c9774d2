// `kiln train` with gs:// data and --push-to through a fault-injecting proxy in front of the real GCS
// emulator (503s, 429s, connections reset before and halfway through an answer, stalls past the
// timeout): the run finishes, every pushed object is byte for byte the file the run wrote, the model
// and its checkpoints are those of a clean run, and the retries it reports are the faults it met.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ONE_LAYER_CONFIG } from "../helpers/tiny-config.js";
import { writeTinyShards } from "../helpers/tiny-training.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { emulatorSkip, startGcsEmulator } from "../helpers/gcs-emulator.js";
import { seededFaults, startFaultyProxy, type Fault } from "../helpers/faulty-proxy.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

function kiln(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env } });
  let out = "",
    err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const timer = setTimeout(() => child.kill(), 120_000);
  return new Promise((resolve) => child.on("close", (code) => (clearTimeout(timer), resolve({ code, out, err }))));
}

test(
  "kiln train --push-to with gs:// data through 503s, resets and stalls pushes the same bytes as a clean run",
  { skip: emulatorSkip },
  async (t) => {
    const emulator = await startGcsEmulator("emu");
    const proxy = await startFaultyProxy(emulator.host);
    try {
      const root = tempDir("kiln-gcs-flaky-");
      const shards = join(root, "shards");
      await writeTinyShards(shards, 32);
      const corpus = await makeTestCorpus(2, 300);
      // Wide enough (0.1M parameters) that the model and optimizer files take several 256 KiB chunks.
      const config = join(root, "config.json");
      writeFileSync(config, JSON.stringify({ ...ONE_LAYER_CONFIG, hidden_size: 64, intermediate_size: 256 }));
      process.env.STORAGE_EMULATOR_HOST = emulator.host; // this process reads and writes the bucket directly
      const { storageFor } = await import("../../src/data/storage/index.js");
      const gcs = storageFor("gs://emu");
      for (const f of readdirSync(shards)) await gcs.writeAtomic(`gs://emu/data/${f}`, readFileSync(join(shards, f)));

      const train = (name: string) => [
        "train",
        "--tokenizer",
        corpus.tokenizerDir,
        "--train-data",
        "gs://emu/data",
        "--model-config",
        config,
        "--per-replica-batch-size",
        "4",
        "--max-steps",
        "4",
        "--checkpoint-every",
        "2",
        "--quiet",
        "--output-dir",
        join(root, name),
        "--push-to",
        `gs://emu/${name}`,
      ];
      // Short waits and timeouts keep the test quick; chunks of 256 KiB make the model's upload resumable.
      const settings = {
        KILN_GCS_RETRY_DELAY_MS: "20",
        KILN_GCS_RETRY_MAX_DELAY_MS: "200",
        KILN_GCS_TIMEOUT_MS: "1000",
        KILN_GCS_CHUNK_BYTES: String(256 << 10),
        KILN_CACHE_DIR: join(root, "cache"),
      };
      const clean = await kiln(train("clean"), { ...settings, STORAGE_EMULATOR_HOST: emulator.host });
      assert.equal(clean.code, 0, clean.err);
      assert.match(clean.err, /kiln train: gs:\/\/: \d+ operations, 0 retries\n/);

      const kinds: Fault[] = ["503", "429", "reset", "reset-mid-body", "stall", "stall-mid-body"];
      proxy.plan = seededFaults(11, 0.2, kinds);
      const flaky = await kiln(train("flaky"), { ...settings, STORAGE_EMULATOR_HOST: proxy.host });
      proxy.plan = () => undefined;
      assert.equal(flaky.code, 0, flaky.err);
      const faults = proxy.faults();
      const injected = Object.values(faults).reduce((a, b) => a + b, 0);
      assert.ok(injected >= 8 && Object.keys(faults).length >= 4, `faults injected: ${JSON.stringify(faults)}`);
      // Every fault costs a retry, and the run says how many, by cause. A cut connection has been seen to
      // cost two (one more ECONNRESET right after it), so a reset may add one. One fault in a few runs ends
      // an operation for good instead ("1 failed") and the run still finishes with the same bytes: the
      // bytes below are what must hold; the counts are bounded, not exact.
      const line = /kiln train: gs:\/\/: (\d+) operations, (\d+) retries \(([^)]*)\)(?:.*?, (\d+) failed)?(.*)\n/.exec(flaky.err);
      assert.ok(line, flaky.err);
      t.diagnostic(`${line[0].trim()}; faults injected: ${JSON.stringify(faults)}`);
      const resets = (faults.reset ?? 0) + (faults["reset-mid-body"] ?? 0);
      const retries = Number(line[2]),
        failed = Number(line[4] ?? 0);
      assert.ok(retries + failed >= injected && retries <= injected + resets && failed <= 1, `${line[0]} for ${JSON.stringify(faults)}`);
      assert.match(line[3]!, /503 ×\d+/);
      // The push says when it had to start an upload again: only after an operation that failed for good.
      if (failed === 0) assert.doesNotMatch(flaky.err, /trying once more/);

      const pushed = (name: string) => gcs.glob(`gs://emu/${name}/**`).then((p) => p.map((x) => x.slice(`gs://emu/${name}/`.length)));
      const files = await pushed("flaky");
      // The event file's name holds the time the run started.
      const named = (names: string[]) => names.map((f) => f.replace(/tfevents\.\d+/, "tfevents.T"));
      assert.deepEqual(named(files), named(await pushed("clean")));
      assert.ok(files.includes("model.safetensors") && files.includes("checkpoint-4/optimizer.safetensors"), files.join());
      let resumable = 0;
      for (const f of files) {
        const object = Buffer.from(await gcs.readAll(`gs://emu/flaky/${f}`));
        const local = readFileSync(join(root, "flaky", f));
        assert.ok(object.equals(local), `gs://emu/flaky/${f} is not the file the run wrote`);
        if (local.length > 256 << 10) resumable++;
        // What the training computed is the same as in the clean run; logs carry times and host names, and
        // trainer_state.json the training seconds (so a checksums.json is compared without its digest).
        if (/^(metrics\.jsonl|loss_curve\.html|runs\/|.*trainer_state\.json)/.test(f)) continue;
        const cleanObject = Buffer.from(await gcs.readAll(`gs://emu/clean/${f}`));
        if (f.endsWith("checksums.json"))
          assert.deepEqual(withoutTrainerState(object), withoutTrainerState(cleanObject), `${f} differs from the clean run's`);
        else assert.ok(object.equals(cleanObject), `${f} differs from the clean run's`);
      }
      assert.ok(resumable > 0, "some files went as resumable uploads");
    } finally {
      await proxy.close();
      emulator.stop();
    }
  },
);

/** A checksums.json's file digests but trainer_state.json's (which holds the run's training seconds). */
function withoutTrainerState(bytes: Buffer): Record<string, unknown> {
  const { files } = JSON.parse(bytes.toString("utf8")) as { files: Record<string, unknown> };
  return Object.fromEntries(Object.entries(files).filter(([name]) => name !== "trainer_state.json"));
}
