// The native caller of PJRT key-value callbacks (test/exec/xla/native/kv-caller.c), compiled with the
// machine's C compiler into a temporary directory and loaded through koffi. It calls the callbacks from
// threads of its own while the calling JS thread waits in one synchronous native call, as a plugin does
// inside PJRT_Client_Create.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import koffi from "koffi";
import { repoRoot } from "./repo-paths.js";
import { tempDir } from "./temp-dir.js";

export const KV_CALLER_SOURCE = join(repoRoot(), "test", "exec", "xla", "native", "kv-caller.c");

/** Compiles kv-caller.c into a shared library and returns its path (throws with the compiler's output). */
export function buildKvCaller(): string {
  const out = join(tempDir("kiln-kv-caller-"), "kv-caller.so");
  const r = spawnSync("cc", ["-O1", "-Wall", "-shared", "-fPIC", "-pthread", "-o", out, KV_CALLER_SOURCE], { encoding: "utf8" });
  if (r.error || r.status !== 0)
    throw new Error(`cannot compile ${KV_CALLER_SOURCE} with cc (a C compiler, e.g. Debian's gcc): ${r.error?.message ?? r.stderr}`);
  return out;
}

export const KvOp = { get: 0, tryGet: 1, put: 2 } as const;

export interface KvCaller {
  /** One call on a new native thread: its PJRT error code (0: ok), the value or the error message, its duration. */
  call(op: number, fn: bigint, key: string, value?: Uint8Array, timeoutMs?: number): { code: number; result: Buffer; ms: number };
  /** The same call made on the calling (JS) thread itself, inside the synchronous native call. */
  callHere(op: number, fn: bigint, key: string, value?: Uint8Array, timeoutMs?: number): { code: number; result: Buffer; ms: number };
  /** A get on one thread while another puts the key `putDelayMs` later: the get's code and how long it waited. */
  getWhilePut(get: bigint, put: bigint, key: string, timeoutMs: number, putDelayMs: number): { code: number; ms: number };
  /** XLA's GPU topology exchange for two nodes; `callbacks` = node 0's get, tryGet, put, then node 1's. */
  exchangeTopologies(callbacks: readonly bigint[]): number;
}

export function loadKvCaller(path: string): KvCaller {
  const lib = koffi.load(path);
  const signature = (name: string) =>
    `int ${name}(int op, void *fn, const char *key, const uint8_t *value, size_t value_size, int timeout_ms, ` +
    "_Out_ uint8_t *result, _Out_ size_t *result_size, _Out_ double *elapsed_ms)";
  const call = lib.func(signature("kiln_kv_call"));
  const callHere = lib.func(signature("kiln_kv_call_here"));
  const wrap =
    (f: typeof call) =>
    (op: number, fn: bigint, key: string, value = new Uint8Array(0), timeoutMs = 0) => {
      const result = Buffer.alloc(1000),
        size = [0],
        ms = [0];
      const code = f(op, fn, key, value, value.length, timeoutMs, result, size, ms) as number;
      return { code, result: result.subarray(0, Number(size[0])), ms: ms[0]! };
    };
  const getWhilePut = lib.func(
    "int kiln_kv_get_while_put(void *get, void *put, const char *key, int timeout_ms, int put_delay_ms, _Out_ double *elapsed)",
  );
  const exchange = lib.func("int kiln_kv_exchange_topologies(const uint64_t *callbacks)");
  return {
    call: wrap(call),
    callHere: wrap(callHere),
    getWhilePut(get, put, key, timeoutMs, putDelayMs) {
      const ms = [0];
      const code = getWhilePut(get, put, key, timeoutMs, putDelayMs, ms) as number;
      return { code, ms: ms[0]! };
    },
    exchangeTopologies(callbacks) {
      return exchange(BigUint64Array.from(callbacks)) as number;
    },
  };
}
