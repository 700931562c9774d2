// The three XLA rules as errors and warnings that name the rule, say what to do instead, and point at
// the user's line (the first stack frame outside Kiln's own sources).
import { fileURLToPath } from "node:url";
import { dirname } from "node:path";

// This file lives in <pkg>/dist/src/core (or <pkg>/src/core under a TS runner): frames below <pkg>/.../src are Kiln's.
const KILN_SRC = dirname(dirname(fileURLToPath(import.meta.url)));

/** "file:line:col" of the first frame outside Kiln's sources, or undefined. */
function userFrame(): string | undefined {
  const stack = new Error().stack?.split("\n").slice(1) ?? [];
  for (const line of stack) {
    const m = /\((.*):(\d+):(\d+)\)$/.exec(line) ?? /at (.*):(\d+):(\d+)$/.exec(line);
    if (!m) continue;
    const file = m[1]!.startsWith("file://") ? fileURLToPath(m[1]!) : m[1]!;
    if (file.startsWith(KILN_SRC) || file.startsWith("node:") || !file.includes("/")) continue;
    return `${file}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

function where(): string {
  const f = userFrame();
  return f ? `\n  at ${f}` : "";
}

/** Rule 1: a traced value has no value until the compiled program runs. */
export class TracerReadError extends Error {
  constructor(what: string, aval: string) {
    super(
      `cannot read a traced value: ${what} on ${aval} inside a compiled (jit/grad-traced) function.${where()}\n` +
        "XLA rule 1 — no data-dependent control flow: the value does not exist while the function is traced.\n" +
        "Remedies: pick between both results with where(cond, a, b); branch with cond(pred, trueFn, falseFn);\n" +
        "or use the indicator-variable trick — turn the condition into a 0/1 number and multiply: x.mul(cond.astype('f32')).\n" +
        "To read a result, return it from the jitted function and read it outside (await y.data()).",
    );
    this.name = "TracerReadError";
  }
}

/** Rule 2: shapes must be known when tracing, so results whose shape depends on data are impossible. */
export class DataDependentShapeError extends Error {
  constructor(api: string) {
    super(
      `${api} would give an array whose shape depends on the data, which a compiled program cannot have.${where()}\n` +
        "XLA rule 2 — no data-dependent shapes. Remedy: keep the full shape and multiply by the mask instead of\n" +
        "selecting with it, then divide by the mask's sum for means:\n" +
        "  const m = labels.notEqual(-100).astype('f32');   // 1 where the element counts\n" +
        "  const loss = perToken.mul(m).sum().div(m.sum());\n" +
        "Or give a static size: nonzero(mask, { size: N, fillValue })",
    );
    this.name = "DataDependentShapeError";
  }
}

/** A tracer used after the function that created it returned. */
export class EscapedTracerError extends Error {
  constructor(aval: string) {
    super(
      `a traced value (${aval}) was used after the traced function returned (it escaped, e.g. through a closure or a global).${where()}\n` +
        "Return values from the jitted/differentiated function instead of storing them outside it.",
    );
    this.name = "EscapedTracerError";
  }
}

/** Rule 3's warning text: new input signatures recompile; names the changing dimensions. */
export function recompileWarning(fnName: string, compiles: number, changing: string[]): string {
  return (
    `kiln: ${fnName} has been compiled ${compiles} times (XLA rule 3 — every new input signature is a recompile).${where()}\n` +
    (changing.length ? `  Changing: ${changing.join("; ")}\n` : "") +
    "  Remedy: pad inputs to a fixed length, or to a multiple of 32 or 64, so the shapes repeat."
  );
}
