// The cpu-host-memory test's child process (glibc's malloc settings are the process's): on the plugin
// built from jaxlib 0.11's XLA, with cpuReuseMemory as argv[2] says ("on" or "off"), runs three times a
// program whose working memory is one 128 MiB block (the product a·b, [4096, 8] · [8, 8192] in f32, which
// its sum reads back), and prints a JSON line: the sums, the reference interpreter's, and glibc's
// mallinfo2 figures afterwards (the main arena's free bytes, and the bytes in mmapped blocks).
import "../../../src/exec/native-stacks.js";
import koffi from "koffi";
import * as k from "../../../src/index.js";
import { createXlaExecutor } from "../../../src/exec/xla/index.js";
import { jaxlibCpuPluginPath } from "../../helpers/xla-cpu-plugin.js";

const reuse = process.argv[2] === "on";
const ref = k.refExecutor.devices()[0]!;
const a = k.array(
  Float32Array.from({ length: 4096 * 8 }, (_, i) => Math.sin(i * 0.37)),
  { shape: [4096, 8], device: ref },
);
const b = k.array(
  Float32Array.from({ length: 8 * 8192 }, (_, i) => Math.cos(i * 0.11)),
  { shape: [8, 8192], device: ref },
);
const sumOfProduct = (x: k.Array, y: k.Array) => [x.matmul(y).square().sum()];
const lowered = k.jit(sumOfProduct, { name: "sum_of_product", device: ref }).lower(a, b);
const expected = Number(k.jit(sumOfProduct, { device: ref })(a, b)[0]!.dataSync()[0]);
const xla = createXlaExecutor({ pluginPath: jaxlibCpuPluginPath(), cpuReuseMemory: reuse });
const dev = xla.devices()[0]!;
const program = xla.compile(lowered);
const inputs = [xla.fromHost(a.dataSync(), lowered.inputs[0]!.aval, dev), xla.fromHost(b.dataSync(), lowered.inputs[1]!.aval, dev)];
const sums: number[] = [];
for (let run = 0; run < 3; run++) {
  const [outs] = program.execute([inputs]);
  sums.push(Number((await outs![0]!.toHost())[0]));
  for (const out of outs!) out.dispose();
}
const MallInfo2 = koffi.struct("mallinfo2", {
  arena: "size_t",
  ordblks: "size_t",
  smblks: "size_t",
  hblks: "size_t",
  hblkhd: "size_t",
  usmblks: "size_t",
  fsmblks: "size_t",
  uordblks: "size_t",
  fordblks: "size_t",
  keepcost: "size_t",
});
const mallinfo2 = koffi.load("libc.so.6").func("mallinfo2", MallInfo2, []) as () => Record<string, number>;
const info = mallinfo2();
console.log(JSON.stringify({ reuse, sums, expected, freeInArena: Number(info.fordblks), mmapped: Number(info.hblkhd) }));
