// PJRT_NamedValue arrays: written for PJRT_Client_Create's options, read from PJRT_Plugin_Attributes.
import { NativeBlock, nativeView, readString, readWords, StructAt } from "./native.js";
import { NamedValueType, S } from "./structs.js";

/** A value for a PJRT_Client_Create option; `{ float }` forces a float for a whole number. */
export type ClientOptionValue = string | boolean | number | bigint | readonly number[] | { readonly float: number };

export type AttributeValue = string | bigint | readonly bigint[] | number | boolean;

/** Options whose value is a float even when written as a whole number. */
const FLOAT_OPTIONS = new Set(["memory_fraction"]);

/**
 * Writes PJRT_NamedValues, and the strings and lists they point to, into native memory; the caller
 * frees `array` and `keep` after the call that reads them.
 */
export function namedValues(options: Readonly<Record<string, ClientOptionValue>>): {
  array: NativeBlock;
  keep: NativeBlock[];
  count: number;
} {
  const entries = Object.entries(options);
  const array = new NativeBlock(S.NamedValue.byteLength * entries.length);
  const keep: NativeBlock[] = [];
  entries.forEach(([name, value], i) => {
    const nv = new StructAt(S.NamedValue, array.view, i * S.NamedValue.byteLength).set("struct_size", S.NamedValue.structSize);
    const nameBytes = NativeBlock.utf8(name);
    keep.push(nameBytes);
    nv.set("name", nameBytes.address).set("name_size", Buffer.byteLength(name)).set("value_size", 1);
    if (typeof value === "string") {
      const s = NativeBlock.utf8(value);
      keep.push(s);
      nv.set("type", NamedValueType.String).set("value", s.address).set("value_size", Buffer.byteLength(value));
    } else if (typeof value === "boolean") {
      nv.set("type", NamedValueType.Bool).set("value", value ? 1 : 0);
    } else if (typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value) && !FLOAT_OPTIONS.has(name))) {
      nv.set("type", NamedValueType.Int64).set("value", BigInt(value));
    } else if (typeof value === "number" || "float" in value) {
      nv.set("type", NamedValueType.Float)
        .set("value", 0)
        .setFloat("value", typeof value === "number" ? value : value.float);
    } else {
      const list = NativeBlock.words(value.map((v) => BigInt(v)));
      keep.push(list);
      nv.set("type", NamedValueType.Int64List).set("value", list.address).set("value_size", value.length);
    }
  });
  return { array, keep, count: entries.length };
}

/** Reads a plugin's PJRT_NamedValue array (each element's struct_size gives the plugin's stride). */
export function readNamedValues(address: bigint, count: number): Map<string, AttributeValue> {
  const out = new Map<string, AttributeValue>();
  let at = address;
  for (let i = 0; i < count; i++) {
    const nv = new StructAt(S.NamedValue, nativeView(at, S.NamedValue.byteLength));
    const name = readString(nv.pointer("name"), nv.size("name_size"));
    const n = nv.size("value_size");
    switch (nv.int("type")) {
      case NamedValueType.String:
        out.set(name, readString(nv.pointer("value"), n));
        break;
      case NamedValueType.Int64:
        out.set(name, BigInt.asIntN(64, nv.pointer("value")));
        break;
      case NamedValueType.Int64List:
        out.set(
          name,
          readWords(nv.pointer("value"), n).map((w) => BigInt.asIntN(64, w)),
        );
        break;
      case NamedValueType.Float:
        out.set(name, nv.float("value"));
        break;
      case NamedValueType.Bool:
        out.set(name, nv.bool("value"));
        break;
    }
    at += BigInt(Math.ceil(nv.size("struct_size") / 8) * 8);
  }
  return out;
}
