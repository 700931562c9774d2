// crossEntropy (the fused softmax_cross_entropy primitive under ignored labels and the reductions) on
// ONNX Runtime and on XLA's CPU plugin equals the reference interpreter, value and gradient: ignored
// labels count for nothing, labels out of [0, V) read the nearest class, bf16 logits compute in f32.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { selectDevices } from "../../src/distribute/devices.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { randn, rng } from "../helpers/random.js";

const ROWS = 2,
  POSITIONS = 5,
  CLASSES = 7;
// -100 is ignored; 9 and -3 are out of range (clamped to 6 and 0); one row is all but ignored.
const LABELS = [3, -100, 9, 0, -3, -100, -100, 6, -100, -100];
const REDUCTIONS = ["mean", "sum", "none"] as const;

/** Value and logits gradient of crossEntropy, weighted so that each position's cotangent differs under "none". */
function valueAndGrad(device: k.Device, dtype: "f32" | "bf16", reduction: (typeof REDUCTIONS)[number]) {
  const r = rng(0xce);
  const logits = k.array(
    randn(r, ROWS * POSITIONS * CLASSES).map((v) => v * 3),
    { shape: [ROWS, POSITIONS, CLASSES], device },
  );
  const labels = k.array(LABELS, { shape: [ROWS, POSITIONS], dtype: "i32", device });
  const weights = k.array(randn(r, ROWS * POSITIONS), { shape: [ROWS, POSITIONS], device });
  const loss = (x: k.Array) => {
    const l = k.crossEntropy(x.astype(dtype), labels, { reduction });
    return reduction === "none" ? l.astype("f32").mul(weights).sum() : l.astype("f32");
  };
  const [value, grad] = k.jit(k.valueAndGrad(loss), { device, name: `xent_${dtype}_${reduction}` })(logits);
  return { value: value.item(), grad: Array.from(grad.dataSync() as Float32Array) };
}

function assertClose(got: number[], want: number[], rtol: number, what: string) {
  const scale = Math.max(...want.map(Math.abs));
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]!) <= rtol * scale, `${what}[${i}]: got ${g}, want ${want[i]} (scale ${scale})`));
}

function checkAgainstReference(device: k.Device) {
  const ref = k.findDevice("ref:0");
  for (const dtype of ["f32", "bf16"] as const) {
    // f32: float32 rounding; bf16: the logits' rounding to bf16 is the same on both sides, the loss and
    // its gradient round to bf16 once (2^-8 relative).
    const rtol = dtype === "f32" ? 1e-5 : 1e-2;
    for (const reduction of REDUCTIONS) {
      const want = valueAndGrad(ref, dtype, reduction),
        got = valueAndGrad(device, dtype, reduction);
      const what = `${device.id} ${dtype} ${reduction}`;
      assertClose([got.value], [want.value], rtol, `${what} loss`);
      assertClose(got.grad, want.grad, rtol, `${what} gradient`);
      // Ignored positions get no gradient at all; the others' rows sum to 0 (softmax − one-hot).
      for (let p = 0; p < ROWS * POSITIONS; p++) {
        const row = got.grad.slice(p * CLASSES, (p + 1) * CLASSES);
        if (LABELS[p] === -100)
          assert.ok(
            row.every((g) => g === 0),
            `${what}: ignored position ${p} has gradient ${row}`,
          );
        else assert.ok(Math.abs(row.reduce((a, b) => a + b, 0)) < rtol * 10, `${what}: row ${p} sums to ${row}`);
      }
    }
  }
}

test("the reference interpreter's cross-entropy is logsumexp − the label's logit, clamped labels included", () => {
  const ref = k.findDevice("ref:0");
  const x = k.array([1, 2, 3, 0.5, -1, 4], { shape: [2, 3], device: ref });
  const nll = k.crossEntropy(x, k.array([7, -3], { dtype: "i32", device: ref }), { reduction: "none" }).toArray() as number[];
  const lse = (a: number[]) => Math.log(a.reduce((s, v) => s + Math.exp(v), 0));
  assertClose(nll, [lse([1, 2, 3]) - 3, lse([0.5, -1, 4]) - 0.5], 1e-6, "nll");
});

test("crossEntropy on ONNX Runtime equals the reference interpreter (ignored and out-of-range labels, bf16)", () => {
  checkAgainstReference(k.findDevice("cpu:0"));
});

test(
  "crossEntropy on XLA's CPU plugin equals the reference interpreter (ignored and out-of-range labels, bf16)",
  { skip: xlaCpuSkip },
  () => {
    const [device] = selectDevices({ accelerator: "cpu", executor: "xla", devices: 1, pjrtPlugin: xlaCpuPluginPath() });
    checkAgainstReference(device!);
  },
);

test("labelIsTop marks labels whose logit is the row's largest, never ignored ones, on ONNX Runtime as on the reference", () => {
  // Rows: label is the maximum; label ties another maximum; label below the maximum; ignored label.
  const logits = [0.1, 2, -1, 3, 3, 0, 5, 1, 0, 9, 9, 9];
  const labels = [1, 0, 2, -100];
  const want = [true, true, false, false];
  for (const id of ["ref:0", "cpu:0"]) {
    const device = k.findDevice(id);
    const x = k.array(logits, { shape: [4, 3], device });
    const got = k.jit((l: k.Array, y: k.Array) => k.labelIsTop(l, y), { device })(x, k.array(labels, { dtype: "i32", device }));
    assert.deepEqual(
      Array.from(got.dataSync() as Uint8Array, (v) => v !== 0),
      want,
      id,
    );
  }
});
