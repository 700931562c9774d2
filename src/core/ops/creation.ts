// Making arrays: from JS data, constants, ranges. Under a trace these are staged (a scalar constant
// broadcast in the program), so they cost nothing at trace time whatever their size.
import { Array, type ArrayOrScalar } from "../array.js";
import type { DType, HostArray } from "../dtype.js";
import { dtypeOfHost, fromNumbers } from "../dtype.js";
import type { Device } from "../executor.js";
import type { Shape } from "../shape.js";
import { fmtShape, sizeOf } from "../shape.js";
import { getDefaultDevice } from "../devices.js";
import { countTransfer } from "../metrics.js";
import { bind } from "./dispatch.js";

/** Options of array: its dtype, shape and device. */
export interface ArrayOptions {
  dtype?: DType;
  shape?: readonly number[];
  device?: Device;
}

function inferShape(x: unknown): number[] {
  const shape: number[] = [];
  let cur = x;
  while (globalThis.Array.isArray(cur)) {
    shape.push(cur.length);
    cur = cur[0];
  }
  return shape;
}

/** Host data → a concrete array on a device (default: the default device). */
export function fromHost(data: HostArray, shape: readonly number[], dtype?: DType, device?: Device): Array {
  const d = dtype ?? dtypeOfHost(data);
  if (sizeOf(shape) !== data.length)
    throw new Error(`host data has ${data.length} elements but shape ${fmtShape(shape)} needs ${sizeOf(shape)}`);
  const dev = device ?? getDefaultDevice();
  countTransfer("toDevice", data.byteLength);
  return Array.fromBuffer(dev.executor.fromHost(data, { shape: [...shape], dtype: d }, dev));
}

/**
 * An array from nested JS arrays, a flat list of numbers or a typed array.
 * `array([[1, 2], [3, 4]])` is f32[2,2]; `array(new Int32Array(6), { shape: [2, 3] })` is i32[2,3].
 */
export function array(values: unknown, opts: ArrayOptions = {}): Array {
  if (ArrayBuffer.isView(values) && !(values instanceof DataView)) {
    const host = values as HostArray;
    const dtype = opts.dtype ?? dtypeOfHost(host);
    // A Uint16Array holds bf16 or f16 bit patterns as they are; other typed arrays convert if needed.
    const raw = host instanceof Uint16Array && (dtype === "bf16" || dtype === "f16");
    const data = raw || dtype === dtypeOfHost(host) ? host : fromNumbers(dtype, host as unknown as ArrayLike<number>);
    return fromHost(data, opts.shape ?? [host.length], dtype, opts.device);
  }
  const shape = opts.shape ?? inferShape(values);
  const flat = globalThis.Array.isArray(values) ? (values.flat(Infinity) as number[]) : [values as number];
  const dtype = opts.dtype ?? (flat.every((v) => typeof v === "boolean") && flat.length ? "bool" : "f32");
  return fromHost(fromNumbers(dtype, flat.map(Number)), shape, dtype, opts.device);
}

const literalCache = new Map<string, Array>();

/**
 * The shared 0-d array for a literal (cached: in a traced program each literal is one constant). Never
 * handed to users, who could donate or dispose it.
 */
function literal(value: number | boolean, dtype: DType, weak: boolean): Array {
  const dev = getDefaultDevice();
  // Object.is tells -0 from 0: they are different constants (x·-0 is -0 where x·0 is 0 for negative x).
  const v = Number(value);
  const key = `${dev.executor.name}:${dev.id}|${dtype}|${Object.is(v, -0) ? "-0" : v}|${weak}`;
  let s = literalCache.get(key);
  if (!s) {
    const host = fromNumbers(dtype, [Number(value)]);
    s = Array.fromBuffer(dev.executor.fromHost(host, { shape: [], dtype }, dev), weak);
    literalCache.set(key, s);
  }
  return s;
}

/** A 0-d array of the given dtype (default f32, or bool for booleans). */
export function scalar(value: number | boolean, dtype: DType = typeof value === "boolean" ? "bool" : "f32"): Array {
  return full([], value, dtype);
}

/** An array of `shape` with every element `value`. */
export function full(shape: Shape, value: number | boolean, dtype: DType = "f32"): Array {
  return bind("broadcast_in_dim", [literal(value, dtype, false)], { shape: [...shape], dims: [] });
}

/** An array of `shape` filled with 0. */
export const zeros = (shape: Shape, dtype: DType = "f32") => full(shape, 0, dtype);
/** An array of `shape` filled with 1. */
export const ones = (shape: Shape, dtype: DType = "f32") => full(shape, 1, dtype);
/** Zeros of `x`'s shape and dtype. */
export const zerosLike = (x: Array) => full(x.shape, 0, x.dtype);
/** Ones of `x`'s shape and dtype. */
export const onesLike = (x: Array) => full(x.shape, 1, x.dtype);

/** Counts along `dim` of `shape` (StableHLO iota). */
export function iota(shape: Shape, dim = 0, dtype: DType = "i32"): Array {
  return bind("iota", [], { shape: [...shape], dim, dtype });
}

/** 0, 1, …, n-1. */
export function arange(n: number, dtype: DType = "i32"): Array {
  return iota([n], 0, dtype);
}

/** A JS scalar as an array, or the array itself. */
export function asArray(x: ArrayOrScalar, dtype?: DType): Array {
  if (x instanceof Array) return x;
  return weakScalar(x, dtype ?? (typeof x === "boolean" ? "bool" : "f32"));
}

/** A JS number as a weakly typed literal of `dtype` (it adopts the other operand's dtype in arithmetic). */
export function weakScalar(x: number | boolean, dtype: DType): Array {
  return literal(x, dtype, true);
}
