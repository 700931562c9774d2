// Which library XLA:CPU hands a program's bf16/f16 products to. XLA (jaxlib 0.11's, the
// lammps-jax-pjrt-cpu plugin) puts them in YNNPACK fusions by default; with its oneDNN options each
// product is a oneDNN matmul instead, and oneDNN runs bf16 on AMX tiles where the CPU has them. On an
// Intel Xeon with AMX (2 cores, contenders taking turns) the bf16-mixed training step went from 7,050 to
// 10,368 tokens/s for mlm-small and from 6,398 to 7,578 for llama-small. Without AMX YNNPACK is kept:
// it is what made bf16-mixed 1.48× f32 on an AMD EPYC (Zen 5), where oneDNN was not measured.
// f32 products stay in YNNPACK (oneDNN measured no faster there). Either way YNNPACK takes its products in
// dot fusions (cpuCompileOptions).
import { readFileSync } from "node:fs";

/** A library for half-precision products on XLA's CPU plugin. */
export type CpuDotLibrary = "onednn" | "ynnpack";

export const CPU_DOT_LIBRARIES: readonly CpuDotLibrary[] = ["onednn", "ynnpack"];

/** The environment variable that names the library, over the choice by CPU. */
export const CPU_DOT_LIBRARY_ENV = "KILN_XLA_CPU_DOTS";

/** The CPU's feature flags as Linux lists them (empty elsewhere, or where /proc/cpuinfo cannot be read). */
export function cpuFeatureFlags(cpuinfo?: string): ReadonlySet<string> {
  let text = cpuinfo;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return new Set();
    }
  }
  const line = /^flags\s*:(.*)$/m.exec(text);
  return new Set(line ? line[1]!.trim().split(/\s+/) : []);
}

/**
 * The library for this process: KILN_XLA_CPU_DOTS when set (refused unless it names one), else oneDNN
 * where the CPU has AMX's bf16 tiles, else YNNPACK.
 */
export function cpuDotLibrary(env: NodeJS.ProcessEnv = process.env, flags: ReadonlySet<string> = cpuFeatureFlags()): CpuDotLibrary {
  const named = env[CPU_DOT_LIBRARY_ENV]?.trim().toLowerCase();
  if (named) {
    if ((CPU_DOT_LIBRARIES as readonly string[]).includes(named)) return named as CpuDotLibrary;
    throw new Error(`${CPU_DOT_LIBRARY_ENV} must be ${CPU_DOT_LIBRARIES.join(" or ")}, got "${env[CPU_DOT_LIBRARY_ENV]}"`);
  }
  return flags.has("amx_bf16") ? "onednn" : "ynnpack";
}

/**
 * YNNPACK takes products together with the adds around them ("dot" fusions: the three products of a
 * backward pass's input gradient and their sum are one YNNPACK subgraph) instead of one product at a
 * time, XLA's default ("individual_dot"). On an Intel Xeon without AMX (2 cores, taking turns), llama-small's
 * training step went from 3,835 to 4,861 tokens/s in f32 and from 3,721-3,835 to 4,550-4,559 in
 * bf16-mixed, mlm-small's bf16-mixed step from 5,056-5,226 to 5,931-6,448; mlm-small's f32 step moved
 * within the noise (5,966 median against 5,746).
 */
const YNN_DOT_FUSIONS = { xla_cpu_experimental_ynn_fusion_type: "LIBRARY_FUSION_TYPE_DOT" } as const;

/**
 * XLA debug options for a program on a CPU plugin: `halfPrecision` when it has 16-bit products (the
 * lowering's LowerOptions for it: leadingSumsAsProducts), whose products go to `library`; f32 products
 * always run in YNNPACK, in its dot fusions (above). Programs with 16-bit products also get:
 * - the products' layout kept for the library: transpose-folding would fold the lowering's transposes
 *   back into the dots, and a folded one runs in Eigen's scalar bf16 loops (1.9× on mlm-small's step);
 * - no tree_reduction_rewriter: it splits every long reduction into reduce-windows, which take no
 *   producers, so a causal LM's head wrote its f32 logits, NaN flags, label select and exponentials out as
 *   [4064, 8192] arrays and read them back. Without it the head's cross-entropy fuses into 4 loops over the
 *   bf16 logits (its value and gradient 229 → 138 ms). Sums over leading axes, which the pass made fast,
 *   are lowered as products by ones instead.
 * oneDNN also needs YNNPACK's fusions turned off, or they take the products first.
 */
export function cpuCompileOptions(library: CpuDotLibrary, halfPrecision: boolean): Readonly<Record<string, string | boolean>> {
  if (!halfPrecision) return YNN_DOT_FUSIONS;
  const layout = { xla_disable_hlo_passes: "transpose-folding,tree_reduction_rewriter" };
  if (library === "ynnpack") return { ...layout, ...YNN_DOT_FUSIONS };
  return { ...layout, xla_cpu_use_onednn: true, xla_cpu_experimental_onednn_custom_call: true, xla_cpu_experimental_ynn_fusion_type: "" };
}
