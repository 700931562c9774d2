// The reference loop: the body program interpreted once per iteration, every replica in lockstep (so
// an all_reduce inside the body sees each replica's operand, as it does outside a loop).
import type { HostArray } from "../../core/dtype.js";
import { allocHost } from "../../core/dtype.js";
import type { AVal, PrimParams } from "../../core/ir.js";
import { sizeOf } from "../../core/shape.js";
import type { Interpret } from "./kernels.js";
import type { HostTensor } from "./tensor.js";

type Typed = Float64Array; // every HostArray has subarray/set with these shapes

function sliceLeading(x: HostTensor, i: number): HostTensor {
  const shape = x.aval.shape.slice(1),
    n = sizeOf(shape);
  return { aval: { shape, dtype: x.aval.dtype }, data: (x.data as Typed).subarray(i * n, (i + 1) * n) as unknown as HostArray };
}

/** Runs a scan on every replica: `replicaIns[r]` are replica r's operands; returns each replica's results. */
export function scanKernel(
  replicaIns: readonly (readonly HostTensor[])[],
  p: PrimParams["scan"],
  outs: readonly AVal[],
  interpret: Interpret,
): HostTensor[][] {
  const { body, numConsts: nc, numCarry: nk, length, reverse } = p;
  let carry = replicaIns.map((ins) => ins.slice(nc, nc + nk));
  const ys = replicaIns.map(() => outs.slice(nk).map((aval) => ({ aval, data: allocHost(aval.dtype, sizeOf(aval.shape)) })));
  for (let t = 0; t < length; t++) {
    const i = reverse ? length - 1 - t : t;
    const results = interpret(
      body,
      replicaIns.map((ins, r) => [...ins.slice(0, nc), ...carry[r]!, ...ins.slice(nc + nk).map((x) => sliceLeading(x, i))]),
    );
    carry = results.map((o) => o.slice(0, nk));
    results.forEach((o, r) =>
      o.slice(nk).forEach((y, j) => {
        (ys[r]![j]!.data as Typed).set(y.data as Typed, i * y.data.length);
      }),
    );
  }
  return replicaIns.map((_, r) => [...carry[r]!.map((c, j) => ({ aval: outs[j]!, data: c.data })), ...ys[r]!]);
}
