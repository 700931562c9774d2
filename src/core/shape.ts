// Static shapes: plain arrays of non-negative integers.

/** An array's dimensions, outermost first. */
export type Shape = readonly number[];

/** The number of elements of an array of `shape`. */
export function sizeOf(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Row-major strides, in elements, of an array of `shape`. */
export function stridesOf(shape: Shape): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/** Whether two shapes have the same dimensions. */
export function shapesEqual(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** A shape as text, e.g. "[2,3]". */
export function fmtShape(shape: Shape): string {
  return `[${shape.join(",")}]`;
}

/** Numpy broadcasting of two shapes; throws a message naming both shapes when they don't broadcast. */
export function broadcastShapes(a: Shape, b: Shape): number[] {
  const n = Math.max(a.length, b.length);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const da = a[a.length - n + i] ?? 1,
      db = b[b.length - n + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) {
      throw new Error(`shapes ${fmtShape(a)} and ${fmtShape(b)} do not broadcast (dimension ${i}: ${da} vs ${db})`);
    }
    out[i] = da === 1 ? db : da;
  }
  return out;
}

/** Normalizes a possibly negative axis against a rank, with a clear error. */
export function normAxis(axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= rank) throw new RangeError(`axis ${axis} is out of range for rank ${rank}`);
  return a;
}

/** `axes` (one, a list, or undefined for all) as sorted non-negative axes of a rank-`rank` array. */
export function normAxes(axes: number | readonly number[] | undefined, rank: number): number[] {
  if (axes === undefined) return Array.from({ length: rank }, (_, i) => i);
  const list = typeof axes === "number" ? [axes] : axes;
  return [...new Set(list.map((a) => normAxis(a, rank)))].sort((x, y) => x - y);
}
