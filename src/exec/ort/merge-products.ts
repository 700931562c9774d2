// Products of one operand by several constant matrices (a layer's query, key and value projections, its
// gate and up projections, once the weights are compiled in) become one MatMul by the matrices side by
// side and a Split of its columns: one wider product, which ORT packs once and spreads over its threads
// better than several narrow ones, and fewer kernels to launch. Each column is the same sum of products.
import type { NodeDef } from "../../io/onnx/proto.js";
import type { HostArray } from "../../core/dtype.js";
import type { GraphBuilder } from "./graph-builder.js";

export function mergeSharedOperandProducts(g: GraphBuilder, nodes: readonly NodeDef[]): readonly NodeDef[] {
  const groups = new Map<string, number[]>();
  nodes.forEach((n, i) => {
    if (n.op !== "MatMul" || n.domain) return;
    const w = g.initializerData.get(n.inputs[1]!);
    if (!w || w.shape.length !== 2 || (w.dtype !== "f32" && w.dtype !== "f64")) return;
    const key = `${n.inputs[0]!}|${w.dtype}`;
    const members = groups.get(key);
    if (members) members.push(i);
    else groups.set(key, [i]);
  });
  const merged = new Map<number, NodeDef[]>();
  const dropped = new Set<number>();
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const names = members.map((i) => nodes[i]!.inputs[1]!);
    const ws = names.map((name) => g.initializerData.get(name)!);
    const rows = ws[0]!.shape[0]!;
    const widths = ws.map((w) => w.shape[1]!);
    const width = widths.reduce((a, b) => a + b, 0);
    // The same matrices side by side once, however many steps multiply by them.
    const both = g.derivedConstant(`side by side ${names.join(" ")}`, () => {
      const data = new (ws[0]!.data.constructor as new (n: number) => HostArray)(rows * width);
      for (let r = 0; r < rows; r++) {
        let at = r * width;
        for (const w of ws) {
          const n = w.shape[1]!;
          (data as Float32Array).set((w.data as Float32Array).subarray(r * n, (r + 1) * n), at);
          at += n;
        }
      }
      return { dtype: ws[0]!.dtype, shape: [rows, width], data };
    });
    const product = g.fresh();
    merged.set(members[0]!, [
      { op: "MatMul", inputs: [nodes[members[0]!]!.inputs[0]!, both.name], outputs: [product] },
      {
        op: "Split",
        inputs: [product, g.int64s(widths)],
        outputs: members.map((i) => nodes[i]!.outputs[0]!),
        attrs: { axis: { kind: "int", value: -1 } },
      },
    ]);
    for (const i of members.slice(1)) dropped.add(i);
  }
  if (!merged.size) return nodes;
  // The merged product stands where the group's first product stood: the operand is defined before it,
  // and every reader of a later product comes after that one.
  return nodes.flatMap((n, i) => merged.get(i) ?? (dropped.has(i) ? [] : [n]));
}
