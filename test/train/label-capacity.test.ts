// The MLM head runs on a static number of labelled positions. A labelling with more than that loses the
// extra positions: the objective counts them, the step reports them, and the trainer warns once.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { createMaskedLM, maskedLmLoss } from "../../src/models/index.js";
import { tinyConfig, trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { tempDir } from "../helpers/temp-dir.js";

test("maskedLmLoss over capacity: the first `capacity` labelled positions count, the rest are reported as dropped", () => {
  const model = createMaskedLM(tinyConfig());
  const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(0));
  const [rows, length] = [2, 8];
  const ids = k.array(
    Int32Array.from({ length: rows * length }, (_, i) => 5 + (i % 40)),
    { shape: [rows, length] },
  );
  const mask = k.array(new Int32Array(rows * length).fill(1), { shape: [rows, length] });
  const labelled = [1, 3, 4, 9, 12, 14]; // six labelled positions, in flat order
  const labels = (keep: number[]) =>
    k.array(
      Int32Array.from({ length: rows * length }, (_, i) => (keep.includes(i) ? 7 + i : -100)),
      { shape: [rows, length] },
    );
  const run = k.jit((p: any, l: k.Array, firstFour: k.Array) => {
    const h = model.hidden(p, ids, mask);
    return {
      capped: maskedLmLoss(model, p, h, l, 4),
      fits: maskedLmLoss(model, p, h, l, 8),
      firstFour: maskedLmLoss(model, p, h, firstFour),
    };
  });
  const out = run(params, labels(labelled), labels(labelled.slice(0, 4)));
  assert.equal(out.capped.dropped.item(), 2);
  assert.equal(out.capped.count.item(), 4);
  assert.ok(
    Math.abs(out.capped.loss.item() - out.firstFour.loss.item()) < 1e-6,
    `${out.capped.loss.item()} vs ${out.firstFour.loss.item()}`,
  );
  assert.equal(out.capped.correct.item(), out.firstFour.correct.item());
  assert.equal(out.fits.dropped.item(), 0);
  assert.equal(out.fits.count.item(), 6);
  assert.equal(out.firstFour.dropped.item(), 0);
});

test("a run whose labelling exceeds the head's capacity logs dropped_labels per step and warns once with the count", async () => {
  const root = tempDir("kiln-label-capacity-");
  const data = join(root, "data");
  await writeTinyShards(data);
  const warnings: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void warnings.push(args.join(" "));
  let result;
  try {
    // Batches of 8 short sequences at probability 0.25 label about a dozen positions per step: room for 4.
    result = await trainTiny(data, join(root, "run"), 3, { labelCapacity: 4 });
  } finally {
    console.error = original;
  }
  const steps = result.history.filter((h) => h.loss !== undefined);
  assert.equal(steps.length, 3);
  for (const h of steps) assert.ok((h.dropped_labels ?? 0) > 0, `step ${h.step} dropped ${h.dropped_labels} positions`);
  const said = warnings.filter((w) => w.includes("did not fit the MLM head's capacity"));
  assert.equal(said.length, 1, warnings.join("\n"));
  assert.match(said[0]!, new RegExp(`step 1: ${steps[0]!.dropped_labels} labelled positions`));

  // At the default capacity nothing is dropped and nothing is said.
  warnings.length = 0;
  console.error = (...args: unknown[]) => void warnings.push(args.join(" "));
  try {
    result = await trainTiny(data, join(root, "default"), 2);
  } finally {
    console.error = original;
  }
  assert.ok(result.history.every((h) => h.dropped_labels === undefined));
  assert.ok(!warnings.some((w) => w.includes("MLM head's capacity")));
});
