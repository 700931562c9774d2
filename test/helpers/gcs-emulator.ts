// For tests: the real local GCS emulator (PyPI gcp-storage-emulator, installed in the project's .venv
// by scripts/setup-python.sh, or named by KILN_GCS_EMULATOR), started on a free 127.0.0.1 port with an
// in-memory store and one default bucket. `skip` says why tests cannot run where it is missing (under
// CI=true a missing emulator fails instead).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "./free-port.js";
import { join } from "node:path";
import { repoRoot } from "./repo-paths.js";

export const emulatorBinary = process.env.KILN_GCS_EMULATOR ?? join(repoRoot(), ".venv", "bin", "gcp-storage-emulator");
export const emulatorMissing = `no GCS emulator at ${emulatorBinary} (scripts/setup-python.sh installs it; or set KILN_GCS_EMULATOR)`;
export const emulatorSkip: string | false = existsSync(emulatorBinary) || process.env.CI === "true" ? false : emulatorMissing;

export interface GcsEmulator {
  /** http://127.0.0.1:PORT, for STORAGE_EMULATOR_HOST. */
  host: string;
  stop(): void;
}

/** Starts the emulator with `bucket` as its default bucket and waits until it answers HTTP. */
export async function startGcsEmulator(bucket: string): Promise<GcsEmulator> {
  if (!existsSync(emulatorBinary)) throw new Error(emulatorMissing);
  const port = await freePort();
  const child = spawn(emulatorBinary, ["start", "--host=127.0.0.1", `--port=${port}`, "--in-memory", `--default-bucket=${bucket}`], {
    stdio: "ignore",
  });
  const host = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(`${host}/storage/v1/b/${bucket}`);
      if (r.ok) break;
      throw new Error(`HTTP ${r.status}`);
    } catch (e) {
      if (i > 100 || child.exitCode !== null) {
        child.kill();
        throw new Error(`the GCS emulator did not start on ${host}: ${(e as Error).message}`);
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host, stop: () => void child.kill() };
}
