// Which library runs half-precision products on XLA's CPU plugin: the choice by CPU and by
// KILN_XLA_CPU_DOTS, and, on the plugin built from jaxlib 0.11's XLA (lammps-jax-pjrt-cpu), that each
// choice compiles a bf16 product into that library's kernel (read from XLA's dump of the optimized
// program, in a child process) and computes it within bf16 rounding of the reference interpreter.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CpuDotLibrary } from "../../../src/exec/xla/index.js";
import { cpuDotLibrary, cpuFeatureFlags, halfPrecisionCpuOptions } from "../../../src/exec/xla/cpu-dot-library.js";
import { xlaCpuSkip } from "../../helpers/xla-cpu-plugin.js";

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

test("both keep the products' layout and turn the tree reduction rewriter off; oneDNN's options turn YNNPACK's dot fusions off", () => {
  assert.deepEqual(halfPrecisionCpuOptions("ynnpack"), { xla_disable_hlo_passes: "transpose-folding,tree_reduction_rewriter" });
  assert.deepEqual(halfPrecisionCpuOptions("onednn"), {
    xla_disable_hlo_passes: "transpose-folding,tree_reduction_rewriter",
    xla_cpu_use_onednn: true,
    xla_cpu_experimental_onednn_custom_call: true,
    xla_cpu_experimental_ynn_fusion_type: "",
  });
});

/** The child's compiled program (XLA's dump after optimization) and its report. */
function compileInChild(library: CpuDotLibrary, root: string) {
  const dump = join(root, `dump-${library}`);
  const child = spawnSync(process.execPath, [fileURLToPath(new URL("./cpu-dot-library-run.js", import.meta.url)), library], {
    encoding: "utf8",
    env: {
      ...process.env,
      XLA_FLAGS: `--xla_dump_to=${dump} --xla_dump_hlo_as_text --xla_dump_hlo_module_re=bf16_product`,
      KILN_COMPILATION_CACHE_DIR: join(root, "cache"),
      KILN_COMPILATION_CACHE_MIN_COMPILE_S: "0",
      NODE_TEST_CONTEXT: "",
    },
  });
  assert.equal(child.status, 0, `${library}: ${child.stderr}`);
  const report = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as {
    library: string;
    worstUnits: number[];
    cache: { hits: number; misses: number; written: number };
  };
  const optimized = readdirSync(dump).find((f) => f.endsWith(".cpu_after_optimizations.txt"));
  assert.ok(optimized, `${library}: XLA dumped the optimized program in ${dump}`);
  return { report, program: readFileSync(join(dump, optimized), "utf8") };
}

test(
  "on jaxlib 0.11's XLA each library runs the bf16 product, a sum over rows is a product by ones, " +
    "all within bf16 rounding; oneDNN's executables are not cached",
  { skip: xlaCpuSkip },
  () => {
    const root = mkdtempSync(join(tmpdir(), "kiln-cpu-dots-"));
    try {
      for (const library of ["onednn", "ynnpack"] as const) {
        const { report, program } = compileInChild(library, root);
        assert.equal(report.library, library);
        const kernel = library === "onednn" ? 'custom_call_target="__onednn$matmul"' : "__ynn_fusion";
        const other = library === "onednn" ? "__ynn_fusion" : "__onednn$matmul";
        assert.ok(program.includes(kernel), `${library}: the compiled program calls ${kernel}`);
        assert.ok(!program.includes(other), `${library}: the compiled program does not call ${other}`);
        // Products of 512 terms and sums of 256 rows, accumulated in f32 and rounded once to bf16: within
        // 2 of bf16's units.
        const [product, rowSum] = report.worstUnits as [number, number];
        assert.ok(product <= 2, `${library}: the product is ${product} bf16 units from the reference`);
        assert.ok(rowSum <= 2, `${library}: the sum over rows is ${rowSum} bf16 units from the reference`);
        // No reduction split into reduce-windows, and the sum over rows a product by ones, not a reduce.
        assert.ok(!program.includes("reduce-window"), `${library}: the tree reduction rewriter is off`);
        assert.ok(!/ reduce\(/.test(program), `${library}: the sum over rows is not a reduce`);
        // Serializing a oneDNN executable crashes XLA:CPU: it is compiled, not written.
        assert.deepEqual(report.cache, library === "onednn" ? { hits: 0, misses: 0, written: 0 } : { hits: 0, misses: 1, written: 1 });
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);
