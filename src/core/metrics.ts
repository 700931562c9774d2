// Counters in the style of torch_xla's metrics report: what was compiled, how often, how long it took,
// how often it ran, and what crossed between host and device. They answer "why is my training slow?".

/** Counters of one compiled function: compiles, their time, cache hits, executions, signatures seen. */
export interface FunctionMetrics {
  readonly name: string;
  compiles: number;
  compileMs: number;
  executions: number;
  /** Wall time from dispatch until the outputs were ready, summed over executions. */
  executeMs: number;
  cacheHits: number;
  /** Every input signature compiled, in order. */
  readonly signatures: string[];
}

const functions: FunctionMetrics[] = [];
const transfers = { toHost: { count: 0, bytes: 0 }, toDevice: { count: 0, bytes: 0 } };
const eagerOps = new Map<string, number>();

export function newFunctionMetrics(name: string): FunctionMetrics {
  const m: FunctionMetrics = { name, compiles: 0, compileMs: 0, executions: 0, executeMs: 0, cacheHits: 0, signatures: [] };
  functions.push(m);
  return m;
}

export function countTransfer(kind: "toHost" | "toDevice", bytes: number): void {
  transfers[kind].count++;
  transfers[kind].bytes += bytes;
}

export function countEagerOp(prim: string): void {
  eagerOps.set(prim, (eagerOps.get(prim) ?? 0) + 1);
}

/** Every counter at one moment: compiled functions, host-device transfers, eager operations. */
export interface MetricsSnapshot {
  functions: FunctionMetrics[];
  transfers: typeof transfers;
  eagerOps: Record<string, number>;
}

/** A copy of the counters so far (see metricsReport for them as text). */
export function metrics(): MetricsSnapshot {
  return {
    functions: functions.map((f) => ({ ...f, signatures: [...f.signatures] })),
    transfers: structuredClone(transfers),
    eagerOps: Object.fromEntries(eagerOps),
  };
}

/** Sets every counter back to zero. */
export function resetMetrics(): void {
  functions.length = 0;
  transfers.toHost = { count: 0, bytes: 0 };
  transfers.toDevice = { count: 0, bytes: 0 };
  eagerOps.clear();
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const mb = (x: number) => `${(x / 1e6).toFixed(2)} MB`;

/** A human-readable report of all counters (torch_xla's `metrics_report()`). */
export function metricsReport(): string {
  const lines = ["Kiln metrics report"];
  for (const f of functions) {
    lines.push(
      `function ${f.name}: compiles ${f.compiles} (${ms(f.compileMs)}), executions ${f.executions} (${ms(f.executeMs)}` +
        `${f.executions ? `, ${ms(f.executeMs / f.executions)} each` : ""}), cache hits ${f.cacheHits}`,
    );
    for (const s of f.signatures) lines.push(`  signature ${s}`);
  }
  lines.push(
    `host transfers: to host ${transfers.toHost.count} (${mb(transfers.toHost.bytes)}), ` +
      `to device ${transfers.toDevice.count} (${mb(transfers.toDevice.bytes)})`,
  );
  const eager = [...eagerOps].sort((a, b) => b[1] - a[1]);
  lines.push(`eager (uncompiled) ops: ${eager.length ? eager.map(([k, v]) => `${k}×${v}`).join(", ") : "none"}`);
  return lines.join("\n");
}
