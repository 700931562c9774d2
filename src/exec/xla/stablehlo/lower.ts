// Lowers a Kiln program to a StableHLO module (MLIR text) that PJRT plugins compile:
//   module @name attributes {mhlo.num_replicas = N : i32, mhlo.num_partitions = 1 : i32} {
//     func.func public @main(%arg0: tensor<...> {tf.aliasing_output = 0 : i32}, ...) -> (...) { ... }
//   }
// Inputs become @main's arguments in order, consts become constants, outputs the returned values.
import type { Prim, PrimParams, Program, Var } from "../../../core/ir.js";
import { lowerScan, type ScanRule } from "./rules/scan.js";
import { FunctionEmitter, type Value } from "./emitter.js";
import { denseLiteral } from "./literals.js";
import { tensorType } from "./types.js";
import type { LoweringContext, LoweringRule, LoweringTable } from "./rules/rule.js";
import { ELEMENTWISE_LOWERINGS } from "./rules/elementwise.js";
import { CONVERT_LOWERINGS } from "./rules/convert.js";
import { LAYOUT_LOWERINGS } from "./rules/layout.js";
import { REDUCE_LOWERINGS } from "./rules/reduce.js";
import { INDEXING_LOWERINGS } from "./rules/indexing.js";
import { COLLECTIVE_LOWERINGS } from "./rules/collective.js";
import { CROSS_ENTROPY_LOWERINGS } from "./rules/cross-entropy.js";
import { SOFTMAX_LOWERINGS } from "./rules/softmax.js";
import { GELU_LOWERINGS } from "./rules/gelu.js";

/** One rule per primitive: the compiler refuses this table if a primitive is missing. */
export const STABLEHLO_LOWERINGS: LoweringTable<Exclude<Prim, "scan">> & { scan: ScanRule } = {
  ...ELEMENTWISE_LOWERINGS,
  ...CONVERT_LOWERINGS,
  ...LAYOUT_LOWERINGS,
  ...REDUCE_LOWERINGS,
  ...INDEXING_LOWERINGS,
  ...COLLECTIVE_LOWERINGS,
  ...CROSS_ENTROPY_LOWERINGS,
  ...SOFTMAX_LOWERINGS,
  ...GELU_LOWERINGS,
  scan: lowerScan,
};

/** Lowers a program's equations on `ins` (its inputs, then its constants' values are emitted) and returns its outputs. */
function lowerBody(cx: LoweringContext, program: Program, ins: readonly Value[], env = new Map<number, Value>()): Value[] {
  const read = (v: Var): Value => {
    const x = env.get(v.id);
    if (!x) throw new Error(`${program.name}: %${v.id} is used before it is defined`);
    return x;
  };
  program.inputs.forEach((v, i) => env.set(v.id, ins[i]!));
  for (const c of program.consts) env.set(c.v.id, cx.emit.constant(c.v.aval, denseLiteral(c.v.aval, c.value)));
  for (const e of program.eqns) {
    if (e.outs) {
      const results = STABLEHLO_LOWERINGS.scan(
        cx,
        e.inputs.map(read),
        e.params as PrimParams["scan"],
        e.outs.map((o) => o.aval),
        (c, p, i) => lowerBody(c, p, i),
      );
      e.outs.forEach((o, j) => env.set(o.id, results[j]!));
      continue;
    }
    const rule = STABLEHLO_LOWERINGS[e.prim as Exclude<Prim, "scan">] as LoweringRule<Prim>;
    env.set(e.out.id, rule(cx, e.inputs.map(read), e.params, e.out.aval));
  }
  return program.outputs.map(read);
}

/** Options of lowerToStableHlo: replicas and buffer donation. */
export interface LowerOptions {
  /** Replicas the module runs on (default 1). */
  readonly replicas?: number;
  /** Per program input: whether its buffer may be reused for an output of the same type. */
  readonly donate?: readonly boolean[];
  /**
   * Float sums over an array's leading axes (a bias's gradient, [tokens, width] → [width]) as a product
   * of ones by the array, for XLA:CPU compiled without its tree_reduction_rewriter pass (see
   * cpu-dot-library.ts): there such a sum would be one strided loop per output column. Default false.
   */
  readonly leadingSumsAsProducts?: boolean;
}

/** A program lowered to StableHLO: the module's text, input-output aliases, and each variable's SSA value. */
export interface LoweredModule {
  readonly text: string;
  /** Per program input: the output whose buffer it becomes (tf.aliasing_output), or -1. */
  readonly aliases: readonly number[];
  /** The SSA value holding each IR var (by var id), for reading the text against the program. */
  readonly ssa: ReadonlyMap<number, string>;
}

const sameAVal = (a: Var, b: Var) =>
  a.aval.dtype === b.aval.dtype && a.aval.shape.length === b.aval.shape.length && a.aval.shape.every((d, i) => d === b.aval.shape[i]);

/**
 * Pairs each donated input with an output of the same type (itself first, when it is returned as
 * is), each output at most once. A donated input with no such output keeps its buffer.
 */
function donationAliases(program: Program, donate: readonly boolean[] = []): number[] {
  const taken = new Set<number>();
  return program.inputs.map((input, i) => {
    if (!donate[i]) return -1;
    const free = (j: number) => !taken.has(j);
    let j = program.outputs.findIndex((o, k) => free(k) && o.id === input.id);
    if (j < 0) j = program.outputs.findIndex((o, k) => free(k) && sameAVal(o, input));
    if (j >= 0) taken.add(j);
    return j;
  });
}

/** A module symbol name MLIR accepts unquoted. */
function symbolName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_$.]/g, "_");
  return /^[A-Za-z_]/.test(s) ? s : `_${s}`;
}

/** Lowers a traced program to a StableHLO module (text), for XLA to compile. */
export function lowerToStableHlo(program: Program, opts: LowerOptions = {}): LoweredModule {
  const replicas = opts.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`${program.name}: replicas must be a positive integer, got ${replicas}`);
  if (opts.donate && opts.donate.length !== program.inputs.length) {
    throw new Error(`${program.name}: donate has ${opts.donate.length} entries for ${program.inputs.length} inputs`);
  }
  const emit = new FunctionEmitter();
  const cx: LoweringContext = { emit, replicas, leadingSumsAsProducts: opts.leadingSumsAsProducts ?? false };
  const env = new Map<number, Value>();
  const results = lowerBody(
    cx,
    program,
    program.inputs.map((v, i) => ({ ref: `%arg${i}`, aval: v.aval })),
    env,
  );

  const aliases = donationAliases(program, opts.donate);
  const args = program.inputs.map(
    (v, i) => `%arg${i}: ${tensorType(v.aval)}${aliases[i]! >= 0 ? ` {tf.aliasing_output = ${aliases[i]} : i32}` : ""}`,
  );
  const resultTypes = results.map((r) => tensorType(r.aval));
  const lines = [
    `module @${symbolName(program.name)} attributes {mhlo.num_replicas = ${replicas} : i32, mhlo.num_partitions = 1 : i32} {`,
    `  func.func public @main(${args.join(", ")}) -> (${resultTypes.join(", ")}) {`,
    ...emit.body().map((l) => `    ${l}`),
    results.length ? `    func.return ${results.map((r) => r.ref).join(", ")} : ${resultTypes.join(", ")}` : "    func.return",
    "  }",
    "}",
    "",
  ];
  return { text: lines.join("\n"), aliases, ssa: new Map([...env].map(([id, v]) => [id, v.ref])) };
}
