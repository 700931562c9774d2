// Loops instead of unrolling (TrainerOptions.loops): a tiny RoBERTa trained with the K steps of an
// execution as one loop and the layer stack as one loop gives the unrolled run's losses and parameters
// (within 1e-5 relative), on ONNX Runtime and on XLA's CPU plugin, and the program shrinks.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { tinyConfig, trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { countEquations, trainStepsProgram } from "../../src/train/step-program.js";
import { xlaCpuSkip, xlaCpuTrainer } from "../helpers/xla-cpu-plugin.js";
import { maxRelativeDifference } from "../helpers/param-diff.js";
import { tempDir } from "../helpers/temp-dir.js";

const STEPS = 6;

test("a loop holds the step and the layer once: the program stops growing with K and the depth", () => {
  k.setDefaultDevice("ref:0");
  const size = (steps: number, layers: number, loops: { steps?: "scan"; layers?: "scan" }) => {
    const program = trainStepsProgram({ model: { ...tinyConfig(), num_hidden_layers: layers }, batch: 4, seq: 16, steps, loops });
    return { top: program.eqns.length, all: countEquations(program), loops: program.eqns.filter((e) => e.prim === "scan").length };
  };
  const unrolled2 = size(2, 2, {}),
    unrolled4 = size(4, 2, {});
  assert.equal(unrolled2.loops, 0);
  assert.ok(unrolled4.all > 1.9 * unrolled2.all, "unrolled: twice the steps, about twice the program");
  const steps2 = size(2, 2, { steps: "scan" }),
    steps4 = size(4, 2, { steps: "scan" });
  assert.equal(steps4.loops, 1);
  assert.equal(steps4.all, steps2.all, "a loop over steps: the same program for K = 2 and K = 4");
  assert.ok(steps4.all < 0.6 * unrolled4.all);
  // Over layers: the matmuls (forward and backward) are the loop body's, whatever the depth. The
  // per-parameter work (stacking, the all-reduce and AdamW of each leaf) still grows with it.
  const matmuls = (layers: number, loops: { layers?: "scan" }) => {
    const program = trainStepsProgram({ model: { ...tinyConfig(), num_hidden_layers: layers }, batch: 4, seq: 16, steps: 1, loops });
    const count = (p: k.Program): number =>
      p.eqns.reduce(
        (n, e) => n + (e.prim === "dot_general" ? 1 : e.prim === "scan" ? count((e.params as k.PrimParams["scan"]).body) : 0),
        0,
      );
    return count(program);
  };
  assert.equal(matmuls(4, { layers: "scan" }), matmuls(2, { layers: "scan" }));
  assert.ok(matmuls(4, {}) > matmuls(2, {}));
});

async function exactness(executor: Record<string, unknown>) {
  const root = tempDir("kiln-loops-");
  const data = join(root, "data");
  await writeTinyShards(data, 48);
  const common = { stepsPerExecution: 3, ...executor };
  const unrolled = await trainTiny(data, join(root, "unrolled"), STEPS, { trainer: common });
  const report: string[] = [];
  for (const loops of [{ steps: "scan" }, { layers: "scan" }, { steps: "scan", layers: "scan" }] as const) {
    const name = JSON.stringify(loops);
    const run = await trainTiny(data, join(root, `${loops.steps ?? "u"}-${loops.layers ?? "u"}`), STEPS, { trainer: { ...common, loops } });
    assert.equal(run.history.length, unrolled.history.length);
    const lossRel = Math.max(
      ...run.history.map((h, i) => Math.abs(h.loss! - unrolled.history[i]!.loss!) / Math.abs(unrolled.history[i]!.loss!)),
    );
    const paramRel = maxRelativeDifference(run.params, unrolled.params);
    report.push(`${name}: losses ${lossRel.toExponential(2)}, parameters ${paramRel.toExponential(2)} relative`);
    assert.ok(lossRel < 1e-5, `${name}: per-step losses differ by ${lossRel} relative`);
    assert.ok(paramRel < 1e-5, `${name}: parameters differ by ${paramRel} of their scale`);
  }
  assert.notEqual(unrolled.history[0]!.loss, unrolled.history.at(-1)!.loss, "training moved");
  console.log(report.join("\n"));
}

test("loops over steps and layers train exactly as unrolled on ONNX Runtime (3 steps per execution, dropout on)", async () => {
  await exactness({});
});

test("loops over steps and layers train exactly as unrolled on XLA:CPU", { skip: xlaCpuSkip }, async () => {
  await exactness(xlaCpuTrainer(1));
});
