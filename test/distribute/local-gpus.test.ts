import { test } from "node:test";
import assert from "node:assert/strict";
import { localGpuOrdinals } from "../../src/distribute/local-gpus.js";

const host = (rank: number, size: number, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  KILN_LOCAL_RANK: String(rank),
  KILN_LOCAL_WORLD_SIZE: String(size),
  ...extra,
});

test("each of a host's processes takes its own GPU: local rank r takes GPU r", () => {
  assert.deepEqual(
    [0, 1, 2, 3].map((r) => localGpuOrdinals(host(r, 4), "auto")),
    [[0], [1], [2], [3]],
  );
});

test("devices: n per process takes n consecutive GPUs", () => {
  assert.deepEqual(localGpuOrdinals(host(0, 2), 4), [0, 1, 2, 3]);
  assert.deepEqual(localGpuOrdinals(host(1, 2), 4), [4, 5, 6, 7]);
});

test("one process on the host, CUDA_VISIBLE_DEVICES, or a list of indices: the process takes what CUDA shows", () => {
  assert.equal(localGpuOrdinals({}, "auto"), undefined);
  assert.equal(localGpuOrdinals(host(0, 1), 2), undefined);
  assert.equal(localGpuOrdinals(host(1, 2, { CUDA_VISIBLE_DEVICES: "0" }), "auto"), undefined);
  assert.equal(localGpuOrdinals(host(1, 2), [0]), undefined);
});

test("a local rank outside the host's process count is refused naming both variables", () => {
  assert.throws(() => localGpuOrdinals(host(2, 2), "auto"), /KILN_LOCAL_RANK=2 is not below KILN_LOCAL_WORLD_SIZE=2/);
  assert.throws(() => localGpuOrdinals({ KILN_LOCAL_WORLD_SIZE: "two" }, "auto"), /KILN_LOCAL_WORLD_SIZE must be a whole number/);
});
