// A reader for the StableHLO text Kiln emits (generic op syntax, one op a line, regions of one block),
// checking what a parser would: every SSA value is defined before it is used and used with the type it
// was defined with, and the module's values have the types of the IR program's vars.
import type { Program } from "../../src/core/ir.js";
import { tensorType } from "../../src/exec/xla/stablehlo/types.js";

const TYPE = String.raw`tensor<[^>]*>`;
const OP_START = new RegExp(String.raw`^(%\d+)(?::\d+)? = "([\w.]+)"\(([^)]*)\)`);
// One result type, none, or a parenthesized list (an op with several results: %r#0, %r#1, …).
const SIGNATURE = new RegExp(String.raw`: \(((?:${TYPE})?(?:, ${TYPE})*)\) -> (\(\)|${TYPE}|\((?:${TYPE})(?:, ${TYPE})*\))$`);
const BLOCK = /^\^bb0\((.*)\):$/;

function splitTypes(list: string): string[] {
  return list ? list.split(", ") : [];
}

function splitNames(list: string): string[] {
  return list.trim() ? list.split(",").map((s) => s.trim()) : [];
}

export function checkStableHlo(text: string, program: Program, ssa: ReadonlyMap<number, string>): string[] {
  const problems: string[] = [];
  const types = new Map<string, string>();
  const lines = text.split("\n").map((l) => l.trim());

  const header = lines.find((l) => l.startsWith("func.func public @main("));
  if (!header) return ["no func.func public @main"];
  const argTypes = [...header.matchAll(new RegExp(String.raw`(%arg\d+): (${TYPE})`, "g"))];
  argTypes.forEach(([, name, type]) => types.set(name!, type!));
  const resultTypes = splitTypes(/-> \((.*)\) \{$/.exec(header)?.[1] ?? "");

  // Ops with a region open on one line and close with their signature on a later one.
  const open: { ref: string; operands: string[]; line: number }[] = [];
  const use = (name: string, line: number) => {
    if (!types.has(name)) problems.push(`line ${line + 1}: ${name} is used before it is defined`);
  };
  const checkSignature = (ref: string, operands: string[], line: number, sigLine: string) => {
    const sig = SIGNATURE.exec(sigLine);
    if (!sig) {
      problems.push(`line ${line + 1}: no (operand types) -> result type`);
      return;
    }
    const operandTypes = splitTypes(sig[1]!);
    if (operandTypes.length !== operands.length)
      problems.push(`line ${line + 1}: ${operands.length} operands, ${operandTypes.length} types`);
    operands.forEach((o, i) => {
      if (types.has(o) && types.get(o) !== operandTypes[i])
        problems.push(`line ${line + 1}: ${o} is ${types.get(o)}, used as ${operandTypes[i]}`);
    });
    if (!ref) return;
    if (sig[2]!.startsWith("(")) splitTypes(sig[2]!.slice(1, -1)).forEach((t, k) => types.set(`${ref}#${k}`, t));
    else types.set(ref, sig[2]!);
  };

  lines.forEach((l, i) => {
    const block = BLOCK.exec(l);
    if (block) {
      for (const [, name, type] of block[1]!.matchAll(new RegExp(String.raw`(%\d+): (${TYPE})`, "g"))) types.set(name!, type!);
      return;
    }
    if (l.startsWith("}) {") || l.startsWith("}) :")) {
      const op = open.pop();
      if (!op) {
        problems.push(`line ${i + 1}: region closes without an op`);
        return;
      }
      checkSignature(op.ref, op.operands, i, l);
      return;
    }
    const regionReturn = /^"stablehlo.return"\(([^)]*)\) : \((.*)\) -> \(\)$/.exec(l);
    if (regionReturn) {
      splitNames(regionReturn[1]!).forEach((n) => use(n, i));
      return;
    }
    if (l.startsWith("func.return")) {
      const m = /^func\.return(?: (.*) : (.*))?$/.exec(l)!;
      const names = splitNames(m[1] ?? ""),
        rtypes = splitTypes(m[2] ?? "");
      names.forEach((n, j) => {
        use(n, i);
        if (types.get(n) !== rtypes[j] || rtypes[j] !== resultTypes[j])
          problems.push(`line ${i + 1}: result ${j} ${n} is ${types.get(n)}, returned as ${rtypes[j]}, declared ${resultTypes[j]}`);
      });
      if (names.length !== resultTypes.length)
        problems.push(`line ${i + 1}: returns ${names.length} values, declares ${resultTypes.length}`);
      return;
    }
    const op = OP_START.exec(l);
    if (!op) return;
    const [, ref, , operandList] = op;
    if (types.has(ref!)) problems.push(`line ${i + 1}: ${ref} is defined twice`);
    const operands = splitNames(operandList!);
    operands.forEach((o) => use(o, i));
    if (l.endsWith("({")) open.push({ ref: ref!, operands, line: i });
    else checkSignature(ref!, operands, i, l);
  });
  if (open.length) problems.push(`${open.length} regions never closed`);

  // The text against the program: every var's value has the var's type.
  const expect = (id: number, aval: Program["inputs"][number]["aval"], what: string) => {
    const name = ssa.get(id);
    if (!name) {
      problems.push(`${what} %${id} has no SSA value`);
      return;
    }
    if (types.get(name) !== tensorType(aval))
      problems.push(`${what} %${id} (${name}) is ${types.get(name)}, the IR says ${tensorType(aval)}`);
  };
  program.inputs.forEach((v) => expect(v.id, v.aval, "input"));
  program.consts.forEach((c) => expect(c.v.id, c.v.aval, "const"));
  program.eqns.forEach((e) => (e.outs ?? [e.out]).forEach((o) => expect(o.id, o.aval, `${e.prim} result`)));
  program.outputs.forEach((v, j) => {
    if (resultTypes[j] !== tensorType(v.aval))
      problems.push(`output ${j} is declared ${resultTypes[j]}, the IR says ${tensorType(v.aval)}`);
  });
  return problems;
}
