// Running one traced program on several replicas at once: the same per-replica program, compiled for N
// replicas (all_reduce sums across them), fed each replica's inputs. What jit is to one device.
//
// Where values live: a PerReplica leaf is one Array per replica, each read where it is (on its own
// replica's device, as the outputs of the last call are); a plain Array is the same on every replica
// and is copied to each replica's device, except on executors whose devices share one memory (ONNX
// Runtime's virtual CPU devices), which read it in place. Donated arguments (donateArgs) give their
// buffers to the outputs: only PerReplica leaves (each replica's own buffer) are donated, so a
// training loop that feeds a step's PerReplica outputs back in allocates nothing per step.
import * as k from "../core/index.js";
import { PerReplica } from "./per-replica.js";

/** Options of a replicated function: its devices, name and donated arguments. */
export interface ReplicatedOptions {
  devices: readonly k.Device[];
  name?: string;
  /** Positional arguments whose PerReplica leaves the call may reuse for its outputs (they are invalid afterwards). */
  donateArgs?: readonly number[];
  /**
   * Compile over every process's devices (the executor's compileGlobal: XLA clients made for several
   * processes), `devices` being this process's: the all_reduce then sums across processes.
   */
  global?: boolean;
}

export type Replicated<_F extends (...args: any[]) => any> = ((...args: unknown[]) => any) & { readonly metrics: k.FunctionMetrics };

const isLeaf = (x: unknown) => x instanceof PerReplica || x instanceof k.Array;

function compileFor(
  executor: k.Executor,
  program: k.Program,
  devices: readonly k.Device[],
  donate: boolean[],
  global: boolean,
  name: string,
): k.Executable {
  if (!global) return executor.compile(program, { replicas: devices.length, devices, donate });
  if (!executor.compileGlobal)
    throw new Error(`${name}: global compilation needs an XLA executor (compileGlobal); ${executor.name} has none`);
  if (devices.length !== executor.devices().length)
    throw new Error(`${name}: a global program runs on every device of this process (${executor.devices().length}), not ${devices.length}`);
  return executor.compileGlobal(program, { donate });
}

/**
 * replicated(fn, {devices}) → a function taking argument trees whose leaves are PerReplica values
 * (one Array per replica) or Arrays (the same on every replica), returning fn's result tree with
 * PerReplica leaves, each value on its replica's device. Compiled once per signature, like jit.
 */
export function replicated<F extends (...args: any[]) => any>(fn: F, opts: ReplicatedOptions): Replicated<F> {
  const devices = opts.devices;
  const n = devices.length;
  const executor = devices[0]!.executor;
  if (devices.some((d) => d.executor !== executor)) throw new Error("replicated: all devices must belong to one executor");
  const name = opts.name ?? (fn.name || "replicated");
  const donated = new Set(opts.donateArgs ?? []);
  const log = new k.CompileLog(name);
  const cache = new Map<string, { exe: k.Executable; outTree: k.TreeDef }>();

  const call = (...args: unknown[]) => {
    const { leaves, treedef } = k.flatten(args, isLeaf);
    const owner = args.flatMap((a, i) => k.flatten(a, isLeaf).leaves.map(() => i));
    for (const l of leaves) {
      if (!isLeaf(l)) throw new TypeError(`${name}: arguments must be Arrays or PerReplica values, got ${typeof l}`);
      if (l instanceof PerReplica && l.replicas !== n)
        throw new Error(`${name}: a PerReplica value has ${l.replicas} values for ${n} replicas`);
    }
    const first = leaves.map((l) => (l instanceof PerReplica ? l.values[0]! : (l as k.Array)));
    // A donated argument's plain Arrays are shared by every replica: those are read, never donated.
    const donate = leaves.map((l, i) => donated.has(owner[i]!) && (l instanceof PerReplica || n === 1));
    const sig = first.map((a) => k.fmtAVal(a.aval));
    const key = `${treedef.key}|${sig.join(",")}|${donate.map(Number).join("")}`;
    let c = cache.get(key);
    if (c) log.hit();
    else {
      log.compiling(sig);
      const t0 = performance.now();
      const { program, outTree } = k.traceProgram(name, (...a: unknown[]) => fn(...a), treedef.unflatten(first) as unknown[]);
      c = { exe: compileFor(executor, program, devices, donate, opts.global ?? false, name), outTree };
      cache.set(key, c);
      log.compiled(sig, performance.now() - t0);
    }
    const place = (a: k.Array, r: number) =>
      executor.abilities.sharesHostMemory && a.device.executor === executor ? a.buffer() : k.bufferOn(a, devices[r]!);
    const perReplicaArgs = devices.map((_, r) => leaves.map((l) => place(l instanceof PerReplica ? l.values[r]! : (l as k.Array), r)));
    const t1 = performance.now();
    const outs = c.exe.execute(perReplicaArgs);
    log.executed(outs.flat(), t1);
    leaves.forEach((l, i) => {
      if (!donate[i]) return;
      const values = l instanceof PerReplica ? (l.values as k.Array[]) : [l as k.Array];
      for (const v of values) v.invalidate(`was donated to ${name} (donateArgs); use the value it returned`);
    });
    const numOut = outs[0]!.length;
    const results = Array.from({ length: numOut }, (_, i) => new PerReplica(outs.map((o) => k.Array.fromBuffer(o[i]!))));
    return c.outTree.unflatten(results);
  };
  Object.defineProperty(call, "metrics", { value: log.metrics });
  return call as Replicated<F>;
}
