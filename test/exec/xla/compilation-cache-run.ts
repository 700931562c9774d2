// A small program compiled and run on an XLA executor, for the compilation cache's test; run as a
// script, it is that test's second process: the cache from the environment (KILN_COMPILATION_CACHE_DIR),
// one run, and a JSON line of the cache's stats and the values.
import { pathToFileURL } from "node:url";
import * as k from "../../../src/index.js";
import { createXlaExecutor, type XlaExecutor } from "../../../src/exec/xla/index.js";
import { xlaCpuPluginPath } from "../../helpers/xla-cpu-plugin.js";

/** x·W + b through tanh, three times: a program with a few products, compiled for the executor's first device. */
function program(width: number) {
  const f = (x: k.Array, w: k.Array) => {
    let y = x;
    for (let i = 0; i < 3; i++) y = k.tanh(y.matmul(w).add(0.5));
    return y.sum(1);
  };
  const ref = k.refExecutor.devices()[0]!;
  const x = k.array(
    Float32Array.from({ length: 4 * width }, (_, i) => Math.sin(i)),
    { shape: [4, width], device: ref },
  );
  const w = k.array(
    Float32Array.from({ length: width * width }, (_, i) => Math.cos(i) / width),
    { shape: [width, width], device: ref },
  );
  return { lowered: k.jit(f, { name: `chain_${width}`, device: ref }).lower(x, w), x, w };
}

export async function run(xla: XlaExecutor, width: number): Promise<number[]> {
  const { lowered, x, w } = program(width);
  const exe = xla.compile(lowered);
  const dev = xla.devices()[0]!;
  const [[out]] = exe.execute([
    [xla.fromHost(x.dataSync(), lowered.inputs[0]!.aval, dev), xla.fromHost(w.dataSync(), lowered.inputs[1]!.aval, dev)],
  ]);
  return Array.from((await out!.toHost()) as Float32Array);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const xla = createXlaExecutor({ pluginPath: xlaCpuPluginPath() });
  const values = await run(xla, 16);
  console.log(JSON.stringify({ stats: xla.compilationCacheStats(), values }));
  xla.close();
}
