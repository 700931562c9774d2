// The arguments that make an array (a dtype name, a shape, host data), checked where a user passes them:
// `zeros([2], "float32")` is refused with Kiln's name for that dtype instead of failing deep inside an
// executor, and host data of another element type than the dtype asked for is converted (or refused
// with the reason) instead of having its bits reinterpreted.
import { OptionError } from "./option-error.js";
import { DTYPES, dtypeOfHost, fromNumbers, isFloat, isInt, toNumbers, type DType, type HostArray } from "./dtype.js";
import { unknownNameFix } from "./check-options.js";

/** Other libraries' names for Kiln's dtypes (NumPy's, PyTorch's, JAX's). */
const DTYPE_ALIASES: Readonly<Record<string, DType>> = {
  float32: "f32",
  float: "f32",
  float64: "f64",
  double: "f64",
  bfloat16: "bf16",
  float16: "f16",
  half: "f16",
  int32: "i32",
  int: "i32",
  uint32: "u32",
  int64: "i64",
  long: "i64",
  bool: "bool",
  boolean: "bool",
};

/** Refuses anything but one of Kiln's dtype names; `option` is the argument's name ("dtype"). */
export function checkDType(where: string, value: unknown, option = "dtype"): asserts value is DType {
  if (typeof value === "string" && (DTYPES as readonly string[]).includes(value)) return;
  const alias = typeof value === "string" ? DTYPE_ALIASES[value.toLowerCase().replace(/^(torch|np|jnp)\./, "")] : undefined;
  throw new OptionError({
    where,
    option,
    value,
    why: "is not a Kiln dtype",
    fix: alias
      ? `Kiln calls it "${alias}": pass "${alias}" (the dtypes are ${DTYPES.join(", ")})`
      : typeof value === "string"
        ? unknownNameFix(value, DTYPES, "dtypes")
        : `Pass one of ${DTYPES.map((d) => JSON.stringify(d)).join(", ")}`,
  });
}

/** Refuses a shape that is not a list of non-negative integers. */
export function checkShape(where: string, value: unknown, option = "shape"): asserts value is readonly number[] {
  const ok = Array.isArray(value) && value.every((d) => typeof d === "number" && Number.isSafeInteger(d) && d >= 0);
  if (ok) return;
  throw new OptionError({
    where,
    option,
    value,
    why: "is not a shape (a list of non-negative integers)",
    fix:
      typeof value === "number"
        ? `Pass the shape as a list: [${value}]`
        : `Pass a list of sizes, one per dimension, e.g. [2, 3]; [] is a scalar`,
  });
}

const TYPED_ARRAY_OF: Readonly<Record<DType, string>> = {
  f32: "Float32Array",
  f64: "Float64Array",
  bf16: "Uint16Array (of bf16 bit patterns)",
  f16: "Uint16Array (of f16 bit patterns)",
  i32: "Int32Array",
  u32: "Uint32Array",
  bool: "Uint8Array",
  i64: "BigInt64Array",
};

/** The typed arrays Kiln reads host data from (HostArray). */
const HOST_ARRAYS = [Float32Array, Float64Array, Int32Array, Uint32Array, Uint16Array, Uint8Array, BigInt64Array] as const;

/** `data` as one of HOST_ARRAYS, or an OptionError with `fix`. */
function checkHostArray(where: string, data: unknown, fix: string): HostArray {
  if (!HOST_ARRAYS.some((c) => data instanceof c))
    throw new OptionError({ where, option: "data", value: data, why: "is not host data Kiln reads", fix });
  return data as HostArray;
}

/**
 * Host data as `dtype` stores it: the same array when its element type is `dtype`'s; converted, value by
 * value, when it is another element type that holds the values exactly (integers into floats, or floats
 * that are whole numbers into integers); refused otherwise, with the reason.
 */
export function hostDataAs(where: string, data: unknown, dtype: DType): HostArray {
  const host = checkHostArray(
    where,
    data,
    `Pass a ${TYPED_ARRAY_OF[dtype]} for dtype ${dtype}, or use k.array(values, { dtype: "${dtype}" }) for JS numbers`,
  );
  if (host instanceof Uint16Array) {
    if (dtype === "bf16" || dtype === "f16") return host;
    throw new OptionError({
      where,
      option: "data",
      value: data,
      why: `holds 16-bit float bit patterns (bf16 or f16), which dtype ${dtype} cannot read as values`,
      fix: `Pass a ${TYPED_ARRAY_OF[dtype]}, or give dtype "bf16" or "f16" and convert with .astype("${dtype}")`,
    });
  }
  const source = dtypeOfHost(host);
  if (source === dtype) return host;
  if (dtype === "bf16" || dtype === "f16" || isFloat(dtype) || dtype === "bool") return fromNumbers(dtype, toNumbers(source, host));
  // Into an integer dtype: only values it holds exactly.
  const values = toNumbers(source, host);
  const [lo, hi] = dtype === "i32" ? [-(2 ** 31), 2 ** 31 - 1] : dtype === "u32" ? [0, 2 ** 32 - 1] : [-(2 ** 63), 2 ** 63];
  const bad = values.findIndex((v) => !Number.isInteger(v) || v < lo || v > hi);
  if (bad >= 0)
    throw new OptionError({
      where,
      option: "data",
      value: data,
      why: `holds ${values[bad]} at index ${bad}, which dtype ${dtype} cannot hold exactly`,
      fix: isInt(source)
        ? `Pass values in ${dtype}'s range, or a wider dtype`
        : `Round the values first (Math.round) or keep a float dtype ("${source}")`,
    });
  return fromNumbers(dtype, values);
}

/** The dtype host data is stored as when no dtype is given (a Uint16Array needs one: bf16 or f16). */
export function hostDType(where: string, data: unknown): DType {
  const host = checkHostArray(
    where,
    data,
    "Pass a Float32Array, Float64Array, Int32Array, Uint32Array, Uint8Array (bool) or BigInt64Array, or use k.array for JS numbers",
  );
  if (host instanceof Uint16Array)
    throw new OptionError({
      where,
      option: "dtype",
      value: undefined,
      why: "must be given for a Uint16Array, which holds bf16 or f16 bit patterns",
      fix: 'Pass dtype "bf16" or "f16"',
    });
  return dtypeOfHost(host);
}
