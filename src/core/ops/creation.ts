// Making arrays: from JS data, constants, ranges. Under a trace these are staged (a scalar constant
// broadcast in the program), so they cost nothing at trace time whatever their size.
import { Array, type ArrayOrScalar } from "../array.js";
import type { DType, DTypeOfHost, HostArray } from "../dtype.js";
import { fromNumbers } from "../dtype.js";
import type { Device } from "../executor.js";
import type { Shape } from "../shape.js";
import { sizeOf } from "../shape.js";
import { getDefaultDevice } from "../devices.js";
import { countTransfer } from "../metrics.js";
import { bind } from "./dispatch.js";
import { OptionError } from "../option-error.js";
import { checkInteger, checkOptions } from "../check-options.js";
import { checkDType, checkShape, hostDataAs, hostDType } from "../check-array-args.js";

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

/**
 * Host data → a concrete array on a device (default: the default device). Data of another element type
 * than `dtype` is converted when `dtype` holds its values exactly (an Int32Array into f32), and refused
 * otherwise (1.5 into i32); a Uint16Array is read as bf16 or f16 bit patterns.
 */
export function fromHost<H extends HostArray>(data: H, shape: readonly number[], dtype?: undefined, device?: Device): Array<DTypeOfHost<H>>;
export function fromHost<D extends DType>(data: HostArray, shape: readonly number[], dtype: D, device?: Device): Array<D>;
export function fromHost(data: HostArray, shape: readonly number[], dtype?: DType, device?: Device): Array;
export function fromHost(data: HostArray, shape: readonly number[], dtype?: DType, device?: Device): Array {
  return fromHostAt("fromHost", data, shape, dtype, device);
}

function fromHostAt(where: string, data: unknown, shape: unknown, dtype: unknown, device: Device | undefined): Array {
  checkShape(where, shape);
  if (dtype !== undefined) checkDType(where, dtype);
  const d = dtype ?? hostDType(where, data);
  const host = hostDataAs(where, data, d);
  if (sizeOf(shape) !== host.length)
    throw new OptionError({
      where,
      option: "shape",
      value: shape,
      why: `needs ${sizeOf(shape)} elements but the data has ${host.length}`,
      fix: `Pass a shape whose sizes multiply to ${host.length} (e.g. [${host.length}]), or data of ${sizeOf(shape)} elements`,
    });
  const dev = device ?? getDefaultDevice();
  countTransfer("toDevice", host.byteLength);
  return Array.fromBuffer(dev.executor.fromHost(host, { shape: [...shape], dtype: d }, dev));
}

/**
 * An array from nested JS arrays, a flat list of numbers or a typed array.
 * `array([[1, 2], [3, 4]])` is f32[2,2]; `array(new Int32Array(6), { shape: [2, 3] })` is i32[2,3].
 */
export function array<D extends DType>(values: unknown, opts: ArrayOptions & { dtype: D }): Array<D>;
export function array<H extends HostArray>(values: H, opts?: Omit<ArrayOptions, "dtype">): Array<DTypeOfHost<H>>;
export function array(values: unknown, opts?: ArrayOptions): Array;
export function array(values: unknown, opts: ArrayOptions = {}): Array {
  checkOptions("array", opts, ["dtype", "shape", "device"]);
  if (opts.dtype !== undefined) checkDType("array", opts.dtype);
  if (ArrayBuffer.isView(values) && !(values instanceof DataView)) {
    // A Uint16Array holds bf16 or f16 bit patterns as they are; other typed arrays convert if needed.
    return fromHostAt("array", values, opts.shape ?? [(values as HostArray).length], opts.dtype, opts.device);
  }
  const shape = opts.shape ?? inferShape(values);
  const flat = globalThis.Array.isArray(values) ? (values.flat(Infinity) as unknown[]) : [values];
  const bad = flat.findIndex((v) => typeof v !== "number" && typeof v !== "boolean");
  if (bad >= 0)
    throw new OptionError({
      where: "array",
      option: `values[${bad}]`,
      value: flat[bad],
      why: "is not a number or a boolean",
      fix:
        typeof flat[bad] === "string"
          ? "Convert the strings to numbers first (Number(s))"
          : "Pass numbers, booleans, nested lists of them or a typed array",
    });
  const dtype = opts.dtype ?? (flat.every((v) => typeof v === "boolean") && flat.length ? "bool" : "f32");
  return fromHostAt("array", fromNumbers(dtype, flat.map(Number)), shape, dtype, opts.device);
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
export function scalar(value: boolean): Array<"bool">;
export function scalar(value: number): Array<"f32">;
export function scalar<D extends DType>(value: number | boolean, dtype: D): Array<D>;
export function scalar(value: number | boolean, dtype: DType = typeof value === "boolean" ? "bool" : "f32"): Array {
  return full([], value, dtype);
}

/** An array of `shape` filled with `value`, of `dtype` (default f32). */
export function full<D extends DType = "f32">(shape: Shape, value: number | boolean, dtype?: D): Array<D>;
export function full(shape: Shape, value: number | boolean, dtype: DType = "f32"): Array {
  return fullAt("full", shape, value, dtype);
}

function fullAt(where: string, shape: unknown, value: unknown, dtype: unknown): Array {
  checkShape(where, shape);
  checkDType(where, dtype);
  if (typeof value !== "number" && typeof value !== "boolean")
    throw new OptionError({ where, option: "value", value, why: "is not a number or a boolean", fix: "Pass the fill value as a number" });
  return bind("broadcast_in_dim", [literal(value, dtype, false)], { shape: [...shape], dims: [] });
}

/** An array of `shape` filled with 0. */
export const zeros = <D extends DType = "f32">(shape: Shape, dtype: D = "f32" as D): Array<D> =>
  fullAt("zeros", shape, 0, dtype) as Array<D>;
/** An array of `shape` filled with 1. */
export const ones = <D extends DType = "f32">(shape: Shape, dtype: D = "f32" as D): Array<D> => fullAt("ones", shape, 1, dtype) as Array<D>;
/** Zeros of `x`'s shape and dtype. */
export const zerosLike = <D extends DType>(x: Array<D>): Array<D> => full(x.shape, 0, x.dtype);
/** Ones of `x`'s shape and dtype. */
export const onesLike = <D extends DType>(x: Array<D>): Array<D> => full(x.shape, 1, x.dtype);

/** Counts along `dim` of `shape` (StableHLO iota). */
export function iota<D extends DType = "i32">(shape: Shape, dim?: number, dtype?: D): Array<D>;
export function iota(shape: Shape, dim = 0, dtype: DType = "i32"): Array {
  checkShape("iota", shape);
  checkDType("iota", dtype);
  return bind("iota", [], { shape: [...shape], dim, dtype });
}

/** 0, 1, …, n-1. */
export function arange<D extends DType = "i32">(n: number, dtype?: D): Array<D>;
export function arange(n: number, dtype: DType = "i32"): Array {
  checkInteger("arange", "n", n);
  checkDType("arange", dtype);
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
