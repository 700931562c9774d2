// Training steps of one process among several: the compiled gradient program on this process's replicas,
// the cross-process sum of its flat gradient vector (MPI all-reduce, in buckets), then the compiled
// update on replica 0's device, whose new state every local replica reads (or gets a copy of).
//
// Overlap: the gradient program is one compiled call whose outputs appear together when it ends, so
// there is no backward left to overlap a bucket's all-reduce with; the buckets bound each MPI message
// and run back to back. (Overlap would take a backward split into several programs, one per bucket of
// layers, paying a call and a host copy for each.)
import * as k from "../core/index.js";
import type { ProcessGroup } from "../distribute/multi-process.js";
import { PerReplica } from "../distribute/per-replica.js";
import type { CompiledFn, Strategy } from "../distribute/strategy.js";
import { makeGradientStep, makeUpdateStep } from "./split-step.js";
import { STEP_SCALARS, type StackedStepInputs, type TrainState, type TrainStepOptions } from "./train-step.js";

/**
 * Elements per all-reduce bucket unless told otherwise: PyTorch DDP's 25 MB of f32. (`npm run bench --
 * allreduce` on a busy 2-core machine, Open MPI 4.1, 2 processes: mlm-small's 21 MB gradient took 79 ms
 * as one message and 162 ms as 4 MiB buckets one after another.)
 */
export const DEFAULT_BUCKET_ELEMENTS = (25 << 20) / 4;

/** Seconds spent in each part of the steps so far (what the scaling bench reports). */
export interface CrossProcessTimings {
  gradient: number;
  allReduce: number;
  update: number;
  steps: number;
}

export class CrossProcessSteps {
  private readonly gradient: CompiledFn;
  private readonly update: CompiledFn;
  readonly timings: CrossProcessTimings = { gradient: 0, allReduce: 0, update: 0, steps: 0 };

  constructor(
    private readonly strategy: Strategy,
    private readonly group: ProcessGroup,
    o: TrainStepOptions,
    private readonly bucketElements = DEFAULT_BUCKET_ELEMENTS,
  ) {
    if (!(Number.isInteger(bucketElements) && bucketElements > 0))
      throw new Error(`the all-reduce bucket must be a positive whole number of elements, got ${bucketElements}`);
    this.gradient = strategy.compile(makeGradientStep(o), { name: "gradient_step" });
    this.update = k.jit(makeUpdateStep(o), { name: "update_step", device: strategy.devices[0]!, donateArgs: [0] }) as unknown as CompiledFn;
  }

  /** Compiles so far of both programs (the trainer times a call that compiled as compile time). */
  get metrics(): { compiles: number } {
    return { compiles: this.gradient.metrics.compiles + this.update.metrics.compiles };
  }

  /**
   * Runs one optimizer step per entry of `inputs` (each one step's inputs, stacked as [1, …]), from
   * `carried` at step number `firstStep`. Returns the carried state and the steps' metrics as [K, STEP_SCALARS].
   */
  async run(carried: TrainState, inputs: readonly (StackedStepInputs | Record<string, PerReplica>)[], firstStep: number) {
    const s = this.strategy;
    const device = s.devices[0]!;
    const rows: Float32Array[] = [];
    for (let i = 0; i < inputs.length; i++) {
      const stepOn = (d: k.Device) => k.array(new Int32Array([firstStep + i]), { shape: [], device: d });
      const step = s.devices.length === 1 ? stepOn(device) : new PerReplica(s.devices.map(stepOn));
      let t = performance.now();
      const reading = { params: carried.params, ...(carried.scaler ? { scaler: carried.scaler } : {}) };
      const flat = s.keepFirst(this.gradient(reading, inputs[i], step)).flat as k.Array;
      const host = (await flat.data()) as Float32Array;
      flat.dispose();
      const t1 = performance.now();
      this.timings.gradient += (t1 - t) / 1000;
      for (let at = 0; at < host.length; at += this.bucketElements)
        await this.group.comm.allReduceSum(host.subarray(at, Math.min(host.length, at + this.bucketElements)));
      t = performance.now();
      this.timings.allReduce += (t - t1) / 1000;
      const out = this.update(s.keepFirst(carried), k.array(host, { shape: [host.length], device }));
      rows.push((await out.scalars.data()) as Float32Array);
      out.scalars.dispose();
      carried = s.replicate(out.state as TrainState);
      this.timings.update += (performance.now() - t) / 1000;
      this.timings.steps++;
    }
    const scalars = new Float32Array(rows.length * STEP_SCALARS.length);
    rows.forEach((r, i) => scalars.set(r, i * STEP_SCALARS.length));
    return { state: carried, scalars: k.array(scalars, { shape: [rows.length, STEP_SCALARS.length], device }) };
  }
}
