// Mixed precision: bf16 activations track the f32 loss curve; f16 with dynamic loss scaling skips the
// steps whose gradients overflow, lowers the scale, and goes on training.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { precisionPolicy } from "../../src/optim/precision.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-precision-");
const data = join(root, "data");
await writeTinyShards(data, 64);

test("bf16-mixed tracks the f32 loss curve (gap below 0.02 over 20 steps)", async () => {
  const f32 = await trainTiny(data, join(root, "f32"), 20, { batch: 16 });
  const bf16 = await trainTiny(data, join(root, "bf16"), 20, { batch: 16, trainer: { precision: "bf16-mixed" } });
  const gaps = f32.history.map((h, i) => Math.abs(h.loss! - bf16.history[i]!.loss!));
  assert.ok(Math.max(...gaps) < 0.02, `largest per-step loss gap ${Math.max(...gaps)}`);
  assert.ok(
    gaps.some((g) => g > 0),
    "bf16 really computed in bf16 (the curves are not identical)",
  );
});

test("16-mixed recovers from an overflow: skipped steps, a lower scale, then training goes on", async () => {
  // A scale of 2^28 makes the f16 gradients overflow; each overflow halves it.
  const run = await trainTiny(data, join(root, "f16"), 24, {
    batch: 16,
    trainer: { precision: "16-mixed", lossScale: { initScale: 2 ** 28 } },
  });
  const skipped = run.history.filter((h) => h.skipped).length;
  assert.ok(skipped >= 2, `expected overflowing steps to be skipped, got ${skipped}`);
  assert.ok(skipped < 20, `the scale should come down far enough to train (skipped ${skipped} of 24)`);
  assert.ok(!run.history.at(-1)!.skipped, "the last steps are not skipped");
  assert.ok(
    run.history.every((h) => Number.isFinite(h.loss!)),
    "the reported loss stays finite",
  );
  // Steps that applied an update moved the loss away from the untouched start.
  assert.notEqual(run.history.at(-1)!.loss, run.history[0]!.loss);
});

test("precision names map to dtypes, and unknown names are refused with the list", () => {
  assert.deepEqual(precisionPolicy("bf16-mixed"), { name: "bf16-mixed", paramDtype: "f32", computeDtype: "bf16", lossScaling: false });
  assert.equal(precisionPolicy("bf16-true").paramDtype, "bf16");
  assert.equal(precisionPolicy("16-mixed").lossScaling, true);
  assert.throws(() => precisionPolicy("fp8"), /unknown precision "fp8"; choose one of 32, 32-true, bf16-mixed, bf16-true, 16-mixed/);
});
