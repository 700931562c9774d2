// Building an ONNX graph from Kiln values: fresh names, initializers, and the small helpers every
// lowering needs (casts, reshapes, broadcasting, selection) with ONNX Runtime's CPU kernel gaps
// bridged in one place.
//
// Broadcasts are lazy. A lowered value keeps the IR value's rank but may hold a dimension of size 1
// where the IR value repeats it (`Val.shape` vs `Val.full`). Elementwise ops broadcast such operands
// implicitly, which gives exactly the same elements as materializing them first, so scalars and
// biases stay small (an AdamW update multiplies by a [1,1] learning rate, not by a full-size copy).
// Ops that need real data call `materialize`, which emits one Expand.
import type { DType, HostArray } from "../../core/dtype.js";
import { fromNumbers } from "../../core/dtype.js";
import type { Shape } from "../../core/shape.js";
import { shapesEqual } from "../../core/shape.js";
import { ONNX_TYPE, type NodeDef, type TensorDef, type AttrValue } from "../../io/onnx/proto.js";

/** A value in the graph: its name and dtype, the shape it has in ONNX and the IR shape it stands for. */
export interface Val {
  readonly name: string;
  readonly dtype: DType;
  /** The ONNX tensor's shape: `full`, except that broadcast dimensions may still have size 1. */
  readonly shape: Shape;
  /** The IR value's shape. */
  readonly full: Shape;
}

function isLazy(v: Val): boolean {
  return !shapesEqual(v.shape, v.full);
}

/** A dtype the CPU kernels compute in: 16-bit floats are widened to f32 and rounded back afterwards. */
export function computeDtype(d: DType): DType {
  return d === "bf16" || d === "f16" ? "f32" : d;
}

function hostBytes(a: HostArray): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** Every name the nodes (and the subgraphs they hold, which may read this scope) read, and the outputs. */
export function namesRead(nodes: readonly NodeDef[], outputs: readonly string[]): Set<string> {
  const read = new Set(outputs);
  const visit = (ns: readonly NodeDef[], graphOutputs: readonly { name: string }[]) => {
    for (const o of graphOutputs) read.add(o.name);
    for (const n of ns) {
      for (const i of n.inputs) read.add(i);
      for (const a of Object.values(n.attrs ?? {})) if (a.kind === "graph") visit(a.value.nodes, a.value.outputs);
    }
  };
  visit(nodes, []);
  return read;
}

export class GraphBuilder {
  readonly nodes: NodeDef[] = [];
  readonly initializers: TensorDef[] = [];
  /** Initializer data by name, for outputs that are constants. */
  readonly initializerData = new Map<string, { dtype: DType; shape: Shape; data: HostArray }>();
  private counter = 0;
  private readonly small = new Map<string, Val>();
  private readonly derived = new Map<string, Val>();
  /** The data input of each Reshape node, by its output: a reshape of a reshape reads the first one's input. */
  private readonly reshapeInput = new Map<string, Val>();
  /** Whether nodes may run kernels Kiln generates (pointwise-library.ts): set for a session's graph where they are on. */
  generatedKernels = false;
  /**
   * The dtype and ONNX shape of every elementwise node's operands and result, by name: what grouping
   * them into generated kernels needs (pointwise-groups.ts).
   */
  readonly valueInfo = new Map<string, { readonly dtype: DType; readonly shape: Shape }>();
  /** The ReduceSum nodes over the last axis (no kept dimension), by their output's name. */
  readonly rowSums = new Set<string>();
  /** Each Transpose written, by its input's name and perm: a value is transposed the same way once. */
  private readonly transposes = new Map<string, Val>();

  /** `prefix` keeps a subgraph's names (a loop body's) apart from the enclosing graph's. */
  /**
   * `relayOutConstants`: constant matrices may be stored again laid out for their products (transposed,
   * side by side), which a session packs once; an exported model keeps each weight once instead.
   */
  constructor(
    private readonly prefix = "",
    readonly relayOutConstants = false,
  ) {}

  fresh(hint = "t"): string {
    return `${this.prefix}${hint}${this.counter++}`;
  }

  /** Adds a node with one output and returns that output's name. */
  node(op: string, inputs: readonly string[], attrs?: Record<string, AttrValue>, domain?: string): string {
    const out = this.fresh();
    this.nodes.push({ op, inputs, outputs: [out], attrs, domain });
    return out;
  }

  /** An initializer; small ones are shared by content (the same scalar is stored once). */
  constant(dtype: DType, shape: Shape, data: HostArray): Val {
    const small = data.length <= 16;
    // Keyed by the bytes, not the numbers: -0 and 0 (or two NaN payloads) are different constants.
    const key = small ? `${dtype}|${shape.join(",")}|${hostBytes(data).join(",")}` : "";
    const known = small ? this.small.get(key) : undefined;
    if (known) return known;
    const name = this.fresh("c");
    this.initializers.push({ name, dataType: ONNX_TYPE[dtype], dims: shape, raw: hostBytes(data) });
    this.initializerData.set(name, { dtype, shape, data });
    const v: Val = { name, dtype, shape, full: shape };
    if (small) this.small.set(key, v);
    return v;
  }

  /**
   * A constant computed on the host from others (a weight re-laid out for its product), made once per
   * `key`: the steps of an unrolled decode call read one copy, not one each (eight copies of every
   * weight made a decode program of llama-small 168 MB and one of SmolLM-135M too large to load).
   */
  derivedConstant(key: string, make: () => { dtype: DType; shape: Shape; data: HostArray }): Val {
    let v = this.derived.get(key);
    if (!v) {
      const c = make();
      this.derived.set(key, (v = this.constant(c.dtype, c.shape, c.data)));
    }
    return v;
  }

  /** One value with `rank` dimensions of size 1: broadcasts against any operand of that rank. */
  scalar(dtype: DType, value: number, rank = 0): Val {
    return this.constant(dtype, new Array<number>(rank).fill(1), fromNumbers(dtype, [value]));
  }

  /** A 1-D int64 initializer (axes, shapes, pads), by name. */
  int64s(values: readonly number[]): string {
    return this.constant(
      "i64",
      [values.length],
      BigInt64Array.from(values, (v) => BigInt(v)),
    ).name;
  }

  // ---- helpers shared by the lowerings ----

  cast(v: Val, to: DType): Val {
    if (v.dtype === to) return v;
    const out: Val = {
      name: this.node("Cast", [v.name], { to: { kind: "int", value: ONNX_TYPE[to] } }),
      dtype: to,
      shape: v.shape,
      full: v.full,
    };
    this.noteValues([v, out]);
    return out;
  }

  /** Reshapes a materialized value (ORT's Reshape aliases its input: no copy). */
  reshape(v: Val, shape: Shape): Val {
    if (isLazy(v)) throw new Error(`internal: reshape of a broadcast value ${v.name}`);
    return this.reshapeActual(v, shape, shape);
  }

  /**
   * Gives a value the ONNX shape `shape` (same elements, e.g. size-1 dims added or removed). A constant
   * is re-declared with the new shape instead: scalars broadcast into every op would otherwise each
   * add a node for the session to load and fold.
   */
  reshapeActual(v: Val, shape: Shape, full: Shape): Val {
    if (shapesEqual(v.shape, shape)) return { ...v, full };
    const known = this.initializerData.get(v.name);
    if (known) return { ...this.constant(v.dtype, shape, known.data), full };
    // Reshape(Reshape(x)) is Reshape(x), or x itself where it has the shape asked for: one node or
    // none instead of two (a decode step ran 96 Reshapes).
    const source = this.reshapeInput.get(v.name) ?? v;
    if (shapesEqual(source.shape, shape)) return { ...source, full };
    const name = this.node("Reshape", [source.name, this.int64s(shape)]);
    this.reshapeInput.set(name, source);
    return { name, dtype: v.dtype, shape, full };
  }

  /**
   * The nodes less the Reshapes whose output nothing reads (left behind when a later reshape read their
   * input instead), given the graph's outputs.
   */
  liveNodes(outputs: readonly string[]): NodeDef[] {
    const read = namesRead(this.nodes, outputs);
    return this.nodes.filter((n) => !(n.op === "Reshape" && this.reshapeInput.has(n.outputs[0]!) && !read.has(n.outputs[0]!)));
  }

  /** The initializers `nodes` or the outputs read (a weight a product re-laid out on the host is not). */
  liveInitializers(nodes: readonly NodeDef[], outputs: readonly string[]): TensorDef[] {
    const read = namesRead(nodes, outputs);
    return this.initializers.filter((t) => read.has(t.name));
  }

  /**
   * Dims permuted (`perm[i]`: the source dim of dim i). Moving only dims of size 1 keeps the elements'
   * order: a Reshape (no copy, and it folds into the reshapes around it) instead of a Transpose; a
   * decode step (one token per row) transposed 24 such [b, 1, h, d] values.
   */
  transpose(v: Val, perm: readonly number[]): Val {
    const shape = perm.map((p) => v.shape[p]!),
      full = perm.map((p) => v.full[p]!);
    const kept = perm.filter((p) => v.shape[p] !== 1);
    if (kept.every((p, i) => i === 0 || kept[i - 1]! < p)) return this.reshapeActual(v, shape, full);
    const key = `${v.name} ${perm.join(",")}`;
    const done = this.transposes.get(key);
    if (done) return { ...done, full };
    const t: Val = { name: this.node("Transpose", [v.name], { perm: { kind: "ints", value: perm } }), dtype: v.dtype, shape, full };
    this.transposes.set(key, t);
    return t;
  }

  /** The Transpose of `v` by `perm` already written, if one was. */
  writtenTranspose(v: Val, perm: readonly number[]): Val | undefined {
    return this.transposes.get(`${v.name} ${perm.join(",")}`);
  }

  /** The value with every broadcast dimension filled in (one Expand). */
  materialize(v: Val): Val {
    if (!isLazy(v)) return v;
    // The CPU provider has no bf16 Expand; the f32 round trip is exact.
    if (v.dtype === "bf16") return this.cast(this.materialize(this.cast(v, "f32")), "bf16");
    return { name: this.node("Expand", [v.name, this.int64s(v.full)]), dtype: v.dtype, shape: v.full, full: v.full };
  }

  /** An elementwise op over operands of equal rank; the result has their broadcast shape. */
  elementwise(op: string, ins: readonly Val[], dtype: DType, attrs?: Record<string, AttrValue>, domain?: string): Val {
    const rank = ins[0]!.full.length;
    // Numpy broadcasting: a dimension of 1 takes the other operands' size (which may be 0).
    const bdim = (ds: number[]) => ds.find((d) => d !== 1) ?? 1;
    const shape = Array.from({ length: rank }, (_, i) => bdim(ins.map((v) => v.shape[i]!)));
    const full = Array.from({ length: rank }, (_, i) => bdim(ins.map((v) => v.full[i]!)));
    const out: Val = {
      name: this.node(
        op,
        ins.map((v) => v.name),
        attrs,
        domain,
      ),
      dtype,
      shape,
      full,
    };
    this.noteValues([...ins, out]);
    return out;
  }

  /** Records a ReduceSum of `x` over its last axis, `sum` (lower-contraction.ts). */
  noteRowSum(x: Val, sum: Val): void {
    this.rowSums.add(sum.name);
    this.noteValues([x, sum]);
  }

  private noteValues(vs: readonly Val[]): void {
    for (const v of vs) this.valueInfo.set(v.name, { dtype: v.dtype, shape: v.shape });
  }

  /** where(pred, a, b) for every dtype (the CPU provider's Where lacks u32, bool and bf16). */
  select(pred: Val, a: Val, b: Val): Val {
    const via: Partial<Record<DType, DType>> = { u32: "i32", bool: "i32", bf16: "f32" };
    const w = via[a.dtype];
    // u32→i32 and bool→i32 casts are value-preserving round trips (two's complement wrap).
    if (w) return this.cast(this.select(pred, this.cast(a, w), this.cast(b, w)), a.dtype);
    return this.elementwise("Where", [pred, a, b], a.dtype);
  }
}
