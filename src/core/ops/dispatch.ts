// bind(): the single entry through which every primitive is applied. Under a trace it records an
// equation; otherwise it runs the primitive now on the device of its operands (eager mode), through a
// one-equation program that the device's executor compiled once per signature.
import { Array } from "../array.js";
import type { AVal, Eqn, Prim, PrimParams, Program } from "../ir.js";
import { fmtAVal, MULTI_RESULT } from "../ir.js";
import type { Device, DeviceBuffer, Executable } from "../executor.js";
import { SHAPE_RULES } from "../prims/shape-rules.js";
import { currentTrace } from "../trace.js";
import { getDefaultDevice } from "../devices.js";
import { countEagerOp, countTransfer } from "../metrics.js";
import { EscapedTracerError } from "../diagnostics.js";

type Rule = (ins: readonly AVal[], params: unknown) => AVal | readonly AVal[];

function abstractEval<P extends Prim>(prim: P, ins: readonly AVal[], params: PrimParams[P]): AVal {
  if (MULTI_RESULT.has(prim)) throw new Error(`${prim} has several results: apply it with bindMulti`);
  return (SHAPE_RULES[prim] as Rule)(ins, params) as AVal;
}

/** Applies a primitive with several results (scan): recorded as one equation, or run now when eager. */
export function bindMulti<P extends Prim>(prim: P, inputs: readonly Array[], params: PrimParams[P]): Array[] {
  for (const x of inputs) if (x.trace && !x.trace.active) throw new EscapedTracerError(fmtAVal(x.aval));
  if (!MULTI_RESULT.has(prim)) return [bind(prim, inputs, params)];
  const avals = (SHAPE_RULES[prim] as Rule)(
    inputs.map((x) => x.aval),
    params,
  ) as readonly AVal[];
  const trace = currentTrace();
  if (trace) {
    const vs = trace.addMultiEqn(
      prim,
      inputs.map((x) => trace.varFor(x)),
      params,
      avals,
    );
    return vs.map((v) => Array.traced(trace, v));
  }
  return runEager(prim, inputs, params, avals).map((b) => Array.fromBuffer(b));
}

/** Applies primitive `prim` to `inputs`: recorded under a trace, else run now on the inputs' device. */
export function bind<P extends Prim>(prim: P, inputs: readonly Array[], params: PrimParams[P]): Array {
  for (const x of inputs) if (x.trace && !x.trace.active) throw new EscapedTracerError(fmtAVal(x.aval));
  const aval = abstractEval(
    prim,
    inputs.map((x) => x.aval),
    params,
  );
  const trace = currentTrace();
  if (trace) {
    const v = trace.addEqn(
      prim,
      inputs.map((x) => trace.varFor(x)),
      params,
      aval,
    );
    return Array.traced(trace, v);
  }
  return Array.fromBuffer(runEager(prim, inputs, params, [aval])[0]!);
}

const eagerCache = new Map<string, Executable>();
let eagerVarId = 0;

/** Moves an array's buffer onto `device` (through the host when it lives elsewhere). */
export function bufferOn(x: Array, device: Device): DeviceBuffer {
  const b = x.buffer();
  if (b.device === device) return b;
  const host = b.toHostSync();
  countTransfer("toHost", host.byteLength);
  countTransfer("toDevice", host.byteLength);
  return device.executor.fromHost(host, x.aval, device);
}

/** Programs (scan bodies) in eager cache keys: by identity, not by content. */
const programKeys = new WeakMap<object, number>();
let programKeyId = 0;
function paramsKey(params: unknown): string {
  return JSON.stringify(params, (_k, v) => {
    if (v && typeof v === "object" && "eqns" in v) {
      let id = programKeys.get(v);
      if (id === undefined) programKeys.set(v, (id = programKeyId++));
      return `program#${id}`;
    }
    return v;
  });
}

function runEager<P extends Prim>(prim: P, inputs: readonly Array[], params: PrimParams[P], avals: readonly AVal[]): DeviceBuffer[] {
  const device = inputs.length ? inputs[0]!.device : getDefaultDevice();
  const key = `${device.executor.name}:${device.id}|${prim}|${paramsKey(params)}|${inputs.map((x) => fmtAVal(x.aval)).join(",")}`;
  let exe = eagerCache.get(key);
  if (!exe) {
    const ins = inputs.map((x) => ({ id: eagerVarId++, aval: x.aval }));
    const outs = avals.map((aval) => ({ id: eagerVarId++, aval }));
    const eqn = (
      MULTI_RESULT.has(prim) ? { prim, inputs: ins, out: outs[0]!, outs, params } : { prim, inputs: ins, out: outs[0]!, params }
    ) as Eqn;
    const program: Program = { name: `eager_${prim}`, inputs: ins, consts: [], eqns: [eqn], outputs: outs };
    exe = device.executor.compile(program, { devices: [device] });
    eagerCache.set(key, exe);
  }
  countEagerOp(prim);
  return exe.execute([inputs.map((x) => bufferOn(x, device))])[0]!;
}
