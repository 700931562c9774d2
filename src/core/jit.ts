// jit: trace a function once per input signature into one program, compile it with an executor, and
// run the compiled program on later calls. Signatures are counted (XLA rule 3): past a threshold, a
// warning names the dimensions that keep changing.
import { OptionError } from "./option-error.js";
import { checkOptions } from "./check-options.js";
import { Array } from "./array.js";
import type { Device, DeviceBuffer, Executable } from "./executor.js";
import { fmtAVal } from "./ir.js";
import type { Program } from "./ir.js";
import { flatten, type TreeDef } from "./pytree.js";
import { currentTrace } from "./trace.js";
import { traceToProgram } from "./autodiff.js";
import { getDefaultDevice, findDevice } from "./devices.js";
import type { FunctionMetrics } from "./metrics.js";
import { CompileLog } from "./compile-log.js";
import { bufferOn } from "./ops/dispatch.js";
import { asArray } from "./ops/creation.js";

/** Options of jit. */
export interface JitOptions {
  /** Positional arguments that are compile-time constants (hashed into the cache key). */
  staticArgs?: readonly number[];
  /** Positional arguments whose buffers the call may reuse for its outputs (they are invalid afterwards). */
  donateArgs?: readonly number[];
  /** Where to compile and run (default: the default device). */
  device?: Device | string;
  /** Name in metrics and warnings (default: the function's name). */
  name?: string;
  /** Compiles of one function after which each new signature warns (default 3). */
  recompileWarnAfter?: number;
}

interface Compiled {
  executable: Executable;
  program: Program;
  outTree: TreeDef;
}

/** A function compiled by jit: called like the original, with lower() to see its program. */
export interface Jitted<F extends (...args: any[]) => any> {
  (...args: Parameters<F>): ReturnType<F>;
  /** The program that a call with these arguments runs (traces if needed; does not compile). */
  lower(...args: Parameters<F>): Program;
  readonly metrics: FunctionMetrics;
}

/** One signature entry per dynamic leaf: "f32[32,128]"; used for the cache key and the rule-3 warning. */
function leafSignature(x: unknown, i: number): string {
  if (x instanceof Array) return fmtAVal(x.aval) + (x.weak ? "~" : "");
  if (typeof x === "number") return "f32[]~";
  throw new TypeError(`jit: argument leaf ${i} is a ${typeof x}; only Arrays and numbers can be traced — list its argument in staticArgs`);
}

/** Compiles `fn` into one program per argument signature (shapes, dtypes, static arguments) and runs that on later calls. */
export function jit<F extends (...args: any[]) => any>(fn: F, opts: JitOptions = {}): Jitted<F> {
  if (typeof fn !== "function")
    throw new OptionError({
      where: "jit",
      option: "fn",
      value: fn,
      why: "is not a function",
      fix: "Pass the function to compile: jit((x) => …)",
    });
  checkOptions("jit", opts, ["staticArgs", "donateArgs", "device", "name", "recompileWarnAfter"], {
    ints: ["recompileWarnAfter"],
    positive: ["recompileWarnAfter"],
  });
  const name = opts.name ?? (fn.name || "jitted");
  const statics = new Set(opts.staticArgs ?? []);
  const donated = new Set(opts.donateArgs ?? []);
  const log = new CompileLog(name, opts.recompileWarnAfter ?? 3);
  const cache = new Map<string, Compiled>();

  const isLeaf = (x: unknown) => x instanceof Array || typeof x === "number";

  /** Dynamic leaves (with the argument each came from), their tree, and the cache key parts. */
  const split = (args: unknown[]) => {
    const dynIdx = args.map((_, i) => i).filter((i) => !statics.has(i));
    const { leaves, treedef } = flatten(
      dynIdx.map((i) => args[i]),
      isLeaf,
    );
    const owner = dynIdx.flatMap((i) => flatten(args[i], isLeaf).leaves.map(() => i));
    const sig = leaves.map(leafSignature);
    const staticKey = JSON.stringify(args.map((a, i) => (statics.has(i) ? a : null)));
    return { leaves: leaves as (Array | number)[], treedef, staticKey, sig, owner, dynIdx };
  };

  const traceFor = (args: unknown[], leaves: (Array | number)[], treedef: TreeDef, dynIdx: number[]) => {
    const arrays = leaves.map((l) => asArray(l));
    const body = (...dyn: unknown[]) => {
      const full = args.slice();
      dynIdx.forEach((i, k) => {
        full[i] = dyn[k];
      });
      return fn(...full);
    };
    return { arrays, ...traceToProgram(name, body, arrays, treedef) };
  };

  const device = () => (opts.device ? (typeof opts.device === "string" ? findDevice(opts.device) : opts.device) : getDefaultDevice());

  const call = (...args: unknown[]) => {
    // Called while tracing (inside another jit or grad): inline, the outer program compiles it all.
    if (currentTrace()) return fn(...args);
    const { leaves, treedef, staticKey, sig, owner, dynIdx } = split(args);
    const dev = device();
    const key = `${dev.executor.name}:${dev.id}|${treedef.key}|${sig.join(";")}|${staticKey}`;
    let c = cache.get(key);
    if (c) log.hit();
    else {
      log.compiling(sig);
      const t0 = performance.now();
      const { program, captured, outTree } = traceFor(args, leaves, treedef, dynIdx);
      if (captured.length) throw new Error(`jit(${name}): the function closed over traced values from an enclosing trace`);
      const donate = program.inputs.map((_, i) => donated.has(owner[i]!));
      const executable = dev.executor.compile(program, { donate, devices: [dev] });
      c = { executable, program, outTree };
      cache.set(key, c);
      log.compiled(sig, performance.now() - t0);
    }
    const arrays = leaves.map((l) => asArray(l));
    const bufs: DeviceBuffer[] = arrays.map((a) => bufferOn(a, dev));
    const t1 = performance.now();
    const outs = c.executable.execute([bufs])[0]!;
    log.executed(outs, t1);
    arrays.forEach((a, i) => {
      if (donated.has(owner[i]!)) a.invalidate(`was donated to ${name} (donateArgs); use the value it returned`);
    });
    return c.outTree.unflatten(outs.map((b) => Array.fromBuffer(b)));
  };

  const jitted = call as unknown as Jitted<F>;
  Object.defineProperty(jitted, "metrics", { value: log.metrics });
  Object.defineProperty(jitted, "lower", {
    value: (...args: unknown[]) => {
      const { leaves, treedef, dynIdx } = split(args);
      return traceFor(args, leaves, treedef, dynIdx).program;
    },
  });
  return jitted;
}
