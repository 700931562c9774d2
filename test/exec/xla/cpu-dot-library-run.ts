// The cpu-dot-library test's child process (XLA reads XLA_FLAGS, which dumps the compiled program, once
// per process): a bf16 product y = x·W ([256, 512] · [512, 256]) and y's sum over its rows (a sum over a
// leading axis, lowered as a product by ones) on the plugin built from jaxlib 0.11's XLA, its library
// named by argv[2], the compilation cache from the environment as a user sets it; then an f32 program,
// a·W₁ + b·W₂; prints a JSON line of the largest error of each bf16 output against the reference
// interpreter (and of the sum against the sum of unrounded products), in bf16 units at each element,
// the f32 sum's largest error relative to its largest value, and the cache's stats.
import * as k from "../../../src/index.js";
import { createXlaExecutor, type CpuDotLibrary } from "../../../src/exec/xla/index.js";
import { jaxlibCpuPluginPath } from "../../helpers/xla-cpu-plugin.js";

const library = process.argv[2] as CpuDotLibrary;
const ref = k.refExecutor.devices()[0]!;
const values = (n: number, f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i));
const x = k
  .array(
    values(256 * 512, (i) => Math.sin(i * 0.37)),
    { shape: [256, 512], device: ref },
  )
  .astype("bf16");
const w = k
  .array(
    values(512 * 256, (i) => Math.cos(i * 0.11) / 16),
    { shape: [512, 256], device: ref },
  )
  .astype("bf16");
const product = (a: k.Array, b: k.Array) => {
  const y = a.matmul(b);
  return [y, y.sum(0)];
};
const lowered = k.jit(product, { name: `bf16_product_${library}`, device: ref }).lower(x, w);
const expected = k
  .jit(product, { device: ref })(x, w)
  .map((e) => e.astype("f32").dataSync());
// The sum over rows of the products kept in f32 (XLA's excess precision, which it allows by default: a
// fusion that holds both products need not round y to bf16 between them), rounded once.
const unroundedRowSum = k
  .jit((a: k.Array, b: k.Array) => a.astype("f32").matmul(b.astype("f32")).sum(0).astype("bf16").astype("f32"), { device: ref })(x, w)
  .dataSync();
const xla = createXlaExecutor({ pluginPath: jaxlibCpuPluginPath(), cpuDotLibrary: library });
const dev = xla.devices()[0]!;
const [outs] = xla
  .compile(lowered)
  .execute([[xla.fromHost(x.dataSync(), lowered.inputs[0]!.aval, dev), xla.fromHost(w.dataSync(), lowered.inputs[1]!.aval, dev)]]);
/** The largest distance of `got` from `want`, in bf16 units at each wanted value. */
const worstBf16Units = (got: ArrayLike<number | bigint>, want: ArrayLike<number | bigint>) => {
  let worst = 0;
  for (let i = 0; i < got.length; i++) {
    const e = Number(want[i]);
    const unit = 2 ** (Math.floor(Math.log2(Math.max(Math.abs(e), 2 ** -20))) - 7);
    worst = Math.max(worst, Math.abs(Number(got[i]) - e) / unit);
  }
  return worst;
};
const got = await Promise.all(
  outs!.map(async (out, o) =>
    k
      .array((await out.toHost()) as Uint16Array, { shape: [...lowered.outputs[o]!.aval.shape], dtype: "bf16", device: ref })
      .astype("f32")
      .dataSync(),
  ),
);
// The product against the reference; the sum over rows against the reference and the unrounded sum.
const worstUnits = [worstBf16Units(got[0]!, expected[0]!), worstBf16Units(got[1]!, expected[1]!), worstBf16Units(got[1]!, unroundedRowSum)];

const f32Values = (seed: number, n: number) => values(n, (i) => Math.sin(i * 0.13 + seed) / 8);
const f32Inputs = [f32Values(1, 128 * 256), f32Values(2, 256 * 64), f32Values(3, 128 * 96), f32Values(4, 96 * 64)];
const f32Shapes = [
  [128, 256],
  [256, 64],
  [128, 96],
  [96, 64],
];
const productsSum = (a: k.Array, w1: k.Array, b: k.Array, w2: k.Array) => a.matmul(w1).add(b.matmul(w2));
const [a, w1, b, w2] = f32Inputs.map((v, i) => k.array(v, { shape: f32Shapes[i]!, device: ref })) as [k.Array, k.Array, k.Array, k.Array];
const f32Lowered = k.jit(productsSum, { name: `f32_products_${library}`, device: ref }).lower(a, w1, b, w2);
const f32Expected = k.jit(productsSum, { device: ref })(a, w1, b, w2).dataSync() as Float32Array;
const [f32Outs] = xla.compile(f32Lowered).execute([f32Inputs.map((v, i) => xla.fromHost(v, f32Lowered.inputs[i]!.aval, dev))]);
const f32Got = (await f32Outs![0]!.toHost()) as Float32Array;
const f32Scale = f32Expected.reduce((m, e) => Math.max(m, Math.abs(e)), 0);
const f32Error = f32Got.reduce((m, g, i) => Math.max(m, Math.abs(g - f32Expected[i]!)), 0) / f32Scale;
console.log(JSON.stringify({ library: xla.dotLibrary, worstUnits, f32Error, cache: xla.compilationCacheStats() }));
xla.close();
