// Flush-to-zero and denormals-are-zero for ONNX Runtime's computing threads. An x86 core takes a microcode
// assist for every operation that makes or reads a denormal (a float below 2^-126), tens of times the
// operation's cost. A causal mask makes denormals in every training step: its masked scores
// (MASKED_SCORE) put the softmax's exponential at the bottom of its range, where MLAS's exp writes
// denormals for half the scores, and the softmax then scales them to zero. ONNX Runtime's softmax over
// llama-small's masked [32, 2, 128, 2, 128] scores took 6.6–7.5 ms with denormals, 0.4–0.8 ms flushed.
// Values below 2^-126 become zero, as in XLA's and TensorFlow's CPU thread pools.
//
// Three kinds of thread compute a run: the env's shared pool (SetGlobalDenormalAsZero), a session's own
// pool (its "session.set_denormal_as_zero" entry), and the thread that calls Run, which computes a share
// of every kernel and which only flushDenormalsOnThisThread covers. ONNX Runtime also applies the first
// session's entry to the thread that creates it, once per process; Kiln creates sessions on its JS
// thread, whose arithmetic must stay IEEE, so keepingFloatEnvironment puts that thread's state back.
import "../native-stacks.js"; // before koffi loads any library
import koffi from "koffi";

/**
 * Whether ONNX Runtime's threads flush denormals: on x86-64 Linux, where denormals are slow and the
 * floating-point environment's layout is known. ARM cores handle denormals at full speed.
 */
export const FLUSH_DENORMALS = process.platform === "linux" && process.arch === "x64";

/** glibc's x86-64 fenv_t: the x87 environment (28 bytes), then MXCSR. */
const FENV_BYTES = 32,
  MXCSR_OFFSET = 28;
/** MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6) bits. */
const MXCSR_FTZ_DAZ = 0x8040;

/** libm's fegetenv and fesetenv, loaded on first use. */
interface Fenv {
  get(env: Buffer): number;
  set(env: Buffer): number;
}
let loaded: Fenv | undefined;
function fenv(): Fenv {
  if (loaded) return loaded;
  const lib = koffi.load("libm.so.6");
  return (loaded = {
    get: lib.func("int fegetenv(void *env)") as Fenv["get"],
    set: lib.func("int fesetenv(const void *env)") as Fenv["set"],
  });
}

/** A copy of the calling thread's floating-point environment (glibc's fenv_t). */
function readEnvironment(): Buffer {
  const env = Buffer.alloc(FENV_BYTES);
  if (fenv().get(env) !== 0) throw new Error("fegetenv failed: cannot read this thread's floating-point environment");
  return env;
}

/** Makes `env` the calling thread's floating-point environment. */
function writeEnvironment(env: Buffer): void {
  if (fenv().set(env) !== 0) throw new Error("fesetenv failed: cannot set this thread's floating-point environment");
}

/** Sets flush-to-zero and denormals-are-zero on the calling thread where FLUSH_DENORMALS holds. */
export function flushDenormalsOnThisThread(): void {
  if (!FLUSH_DENORMALS) return;
  const env = readEnvironment();
  env.writeUInt32LE((env.readUInt32LE(MXCSR_OFFSET) | MXCSR_FTZ_DAZ) >>> 0, MXCSR_OFFSET);
  writeEnvironment(env);
}

/** Whether the calling thread flushes denormals (MXCSR's bits; false where FLUSH_DENORMALS does not hold). */
export function flushesDenormalsOnThisThread(): boolean {
  return FLUSH_DENORMALS && (readEnvironment().readUInt32LE(MXCSR_OFFSET) & MXCSR_FTZ_DAZ) === MXCSR_FTZ_DAZ;
}

/** Runs `fn` and puts the calling thread's floating-point environment back as it was, whatever `fn` set. */
export function keepingFloatEnvironment<T>(fn: () => T): T {
  if (!FLUSH_DENORMALS) return fn();
  const saved = readEnvironment();
  try {
    return fn();
  } finally {
    writeEnvironment(saved);
  }
}
