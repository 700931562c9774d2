// `kiln launch` forms the MPI world itself: each launcher serves MPICH's process-management interface
// (src/launch/pmi-server.ts) backed by the coordination store, so `kiln launch --nproc-per-node 2 -- kiln
// train …` trains as `mpirun -n 2` does: the losses and eval loss of `kiln train --devices 2` in one
// process, with 2 processes on one node and with 2 launchers ("nodes") of 1 process each on this machine.
import test, { before } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { freePort } from "../helpers/free-port.js";
import { join } from "node:path";
import {
  kiln,
  kilnCli as cli,
  oneThreadEnv,
  prepareTinyCausalData,
  tinyCausalTrainArgs,
  type TinyCausalData,
} from "../helpers/tiny-causal-cli.js";
import { maxRelative, stepLosses } from "../helpers/mpi-launcher.js";
import { loadMpi } from "../../src/distribute/mpi/library.js";
import { tempDir } from "../helpers/temp-dir.js";

function mpichInstalled(): boolean {
  try {
    loadMpi("mpich");
    return true;
  } catch {
    return false;
  }
}
// Without MPICH the tests skip with the reason, except under CI=true, where they run and fail.
const skip = mpichInstalled() || process.env.CI === "true" ? false : "MPICH is not installed (apt-get install -y mpich libmpich-dev)";

const root = tempDir("kiln-launch-mpi-");
let data: TinyCausalData;
const env = oneThreadEnv;
const train = (out: string, maxSteps?: number) => tinyCausalTrainArgs(data, out, maxSteps);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `kiln launch ARGS`, killed (and so failing the test) past `limitMs`. */
function kilnLaunch(args: string[], limitMs: number): Promise<Ran> {
  const child = spawn(process.execPath, [cli, "launch", ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "",
    stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The run's result lines (rank 0's only), behind the launcher's "[rank 0] " where it ran under kiln launch. */
function results(stdout: string): { eval_loss: number }[] {
  return stdout
    .split("\n")
    .map((l) => l.replace(/^\[rank \d+\] /, ""))
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { eval_loss: number });
}

let one: { eval_loss: number };

before(
  () => {
    if (skip) return;
    data = prepareTinyCausalData(root);
    one = results(kiln(...train(join(root, "one")), "--devices", "2").stdout)[0]!;
  },
  { timeout: 200_000 },
);

/** Same step losses and eval loss as the one-process run, and only rank 0 wrote the model. */
function assertSameAsOneProcess(out: string, stdout: string): void {
  const losses = stepLosses(out);
  assert.equal(losses.length, 4);
  assert.ok(maxRelative(losses, stepLosses(join(root, "one"))) <= 1e-6, `${losses} vs ${stepLosses(join(root, "one"))}`);
  const lines = results(stdout);
  assert.equal(lines.length, 1, `one result line (rank 0's):\n${stdout}`);
  assert.ok(Math.abs(lines[0]!.eval_loss - one.eval_loss) <= 1e-6 * one.eval_loss, `eval loss ${lines[0]!.eval_loss} vs ${one.eval_loss}`);
  assert.ok(readdirSync(out).includes("model.safetensors"));
}

test("kiln launch --nproc-per-node 2 -- kiln train equals kiln train --devices 2", { skip, timeout: 150_000 }, async () => {
  const out = join(root, "launch-2");
  const r = await kilnLaunch(["--nproc-per-node", "2", "--", "kiln", ...train(out)], 140_000);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assertSameAsOneProcess(out, r.stdout);
  // Each rank's lines carry its rank once (the launcher's prefix; the trainer adds none of its own).
  for (const rank of [0, 1])
    assert.equal(r.stderr.split("\n").filter((l) => l.startsWith(`[rank ${rank}] kiln train: checked`)).length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /\[rank 1\] \[rank 1\]/);
});

test("two launchers (--nnodes 2, --node-rank 0 and 1) of 1 process each train as --devices 2", { skip, timeout: 150_000 }, async () => {
  const out = join(root, "nodes-2");
  const coordinator = `127.0.0.1:${await freePort()}`;
  const node = (rank: number) =>
    kilnLaunch(
      ["--nproc-per-node", "1", "--nnodes", "2", "--node-rank", `${rank}`, "--coordinator", coordinator, "--", "kiln", ...train(out)],
      140_000,
    );
  const [a, b] = await Promise.all([node(0), node(1)]);
  assert.equal(a.code, 0, a.stdout + a.stderr);
  assert.equal(b.code, 0, b.stdout + b.stderr);
  assertSameAsOneProcess(out, a.stdout);
  assert.equal(results(b.stdout).length, 0, `node 1 prints no result line:\n${b.stdout}`);
});

test(
  "SIGTERM to kiln launch: every rank saves the same checkpoint and stops; one process with 2 devices resumes it",
  { skip, timeout: 200_000 },
  async () => {
    const out = join(root, "terminated");
    const args = train(out, 5000);
    const child = spawn(process.execPath, [cli, "launch", "--nproc-per-node", "2", "--", "kiln", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.stdout.resume();
    const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
    const killer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    // Signal once a few steps are logged (the ranks are past compiling and inside the step loop).
    let exited = false;
    void closed.then(() => (exited = true));
    while (!(existsSync(join(out, "metrics.jsonl")) && stepLosses(out).length >= 3)) {
      assert.ok(!exited, `the run ended before it was signalled:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill("SIGTERM");
    const signalledAt = performance.now();
    const code = await closed;
    const stopSeconds = (performance.now() - signalledAt) / 1000;
    clearTimeout(killer);
    assert.equal(code, 143, `the launcher exits 128 + SIGTERM:\n${stderr}`);
    const checkpoints = readdirSync(out).filter((f) => /^checkpoint-\d+$/.test(f));
    assert.equal(checkpoints.length, 1, `one checkpoint: ${readdirSync(out)}\n${stderr}`);
    const step = Number(checkpoints[0]!.slice("checkpoint-".length));
    assert.ok(step >= 3 && step < 5000, `stopped at step ${step}`);
    assert.ok(!readdirSync(out).includes("model.safetensors"), "a stopped run writes no final model");
    // The ranks took the signal's way out (a checkpoint, then exit), well inside the launcher's 30 s grace
    // period before SIGKILL: a killed rank would leave no checkpoint behind.
    assert.ok(stopSeconds < 25, `the ranks took ${stopSeconds.toFixed(1)} s to stop`);
    // The checkpoint that 2 processes wrote resumes in 1 process with the same 2 replicas.
    const resumed = kiln(...train(out, step + 2), "--devices", "2", "--resume");
    assert.equal(stepLosses(out).length, step + 2, resumed.stderr);
  },
);
