// The step of processes that train on GPUs/TPUs as one of several is compiled globally (compileGlobal:
// every process's devices; XLA's collectives sum across processes). With one process the global program
// is the local one, which XLA's CPU plugin runs: training through it (2 devices, and 1 device, the shape
// of each of 2 processes sharing one GPU) must give the losses of the ordinary compile, bit for bit.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { selectDevices } from "../../src/distribute/devices.js";
import { DataParallel } from "../../src/distribute/strategy.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { tempDir } from "../helpers/temp-dir.js";

for (const n of [2, 1]) {
  test(`a global step over ${n} XLA:CPU device${n > 1 ? "s" : ""} trains as the local one`, { skip: xlaCpuSkip }, async () => {
    const root = tempDir("kiln-global-step-");
    const data = join(root, "data");
    await writeTinyShards(data, 32);
    const devices = selectDevices({ accelerator: "cpu", executor: "xla", devices: n, pjrtPlugin: xlaCpuPluginPath() });
    const global = new DataParallel(devices, { global: true });
    assert.equal(global.global, true);
    const local = await trainTiny(data, join(root, "local"), 6, { batch: 4, trainer: { strategy: new DataParallel(devices) } });
    const viaGlobal = await trainTiny(data, join(root, "global"), 6, { batch: 4, trainer: { strategy: global } });
    assert.equal(viaGlobal.globalStep, 6);
    assert.deepEqual(
      viaGlobal.history.map((h) => h.loss),
      local.history.map((h) => h.loss),
    );
    assert.ok(local.history[0]!.loss !== local.history.at(-1)!.loss, "training moved the loss");
  });
}
