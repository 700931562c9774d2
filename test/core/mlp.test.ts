// The engine end to end: a two-layer MLP trained with jit(valueAndGrad(loss)) and AdamW learns a
// synthetic problem, and the metrics show one compile per input signature.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";

// The engine is specified by the reference interpreter: run these tests there.
k.setDefaultDevice("ref:0");
import { adamInit, mlpData, mlpInit, trainStep } from "../helpers/mlp.js";

test("a jitted MLP training step lowers the loss clearly, compiling once per shape", () => {
  k.resetMetrics();
  const { x, y } = mlpData(64, 8, 4);
  let params = mlpInit(8, 16, 4);
  let state = adamInit(params);
  const step = k.jit(trainStep, { name: "mlp_step" });
  const lr = k.scalar(0.03);
  const losses: number[] = [];
  for (let i = 0; i < 40; i++) {
    const out = step(params, state, x, y, lr);
    params = out.params;
    state = out.state;
    losses.push(out.loss.item());
  }
  assert.ok(losses[0]! > 1.0, `initial loss ${losses[0]} should be near log(4)`);
  assert.ok(losses.at(-1)! < 0.5 * losses[0]!, `loss should at least halve: ${losses[0]} → ${losses.at(-1)}`);
  const fm = k.metrics().functions.find((f) => f.name === "mlp_step")!;
  assert.equal(fm.compiles, 1);
  assert.equal(fm.executions, 40);
  assert.equal(fm.cacheHits, 39);

  // A new batch size is a new signature: exactly one more compile, then cache hits again.
  const small = mlpData(32, 8, 4, 5);
  step(params, state, small.x, small.y, lr);
  step(params, state, small.x, small.y, lr);
  const after = k.metrics().functions.find((f) => f.name === "mlp_step")!;
  assert.equal(after.compiles, 2);
  assert.equal(after.signatures.length, 2);
  assert.match(after.signatures[1]!, /f32\[32,8\]/);
  assert.match(k.metricsReport(), /function mlp_step: compiles 2/);
});
