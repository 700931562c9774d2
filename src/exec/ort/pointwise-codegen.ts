// C source for pointwise groups (pointwise-groups.ts): one loop per group over its shape, each input read
// once per element and each output written once, in the order of the ONNX nodes it replaces. The
// driver (native/pointwise-kernels.h) makes each loop an ONNX Runtime custom op and splits it over
// ONNX Runtime's threads. The C compiler vectorizes the loops: exp is the driver's kiln_exp, inlined,
// and erf glibc's vector math library (libmvec), so both stay in vector registers.
import type { DType } from "../../core/dtype.js";
import { sizeOf, stridesOf } from "../../core/shape.js";
import { ONNX_TYPE } from "../../io/onnx/proto.js";
import type { PointwiseGroup, PointwiseStep } from "./pointwise-groups.js";
import { rowKernelName, type RowKernel } from "./row-kernels.js";

const C_TYPE: Partial<Record<DType, string>> = { f32: "float", bool: "unsigned char", u32: "uint32_t" };

/** Elements per unit of work where no input is read per row or per column: the loop's inner run. */
const FLAT_UNIT = 4096;

/** The C expression of one step over its operands' expressions (u32 arithmetic wraps in C as in ONNX). */
function expression(s: PointwiseStep, a: readonly string[]): string {
  const [x, y, z] = a;
  switch (s.op) {
    case "Add":
      return `${x} + ${y}`;
    case "Sub":
      return `${x} - ${y}`;
    case "Mul":
      return `${x} * ${y}`;
    case "Div":
      return `${x} / ${y}`;
    case "Neg":
      return `-${x}`;
    case "Abs":
      return `fabsf(${x})`;
    case "Sqrt":
      return `sqrtf(${x})`;
    case "Reciprocal":
      return `1.0f / ${x}`;
    case "Exp":
      return `kiln_exp(${x})`;
    case "Erf":
      return `erff(${x})`;
    case "Sigmoid":
      return `1.0f / (1.0f + kiln_exp(-${x}))`;
    case "Gelu":
      return `0.5f * ${x} * (1.0f + erff(${x} * 0.70710678118654752f))`;
    case "Where":
      return `${x} ? ${y} : ${z}`;
    case "Equal":
      return `${x} == ${y}`;
    case "Less":
      return `${x} < ${y}`;
    case "Greater":
      return `${x} > ${y}`;
    case "LessOrEqual":
      return `${x} <= ${y}`;
    case "GreaterOrEqual":
      return `${x} >= ${y}`;
    case "Not":
      return `!${x}`;
    case "And":
      return `${x} & ${y}`;
    case "Or":
      return `${x} | ${y}`;
    case "BitwiseAnd":
      return `${x} & ${y}`;
    case "BitwiseOr":
      return `${x} | ${y}`;
    case "BitwiseXor":
      return `${x} ^ ${y}`;
    case "BitwiseNot":
      return `~${x}`;
    case "BitShift":
      // ONNX Runtime's kernel gives 0 for a shift by the width or more (undefined in C).
      return `${y} < 32u ? ${x} ${s.direction === "LEFT" ? "<<" : ">>"} ${y} : 0u`;
    case "Cast":
      return s.dtype === "bool" ? `${x} != 0` : `(${C_TYPE[s.dtype]})${x}`;
    default:
      throw new Error(`internal: no C for pointwise op ${s.op}`);
  }
}

/**
 * How a group's loop is laid out: `units` runs of `unit` elements: rows of the last dimension where an
 * input broadcasts or a value is summed along rows, else flat runs.
 */
export function loopLayout(g: PointwiseGroup): { units: number; unit: number; rows: boolean } {
  const n = sizeOf(g.shape);
  const rows = g.inputs.some((i) => i.access === "broadcast") || g.steps.some((s) => s.op === "ReduceSum");
  if (rows) {
    const unit = g.shape[g.shape.length - 1]!;
    return { units: n / unit, unit, rows };
  }
  return { units: Math.ceil(n / FLAT_UNIT), unit: FLAT_UNIT, rows };
}

/**
 * The C expression of where row `u` of the group's shape starts in a broadcast input: the row's index
 * in each leading dimension (u in mixed radix), times the input's stride there (none where it is 1).
 */
function rowOffset(shape: readonly number[], of: readonly number[]): string {
  const rank = of.length;
  const strides = stridesOf(shape);
  const terms: string[] = [];
  let inner = 1; // rows per step of dimension d
  for (let d = rank - 2; d >= 0; d--) {
    if (shape[d] !== 1 && of[d]! > 1) {
      const index = inner === 1 ? "u" : `(u / ${inner})`;
      const wrapped = d === 0 ? index : `${index} % ${of[d]}`;
      terms.push(`(${wrapped}) * ${strides[d]}`);
    }
    inner *= of[d]!;
  }
  return terms.length ? terms.join(" + ") : "0";
}

function isRowSum(g: PointwiseGroup, name: string): boolean {
  return g.steps.some((s) => s.op === "ReduceSum" && s.output === name);
}

/** The loop of one group, as a static C function named `body`. */
function kernelBody(g: PointwiseGroup, body: string): string {
  const { unit, rows } = loopLayout(g);
  const total = sizeOf(g.shape);
  const last = g.shape[g.shape.length - 1]!;
  const names = new Map<string, string>();
  const lines: string[] = [];
  const ctype = (d: DType) => {
    const t = C_TYPE[d];
    if (!t) throw new Error(`internal: no C type for ${d}`);
    return t;
  };
  g.inputs.forEach((v, i) => lines.push(`  const ${ctype(v.dtype)} *restrict in${i} = (const ${ctype(v.dtype)} *)args[${i}];`));
  g.outputs.forEach((v, j) => lines.push(`  ${ctype(v.dtype)} *restrict out${j} = (${ctype(v.dtype)} *)args[${g.inputs.length + j}];`));
  // Scalars are read once per call, a broadcast input's row once per row, the rest once per element.
  g.inputs.forEach((v, i) => {
    if (v.access === "scalar") lines.push(`  const ${ctype(v.dtype)} s${i} = in${i}[0];`);
  });
  lines.push(`  for (int64_t u = begin; u < end; u++) {`);
  lines.push(`    const int64_t at = u * ${unit}, len = ${rows ? unit : `at + ${unit} <= ${total} ? ${unit} : ${total} - at`};`);
  g.inputs.forEach((v, i) => {
    if (v.access === "broadcast") lines.push(`    const ${ctype(v.dtype)} *restrict row${i} = in${i} + ${rowOffset(v.shape, g.shape)};`);
  });
  // A row's sums run in 16 lanes over its whole blocks of 16 (a vector the compiler keeps in registers,
  // without reassociating anything itself), then over the rest in lane 0.
  const sums = g.steps.flatMap((s, k) => (s.op === "ReduceSum" ? [k] : []));
  for (const k of sums) lines.push(`    float acc${k}[16] = {0};`);
  const element = (c: string, lane: string): string[] => {
    const out: string[] = [];
    g.inputs.forEach((v, i) => {
      const along = v.shape[v.shape.length - 1] === last && last !== 1;
      const read = { full: `in${i}[at + ${c}]`, scalar: `s${i}`, broadcast: along ? `row${i}[${c}]` : `row${i}[0]` }[v.access];
      names.set(v.name, `x${i}`);
      out.push(`const ${ctype(v.dtype)} x${i} = ${read};`);
    });
    g.steps.forEach((s, k) => {
      const operands = s.inputs.map((n) => names.get(n)!);
      if (s.op === "ReduceSum") return void out.push(`acc${k}[${lane}] += ${operands[0]};`);
      names.set(s.output, `t${k}`);
      out.push(`const ${ctype(s.dtype)} t${k} = ${expression(s, operands)};`);
    });
    g.outputs.forEach((o, j) => {
      if (!isRowSum(g, o.name)) out.push(`out${j}[at + ${c}] = ${names.get(o.name)};`);
    });
    return out;
  };
  if (sums.length) {
    const whole = unit - (unit % 16);
    lines.push(
      `    for (int64_t b = 0; b < ${whole}; b += 16)`,
      `      for (int j = 0; j < 16; j++) {`,
      `        const int64_t c = b + j;`,
    );
    lines.push(...element("c", "j").map((l) => `        ${l}`), `      }`);
    if (whole < unit)
      lines.push(`    for (int64_t c = ${whole}; c < ${unit}; c++) {`, ...element("c", "0").map((l) => `      ${l}`), `    }`);
    g.outputs.forEach((o, j) => {
      const k = g.steps.findIndex((s) => s.output === o.name);
      if (isRowSum(g, o.name)) lines.push(`    { float sum = 0.0f; for (int j = 0; j < 16; j++) sum += acc${k}[j]; out${j}[u] = sum; }`);
    });
  } else lines.push(`    for (int64_t c = 0; c < len; c++) {`, ...element("c", "0").map((l) => `      ${l}`), `    }`);
  lines.push(`  }`);
  return `static void ${body}(void *const *args, int64_t begin, int64_t end) {\n${lines.join("\n")}\n}\n`;
}

/** One row of the driver's kernel table (a kiln_kernel initializer). */
function tableRow(
  name: string,
  inputs: readonly DType[],
  outputs: readonly { dtype: DType; shape: readonly number[] }[],
  units: number,
  unit: number,
  body: string,
): string {
  const types = [...inputs, ...outputs.map((o) => o.dtype)].map((d) => ONNX_TYPE[d]);
  return (
    `  {"${name}", ${inputs.length}, ${outputs.length}, {${types.join(", ")}}, {${outputs.map((o) => o.shape.length).join(", ")}}, ` +
    `{${outputs.map((o) => `{${o.shape.join(", ")}}`).join(", ")}}, ${units}, ${unit}, ${body}},`
  );
}

/** A loop named `body` that calls the driver's `call` (C arguments after `args`, in terms of begin and end). */
function driverLoop(body: string, call: string): string {
  return `static void ${body}(void *const *args, int64_t begin, int64_t end) { ${call}; }\n`;
}

/** The driver's loop and table row of a row kernel, its loop named `body`. */
function rowKernel(k: RowKernel, body: string): { code: string; row: string } {
  const name = rowKernelName(k);
  if (k.kind === "softmax-rows") {
    const n = k.shape[k.shape.length - 1]!;
    const rows = k.shape.slice(0, -1);
    const outputs = [k.shape, rows, rows].map((s) => ({ dtype: "f32" as const, shape: s }));
    return {
      code: driverLoop(body, `kiln_softmax_rows(args, begin, end, ${n})`),
      row: tableRow(name, ["f32"], outputs, sizeOf(rows), n, body),
    };
  }
  if (k.kind === "transpose") {
    // Units are blocks of 64 × 64 (native/pointwise-kernels.h numbers them).
    const blocks = Math.ceil(k.rows / 64) * Math.ceil(k.cols / 64);
    return {
      code: driverLoop(body, `kiln_transpose(args, begin, end, ${k.rows}, ${k.cols})`),
      row: tableRow(name, ["f32"], [{ dtype: "f32", shape: [k.cols, k.rows] }], blocks, 64 * 64, body),
    };
  }
  // Units are bands of 16 columns: threads never add into the same element. Counted as 16 elements
  // each, a table narrower than 32,768 columns is one task, on one thread: sized by what a band touches
  // (16 floats of every row and every update), the bands of a 50,265 × 768 table with 4,096 updates went
  // to both threads and took 37 ms against 26.5, each thread reading its rows 64 bytes at a time.
  const bands = Math.ceil(k.width / 16);
  return {
    code: driverLoop(
      body,
      `kiln_scatter_rows(args, begin * 16, end * 16 < ${k.width} ? end * 16 : ${k.width}, ${k.rows}, ${k.width}, ${k.updates})`,
    ),
    row: tableRow(name, ["f32", "i32", "f32"], [{ dtype: "f32", shape: [k.rows, k.width] }], bands, 16, body),
  };
}

/**
 * The C source of a library computing `groups` and `rowKernels` (each distinct kernel once), given the
 * driver's path.
 */
export function librarySource(groups: readonly PointwiseGroup[], rowKernels: readonly RowKernel[], driverPath: string): string {
  const kernels = new Map<string, PointwiseGroup>();
  for (const g of groups) if (!kernels.has(g.name)) kernels.set(g.name, g);
  const parts = [`#include "${driverPath}"\n`];
  const table: string[] = [];
  [...kernels].forEach(([name, g], k) => {
    parts.push(kernelBody(g, `body${k}`));
    const { units, unit } = loopLayout(g);
    // A row sum has the group's shape less its last dimension.
    const outputs = g.outputs.map((o) => ({ dtype: o.dtype, shape: isRowSum(g, o.name) ? g.shape.slice(0, -1) : g.shape }));
    table.push(
      tableRow(
        name,
        g.inputs.map((i) => i.dtype),
        outputs,
        units,
        unit,
        `body${k}`,
      ),
    );
  });
  const rowKinds = new Map(rowKernels.map((k) => [rowKernelName(k), k]));
  [...rowKinds.values()].forEach((k, i) => {
    const { code, row } = rowKernel(k, `rows${i}`);
    parts.push(code);
    table.push(row);
  });
  const count = kernels.size + rowKinds.size;
  parts.push(`static const kiln_kernel kernels[] = {\n${table.join("\n")}\n};\n`);
  parts.push(`static kiln_op ops[${count}];\n`);
  parts.push(
    `__attribute__((visibility("default"))) OrtStatus *kiln_register_pointwise(void *options, const kiln_api_base *base) {\n` +
      `  return kiln_register(options, base, kernels, ops, ${count});\n}\n`,
  );
  return parts.join("\n");
}
