// Which library runs half-precision products on XLA's CPU plugin: the choice by CPU and by
// KILN_XLA_CPU_DOTS, and, on the plugin built from jaxlib 0.11's XLA (lammps-jax-pjrt-cpu), that each
// choice compiles a bf16 product into that library's kernel (read from XLA's dump of the optimized
// program, in a child process) and computes it within bf16 rounding of the reference interpreter; and
// that f32 products summed are one YNNPACK fusion.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CpuDotLibrary } from "../../../src/exec/xla/index.js";
import { cpuCompileOptions, cpuDotLibrary, cpuFeatureFlags } from "../../../src/exec/xla/cpu-dot-library.js";
import { xlaCpuSkip } from "../../helpers/xla-cpu-plugin.js";
import { tempDir } from "../../helpers/temp-dir.js";

const CPUINFO = `processor\t: 0
vendor_id\t: GenuineIntel
flags\t\t: fpu vme avx512f avx512_bf16 amx_bf16 amx_tile amx_int8
processor\t: 1
flags\t\t: fpu vme avx512f avx512_bf16 amx_bf16 amx_tile amx_int8
`;

test("the CPU's flags come from /proc/cpuinfo's first flags line", () => {
  const flags = cpuFeatureFlags(CPUINFO);
  assert.ok(flags.has("amx_bf16") && flags.has("avx512_bf16") && flags.has("fpu"));
  assert.equal(flags.size, 7);
  assert.equal(cpuFeatureFlags("processor : 0\n").size, 0);
});

test("oneDNN where the CPU has AMX, YNNPACK elsewhere, and KILN_XLA_CPU_DOTS over both", () => {
  const amx = cpuFeatureFlags(CPUINFO);
  const zen5 = new Set(["avx512f", "avx512_bf16"]);
  assert.equal(cpuDotLibrary({}, amx), "onednn");
  assert.equal(cpuDotLibrary({}, zen5), "ynnpack");
  assert.equal(cpuDotLibrary({}, new Set()), "ynnpack");
  assert.equal(cpuDotLibrary({ KILN_XLA_CPU_DOTS: "ynnpack" }, amx), "ynnpack");
  assert.equal(cpuDotLibrary({ KILN_XLA_CPU_DOTS: " oneDNN " }, zen5), "onednn");
  assert.equal(cpuDotLibrary({ KILN_XLA_CPU_DOTS: "" }, amx), "onednn");
  assert.throws(() => cpuDotLibrary({ KILN_XLA_CPU_DOTS: "mkl" }, amx), /KILN_XLA_CPU_DOTS must be onednn or ynnpack, got "mkl"/);
});

test("16-bit products: their layout kept, no tree reduction rewriter; YNNPACK takes products in dot fusions, f32 ones always", () => {
  const layout = { xla_disable_hlo_passes: "transpose-folding,tree_reduction_rewriter" };
  assert.deepEqual(cpuCompileOptions("ynnpack", true), { ...layout, xla_cpu_experimental_ynn_fusion_type: "LIBRARY_FUSION_TYPE_DOT" });
  assert.deepEqual(cpuCompileOptions("onednn", true), {
    ...layout,
    xla_cpu_use_onednn: true,
    xla_cpu_experimental_onednn_custom_call: true,
    xla_cpu_experimental_ynn_fusion_type: "",
  });
  for (const library of ["ynnpack", "onednn"] as const)
    assert.deepEqual(cpuCompileOptions(library, false), { xla_cpu_experimental_ynn_fusion_type: "LIBRARY_FUSION_TYPE_DOT" });
});

/** The child's compiled program (XLA's dump after optimization) and its report. */
function compileInChild(library: CpuDotLibrary, root: string) {
  const dump = join(root, `dump-${library}`);
  const child = spawnSync(process.execPath, [fileURLToPath(new URL("./cpu-dot-library-run.js", import.meta.url)), library], {
    encoding: "utf8",
    env: {
      ...process.env,
      XLA_FLAGS: `--xla_dump_to=${dump} --xla_dump_hlo_as_text --xla_dump_hlo_module_re=bf16_product|f32_products`,
      KILN_COMPILATION_CACHE_DIR: join(root, "cache"),
      KILN_COMPILATION_CACHE_MIN_COMPILE_S: "0",
      NODE_TEST_CONTEXT: "",
    },
  });
  assert.equal(child.status, 0, `${library}: ${child.stderr}`);
  const report = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as {
    library: string;
    worstUnits: number[];
    f32Error: number;
    cache: { hits: number; misses: number; written: number };
  };
  const optimized = (name: string) => {
    const file = readdirSync(dump).find((f) => f.includes(name) && f.endsWith(".cpu_after_optimizations.txt"));
    assert.ok(file, `${library}: XLA dumped the optimized ${name} program in ${dump}`);
    return readFileSync(join(dump, file), "utf8");
  };
  return { report, program: optimized("bf16_product"), f32Program: optimized("f32_products") };
}

test(
  "on jaxlib 0.11's XLA each library runs the bf16 product, a sum over rows is a product by ones, " +
    "all within bf16 rounding; f32 products and their sum are one YNNPACK fusion; oneDNN's executables are not cached",
  { skip: xlaCpuSkip },
  () => {
    const root = tempDir("kiln-cpu-dots-");
    try {
      for (const library of ["onednn", "ynnpack"] as const) {
        const { report, program, f32Program } = compileInChild(library, root);
        assert.equal(report.library, library);
        const kernel = library === "onednn" ? 'custom_call_target="__onednn$matmul"' : "__ynn_fusion";
        const other = library === "onednn" ? "__ynn_fusion" : "__onednn$matmul";
        assert.ok(program.includes(kernel), `${library}: the compiled program calls ${kernel}`);
        assert.ok(!program.includes(other), `${library}: the compiled program does not call ${other}`);
        // Products of 512 terms and sums of 256 rows, accumulated in f32 and rounded once to bf16: within
        // 2 of bf16's units. oneDNN's row sum reads y rounded to bf16, as the reference does; YNNPACK's dot
        // fusion holds both products and may skip that rounding: then the sum is within 2 units of the
        // unrounded one, which is off the reference's by up to ~100 units here, y's rows cancelling.
        const [product, rowSum, unroundedRowSum] = report.worstUnits as [number, number, number];
        assert.ok(product <= 2, `${library}: the product is ${product} bf16 units from the reference`);
        const rowSumUnits = library === "onednn" ? rowSum : Math.min(rowSum, unroundedRowSum);
        assert.ok(
          rowSumUnits <= 2,
          `${library}: the sum over rows is ${rowSum} bf16 units from the reference, ${unroundedRowSum} from the unrounded sum`,
        );
        // No reduction split into reduce-windows, and the sum over rows a product by ones, not a reduce.
        assert.ok(!program.includes("reduce-window"), `${library}: the tree reduction rewriter is off`);
        assert.ok(!/ reduce\(/.test(program), `${library}: the sum over rows is not a reduce`);
        // a·W₁ + b·W₂ in f32: both products and their sum are one YNNPACK fusion (XLA's default makes one
        // per product and adds them in a loop of its own), within f32 rounding of the reference.
        assert.equal(f32Program.match(/kind=kCustom.*"__ynn_fusion"/g)?.length, 1, `${library}: one YNNPACK fusion\n${f32Program}`);
        assert.ok(report.f32Error < 1e-5, `${library}: the f32 products' sum is ${report.f32Error} (relative) from the reference`);
        // Serializing a oneDNN executable crashes XLA:CPU: it is compiled, not written.
        // (The f32 program, which calls no oneDNN, is written either way.)
        assert.deepEqual(report.cache, library === "onednn" ? { hits: 0, misses: 1, written: 1 } : { hits: 0, misses: 2, written: 2 });
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);
