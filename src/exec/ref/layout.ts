// Data movement shared by the reference kernels: strided gathers over raw storage (any dtype; bf16/f16
// move as raw bits), so transposes and broadcasts never round.
import type { HostArray } from "../../core/dtype.js";
import type { Shape } from "../../core/shape.js";
import { sizeOf, stridesOf } from "../../core/shape.js";

/**
 * Copies `src` into a new array of shape `outShape`, where output index (i0..ik) reads the source at
 * offset + Σ ij·srcStrides[j] (a stride of 0 broadcasts).
 */
export function stridedCopy(src: HostArray, outShape: Shape, srcStrides: readonly number[], offset = 0): HostArray {
  const n = sizeOf(outShape);
  const out = new (src.constructor as new (n: number) => HostArray)(n);
  const rank = outShape.length;
  if (rank === 0) {
    (out as Float64Array)[0] = (src as Float64Array)[offset]!;
    return out;
  }
  const idx = new Array<number>(rank).fill(0);
  const last = rank - 1,
    lastStride = srcStrides[last]!,
    lastDim = outShape[last]!;
  const o = out as Float64Array,
    s = src as Float64Array;
  let pos = offset,
    k = 0;
  while (k < n) {
    let p = pos;
    for (let j = 0; j < lastDim; j++, p += lastStride) o[k++] = s[p]!;
    // carry into the outer dimensions
    let d = last - 1;
    while (d >= 0) {
      idx[d]!++;
      pos += srcStrides[d]!;
      if (idx[d]! < outShape[d]!) break;
      pos -= srcStrides[d]! * outShape[d]!;
      idx[d] = 0;
      d--;
    }
  }
  return out;
}

export function transposeData(src: HostArray, shape: Shape, perm: readonly number[]): HostArray {
  const st = stridesOf(shape);
  return stridedCopy(
    src,
    perm.map((p) => shape[p]!),
    perm.map((p) => st[p]!),
  );
}
