// The emitted StableHLO of every primitive and of a training step, pinned by golden files and read
// back by a checker (SSA values defined before use, types as the IR says). Regenerate the goldens
// after an intended change with KILN_UPDATE_GOLDEN=1 and review the diff.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../../src/index.js";
import { lowerToStableHlo, STABLEHLO_LOWERINGS } from "../../../src/exec/xla/stablehlo/lower.js";
import { checkStableHlo } from "../../helpers/stablehlo-check.js";
import { repoRoot } from "../../helpers/repo-paths.js";
import { loweringCases } from "./lowering-cases.js";
import { hasHalfPrecisionProducts } from "../../../src/exec/xla/stablehlo/rules/reduce.js";

const goldenDir = join(repoRoot(), "test", "exec", "xla", "golden");
const update = process.env.KILN_UPDATE_GOLDEN === "1";
const cases = loweringCases();

for (const c of cases) {
  test(`StableHLO of ${c.name} matches its golden file and reads back consistently`, () => {
    const lowered = lowerToStableHlo(c.program, c.options);
    assert.deepEqual(checkStableHlo(lowered.text, c.program, lowered.ssa), []);
    const file = join(goldenDir, `${c.name}.mlir`);
    if (update) {
      mkdirSync(goldenDir, { recursive: true });
      writeFileSync(file, lowered.text);
    }
    assert.ok(existsSync(file), `missing golden ${file}: run the tests with KILN_UPDATE_GOLDEN=1 once`);
    assert.equal(lowered.text, readFileSync(file, "utf8"));
  });
}

test("the golden cases cover every primitive", () => {
  const covered = new Set(cases.flatMap((c) => c.program.eqns.map((e) => e.prim)));
  const missing = (Object.keys(STABLEHLO_LOWERINGS) as k.Prim[]).filter((p) => !covered.has(p));
  assert.deepEqual(missing, []);
});

test("the checker catches a use before definition and a type that disagrees with the IR", () => {
  const c = cases.find((x) => x.name === "add")!;
  const { text, ssa } = lowerToStableHlo(c.program);
  const swapped = text.replace(/"stablehlo.add"\(%arg0, %arg1\)/, `"stablehlo.add"(%arg0, %9)`);
  assert.match(checkStableHlo(swapped, c.program, ssa).join("\n"), /%9 is used before it is defined/);
  const retyped = text.replace("-> tensor<2x3xi32>", "-> tensor<2x3xf32>");
  assert.match(checkStableHlo(retyped, c.program, ssa).join("\n"), /the IR says tensor<2x3xi32>|used as/);
});

test("a bf16 product's left operand contracts over its last dimensions: a transpose first where it does not", () => {
  const lower = (f: (a: k.Array, b: k.Array) => k.Array, a: number[], b: number[]) =>
    lowerToStableHlo(k.jit(f).lower(k.zeros(a, "bf16"), k.zeros(b, "bf16"))).text;
  const dots = (text: string) => text.split("\n").filter((l) => l.includes("stablehlo.dot_general") || l.includes("stablehlo.transpose"));
  // Attention's value gradient, Pᵀ·dO over the query axis: [b, h, q, k] and [b, h, q, d] → [b, h, k, d].
  const valueGradient = dots(lower((p, g) => k.einsum("bhqk,bhqd->bhkd", p, g), [2, 3, 5, 7], [2, 3, 5, 4]));
  assert.match(
    valueGradient[0]!,
    /stablehlo.transpose.*permutation = array<i64: 0, 1, 3, 2>.*tensor<2x3x5x7xbf16>\) -> tensor<2x3x7x5xbf16>/,
  );
  assert.match(
    valueGradient[1]!,
    /lhs_batching_dimensions = \[0, 1\].*lhs_contracting_dimensions = \[3\], rhs_contracting_dimensions = \[2\]/,
  );
  // f32 products stay as they are (XLA:CPU's Eigen f32 kernels are fast; the copies would not pay).
  const f32 = k.jit((p: k.Array, g: k.Array) => k.einsum("bhqk,bhqd->bhkd", p, g)).lower(k.zeros([2, 3, 5, 7]), k.zeros([2, 3, 5, 4]));
  assert.ok(!lowerToStableHlo(f32).text.includes("stablehlo.transpose"));
  assert.equal(hasHalfPrecisionProducts(f32), false);
  assert.equal(
    hasHalfPrecisionProducts(k.jit((p: k.Array, g: k.Array) => p.matmul(g)).lower(k.zeros([2, 2], "bf16"), k.zeros([2, 2], "bf16"))),
    true,
  );
  // Already laid out (x · W, x · Wᵀ): no transpose.
  for (const f of [(x: k.Array, w: k.Array) => x.matmul(w), (x: k.Array, w: k.Array) => k.einsum("mk,nk->mn", x, w)])
    assert.deepEqual(
      dots(lower(f, [4, 6], [6, 6])).map((l) => l.includes("transpose")),
      [false],
    );
});
