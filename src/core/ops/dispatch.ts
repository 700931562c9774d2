// bind(): the single entry through which every primitive is applied. Under a trace it records an
// equation; otherwise it runs the primitive now on the device of its operands (eager mode), through a
// one-equation program that the device's executor compiled once per signature.
import { Array } from "../array.js";
import type { AVal, Prim, PrimParams, Program } from "../ir.js";
import { fmtAVal } from "../ir.js";
import type { Device, DeviceBuffer, Executable } from "../executor.js";
import { SHAPE_RULES } from "../prims/shape-rules.js";
import { currentTrace } from "../trace.js";
import { getDefaultDevice } from "../devices.js";
import { countEagerOp, countTransfer } from "../metrics.js";
import { EscapedTracerError } from "../diagnostics.js";

function abstractEval<P extends Prim>(prim: P, ins: readonly AVal[], params: PrimParams[P]): AVal {
  return SHAPE_RULES[prim](ins, params);
}

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
  return Array.fromBuffer(runEager(prim, inputs, params, aval));
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

function runEager<P extends Prim>(prim: P, inputs: readonly Array[], params: PrimParams[P], aval: AVal): DeviceBuffer {
  const device = inputs.length ? inputs[0]!.device : getDefaultDevice();
  const key = `${device.executor.name}:${device.id}|${prim}|${JSON.stringify(params)}|${inputs.map((x) => fmtAVal(x.aval)).join(",")}`;
  let exe = eagerCache.get(key);
  if (!exe) {
    const ins = inputs.map((x) => ({ id: eagerVarId++, aval: x.aval }));
    const out = { id: eagerVarId++, aval };
    const program: Program = { name: `eager_${prim}`, inputs: ins, consts: [], eqns: [{ prim, inputs: ins, out, params }], outputs: [out] };
    exe = device.executor.compile(program, { devices: [device] });
    eagerCache.set(key, exe);
  }
  countEagerOp(prim);
  return exe.execute([inputs.map((x) => bufferOn(x, device))])[0]![0]!;
}
