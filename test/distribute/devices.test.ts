// Choosing the executor: ONNX Runtime stays the CPU default, `executor: "xla"` takes XLA's CPU plugin
// with a client of as many devices as asked for, and `accelerator: "auto"` never takes a CPU plugin as
// an accelerator, even one named explicitly.
import test from "node:test";
import assert from "node:assert/strict";
import "../../src/index.js";
import { selectDevices } from "../../src/distribute/devices.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";

test("accelerator auto with a CPU plugin named: the CPU, on the executor chosen (ONNX Runtime by default)", { skip: xlaCpuSkip }, () => {
  const pjrtPlugin = xlaCpuPluginPath();
  const notices: string[] = [];
  const notice = (l: string) => void notices.push(l);
  const ort = selectDevices({ accelerator: "auto", devices: 2, pjrtPlugin, notice });
  assert.deepEqual(
    ort.map((d) => `${d.executor.name}:${d.id}`),
    ["ort:cpu:0", "ort:cpu:1"],
  );
  assert.match(notices[0]!, /no GPU\/TPU PJRT plugin found; using the CPU/);
  const xla = selectDevices({ accelerator: "auto", devices: 3, executor: "xla", pjrtPlugin, notice });
  assert.deepEqual(
    xla.map((d) => `${d.executor.name}:${d.id}`),
    ["xla:xla-cpu:0", "xla:xla-cpu:1", "xla:xla-cpu:2"],
  );
  // The client was made with exactly the devices asked for (cpu_device_count), not the plugin's default.
  assert.equal(xla[0]!.executor.devices().length, 3);
  assert.throws(
    () => selectDevices({ accelerator: "gpu", executor: "ort", pjrtPlugin }),
    /executor = "ort" \(a string\) runs only on the CPU; accelerator "gpu" always runs on XLA/,
  );
  assert.throws(() => selectDevices({ accelerator: "cpu", executor: "tvm" as "xla" }), /executor = "tvm" \(a string\) must be ort or xla/);
});
