// Memory the executor owns, outside the JS heap: tensors live here so that ONNX Runtime reads inputs
// and writes outputs in place, from any thread, while JS sees the bytes only through short-lived views.
import "../native-stacks.js"; // before koffi loads any library
import koffi from "koffi";
import type { Ptr } from "./ort-api.js";

/** MLAS kernels read whole cache lines; 64-byte alignment keeps every tensor on line boundaries. */
const ALIGNMENT = 64;

/** The C library's allocator; `lib` stays referenced so that koffi never unloads it. */
let libc:
  { lib: ReturnType<typeof koffi.load>; alignedAlloc: (align: number, size: number) => Ptr | null; free: (p: Ptr) => void } | undefined;

function c() {
  if (!libc) {
    const lib = koffi.load(process.platform === "darwin" ? "libc.dylib" : "libc.so.6");
    libc = {
      lib,
      alignedAlloc: lib.func("void *aligned_alloc(size_t alignment, size_t size)") as (a: number, s: number) => Ptr | null,
      free: lib.func("void free(void *p)") as (p: Ptr) => void,
    };
  }
  return libc;
}

/** `bytes` bytes of native memory (at least one, so that empty tensors still have an address). */
export function nativeAlloc(bytes: number): Ptr {
  const size = Math.max(ALIGNMENT, Math.ceil(bytes / ALIGNMENT) * ALIGNMENT);
  const p = c().alignedAlloc(ALIGNMENT, size);
  if (!p) throw new Error(`out of memory: could not allocate ${bytes} bytes for a tensor`);
  return p;
}

export function nativeFree(p: Ptr): void {
  c().free(p);
}

/** A byte view of native memory; valid only while the memory is, so callers must not keep it. */
export function nativeBytes(p: Ptr, bytes: number): Uint8Array {
  return bytes === 0 ? new Uint8Array(0) : new Uint8Array(koffi.view(p, bytes));
}

/** NUL-terminated UTF-8 strings in one native block, with a pointer array to pass as `const char**`. */
export function nativeStrings(strings: readonly string[]): { block: Ptr; pointers: BigUint64Array } {
  const enc = strings.map((s) => new TextEncoder().encode(`${s}\0`));
  const total = enc.reduce((n, b) => n + b.length, 0);
  const block = nativeAlloc(total);
  const bytes = nativeBytes(block, total);
  const pointers = new BigUint64Array(strings.length);
  let at = 0;
  enc.forEach((b, i) => {
    bytes.set(b, at);
    pointers[i] = block + BigInt(at);
    at += b.length;
  });
  return { block, pointers };
}
