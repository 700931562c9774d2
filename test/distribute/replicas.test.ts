// Data parallelism is exact: 8 replicas × 4 examples, and 4 accumulated micro-batches × 8, train the
// same parameters as one device with batch 32 (dropout and masking included).
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { maxRelativeDifference } from "../helpers/param-diff.js";
import { tempDir } from "../helpers/temp-dir.js";

test("8 replicas × 4, and 4 micro-batches × 8, give one device's batch-32 parameters after 10 steps", async () => {
  const root = tempDir("kiln-dp-");
  const data = join(root, "data");
  await writeTinyShards(data, 96);
  const steps = 10,
    batch = 32;
  const one = await trainTiny(data, join(root, "one"), steps, { batch });
  const dp = await trainTiny(data, join(root, "dp8"), steps, { batch, trainer: { accelerator: "cpu", devices: 8 } });
  const accum = await trainTiny(data, join(root, "accum4"), steps, { batch, trainer: { gradientAccumulation: 4 } });
  const dpErr = maxRelativeDifference(dp.params, one.params);
  const accErr = maxRelativeDifference(accum.params, one.params);
  assert.ok(dpErr < 1e-5, `8 replicas vs one device: max relative parameter difference ${dpErr}`);
  assert.ok(accErr < 1e-5, `accumulation vs one device: max relative parameter difference ${accErr}`);
  // The runs really differed in layout, and training moved the parameters.
  assert.deepEqual(
    dp.history.map((h) => h.loss!.toFixed(4)),
    one.history.map((h) => h.loss!.toFixed(4)),
  );
  assert.ok(one.history[0]!.loss !== one.history.at(-1)!.loss);
});

test("steps per execution (2 steps per compiled call) on 2 replicas trains what one step per call does", async () => {
  const root = tempDir("kiln-spe-");
  const data = join(root, "data");
  await writeTinyShards(data, 48); // 3 batches of 16 per epoch: groups stop at each epoch's end
  const steps = 7,
    batch = 16;
  const one = await trainTiny(data, join(root, "one"), steps, { batch });
  const grouped = await trainTiny(data, join(root, "spe"), steps, {
    batch,
    trainer: { accelerator: "cpu", devices: 2, stepsPerExecution: 2, checkpointEvery: 0 },
  });
  assert.equal(grouped.globalStep, steps);
  // Equal up to the order of the replicas' sums (compared as numbers: digits rounded to a fixed
  // place can differ by one in the last place for losses 1e-6 apart).
  assert.equal(grouped.history.length, one.history.length);
  grouped.history.forEach((h, i) => {
    const want = one.history[i]!.loss!;
    assert.ok(Math.abs(h.loss! - want) <= 1e-5 * Math.abs(want), `step ${i + 1}: loss ${h.loss} vs ${want}`);
  });
  const err = maxRelativeDifference(grouped.params, one.params);
  assert.ok(err < 1e-5, `max relative parameter difference ${err}`);
});
