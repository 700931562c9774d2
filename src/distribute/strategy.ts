// Distribution strategies, in both styles: Keras/TF (strategy.run, reduce, distributeDataset) and the
// building blocks Lightning's Trainer uses (compile a per-replica step, split a global batch).
//   OneDevice    — everything on one device; values are plain Arrays.
//   DataParallel — mirrored replicas: the same program on every device, each on its slice of the
//                  global batch, gradients summed with all_reduce inside the step.
import * as k from "../core/index.js";
import type { TokenBatch } from "../data/batch.js";
import { PerReplica, replicaView } from "./per-replica.js";
import { replicated } from "./replicated.js";

/** A compiled per-replica function, with the jit-style counters. */
export type CompiledFn = ((...args: any[]) => any) & { readonly metrics: k.FunctionMetrics };

/** How a computation is spread over devices: the replicas, and how to place, compile and run on them. */
export interface Strategy {
  readonly name: "one-device" | "data-parallel";
  readonly devices: readonly k.Device[];
  /** This process's replicas. */
  readonly numReplicas: number;
  /**
   * Whether compiled functions span every process's devices (an XLA client made for several processes:
   * the all_reduce sums across processes through XLA's collectives), running this process's replicas.
   */
  readonly global: boolean;
  /** Compiles a per-replica function; calling it returns results with PerReplica leaves (plain on one device). */
  compile<F extends (...args: any[]) => any>(fn: F, opts?: { name?: string; donateArgs?: number[] }): CompiledFn;
  /** Keras' strategy.run: fn on every replica (compiled once per fn and signature). */
  run<F extends (...args: any[]) => any>(fn: F, ...args: unknown[]): any;
  /**
   * A tree of Arrays as the state a compiled step carries from call to call: on devices with their own
   * memory, one copy per replica device (PerReplica leaves, each replica's on its device, copied once);
   * otherwise the tree itself, moved to the first device if it is elsewhere.
   */
  replicate<T>(tree: T): T;
  /**
   * What to carry to the next call of a step's results: every replica's copy where each replica keeps its
   * own (its buffers then donated to the next call), or replica 0's (the others freed) where devices share
   * one memory and read replica 0's in place.
   */
  carry<T>(out: T): T;
  /** Replica 0's view of a tree with PerReplica leaves (all replicas hold the same state after the all-reduce). */
  first<T>(tree: T): T;
  /** Frees every replica's copy except replica 0's; returns replica 0's view. */
  keepFirst<T>(tree: T): T;
  /** Sum or mean of a per-replica value across replicas (identity for a plain Array). */
  reduce(op: "sum" | "mean", value: PerReplica | k.Array): k.Array;
  /** Each replica's rows of a global batch, with the epoch-wide index of its first example. */
  splitBatch(
    batch: TokenBatch,
    exampleOffset: number,
  ): { inputIds: PerReplica | k.Array; attentionMask: PerReplica | k.Array; exampleOffset: PerReplica | k.Array };
  /** The per-replica batches of a dataset of global batches (Keras' experimental_distribute_dataset). */
  distributeDataset(ds: AsyncIterable<TokenBatch>): AsyncIterable<ReturnType<Strategy["splitBatch"]>>;
}

abstract class BaseStrategy implements Strategy {
  abstract readonly name: Strategy["name"];
  private readonly compiled = new WeakMap<Function, CompiledFn>();
  readonly global: boolean = false;
  constructor(readonly devices: readonly k.Device[]) {}
  get numReplicas(): number {
    return this.devices.length;
  }
  abstract compile<F extends (...args: any[]) => any>(fn: F, opts?: { name?: string; donateArgs?: number[] }): CompiledFn;

  run<F extends (...args: any[]) => any>(fn: F, ...args: unknown[]): any {
    let c = this.compiled.get(fn);
    if (!c) this.compiled.set(fn, (c = this.compile(fn)));
    return c(...args);
  }

  /** True where each replica keeps its own copy of the state between calls. */
  protected get perReplicaState(): boolean {
    return this.numReplicas > 1 && !this.devices[0]!.executor.abilities.sharesHostMemory;
  }

  replicate<T>(tree: T): T {
    const onDevice = (a: k.Array, d: k.Device) => (a.device === d ? a : k.Array.fromBuffer(k.bufferOn(a, d)));
    const first = this.devices[0]!;
    // Devices that share one memory read each other's buffers in place.
    const readable = (a: k.Array) =>
      a.device === first || (first.executor.abilities.sharesHostMemory && a.device.executor === first.executor);
    if (!this.perReplicaState) return k.treeMap((a: k.Array) => (readable(a) ? a : onDevice(a, first)), tree);
    return k.treeMap((a: k.Array) => new PerReplica(this.devices.map((d) => onDevice(a, d))), tree);
  }

  carry<T>(out: T): T {
    return this.perReplicaState ? out : this.keepFirst(out);
  }

  first<T>(tree: T): T {
    return replicaView(tree, 0);
  }

  keepFirst<T>(tree: T): T {
    for (const l of k.flatten(tree, (x) => x instanceof PerReplica || x instanceof k.Array).leaves) {
      if (l instanceof PerReplica) for (const v of l.values.slice(1)) (v as k.Array).dispose();
    }
    return replicaView(tree, 0);
  }

  reduce(op: "sum" | "mean", value: PerReplica | k.Array): k.Array {
    if (value instanceof k.Array) return value;
    const sum = value.values.map((v): k.Array => v.astype(v.dtype === "bool" ? "i32" : v.dtype)).reduce((a, b) => a.add(b));
    return op === "sum" ? sum : sum.div(value.replicas);
  }

  splitBatch(batch: TokenBatch, exampleOffset: number) {
    const [rows, length] = batch.shape;
    const n = this.numReplicas;
    if (rows % n !== 0) throw new Error(`a global batch of ${rows} rows does not split evenly over ${n} replicas`);
    const per = rows / n;
    const part = (data: Int32Array, r: number) =>
      k.array(data.subarray(r * per * length, (r + 1) * per * length), { shape: [per, length], device: this.devices[r]! });
    const offset = (r: number) => k.array(new Int32Array([exampleOffset + r * per]), { shape: [], device: this.devices[r]! });
    if (n === 1) return { inputIds: part(batch.inputIds, 0), attentionMask: part(batch.attentionMask, 0), exampleOffset: offset(0) };
    const each = <T>(f: (r: number) => T) => new PerReplica(this.devices.map((_, r) => f(r)) as k.Array[]);
    return {
      inputIds: each((r) => part(batch.inputIds, r)),
      attentionMask: each((r) => part(batch.attentionMask, r)),
      exampleOffset: each(offset),
    };
  }

  async *distributeDataset(ds: AsyncIterable<TokenBatch>) {
    let offset = 0;
    for await (const batch of ds) {
      yield this.splitBatch(batch, offset);
      offset += batch.shape[0];
    }
  }
}

/** The strategy of a single device. */
export class OneDevice extends BaseStrategy {
  readonly name = "one-device" as const;
  constructor(device: k.Device) {
    super([device]);
  }
  compile<F extends (...args: any[]) => any>(fn: F, opts: { name?: string; donateArgs?: number[] } = {}) {
    return k.jit(fn, {
      device: this.devices[0]!,
      ...(opts.name ? { name: opts.name } : {}),
      ...(opts.donateArgs ? { donateArgs: opts.donateArgs } : {}),
    }) as unknown as CompiledFn;
  }
}

/** Data parallelism: every replica runs the same program on its share of the batch, gradients summed across them. */
export class DataParallel extends BaseStrategy {
  readonly name = "data-parallel" as const;
  override readonly global: boolean;
  /** `global`: compile over every process's devices (see Strategy.global); default when the devices' client spans several processes. */
  constructor(devices: readonly k.Device[], o: { global?: boolean } = {}) {
    if (devices.length < 1) throw new Error("DataParallel needs at least one device");
    super(devices);
    this.global = o.global ?? spansProcesses(devices[0]!.executor);
  }
  /** Donated arguments give up their PerReplica leaves (each replica's own buffers); plain Arrays are only read. */
  compile<F extends (...args: any[]) => any>(fn: F, opts: { name?: string; donateArgs?: number[] } = {}): CompiledFn {
    return replicated(fn, {
      devices: this.devices,
      ...(this.global ? { global: true } : {}),
      ...(opts.name ? { name: opts.name } : {}),
      ...(opts.donateArgs ? { donateArgs: opts.donateArgs } : {}),
    });
  }
}

/** A strategy's name ("auto" picks one from the devices). */
export type StrategyName = "auto" | "one-device" | "data-parallel";

/** Whether an executor's client spans several processes (XLA made with `distributed`): more devices in all than its own. */
export function spansProcesses(e: k.Executor): boolean {
  const g = (e as { globalDeviceIds?: () => number[] }).globalDeviceIds;
  return typeof g === "function" && g.call(e).length > e.devices().length;
}

/** 'auto': data parallel over several devices (or over every process's, for a client that spans processes), one device otherwise. */
export function makeStrategy(name: StrategyName | Strategy, devices: readonly k.Device[]): Strategy {
  if (typeof name !== "string") return name;
  if (spansProcesses(devices[0]!.executor)) {
    if (name === "one-device")
      throw new Error(
        `strategy "one-device" runs in one process, but the devices' XLA client spans several: use "auto" or "data-parallel"`,
      );
    return new DataParallel(devices, { global: true });
  }
  if (name === "one-device") {
    if (devices.length !== 1)
      throw new Error(`strategy "one-device" needs exactly one device, got ${devices.length} (${devices.map((d) => d.id).join(", ")})`);
    return new OneDevice(devices[0]!);
  }
  if (name === "data-parallel" || devices.length > 1) return new DataParallel(devices);
  return new OneDevice(devices[0]!);
}
