// Gradient checking against central finite differences in f64 on the reference interpreter.
import assert from "node:assert/strict";
import * as k from "../../src/index.js";

/**
 * Checks grad(f) at `args` (f64 arrays) against central differences of f, for every input element
 * of every argument. f must return a scalar.
 */
export function checkGrad(name: string, f: (...xs: k.Array[]) => k.Array, args: k.Array[], opts: { h?: number; tol?: number } = {}): void {
  const H = opts.h ?? 1e-6,
    tol = opts.tol ?? 1e-6;
  const argnums = args.map((_, i) => i);
  const fj = k.jit(f, { name: `${name}_f` });
  const gj = k.jit(k.grad(f, { argnums }), { name: `${name}_grad` });
  const analytic = (gj(...args) as unknown as k.Array[]).map((g) => g.dataSync() as Float64Array);
  args.forEach((x, ai) => {
    const base = Float64Array.from(x.dataSync() as Float64Array);
    for (let i = 0; i < base.length; i++) {
      const at = (delta: number) => {
        const d = Float64Array.from(base);
        d[i]! += delta;
        const xs = args.slice();
        xs[ai] = k.array(d, { shape: [...x.shape], dtype: "f64" });
        return fj(...xs).item();
      };
      const numeric = (at(H) - at(-H)) / (2 * H);
      const got = analytic[ai]![i]!;
      const err = Math.abs(got - numeric) / Math.max(1, Math.abs(numeric));
      assert.ok(err < tol, `${name}: d/d arg${ai}[${i}] analytic ${got} vs numeric ${numeric} (rel err ${err.toExponential(2)})`);
    }
  });
}

/** Turns an array-valued f into a scalar one by a fixed random weighting, so every output element's cotangent matters. */
export function weighted(
  f: (...xs: k.Array[]) => k.Array,
  outShape: readonly number[],
  weights: Float64Array,
): (...xs: k.Array[]) => k.Array {
  const w = k.array(weights, { shape: [...outShape], dtype: "f64" });
  return (...xs) =>
    f(...xs)
      .mul(w)
      .sum();
}
