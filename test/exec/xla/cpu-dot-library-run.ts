// The cpu-dot-library test's child process (XLA reads XLA_FLAGS, which dumps the compiled program, once
// per process): a bf16 product y = x·W ([256, 512] · [512, 256]) and y's sum over its rows (a sum over a
// leading axis, lowered as a product by ones) on the plugin built from jaxlib 0.11's XLA, its library
// named by argv[2], the compilation cache from the environment as a user sets it; prints a JSON line of
// the largest error of each against the reference interpreter, in bf16 units at each element, and the
// cache's stats.
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
const xla = createXlaExecutor({ pluginPath: jaxlibCpuPluginPath(), cpuDotLibrary: library });
const dev = xla.devices()[0]!;
const [outs] = xla
  .compile(lowered)
  .execute([[xla.fromHost(x.dataSync(), lowered.inputs[0]!.aval, dev), xla.fromHost(w.dataSync(), lowered.inputs[1]!.aval, dev)]]);
const worstUnits = await Promise.all(
  outs!.map(async (out, o) => {
    const shape = lowered.outputs[o]!.aval.shape;
    const got = k
      .array((await out.toHost()) as Uint16Array, { shape: [...shape], dtype: "bf16", device: ref })
      .astype("f32")
      .dataSync();
    let worst = 0;
    for (let i = 0; i < got.length; i++) {
      const e = Number(expected[o]![i]);
      const unit = 2 ** (Math.floor(Math.log2(Math.max(Math.abs(e), 2 ** -20))) - 7);
      worst = Math.max(worst, Math.abs(Number(got[i]) - e) / unit);
    }
    return worst;
  }),
);
console.log(JSON.stringify({ library: xla.dotLibrary, worstUnits, cache: xla.compilationCacheStats() }));
xla.close();
