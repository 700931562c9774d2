// The gs:// storage layer and RemoteSync against a real local GCS emulator (PyPI gcp-storage-emulator),
// beside the in-process fake. Runs when the emulator is installed in the project's .venv, or named by
// KILN_GCS_EMULATOR (the path of its `gcp-storage-emulator` script); otherwise skips with the reason.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emulatorSkip as skip, startGcsEmulator } from "../helpers/gcs-emulator.js";
import { tempDir } from "../helpers/temp-dir.js";

test("storage, probe and RemoteSync against the gcp-storage-emulator", { skip }, async () => {
  const emulator = await startGcsEmulator("emu");
  try {
    process.env.STORAGE_EMULATOR_HOST = emulator.host;
    const { storageFor, remoteDirHasFiles } = await import("../../src/data/storage/index.js");
    const { RemoteSync } = await import("../../src/train/remote-sync.js");
    assert.equal(await remoteDirHasFiles("gs://emu/run"), false);
    await assert.rejects(
      remoteDirHasFiles("gs://no-such-bucket/x"),
      /^Error: gs:\/\/no-such-bucket\/x: bucket "no-such-bucket" does not exist \(404\)|bucket "no-such-bucket" does not exist/,
    );
    const dir = tempDir("kiln-emu-");
    mkdirSync(join(dir, "checkpoint-2"));
    const big = new Uint8Array(3_000_000).map((_, i) => i % 251);
    writeFileSync(join(dir, "checkpoint-2", "model.safetensors"), big);
    writeFileSync(join(dir, "checkpoint-2", "trainer_state.json"), "{}");
    const sync = new RemoteSync(dir, "gs://emu/run", () => {});
    await sync.finish(["checkpoint-2"], "checkpoint-2");
    assert.deepEqual(sync.counts, { uploads: 1, skipped: 0, failed: 0, retried: 0 });
    assert.equal(await remoteDirHasFiles("gs://emu/run"), true);
    const storage = storageFor("gs://emu");
    assert.deepEqual(await storage.glob("gs://emu/run/**"), [
      "gs://emu/run/checkpoint-2/model.safetensors",
      "gs://emu/run/checkpoint-2/trainer_state.json",
    ]);
    assert.deepEqual(await storage.readAll("gs://emu/run/checkpoint-2/model.safetensors"), Buffer.from(big));
  } finally {
    emulator.stop();
  }
});
