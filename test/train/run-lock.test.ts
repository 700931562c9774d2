// Two runs, one directory: while a training run lives, a second run into its output directory is
// refused (fresh, --resume and --overwrite alike) naming the holder's process and host; once the holder
// is killed, the next run takes the stale lock over and says so.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stderrOf } from "../helpers/stderr-of.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { RUN_LOCK_FILE, RunDirLockedError, takeRunLock } from "../../src/train/run-lock.js";
import { prepareOutputDir } from "../../src/train/output-dir.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-run-lock-");
const data = join(root, "data");
await writeTinyShards(data);
const script = fileURLToPath(new URL("../helpers/tiny-training.js", import.meta.url));

test("a live run holds its directory: a second run is refused (--resume, --overwrite too); killed, its lock is taken over", async () => {
  const dir = join(root, "shared");
  // The first run, in another process: held at step 2 by a callback-free long run (many steps).
  const child = spawn(process.execPath, [script, data, dir, "100000"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => /step 3\n/.test(chunk.toString()) && resolve());
      child.on("exit", (code) => reject(new Error(`the first run ended early (exit ${code})`)));
    });
    const lock = JSON.parse(readFileSync(join(dir, RUN_LOCK_FILE), "utf8"));
    assert.equal(lock.pid, child.pid);
    assert.equal(lock.host, hostname());
    for (const trainer of [{}, { resume: true }, { overwrite: true }]) {
      await assert.rejects(
        trainTiny(data, dir, 2, { trainer }),
        (e: Error) =>
          e instanceof RunDirLockedError &&
          e.message.startsWith(`the output directory ${dir} is in use by another training run (process ${child.pid} on ${hostname()}`),
        JSON.stringify(trainer),
      );
      // The check kiln train makes before anything compiles refuses it too.
      await assert.rejects(prepareOutputDir(dir, { resume: true, overwrite: false }), RunDirLockedError);
    }
    assert.ok(
      readdirSync(dir).some((n) => n.startsWith("checkpoint-")),
      "the live run's checkpoints are still there",
    );
  } finally {
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve).exitCode !== null && resolve(0));
  }
  // Killed, the process leaves its lock behind: the next run takes it over, says so, and resumes.
  assert.ok(existsSync(join(dir, RUN_LOCK_FILE)));
  const { value, lines } = await stderrOf(() => trainTiny(data, dir, 6, { resume: true }));
  assert.equal(value.globalStep, 6);
  assert.ok(
    lines.includes(
      `warning: ${dir}: took over the lock of process ${child.pid} on ${hostname()} (process ${child.pid} is no longer running)`,
    ),
    lines.join("\n"),
  );
  assert.ok(!existsSync(join(dir, RUN_LOCK_FILE)), "a finished run releases its lock");
});

test("in one process: a second lock on a held directory is refused; a lock left by a failed fit is taken over", async () => {
  const dir = join(root, "in-process");
  const first = await takeRunLock(dir);
  await assert.rejects(takeRunLock(dir), RunDirLockedError);
  await first.release();
  const again = await takeRunLock(dir);
  await again.release();
  assert.ok(!existsSync(join(dir, RUN_LOCK_FILE)));

  // A fit that fails before it trains (fewer records than one batch) releases the lock as it throws.
  await assert.rejects(trainTiny(data, dir, 2, { batch: 64 }), /fewer than one batch/);
  assert.ok(!existsSync(join(dir, RUN_LOCK_FILE)));

  // A lock of a process that is gone, and one that is not JSON: both stale.
  const gone = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
  writeFileSync(join(dir, RUN_LOCK_FILE), JSON.stringify({ pid: gone, host: hostname(), started: "then" }));
  const notices: string[] = [];
  const taken = await takeRunLock(dir, (m) => notices.push(m));
  assert.deepEqual(notices, [`${dir}: took over the lock of process ${gone} on ${hostname()} (process ${gone} is no longer running)`]);
  await taken.release();
  writeFileSync(join(dir, RUN_LOCK_FILE), "garbage");
  await (await takeRunLock(dir)).release();

  // A process that exits without releasing (process.exit) removes its lock on the way out.
  const lockModule = new URL("../../src/train/run-lock.js", import.meta.url).href;
  const exited = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { takeRunLock } = await import(${JSON.stringify(lockModule)}); await takeRunLock(${JSON.stringify(dir)}); process.exit(0);`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(exited.status, 0, exited.stderr);
  assert.ok(!existsSync(join(dir, RUN_LOCK_FILE)));

  // Another host's lock cannot be checked from here: it counts as live.
  writeFileSync(join(dir, RUN_LOCK_FILE), JSON.stringify({ pid: 1, host: "elsewhere.example", started: "now" }));
  await assert.rejects(takeRunLock(dir), /in use by another training run \(process 1 on elsewhere\.example/);
});
