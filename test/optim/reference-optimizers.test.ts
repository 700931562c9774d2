// Adafactor and Lion against the implementations they follow, step by step on a small parameter tree
// (a matrix, a 3-D tensor, biases, LayerNorm weights, a scalar): transformers' Adafactor (torch, CPU)
// under its default relative step, with warmup_init and a first moment, with an explicit rate as T5
// fine-tuning uses it, and with a schedule; and optax's lion with a constant rate and a schedule, with
// and without a weight-decay mask. The same f32 parameters and gradients go to both sides
// (test/python/optimizer_steps.py runs the reference); the parameters after every step and the final
// optimizer state (by Kiln's optimizer.safetensors names, which are transformers' state keys) agree to
// TOLERANCE, on the reference interpreter, ONNX Runtime and XLA's CPU plugin.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { Adafactor, Lion, appliesWeightDecay, linearWarmupDecay, type Optimizer } from "../../src/optim/index.js";
import { selectDevices } from "../../src/distribute/devices.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { xlaCpuTrainer } from "../helpers/xla-cpu-plugin.js";
import { randn, rng } from "../helpers/random.js";

/**
 * For every tensor, max |kiln − reference| ≤ TOLERANCE · max |reference|: f32 results of the same
 * arithmetic in another order (torch's reductions, double-precision step sizes) differ in the last bits.
 * (Element by element, a first moment that has summed updates of both signs to near zero shows the
 * same absolute difference as a larger relative one.)
 */
const TOLERANCE = 1e-6;
const STEPS = 6;

const SHAPES: Record<string, number[]> = {
  "encoder.dense.weight": [6, 4],
  "encoder.dense.bias": [4],
  "encoder.LayerNorm.weight": [4],
  "encoder.LayerNorm.bias": [4],
  "heads.weight": [2, 3, 5],
  scale: [],
};
const NAMES = Object.keys(SHAPES);
const size = (s: number[]) => s.reduce((a, b) => a * b, 1);

const r = rng(7);
const initial: Record<string, number[]> = Object.fromEntries(NAMES.map((n) => [n, [...randn(r, size(SHAPES[n]!))].map((x) => x * 0.5)]));
// Gradients whose rows differ in scale (so factoring matters), one tiny step (eps, clipping) and one large.
const grads: Record<string, number[]>[] = Array.from({ length: STEPS }, (_, t) =>
  Object.fromEntries(
    NAMES.map((n) => {
      const shape = SHAPES[n]!;
      const cols = shape.at(-1) ?? 1;
      const scale = t === 2 ? 1e-4 : t === 4 ? 30 : 1;
      return [n, [...randn(r, size(shape))].map((x, i) => Math.fround(x * scale * (1 + Math.floor(i / cols))))];
    }),
  ),
);
const decayed = NAMES.filter(appliesWeightDecay);
const schedule = { peak: 3e-2, warmup: 2, total: STEPS };

interface Run {
  id: string;
  kind: "adafactor" | "lion";
  make: () => Optimizer<any>;
  reference: Record<string, unknown>;
}

const RUNS: Run[] = [
  { id: "adafactor-default", kind: "adafactor", make: () => new Adafactor(), reference: { kwargs: {}, decay: decayed } },
  {
    id: "adafactor-warmup-init-beta1",
    kind: "adafactor",
    make: () => new Adafactor({ warmupInit: true, beta1: 0.9, clipThreshold: 0.5 }),
    reference: { kwargs: { warmup_init: true, beta1: 0.9, clip_threshold: 0.5 }, decay: decayed },
  },
  {
    id: "adafactor-t5-explicit-lr",
    kind: "adafactor",
    make: () => new Adafactor({ learningRate: 1e-3, weightDecay: 0.1 }),
    reference: {
      kwargs: { lr: 1e-3, scale_parameter: false, relative_step: false, warmup_init: false, weight_decay: 0.1 },
      decay: decayed,
    },
  },
  {
    id: "adafactor-schedule-beta1",
    kind: "adafactor",
    make: () =>
      new Adafactor({
        learningRate: linearWarmupDecay({ peak: schedule.peak, warmupSteps: schedule.warmup, totalSteps: schedule.total }),
        beta1: 0.8,
        weightDecay: 0.05,
        decayRate: -0.7,
        eps: [1e-29, 1e-3],
      }),
    reference: {
      kwargs: { scale_parameter: false, relative_step: false, beta1: 0.8, weight_decay: 0.05, decay_rate: -0.7, eps: [1e-29, 1e-3] },
      decay: decayed,
      schedule,
    },
  },
  {
    id: "lion-masked",
    kind: "lion",
    make: () => new Lion({ learningRate: 1e-2, weightDecay: 0.1 }),
    reference: { lr: 1e-2, b1: 0.9, b2: 0.99, weight_decay: 0.1, mask: decayed },
  },
  {
    id: "lion-schedule-all-decayed",
    kind: "lion",
    make: () =>
      new Lion({
        learningRate: linearWarmupDecay({ peak: schedule.peak, warmupSteps: schedule.warmup, totalSteps: schedule.total }),
        beta1: 0.95,
        beta2: 0.98,
        decay: () => true,
      }),
    reference: { schedule, b1: 0.95, b2: 0.98, weight_decay: 1e-3, mask: null },
  },
];

/** The parameter tree of flat name → values (nested as a model's parameters are). */
function tree(values: Record<string, number[]>, device: k.Device): any {
  const out: any = {};
  for (const n of NAMES) {
    const path = n.split(".");
    let node = out;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    node[path.at(-1)!] = k.array(Float32Array.from(values[n]!), { shape: SHAPES[n]!, device });
  }
  return out;
}

async function named(t: unknown): Promise<Record<string, Float32Array>> {
  const names = k.leafPaths(t);
  const data = await Promise.all(k.leaves<k.Array>(t as k.PyTree).map((a) => a.data()));
  return Object.fromEntries(names.map((n, i) => [n, data[i] as Float32Array]));
}

/** The largest relative difference (see TOLERANCE) over the tensors. */
function worst(kiln: Record<string, Float32Array>, reference: Record<string, number[]>): number {
  assert.deepEqual(Object.keys(kiln).sort(), Object.keys(reference).sort());
  let w = 0;
  for (const [n, ref] of Object.entries(reference)) {
    assert.equal(kiln[n]!.length, ref.length, n);
    const scale = Math.max(...ref.map(Math.abs));
    const diff = Math.max(...ref.map((b, i) => Math.abs(kiln[n]![i]! - b)));
    w = Math.max(w, scale > 0 ? diff / scale : diff);
  }
  return w;
}

interface Reference {
  versions: Record<string, string>;
  runs: Record<string, { params: Record<string, number[]>[]; state: Record<string, number[]> }>;
}

let reference: Reference | undefined;
if (!pythonSkip) {
  reference = runPython<Reference>("optimizer_steps.py", [], {
    input: JSON.stringify({
      params: Object.fromEntries(NAMES.map((n) => [n, { shape: SHAPES[n], data: initial[n] }])),
      grads,
      runs: RUNS.map((run) => ({ id: run.id, kind: run.kind, ...run.reference })),
    }),
    timeoutMs: 120_000,
  });
}

/** The executors that run the updates (XLA's CPU plugin comes with the Python environment). */
const DEVICES: Record<string, () => k.Device> = {
  ref: () => k.findDevice("ref:0"),
  ort: () => k.findDevice("cpu:0"),
  "xla-cpu": () => selectDevices(xlaCpuTrainer(1))[0]!,
};

for (const [id, makeDevice] of Object.entries(DEVICES))
  for (const run of RUNS)
    test(`${run.id} on ${id}: ${STEPS} steps equal the reference's to ${TOLERANCE} relative`, { skip: pythonSkip }, async () => {
      const device = makeDevice();
      const ref = reference!.runs[run.id]!;
      const optimizer = run.make();
      const step = k.jit((p: unknown, s: unknown, g: unknown) => optimizer.update(g, s as any, p), { device });
      let params = tree(initial, device);
      let state = k.jit((p: unknown) => optimizer.init(p), { device })(params);
      let err = 0;
      for (let t = 0; t < STEPS; t++) {
        const out = step(params, state, tree(grads[t]!, device));
        params = out.params;
        state = out.state;
        err = Math.max(err, worst(await named(params), ref.params[t]!));
      }
      const { step: count, ...slots } = await named(state);
      assert.equal(count![0], STEPS);
      err = Math.max(err, worst(slots, ref.state));
      assert.ok(err <= TOLERANCE, `largest relative difference ${err.toExponential(2)} (${JSON.stringify(reference!.versions)})`);
      if (process.env.KILN_REPORT) console.log(`${run.id} on ${id}: largest relative difference ${err.toExponential(2)}`);
    });
