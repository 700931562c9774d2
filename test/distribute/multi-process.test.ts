// Data parallelism across processes: the tiny masked LM and causal LM trained as 2 or 4 MPI processes
// (real mpirun/mpiexec on this machine) with 1 or 2 replicas each give the losses of every step and the
// final parameters of the one-process run with as many replicas in all (the same global batch, example
// order, masking and dropout); the only difference is the order of the gradient sum across replicas
// (in-process sums, then MPI's), so they agree to float rounding: losses within 1e-6 relative, parameters
// within 5e-6 of each tensor's scale (observed: 1.2e-7 and 1e-6).
import test, { type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeTinyShards } from "../helpers/tiny-training.js";
import { findLauncher, maxRelative, paramDifference, mpiRun, mpiSkip, stepLosses } from "../helpers/mpi-launcher.js";
import { tempDir } from "../helpers/temp-dir.js";

const script = fileURLToPath(new URL("../helpers/multi-process-training.js", import.meta.url));
const TOLERANCE = 1e-6;
/** Six AdamW steps carry the losses' rounding into the parameters a little further. */
const PARAM_TOLERANCE = 5e-6;
const STEPS = 6;

const root = tempDir("kiln-multi-process-");
const data = join(root, "data");

/** Trains `processes` × `replicas` into a fresh directory; returns it. */
async function train(
  name: string,
  processes: number,
  replicas: number,
  task: "mlm" | "causal-lm",
  o: { extra?: string[]; flavor?: "openmpi" | "mpich"; trainer?: Record<string, unknown> } = {},
): Promise<string> {
  const out = join(root, name);
  const trainer = JSON.stringify({ accelerator: "cpu", devices: replicas, ...o.trainer });
  const args = [script, data, out, String(STEPS), "--task", task, "--trainer", trainer, ...(o.extra ?? [])];
  const run = await mpiRun(processes, args, o.flavor ? { flavor: o.flavor } : {});
  assert.equal(run.code, 0, `${name} (${processes} processes × ${replicas}) failed:\n${run.stdout}\n${run.stderr}`);
  return out;
}

async function assertSameRun(t: TestContext, dir: string, reference: string, what: string): Promise<void> {
  const losses = stepLosses(dir),
    expected = stepLosses(reference);
  assert.equal(losses.length, STEPS, `${what}: ${losses.length} steps logged`);
  const lossDiff = maxRelative(losses, expected);
  const params = await paramDifference(dir, reference);
  t.diagnostic(
    `${what}: losses within ${lossDiff.toExponential(1)} relative, parameters within ${params.relative.toExponential(1)} ` +
      `of each tensor's scale (noise-only tensors within ${params.noise.toExponential(1)})`,
  );
  assert.ok(lossDiff <= TOLERANCE, `${what}: losses differ by ${lossDiff} relative: ${losses} vs ${expected}`);
  assert.ok(params.relative <= PARAM_TOLERANCE, `${what}: final parameters differ by ${params.relative} of their scale`);
  assert.ok(params.noise <= 1e-6, `${what}: noise-only parameters differ by ${params.noise}`);
}

test("multi-process data parallelism", { skip: mpiSkip, timeout: 300_000 }, async (t) => {
  await writeTinyShards(data);
  const refs = new Map<string, string>();
  // The one-process runs, started the same way (one process under the launcher).
  for (const task of ["mlm", "causal-lm"] as const)
    for (const replicas of [2, 4]) refs.set(`${task}-${replicas}`, await train(`ref-${task}-${replicas}`, 1, replicas, task));

  await t.test("masked LM: 2 processes × 1 replica equal 1 process × 2", async (t) => {
    await assertSameRun(t, await train("mlm-2x1", 2, 1, "mlm"), refs.get("mlm-2")!, "mlm 2×1");
  });
  await t.test("masked LM: 4 processes × 1 and 2 processes × 2 equal 1 process × 4", async (t) => {
    await assertSameRun(t, await train("mlm-4x1", 4, 1, "mlm"), refs.get("mlm-4")!, "mlm 4×1");
    await assertSameRun(t, await train("mlm-2x2", 2, 2, "mlm"), refs.get("mlm-4")!, "mlm 2×2");
  });
  await t.test("causal LM: 2 processes × 1 and 2 × 2 equal 1 process × 2 and × 4", async (t) => {
    await assertSameRun(t, await train("causal-2x1", 2, 1, "causal-lm"), refs.get("causal-lm-2")!, "causal 2×1");
    await assertSameRun(t, await train("causal-2x2", 2, 2, "causal-lm"), refs.get("causal-lm-4")!, "causal 2×2");
  });
  await t.test("with 2 micro-batches per step and 2 steps per call: 2 processes × 1 equal 1 process × 2", async (t) => {
    const trainer = { gradientAccumulation: 2, stepsPerExecution: 2 };
    const reference = await train("ref-mlm-2-accumulated", 1, 2, "mlm", { trainer });
    await assertSameRun(t, await train("mlm-2x1-accumulated", 2, 1, "mlm", { trainer }), reference, "mlm 2×1, accumulation 2, K 2");
  });
  await t.test("under MPICH's mpiexec too (when installed): 2 processes × 1 replica equal 1 process × 2", async (t) => {
    if (!findLauncher("mpich")) return t.skip("MPICH is not installed (apt-get install -y mpich libmpich-dev)");
    await assertSameRun(t, await train("mlm-2x1-mpich", 2, 1, "mlm", { flavor: "mpich" }), refs.get("mlm-2")!, "mlm 2×1 (MPICH)");
  });
  await t.test("a checkpoint written by 4 processes resumes with 2 processes × 2 replicas", async (t) => {
    const dir = await train("resume", 4, 1, "mlm", { extra: ["--stop-after", "4"] });
    assert.ok(readdirSync(dir).includes("checkpoint-4"), `no checkpoint-4 in ${readdirSync(dir)}`);
    await train("resume", 2, 2, "mlm", { extra: ["--resume"] });
    await assertSameRun(t, dir, refs.get("mlm-4")!, "mlm 4×1 to step 4, then 2×2");
  });
});

test(
  "kill -9 of one rank: the launcher stops the others within seconds and names the dead rank",
  { skip: mpiSkip, timeout: 120_000 },
  async () => {
    await writeTinyShards(data);
    let killedAt = 0,
      victim = 0;
    const args = [script, data, join(root, "killed"), "400", "--trainer", JSON.stringify({ accelerator: "cpu", devices: 1 })];
    const run = await mpiRun(2, args, {
      timeoutMs: 90_000,
      onLine: (line) => {
        const m = /^rank 1 pid (\d+) step 2$/.exec(line);
        if (!m || killedAt) return;
        victim = Number(m[1]);
        killedAt = performance.now();
        process.kill(victim, "SIGKILL");
      },
    });
    assert.ok(killedAt > 0, `rank 1 never reached step 2:\n${run.stdout}\n${run.stderr}`);
    const seconds = (performance.now() - killedAt) / 1000;
    assert.notEqual(run.code, 0);
    assert.ok(seconds < 30, `the launcher took ${seconds.toFixed(1)} s to stop the job`);
    assert.ok(!/step 400/.test(run.stdout), "rank 0 trained on without rank 1");
    const said = run.stdout + run.stderr;
    // Open MPI names the rank; MPICH's Hydra names the process (its pid, which the run printed with its rank).
    assert.match(said, findLauncher()?.flavor === "openmpi" ? /process rank 1 with PID \d+ .*signal 9/ : new RegExp(`PID ${victim} `));
  },
);

test(
  "settings that differ between ranks are refused at start, on every rank, naming them",
  { skip: mpiSkip, timeout: 120_000 },
  async () => {
    await writeTinyShards(data);
    const rank = (seed: number) => [
      script,
      data,
      join(root, "mismatch"),
      "4",
      "--trainer",
      JSON.stringify({ accelerator: "cpu", devices: 1, seed }),
    ];
    const run = await mpiRun(2, [], { perRank: [rank(3), rank(4)], timeoutMs: 90_000 });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /rank 1's settings differ from rank 0's: seed 3 on rank 0, 4 here/);
    assert.match(run.stderr, /the settings of rank 1 differ from rank 0's/);
    assert.ok(!/step 1/.test(run.stdout), "a rank trained despite the mismatch");
  },
);

test(
  "a hung rank (SIGSTOP): the others give up at the collective timeout and the job ends",
  { skip: mpiSkip, timeout: 120_000 },
  async () => {
    await writeTinyShards(data);
    let stoppedAt = 0;
    const args = [script, data, join(root, "hung"), "400", "--trainer", JSON.stringify({ accelerator: "cpu", devices: 1 })];
    const run = await mpiRun(2, args, {
      timeoutMs: 90_000,
      env: { KILN_COLLECTIVE_TIMEOUT: "5" },
      onLine: (line) => {
        const m = /^rank 1 pid (\d+) step 2$/.exec(line);
        if (!m || stoppedAt) return;
        stoppedAt = performance.now();
        process.kill(Number(m[1]), "SIGSTOP");
      },
    });
    assert.ok(stoppedAt > 0, `rank 1 never reached step 2:\n${run.stdout}\n${run.stderr}`);
    const seconds = (performance.now() - stoppedAt) / 1000;
    assert.notEqual(run.code, 0);
    assert.ok(seconds < 30, `the job took ${seconds.toFixed(1)} s to end`);
    assert.match(
      run.stderr,
      /MPI_(Allreduce|Barrier|Bcast) waited 5 s for the other ranks \(KILN_COLLECTIVE_TIMEOUT\): a rank is hung or stopped/,
    );
  },
);

// SIGINT (Ctrl+C) and SIGTERM (what launchers, schedulers and preempted machines send), each to one rank:
// every rank stops after the same step, with a checkpoint. SIGTERM goes to rank 0: a signal that landed
// while the ranks agreed on stopping was once overwritten by the agreement, and rank 0 trained on.
for (const [signal, victim, name] of [
  ["SIGINT", 1, "an interrupt of one rank stops every rank after the same step, with a checkpoint"],
  ["SIGTERM", 0, "SIGTERM to one rank (a launcher's or a scheduler's stop) stops every rank after the same step, with a checkpoint"],
] as const) {
  test(name, { skip: mpiSkip, timeout: 120_000 }, async () => {
    await writeTinyShards(data);
    const out = join(root, `stopped-by-${signal}`);
    let sent = false;
    const args = [script, data, out, "2000", "--trainer", JSON.stringify({ accelerator: "cpu", devices: 1 })];
    const run = await mpiRun(2, args, {
      timeoutMs: 90_000,
      onLine: (line) => {
        const m = new RegExp(`^rank ${victim} pid (\\d+) step 5$`).exec(line);
        if (!m || sent) return;
        sent = true;
        process.kill(Number(m[1]), signal);
      },
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const last = (rank: number) =>
      Math.max(...[...run.stdout.matchAll(new RegExp(`^rank ${rank} pid \\d+ step (\\d+)$`, "gm"))].map((m) => Number(m[1])));
    assert.ok(last(victim) < 2000, `rank ${victim} trained on`);
    assert.equal(last(0), last(1), "the ranks stopped after different steps");
    assert.ok(readdirSync(out).includes(`checkpoint-${last(0)}`), `no checkpoint-${last(0)} in ${readdirSync(out)}`);
    assert.ok(!readdirSync(out).includes("model.safetensors"), "an interrupted run writes no final model");
  });
}
