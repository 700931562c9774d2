// A host value as the reference interpreter sees it: abstract value plus host data.
import type { HostArray } from "../../core/dtype.js";
import { allocHost, toNumbers, writeElem } from "../../core/dtype.js";
import type { AVal } from "../../core/ir.js";
import { sizeOf } from "../../core/shape.js";

export interface HostTensor {
  readonly aval: AVal;
  readonly data: HostArray;
}

/** Element values as JS numbers; f32/f64/i32/u32/bool storage is read in place (no copy). */
export function numbers(t: HostTensor): ArrayLike<number> {
  const d = t.aval.dtype;
  return d === "bf16" || d === "f16" || d === "i64" ? toNumbers(d, t.data) : (t.data as Float64Array);
}

/** Fills a fresh host array of aval from a function of the linear index, rounding as the dtype does. */
export function build(aval: AVal, f: (i: number) => number): HostTensor {
  const n = sizeOf(aval.shape);
  const data = allocHost(aval.dtype, n);
  const d = aval.dtype;
  if (d === "bf16" || d === "f16" || d === "i64" || d === "bool") for (let i = 0; i < n; i++) writeElem(d, data, i, f(i));
  else {
    const out = data as Float64Array;
    for (let i = 0; i < n; i++) out[i] = f(i);
  }
  return { aval, data };
}
