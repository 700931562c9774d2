// The CUDA client's defaults and JAX's variables that change them (no GPU needed: the options as sent).
import test from "node:test";
import assert from "node:assert/strict";
import { cudaClientDefaults } from "../../../src/exec/xla/executor.js";

test("the CUDA client takes 75% of the GPU up front unless JAX's variables say otherwise", () => {
  assert.deepEqual(cudaClientDefaults({}), { platform_name: "cuda", preallocate: true, memory_fraction: 0.75 });
  assert.equal(cudaClientDefaults({ XLA_PYTHON_CLIENT_PREALLOCATE: "false" }).preallocate, false);
  assert.equal(cudaClientDefaults({ XLA_PYTHON_CLIENT_PREALLOCATE: "0" }).preallocate, false);
  assert.equal(cudaClientDefaults({ XLA_PYTHON_CLIENT_PREALLOCATE: "True" }).preallocate, true);
  assert.equal(cudaClientDefaults({ XLA_PYTHON_CLIENT_MEM_FRACTION: ".5" }).memory_fraction, 0.5);
});

test("a value of JAX's variables that means nothing is refused, naming the variable", () => {
  assert.throws(
    () => cudaClientDefaults({ XLA_PYTHON_CLIENT_PREALLOCATE: "no" }),
    /XLA_PYTHON_CLIENT_PREALLOCATE must be true or false, got "no"/,
  );
  assert.throws(
    () => cudaClientDefaults({ XLA_PYTHON_CLIENT_MEM_FRACTION: "75" }),
    /XLA_PYTHON_CLIENT_MEM_FRACTION must be a number in \(0, 1\], got "75"/,
  );
});
