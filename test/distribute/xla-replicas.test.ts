// Data parallelism on XLA's CPU plugin, the multi-device path a GPU user takes: N replicas compiled with
// num_replicas = N and a device assignment, gradients summed by XLA's all_reduce, each replica's
// parameters and optimizer state kept on its own device between steps and donated to the next step.
// One device × 32, 4 devices × 8 and 8 devices × 4 train the same parameters; a steady step moves only
// the input batch and a few scalars across the host boundary.
import test from "node:test";
import { STEP_SCALARS } from "../../src/train/train-step.js";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { TINY, trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { xlaCpuSkip, xlaCpuTrainer } from "../helpers/xla-cpu-plugin.js";
import { maxRelativeDifference } from "../helpers/param-diff.js";
import type { Callback } from "../../src/train/callbacks.js";
import { DataParallel, PerReplica, selectDevices } from "../../src/distribute/index.js";
import type { XlaExecutor } from "../../src/exec/xla/index.js";
import { tempDir } from "../helpers/temp-dir.js";

type Transfers = ReturnType<typeof k.metrics>["transfers"];

/** The host transfers of each step, from one step's end to the next (callbacks after checkpoints). */
function transfersPerStep(): { callback: Callback; steps: Map<number, Transfers> } {
  const steps = new Map<number, Transfers>();
  let last: Transfers | undefined;
  const callback: Callback = {
    onStepEnd: (t) => {
      const now = k.metrics().transfers;
      if (last)
        steps.set(t.globalStep, {
          toHost: { count: now.toHost.count - last.toHost.count, bytes: now.toHost.bytes - last.toHost.bytes },
          toDevice: { count: now.toDevice.count - last.toDevice.count, bytes: now.toDevice.bytes - last.toDevice.bytes },
        });
      last = now;
    },
  };
  return { callback, steps };
}

test("XLA:CPU: 4 devices × 8 and 8 devices × 4 give one device's batch-32 parameters after 10 steps", { skip: xlaCpuSkip }, async () => {
  const root = tempDir("kiln-xla-dp-");
  const data = join(root, "data");
  await writeTinyShards(data, 96);
  const steps = 10,
    batch = 32;
  const one = await trainTiny(data, join(root, "one"), steps, { batch, trainer: xlaCpuTrainer(1) });
  const probe = transfersPerStep();
  const dp4 = await trainTiny(data, join(root, "dp4"), steps, { batch, trainer: xlaCpuTrainer(4), callbacks: [probe.callback] });
  const dp8 = await trainTiny(data, join(root, "dp8"), steps, { batch, trainer: xlaCpuTrainer(8) });
  for (const [name, run] of [
    ["4 × 8", dp4],
    ["8 × 4", dp8],
  ] as const) {
    const err = maxRelativeDifference(run.params, one.params);
    console.log(`${name} vs 1 × 32: max relative parameter difference ${err.toExponential(2)}`);
    assert.ok(err < 1e-5, `${name} vs one device: max relative parameter difference ${err}`);
    assert.deepEqual(
      run.history.map((h) => h.loss!.toFixed(4)),
      one.history.map((h) => h.loss!.toFixed(4)),
    );
  }
  assert.ok(one.history[0]!.loss !== one.history.at(-1)!.loss);

  // Step 3 (no checkpoint at its end; checkpoints are every 2 steps): the batch's ids and attention mask
  // go to the devices with each replica's example offset, epoch and step number (3 scalars × 4 replicas);
  // replica 0's step scalars (loss, correct and label counts, learning rate, gradient norm, skip and
  // non-finite flags, dropped labels) come back packed in one array: one copy. Parameters and optimizer
  // state never cross.
  const step = probe.steps.get(3)!;
  const batchBytes = 2 * batch * TINY.length * 4;
  console.log(`steady step 3 on 4 devices: ${JSON.stringify(step)} (the batch is ${batchBytes} bytes)`);
  assert.deepEqual(step.toDevice, { count: 4 * 5, bytes: batchBytes + 4 * 3 * 4 });
  assert.deepEqual(step.toHost, { count: 1, bytes: STEP_SCALARS.length * 4 });
});

test("XLA:CPU: a replicated step's donated state is consumed and replaced, one buffer per device", { skip: xlaCpuSkip }, async () => {
  const devices = selectDevices({ accelerator: "cpu", executor: "xla", devices: 2, pjrtPlugin: xlaCpuTrainer(2).pjrtPlugin });
  const executor = devices[0]!.executor as XlaExecutor;
  const strategy = new DataParallel(devices);
  const step = strategy.compile((w: k.Array, x: k.Array) => ({ w: w.add(k.bind("all_reduce", [x.sum()], {})), total: w.sum() }), {
    name: "donating_step",
    donateArgs: [0],
  });
  let w = strategy.replicate(k.zeros([64, 64])) as unknown as PerReplica;
  assert.ok(w instanceof PerReplica && w.values.every((v, r) => v.device === devices[r]));
  const before = executor.liveBuffers();
  for (let i = 1; i <= 3; i++) {
    const x = new PerReplica(devices.map((d, r) => k.array(new Float32Array([r + 1, i]), { shape: [2], device: d })));
    const out = step(w, x) as { w: PerReplica; total: PerReplica };
    for (const v of w.values) assert.throws(() => v.buffer(), /donated to donating_step/);
    w = out.w;
    for (const v of [...out.total.values, ...x.values]) v.dispose();
    // Each replica's sum: Σ over replicas of (r + 1 + i), added to every element of its own copy.
    assert.deepEqual(
      await Promise.all(w.values.map(async (v) => (await v.data())[0])),
      [0, 0].map(() => [1, 2, 3].slice(0, i).reduce((a, j) => a + 3 + 2 * j, 0)),
    );
    assert.equal(executor.liveBuffers(), before, "the step's donated state is freed as its replacement is made");
  }
});
