// Why a CPU client keeps the memory its programs free. XLA:CPU takes each run's working memory from
// malloc as one block, the buffer assignment's preallocated temp (759 MB for llama-small's f32 training
// step). glibc serves a block that large with a fresh mmap and unmaps it again on free, so the kernel
// zeroes every page of it on first touch, every step: 17% of that step's samples were clear_page_erms on
// an Intel Xeon. Kiln keeps freed memory in the heap instead, as PyTorch's and JAX's device allocators
// keep theirs:
// - glibc's M_MMAP_MAX = 0: large blocks come from the heap, not from mmap;
// - M_TRIM_THRESHOLD = -1: the heap's free top is not handed back to the kernel.
// Only the main arena can hold such a block: glibc gives every other thread 64 MB heaps, and a larger
// request there is an mmap whatever the settings. So the client also runs each program on the thread
// that calls Execute (the PJRT create option `asynchronous` = false, which jaxlib 0.11's CPU plugin
// reads), and the block is allocated there. On that Xeon llama-small's f32 step went from 4,805-4,926 to
// 5,309-5,429 tokens/s, with the same peak memory (1.43-1.50 GB).
import "../native-stacks.js"; // before koffi loads any library
import koffi from "koffi";

/** The environment variable that turns the reuse off (0) or on (1) over the default (on). */
export const CPU_MEMORY_REUSE_ENV = "KILN_XLA_CPU_REUSE_MEMORY";

/** PJRT_Client_Create options of a CPU client that reuses memory: programs run on the caller's thread. */
export const REUSING_CPU_CLIENT_OPTIONS = { asynchronous: false } as const;

// mallopt's parameters (glibc's malloc.h).
const M_TRIM_THRESHOLD = -1,
  M_MMAP_MAX = -4;

/** Whether CPU clients reuse memory: KILN_XLA_CPU_REUSE_MEMORY when set (0 or 1, refused otherwise), else yes. */
export function cpuMemoryReuse(env: NodeJS.ProcessEnv = process.env): boolean {
  const named = env[CPU_MEMORY_REUSE_ENV]?.trim().toLowerCase();
  if (!named) return true;
  if (named === "1" || named === "true") return true;
  if (named === "0" || named === "false") return false;
  throw new Error(`${CPU_MEMORY_REUSE_ENV} must be 1 or 0, got "${env[CPU_MEMORY_REUSE_ENV]}"`);
}

/** The C library's malloc is glibc's (Linux with glibc: not musl, not macOS). */
function hasGlibc(): boolean {
  if (process.platform !== "linux") return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return typeof header?.glibcVersionRuntime === "string";
}

let kept: boolean | undefined;

/**
 * Makes glibc keep freed memory for the process's later allocations (above), once per process. Returns
 * whether it did: false where the C library is not glibc, whose allocator then stays as it was.
 */
export function keepFreedHostMemory(): boolean {
  if (kept !== undefined) return kept;
  kept = false;
  if (!hasGlibc()) return kept;
  const mallopt = koffi.load("libc.so.6").func("int mallopt(int param, int value)") as (param: number, value: number) => number;
  // mallopt returns 1 when it took the value.
  kept = mallopt(M_MMAP_MAX, 0) === 1 && mallopt(M_TRIM_THRESHOLD, -1) === 1;
  return kept;
}
