// The best f32 matmul rate Kiln reaches on a device (1024³, made on the device, best of 20): the
// denominator of the MFU a benchmark reports, as `kiln bench train` measures it.
import * as k from "../../src/index.js";

export async function matmulPeakGflops(device: k.Device): Promise<number> {
  const n = 1024;
  const ones = k.jit(() => k.ones([n, n], "f32"), { name: "peak_ones", device });
  const a = ones(),
    b = ones();
  const mm = k.jit((x: k.Array, y: k.Array) => x.matmul(y), { name: "peak_matmul", device });
  let best = 0;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await mm(a, b).ready();
    const s = (performance.now() - t0) / 1000;
    if (i > 0) best = Math.max(best, (2 * n ** 3) / s / 1e9);
  }
  return best;
}
