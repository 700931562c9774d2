// launch(fn, { nprocs }) as a user's script calls it: the script is started again in each process, fn
// runs there with its rank and the store, and the launching process resolves when all finished, or
// rejects naming the rank whose fn threw. Also from `node -e`, whose code is started again the same way.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers/temp-dir.js";

const entry = new URL("../../src/entry/launch.js", import.meta.url).href;
const dir = tempDir("kiln-launch-fn-");

const userScript = join(dir, "train.mjs");
writeFileSync(
  userScript,
  `import { launch } from ${JSON.stringify(entry)};
try {
  await launch(
    async ({ rank, worldSize, localRank, store, barrier }) => {
      await store.put("share/" + rank, String(rank * 10));
      await barrier("ready");
      let sum = 0;
      for (let r = 0; r < worldSize; r++) sum += Number(await store.get("share/" + r, { timeoutMs: 1000 }));
      console.log("rank " + rank + " of " + worldSize + " (local " + localRank + "): sum " + sum);
      if (process.argv[2] === "fail" && rank === 1) throw new Error("boom at step 3");
      if (process.argv[2] === "fail") await new Promise((r) => setTimeout(r, 20000)); // stopped by the failure
    },
    { nprocs: 3, gracePeriodMs: 2000 },
  );
  if (!process.env.KILN_RANK) console.log("the launching process: all finished");
} catch (e) {
  if (!process.env.KILN_RANK) console.log("the launching process caught: " + e.name + ": " + e.message);
  process.exitCode = 5;
}
`,
);

function run(args: string[], limitMs: number): Promise<{ code: number; stdout: string; stderr: string; seconds: number }> {
  const t0 = performance.now();
  return new Promise((resolve) =>
    execFile(process.execPath, args, { timeout: limitMs, killSignal: "SIGKILL" }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr, seconds: (performance.now() - t0) / 1000 }),
    ),
  );
}

test(
  "launch(fn, { nprocs: 3 }) runs fn in 3 processes that share the store, then resolves in the launching one",
  { timeout: 30_000 },
  async () => {
    const r = await run([userScript], 25_000);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n").filter(Boolean);
    assert.equal(lines.at(-1), "the launching process: all finished");
    assert.deepEqual(lines.slice(0, -1).sort(), [
      "[rank 0] rank 0 of 3 (local 0): sum 30",
      "[rank 1] rank 1 of 3 (local 1): sum 30",
      "[rank 2] rank 2 of 3 (local 2): sum 30",
    ]);
  },
);

test("a rank whose fn throws stops the others, and launch rejects naming the rank and the error", { timeout: 30_000 }, async () => {
  const r = await run([userScript, "fail"], 25_000);
  assert.equal(r.code, 5);
  assert.equal(
    r.stdout.split("\n").filter(Boolean).at(-1),
    "the launching process caught: LaunchError: rank 1 failed: fn threw Error: boom at step 3",
  );
  assert.ok(r.seconds < 15, `took ${r.seconds} s: the other ranks were not stopped`);
});

test("launch from node -e starts the same code again", { timeout: 30_000 }, async () => {
  const code =
    `import(${JSON.stringify(entry)}).then(({ launch }) => ` +
    `launch(({ rank, worldSize }) => console.log("hello from " + rank + "/" + worldSize), { nprocs: 2 }))`;
  const r = await run(["-e", code], 25_000);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.split("\n").filter(Boolean).sort(), ["[rank 0] hello from 0/2", "[rank 1] hello from 1/2"]);
});

test("launch refuses a bad nprocs naming the option", { timeout: 10_000 }, async () => {
  const { launch } = (await import(fileURLToPath(entry))) as typeof import("../../src/entry/launch.js");
  await assert.rejects(
    launch(() => {}, { nprocs: 0 }),
    { name: "LaunchError", message: "nprocs must be an integer ≥ 1, got 0" },
  );
});

test("processes started by launch exit by themselves when the launching process is killed -9", { timeout: 30_000 }, async () => {
  const pidDir = tempDir("kiln-launch-orphans-");
  const code =
    `import(${JSON.stringify(entry)}).then(({ launch }) => launch(({ rank }) => {` +
    `require("node:fs").writeFileSync(${JSON.stringify(pidDir)} + "/" + rank, String(process.pid));` +
    `return new Promise(() => setInterval(() => {}, 1000));` +
    `}, { nprocs: 2 }))`;
  const parent = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  const childPids = () => [0, 1].map((r) => (existsSync(join(pidDir, `${r}`)) ? Number(readFileSync(join(pidDir, `${r}`), "utf8")) : 0));
  for (const t0 = Date.now(); childPids().includes(0); await new Promise((r) => setTimeout(r, 50)))
    assert.ok(Date.now() - t0 < 20_000, "the processes did not start");
  parent.kill("SIGKILL");
  const t0 = Date.now();
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (childPids().some(alive) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
  const left = childPids().filter(alive);
  for (const pid of left) process.kill(pid, "SIGKILL");
  assert.deepEqual(left, [], "processes still running 10 s after their launcher was killed");
});
