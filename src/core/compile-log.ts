// The bookkeeping every compiled function shares (jit, replicated execution): compiles, cache hits and
// executions counted in the metrics report, and XLA rule 3 — past a threshold, each new signature
// warns and names the dimensions that keep changing.
import type { DeviceBuffer } from "./executor.js";
import { newFunctionMetrics, type FunctionMetrics } from "./metrics.js";
import { recompileWarning } from "./diagnostics.js";

/** Names the dimensions that differ between signatures, e.g. "input 1 dim 1: 37, 41, 52". */
function changingDims(sigs: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  const n = Math.min(...sigs.map((s) => s.length));
  for (let leaf = 0; leaf < n; leaf++) {
    const shapes = sigs.map((s) => /\[(.*)\]/.exec(s[leaf]!)?.[1]?.split(",") ?? []);
    const rank = shapes[0]!.length;
    if (!shapes.every((s) => s.length === rank)) {
      out.push(`input ${leaf}: rank changes`);
      continue;
    }
    for (let d = 0; d < rank; d++) {
      const vals = [...new Set(shapes.map((s) => s[d]))];
      if (vals.length > 1) out.push(`input ${leaf} dim ${d}: ${vals.join(", ")}`);
    }
  }
  return out;
}

/**
 * KILN_LOG_COMPILES=1 prints a line to stderr as each function starts and ends compiling, as JAX's
 * JAX_LOG_COMPILES does: on an accelerator a compile takes seconds to a minute, and a run that is silent
 * meanwhile cannot be told from a hung one.
 */
export function logCompiles(): boolean {
  const v = process.env.KILN_LOG_COMPILES;
  return v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
}

/** One compiled function's bookkeeping: compiles, cache hits, executions, and warnings about changing shapes. */
export class CompileLog {
  readonly metrics: FunctionMetrics;
  private readonly seen: string[][] = [];

  constructor(
    readonly name: string,
    private readonly warnAfter = 3,
  ) {
    this.metrics = newFunctionMetrics(name);
  }

  hit(): void {
    this.metrics.cacheHits++;
  }

  /** A new signature is about to be traced and compiled (logged under KILN_LOG_COMPILES, see logCompiles). */
  compiling(sig: readonly string[]): void {
    if (logCompiles()) console.error(`kiln: compiling ${this.name} for ${sig.join(", ") || "no inputs"}`);
  }

  /** A new signature (one "f32[32,128]"-style entry per input leaf) was compiled in `ms`. */
  compiled(sig: readonly string[], ms: number): void {
    const m = this.metrics;
    m.compiles++;
    m.compileMs += ms;
    m.signatures.push(sig.join(", "));
    if (logCompiles()) console.error(`kiln: compiled ${this.name} in ${(ms / 1000).toFixed(2)} s`);
    this.seen.push([...sig]);
    if (m.compiles > this.warnAfter)
      process.emitWarning(recompileWarning(this.name, m.compiles, changingDims(this.seen)), { code: "KILN_RECOMPILE" });
  }

  /** An execution started at `started` (performance.now()); its time counts once every output is ready. */
  executed(outputs: readonly DeviceBuffer[], started: number): void {
    this.metrics.executions++;
    void Promise.all(outputs.map((o) => o.ready)).then(
      () => {
        this.metrics.executeMs += performance.now() - started;
      },
      () => {},
    );
  }
}
