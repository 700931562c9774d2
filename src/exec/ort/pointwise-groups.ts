// Chains of elementwise nodes that one generated kernel computes in a single pass (pointwise-codegen.ts),
// as torch.compile's inductor and XLA's fusion do. ONNX Runtime runs each elementwise node as its own
// pass over memory: a SwiGLU gradient reads and writes [32, 128, 688] floats nine times, an AdamW update
// thirteen times over every parameter. A group reads each of its inputs once and writes only the values
// that something outside it reads.
//
// Groups form in the nodes' order (a topological one). A node joins the open groups it reads from that
// have its shape, merging them; a group closes once a node outside it reads one of its values, because
// the group's kernel runs where its last member was and that reader must come after it. So no group
// waits on a value computed from its own outputs.
import { createHash } from "node:crypto";
import type { DType } from "../../core/dtype.js";
import type { Shape } from "../../core/shape.js";
import { shapesEqual, sizeOf } from "../../core/shape.js";
import type { NodeDef } from "../../io/onnx/proto.js";
import { MS_DOMAIN } from "../../io/onnx/proto.js";
import { namesRead } from "./graph-builder.js";

/** The domain of the generated kernels' ops. */
export const POINTWISE_DOMAIN = "kiln.pointwise";

/** What the grouping knows of a value: its dtype and ONNX shape (GraphBuilder records them). */
export interface ValueInfo {
  readonly dtype: DType;
  readonly shape: Shape;
}

/**
 * How a kernel reads an input of its shape S: every element in order ("full"), one value ("scalar"), or
 * "broadcast": a shape with some of S's dimensions 1 (a row norm [.., 1], a bias [1, .., n], a mask
 * [b, 1, s, 1, s]), read by index per row of S's last dimension.
 */
export type Access = "full" | "scalar" | "broadcast";

export interface PointwiseInput {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: Shape;
  readonly access: Access;
}

/** One fused node: an ONNX elementwise op over the group's values. */
export interface PointwiseStep {
  readonly op: string;
  /** BitShift's direction. */
  readonly direction?: "LEFT" | "RIGHT";
  readonly inputs: readonly string[];
  readonly output: string;
  readonly dtype: DType;
}

export interface PointwiseGroup {
  /** The kernel's op name (pointwiseName). */
  readonly name: string;
  /** Every output's shape. */
  readonly shape: Shape;
  readonly inputs: readonly PointwiseInput[];
  readonly outputs: readonly { readonly name: string; readonly dtype: DType }[];
  readonly steps: readonly PointwiseStep[];
}

type Signature = (ins: readonly DType[], out: DType) => boolean;
const all =
  (d: DType): Signature =>
  (ins, out) =>
    out === d && ins.every((i) => i === d);
const either =
  (...ds: DType[]): Signature =>
  (ins, out) =>
    ds.some((d) => all(d)(ins, out));
const compare: Signature = (ins, out) => out === "bool" && (ins.every((i) => i === "f32") || ins.every((i) => i === "u32"));
/** Conversions whose C cast gives ONNX's values (a float to an integer would need ORT's saturation). */
const CASTS = new Set(["bool>f32", "f32>bool", "bool>u32", "u32>f32", "u32>bool"]);

/**
 * The ops a kernel computes (pointwise-codegen.ts has their C), by ONNX op type, with the operand
 * dtypes each is generated for; Gelu is ONNX Runtime's contrib op. u32 is the dropout bits' hashing.
 */
export const POINTWISE_OPS: ReadonlyMap<string, Signature> = new Map<string, Signature>([
  ["Add", either("f32", "u32")],
  ["Sub", either("f32", "u32")],
  ["Mul", either("f32", "u32")],
  ["Div", all("f32")],
  ["Neg", all("f32")],
  ["Abs", all("f32")],
  ["Sqrt", all("f32")],
  ["Reciprocal", all("f32")],
  ["Exp", all("f32")],
  ["Erf", all("f32")],
  ["Sigmoid", all("f32")],
  ["Gelu", all("f32")],
  ["Where", (ins, out) => ins[0] === "bool" && ins[1] === out && ins[2] === out && (out === "f32" || out === "u32")],
  ["Equal", compare],
  ["Less", compare],
  ["Greater", compare],
  ["LessOrEqual", compare],
  ["GreaterOrEqual", compare],
  ["Not", all("bool")],
  ["And", all("bool")],
  ["Or", all("bool")],
  ["BitwiseAnd", all("u32")],
  ["BitwiseOr", all("u32")],
  ["BitwiseXor", all("u32")],
  ["BitwiseNot", all("u32")],
  ["BitShift", all("u32")],
  ["Cast", (ins, out) => CASTS.has(`${ins[0]}>${out}`)],
]);

/**
 * A program gets kernels only where one of its values computed elementwise has at least this many
 * elements: small programs (most of the tests', an eager op's) compile no library, where its build
 * would cost more than it saves. In a program that has them, chains of any size are fused: an AdamW
 * update of a norm's [256] weight is thirteen ONNX Runtime nodes, each costing its dispatch.
 */
export const MIN_GROUP_ELEMENTS = 1 << 16;

/** A kernel's inputs and outputs together, at most (KILN_MAX_ARGS in native/pointwise-kernels.h). */
export const MAX_KERNEL_ARGS = 32;

/**
 * The smallest last dimension a broadcast input is read along: a kernel with one works row by row, and
 * rows much shorter than a vector leave it mostly idle.
 */
const MIN_BROADCAST_ROW = 16;

/** How a value of `shape` is read in a loop over `of`, or undefined where it does not broadcast to it. */
export function accessOf(shape: Shape, of: Shape): Access | undefined {
  if (shape.length !== of.length) return undefined;
  if (shapesEqual(shape, of)) return "full";
  if (sizeOf(shape) === 1) return "scalar";
  if (!shape.every((d, i) => d === of[i] || d === 1) || of[of.length - 1]! < MIN_BROADCAST_ROW) return undefined;
  return "broadcast";
}

interface Building {
  shape: Shape;
  members: number[];
  open: boolean;
}

/** The value info of a node's output where the node can be computed in a kernel, else undefined. */
function fusable(n: NodeDef, info: ReadonlyMap<string, ValueInfo>): ValueInfo | undefined {
  const signature = POINTWISE_OPS.get(n.op);
  if (!signature || (n.domain ?? "") !== (n.op === "Gelu" ? MS_DOMAIN : "") || n.outputs.length !== 1) return undefined;
  const out = info.get(n.outputs[0]!);
  if (!out) return undefined;
  const ins = n.inputs.map((i) => info.get(i));
  if (ins.some((v) => !v || !accessOf(v.shape, out.shape))) return undefined;
  return signature(
    ins.map((v) => v!.dtype),
    out.dtype,
  )
    ? out
    : undefined;
}

/**
 * The graph's nodes with each group of two or more elementwise nodes replaced by one node of
 * POINTWISE_DOMAIN (at the place of the group's last node), and the groups those nodes compute.
 * `outputs` are the graph's outputs; `info` the dtype and shape of every elementwise node's operands.
 */
export function groupPointwise(
  nodes: readonly NodeDef[],
  outputs: readonly string[],
  info: ReadonlyMap<string, ValueInfo>,
  rowSums: ReadonlySet<string> = new Set(),
): { nodes: NodeDef[]; groups: PointwiseGroup[] } {
  const fused = nodes.map((n) => fusable(n, info));
  if (!fused.some((out) => out && sizeOf(out.shape) >= MIN_GROUP_ELEMENTS)) return { nodes: [...nodes], groups: [] };
  const groupOf = new Map<number, Building>();
  const producedBy = new Map<string, Building>();
  nodes.forEach((n, i) => {
    // A sum along the rows of a group's value is computed in the group's loop, row by row. Whatever
    // reads the sum reads it from outside (its shape differs), so the group closes then.
    const summed = n.op === "ReduceSum" && rowSums.has(n.outputs[0]!) ? producedBy.get(n.inputs[0]!) : undefined;
    if (summed?.open && info.get(n.inputs[0]!)?.dtype === "f32" && summed.shape[summed.shape.length - 1]! >= MIN_BROADCAST_ROW) {
      summed.members.push(i);
      groupOf.set(i, summed);
      producedBy.set(n.outputs[0]!, summed);
      return;
    }
    const out = fused[i];
    const readFrom = new Set<Building>();
    for (const name of namesRead([n], [])) {
      const b = producedBy.get(name);
      if (b?.open) readFrom.add(b);
    }
    let joined: Building | undefined;
    if (out) {
      const same = [...readFrom].filter((b) => shapesEqual(b.shape, out.shape));
      joined = same[0] ?? { shape: out.shape, members: [], open: true };
      for (const b of same.slice(1)) {
        joined.members.push(...b.members);
        for (const m of b.members) {
          groupOf.set(m, joined);
          for (const o of nodes[m]!.outputs) producedBy.set(o, joined);
        }
        b.open = false;
      }
      joined.members.push(i);
      groupOf.set(i, joined);
      producedBy.set(n.outputs[0]!, joined);
    }
    // Every other group this node reads is read from outside now: nothing may join it later.
    for (const b of readFrom) if (b !== joined) b.open = false;
  });

  const groups = [...new Set(groupOf.values())].filter((b) => b.members.length >= 2);
  const member = new Set(groups.flatMap((b) => b.members));
  // A group writes the values read outside it: by a node in no group, as a graph output, or by another group.
  const readOutside = namesRead(
    nodes.filter((_, i) => !member.has(i)),
    outputs,
  );
  // A sum's second input is its axes, which the loop's layout already holds.
  const operands = (n: NodeDef) => (n.op === "ReduceSum" ? n.inputs.slice(0, 1) : n.inputs);
  const readingGroups = new Map<string, Set<Building>>();
  for (const b of groups)
    for (const m of b.members)
      for (const name of operands(nodes[m]!)) {
        const readers = readingGroups.get(name) ?? new Set<Building>();
        readingGroups.set(name, readers.add(b));
      }
  const readBeyond = (name: string, b: Building) => readOutside.has(name) || [...(readingGroups.get(name) ?? [])].some((r) => r !== b);

  const replaced = new Map<number, NodeDef>();
  const dropped = new Set<number>();
  const result: PointwiseGroup[] = [];
  for (const b of groups) {
    const members = [...b.members].sort((x, y) => x - y);
    const produced = new Set(members.map((m) => nodes[m]!.outputs[0]!));
    const inputs: PointwiseInput[] = [];
    for (const m of members)
      for (const name of operands(nodes[m]!))
        if (!produced.has(name) && !inputs.some((i) => i.name === name)) {
          const v = info.get(name)!;
          inputs.push({ name, dtype: v.dtype, shape: v.shape, access: accessOf(v.shape, b.shape)! });
        }
    const steps: PointwiseStep[] = members.map((m) => {
      const n = nodes[m]!;
      const direction = n.attrs?.direction;
      return {
        op: n.op,
        ...(direction?.kind === "string" ? { direction: direction.value as "LEFT" | "RIGHT" } : {}),
        inputs: operands(n),
        output: n.outputs[0]!,
        dtype: info.get(n.outputs[0]!)!.dtype,
      };
    });
    const outs = steps.filter((s) => readBeyond(s.output, b)).map((s) => ({ name: s.output, dtype: s.dtype }));
    if (outs.length === 0 || inputs.length + outs.length > MAX_KERNEL_ARGS) continue;
    const body = { shape: b.shape, inputs, outputs: outs, steps };
    const group: PointwiseGroup = { name: pointwiseName(body), ...body };
    result.push(group);
    const last = members[members.length - 1]!;
    for (const m of members) if (m !== last) dropped.add(m);
    replaced.set(last, {
      op: group.name,
      domain: POINTWISE_DOMAIN,
      inputs: inputs.map((i) => i.name),
      outputs: outs.map((o) => o.name),
    });
  }
  const out: NodeDef[] = [];
  nodes.forEach((n, i) => {
    if (dropped.has(i)) return;
    out.push(replaced.get(i) ?? n);
  });
  return { nodes: out, groups: result };
}

/**
 * A group's op name: a hash of what it computes, not of the graph's value names, so that the same
 * chain in two programs (every layer of a model, every training step) is one kernel.
 */
function pointwiseName(g: Omit<PointwiseGroup, "name">): string {
  return `pw_${createHash("sha256").update(canonicalForm(g)).digest("hex").slice(0, 16)}`;
}

/** The group with its values numbered in order of appearance: what its kernel's code depends on. */
function canonicalForm(g: Omit<PointwiseGroup, "name">): string {
  const ids = new Map<string, string>();
  g.inputs.forEach((v, i) => ids.set(v.name, `i${i}`));
  g.steps.forEach((s, i) => ids.set(s.output, `t${i}`));
  const outputs = new Set(g.outputs.map((o) => o.name));
  return [
    g.shape.join(","),
    g.inputs.map((v) => `${v.dtype}[${v.shape.join(",")}]`).join(" "),
    ...g.steps.map(
      (s) => `${s.op}${s.direction ?? ""}(${s.inputs.map((n) => ids.get(n)).join(",")})${s.dtype}${outputs.has(s.output) ? "!" : ""}`,
    ),
  ].join(";");
}
