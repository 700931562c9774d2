// Preemption of a real `kiln train` (mlm-tiny on shards the test makes): SIGTERM finishes the step in
// flight, writes a checkpoint without --checkpoint-every, exits 75 with one line naming the step, the
// checkpoint and the command that continues the run; that command ends where an uninterrupted run ends
// (the same losses, the same parameters). A second SIGTERM while the checkpoint is written waits for it.
// With --push-to, the checkpoint is in the bucket (the in-process GCS fake) before the command exits.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, watch } from "node:fs";
import { join } from "node:path";
import { kilnCli, oneThreadEnv, prepareTinyCausalData } from "../helpers/tiny-causal-cli.js";
import { startFakeGcs } from "../helpers/fake-gcs.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-preemption-");
const data = prepareTinyCausalData(root);
const STEPS = 200;

const trainArgs = (out: string) => [
  "train",
  ..."--preset mlm-tiny --tokenizer".split(" "),
  data.tokenizer,
  "--train-data",
  join(data.shards, "train"),
  "--output-dir",
  out,
  ..."--per-replica-batch-size 4 --log-every 1 --learning-rate 3e-3".split(" "),
  "--max-steps",
  `${STEPS}`,
];

/** Per-step losses of metrics.jsonl. */
function losses(dir: string): [number, number][] {
  if (!existsSync(join(dir, "metrics.jsonl"))) return [];
  return readFileSync(join(dir, "metrics.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.endsWith("}"))
    .map((l) => JSON.parse(l) as Record<string, number>)
    .filter((m) => m.loss !== undefined)
    .map((m) => [m.step!, m.loss!]);
}

/** The words of a command line as a POSIX shell splits it (plain words and single-quoted ones). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!));
}

interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Seconds from the first SIGTERM to the exit. */
  stopSeconds: number;
}

/**
 * Starts `kiln train` into `out`, sends SIGTERM once 3 steps are logged, and (with `again`) a second
 * SIGTERM the moment the checkpoint's temporary directory appears.
 */
async function preempt(out: string, again = false, more: string[] = [], env: NodeJS.ProcessEnv = oneThreadEnv): Promise<Stopped> {
  const child = spawn(process.execPath, [kilnCli, ...trainArgs(out), ...more], { stdio: ["ignore", "ignore", "pipe"], env });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once("exit", (c, s) => resolve([c, s])));
  let done = false;
  void exited.then(() => (done = true));
  const killer = setTimeout(() => child.kill("SIGKILL"), 100_000);
  while (losses(out).length < 3) {
    assert.ok(!done, `the run ended before it was signalled:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const watcher = again
    ? watch(out, (_event, name) => {
        if (name && /^\.checkpoint-\d+\.tmp-\d+$/.test(name)) {
          watcher?.close();
          child.kill("SIGTERM");
        }
      })
    : undefined;
  child.kill("SIGTERM");
  const signalledAt = performance.now();
  const [code, signal] = await exited;
  const stopSeconds = (performance.now() - signalledAt) / 1000;
  watcher?.close();
  clearTimeout(killer);
  return { code, signal, stderr, stopSeconds };
}

/** Checks the stopped run's exit, line and checkpoint; returns the step and the resume command's arguments. */
function checkStopped(out: string, r: Stopped): { step: number; resume: string[] } {
  assert.equal(r.code, 75, `exit 75 (preempted), got ${r.code ?? r.signal}:\n${r.stderr}`);
  const lines = r.stderr.split(/[\r\n]+/).filter((l) => l.startsWith("preempted"));
  assert.equal(lines.length, 1, r.stderr);
  const m = /^preempted at step (\d+); checkpoint-(\d+) written; continue with (kiln train .* --resume)$/.exec(lines[0]!);
  assert.ok(m, lines[0]);
  const step = Number(m[1]);
  assert.equal(Number(m[2]), step);
  assert.ok(step >= 3 && step < STEPS, `stopped at step ${step}`);
  // No --checkpoint-every: the stop's checkpoint is the only one, whole, at the step it names.
  assert.deepEqual(
    readdirSync(out).filter((f) => f.includes("checkpoint")),
    [`checkpoint-${step}`],
  );
  const state = JSON.parse(readFileSync(join(out, `checkpoint-${step}`, "trainer_state.json"), "utf8"));
  assert.equal(state.global_step, step);
  assert.ok(!existsSync(join(out, "model.safetensors")), "a stopped run writes no final model");
  const words = shellWords(m[3]!);
  assert.deepEqual(words.slice(0, 2), ["kiln", "train"]);
  return { step, resume: words.slice(1) };
}

const straight = join(root, "straight");
const straightRun = () => {
  if (existsSync(join(straight, "model.safetensors"))) return;
  const r = spawnSync(process.execPath, [kilnCli, ...trainArgs(straight), "--quiet"], {
    encoding: "utf8",
    env: oneThreadEnv,
    timeout: 100_000,
  });
  assert.equal(r.status, 0, r.stderr);
};

test(
  "SIGTERM to kiln train: the step finishes, a checkpoint is written, exit 75 with the resume command, which ends as an uninterrupted run",
  {
    timeout: 240_000,
  },
  async () => {
    const out = join(root, "preempted");
    const stopped = await preempt(out);
    const { step, resume } = checkStopped(out, stopped);
    console.log(`stopped at step ${step} in ${stopped.stopSeconds.toFixed(2)} s`);
    assert.equal(losses(out).length, step, "every step up to the stop is logged");
    const r = spawnSync(process.execPath, [kilnCli, ...resume], { encoding: "utf8", env: oneThreadEnv, timeout: 100_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`resume: continuing from .*checkpoint-${step} at step ${step}`));
    straightRun();
    assert.deepEqual(losses(out), losses(straight));
    assert.equal(losses(out).length, STEPS);
    assert.ok(
      readFileSync(join(out, "model.safetensors")).equals(readFileSync(join(straight, "model.safetensors"))),
      "the same parameters",
    );
  },
);

test(
  "a second SIGTERM while the checkpoint is written waits for it: the checkpoint is whole and resumes",
  { timeout: 240_000 },
  async () => {
    const out = join(root, "twice");
    const stopped = await preempt(out, true);
    assert.match(stopped.stderr, /SIGTERM: the checkpoint is being written; stopping once it is/);
    const { step, resume } = checkStopped(out, stopped);
    const r = spawnSync(process.execPath, [kilnCli, ...resume], { encoding: "utf8", env: oneThreadEnv, timeout: 100_000 });
    assert.equal(r.status, 0, r.stderr);
    straightRun();
    assert.deepEqual(losses(out), losses(straight));
    assert.ok(step > 0);
  },
);

test(
  "--preemption-signal SIGUSR1 stops the run as SIGTERM does; a signal that cannot be caught is refused",
  { timeout: 120_000 },
  async () => {
    const out = join(root, "usr1");
    const child = spawn(process.execPath, [kilnCli, ...trainArgs(out), "--preemption-signal", "USR1", "--quiet"], {
      stdio: ["ignore", "ignore", "pipe"],
      env: oneThreadEnv,
    });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    while (losses(out).length < 3) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGUSR1");
    assert.equal(await exited, 75, stderr);
    const step = Number(/^preempted at step (\d+);/m.exec(stderr)?.[1]);
    assert.ok(existsSync(join(out, `checkpoint-${step}`, "trainer_state.json")), stderr);
    const refused = spawnSync(process.execPath, [kilnCli, ...trainArgs(join(root, "kill")), "--preemption-signal", "KILL"], {
      encoding: "utf8",
      env: oneThreadEnv,
    });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--preemption-signal SIGKILL cannot be caught by any process/);
  },
);

test("with --push-to, the stop's checkpoint is pushed to gs:// before kiln train exits", { timeout: 120_000 }, async () => {
  const gcs = await startFakeGcs();
  try {
    const out = join(root, "pushed");
    const stopped = await preempt(out, false, ["--push-to", "gs://runs/preempted"], { ...oneThreadEnv, STORAGE_EMULATOR_HOST: gcs.host });
    const { step } = checkStopped(out, stopped);
    for (const f of ["model.safetensors", "optimizer.safetensors", "trainer_state.json"])
      assert.deepEqual(gcs.objects.get(`runs/preempted/checkpoint-${step}/${f}`), readFileSync(join(out, `checkpoint-${step}`, f)), f);
  } finally {
    await gcs.close();
  }
});
