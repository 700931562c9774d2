// The gs:// storage layer and RemoteSync against a real local GCS emulator (PyPI gcp-storage-emulator),
// beside the in-process fake. Runs when the emulator is installed in the project's .venv, or named by
// KILN_GCS_EMULATOR (the path of its `gcp-storage-emulator` script); otherwise skips with the reason.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";

const binary = process.env.KILN_GCS_EMULATOR ?? join(repoRoot(), ".venv", "bin", "gcp-storage-emulator");
// python/requirements.txt installs it with the rest of the Python side; under CI=true a missing one fails.
const missing = `no GCS emulator at ${binary} (scripts/setup-python.sh installs it; or set KILN_GCS_EMULATOR)`;
const skip = existsSync(binary) || process.env.CI === "true" ? false : missing;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

test("storage, probe and RemoteSync against the gcp-storage-emulator", { skip }, async () => {
  assert.ok(existsSync(binary), missing);
  const port = await freePort();
  const emulator = spawn(binary, ["start", "--host=127.0.0.1", `--port=${port}`, "--in-memory", "--default-bucket=emu"], {
    stdio: "ignore",
  });
  try {
    process.env.STORAGE_EMULATOR_HOST = `http://127.0.0.1:${port}`;
    const { storageFor, remoteDirHasFiles } = await import("../../src/data/storage/index.js");
    const { RemoteSync } = await import("../../src/train/remote-sync.js");
    for (let i = 0; ; i++) {
      try {
        await remoteDirHasFiles("gs://emu/run");
        break;
      } catch (e) {
        if (i > 50) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.equal(await remoteDirHasFiles("gs://emu/run"), false);
    await assert.rejects(
      remoteDirHasFiles("gs://no-such-bucket/x"),
      /^Error: gs:\/\/no-such-bucket\/x: bucket "no-such-bucket" does not exist \(404\)|bucket "no-such-bucket" does not exist/,
    );
    const dir = mkdtempSync(join(tmpdir(), "kiln-emu-"));
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
    emulator.kill();
  }
});
