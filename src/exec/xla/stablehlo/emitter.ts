// Writes the body of one MLIR function, one operation a line, in MLIR's generic operation syntax:
//   %3 = "stablehlo.add"(%1, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// The generic form is the one the StableHLO specification gives for every op, it has not changed
// across dialect versions, and any MLIR parser can check it without the dialect registered.
import type { DType } from "../../../core/dtype.js";
import type { AVal } from "../../../core/ir.js";
import type { Shape } from "../../../core/shape.js";
import { scalarLiteral } from "./literals.js";
import { tensorType } from "./types.js";

/** An SSA value of the function being written. */
export interface Value {
  readonly ref: string;
  readonly aval: AVal;
}

/** A reduction region: `combiner` applied to two scalars of `dtype` (reduce, scatter, all_reduce). */
export interface BinaryRegion {
  readonly combiner: string;
  readonly dtype: DType;
}

function signature(operands: readonly Value[], out: AVal): string {
  return `(${operands.map((v) => tensorType(v.aval)).join(", ")}) -> ${tensorType(out)}`;
}

export class FunctionEmitter {
  private readonly lines: string[] = [];
  /** Splat constants already written (at this emitter's level, so any later op in it may use them). */
  private readonly splats = new Map<string, Value>();

  /** `counter` is shared with the emitters of nested regions (see `nested`). */
  constructor(private readonly counter = { next: 0 }) {}

  /** A new SSA name, unique in the whole function (regions see enclosing names, so none may repeat). */
  fresh(): string {
    return `%${this.counter.next++}`;
  }

  /** An emitter for the body of a region: its own lines and constants, names from the same sequence. */
  nested(): FunctionEmitter {
    return new FunctionEmitter(this.counter);
  }

  /** Appends lines written elsewhere (an op with regions). */
  raw(...lines: string[]): void {
    this.lines.push(...lines);
  }

  /** `%r = "name"(operands) {attrs} : (operand types) -> result type`. */
  op(name: string, operands: readonly Value[], out: AVal, attrs?: string): Value {
    const ref = this.fresh();
    const attrText = attrs ? ` {${attrs}}` : "";
    this.lines.push(`${ref} = "${name}"(${operands.map((v) => v.ref).join(", ")})${attrText} : ${signature(operands, out)}`);
    return { ref, aval: out };
  }

  /** An op with one region that combines two scalars, as reduce, scatter and all_reduce take. */
  opWithRegion(name: string, operands: readonly Value[], out: AVal, region: BinaryRegion, attrs: string): Value {
    const ref = this.fresh();
    const scalar = tensorType({ shape: [], dtype: region.dtype });
    const a = this.fresh(),
      b = this.fresh(),
      r = this.fresh();
    this.lines.push(
      `${ref} = "${name}"(${operands.map((v) => v.ref).join(", ")}) ({`,
      `  ^bb0(${a}: ${scalar}, ${b}: ${scalar}):`,
      `    ${r} = "${region.combiner}"(${a}, ${b}) : (${scalar}, ${scalar}) -> ${scalar}`,
      `    "stablehlo.return"(${r}) : (${scalar}) -> ()`,
      `}) {${attrs}} : ${signature(operands, out)}`,
    );
    return { ref, aval: out };
  }

  /** A constant from a literal written by literals.ts (`dense<...>`). */
  constant(aval: AVal, dense: string): Value {
    const ref = this.fresh();
    const t = tensorType(aval);
    this.lines.push(`${ref} = "stablehlo.constant"() {value = ${dense} : ${t}} : () -> ${t}`);
    return { ref, aval };
  }

  /** Every element equal to x (rounded to dtype as a store would). */
  splat(dtype: DType, shape: Shape, x: number | bigint): Value {
    const aval = { shape, dtype },
      dense = `dense<${scalarLiteral(dtype, x)}>`;
    const key = `${tensorType(aval)} ${dense}`;
    let v = this.splats.get(key);
    if (!v) {
      v = this.constant(aval, dense);
      this.splats.set(key, v);
    }
    return v;
  }

  body(): readonly string[] {
    return this.lines;
  }
}
