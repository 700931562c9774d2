// XLA's CPU clients keep the memory their programs free (cpu-host-memory.ts): the setting and its
// variable, and, on the plugin built from jaxlib 0.11's XLA (in child processes, since glibc's malloc
// settings are the process's), that a program's 128 MiB working block stays in the main arena after it
// ran, for the next run to take without the kernel zeroing it again, and that it does not when the reuse
// is off (the block was an mmap, unmapped on free).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cpuMemoryReuse, REUSING_CPU_CLIENT_OPTIONS } from "../../../src/exec/xla/cpu-host-memory.js";
import { createXlaExecutor } from "../../../src/exec/xla/index.js";
import { jaxlibCpuPluginPath, xlaCpuSkip } from "../../helpers/xla-cpu-plugin.js";

test("CPU clients reuse memory unless KILN_XLA_CPU_REUSE_MEMORY is 0; other values are refused", () => {
  assert.equal(cpuMemoryReuse({}), true);
  assert.equal(cpuMemoryReuse({ KILN_XLA_CPU_REUSE_MEMORY: "" }), true);
  assert.equal(cpuMemoryReuse({ KILN_XLA_CPU_REUSE_MEMORY: "1" }), true);
  assert.equal(cpuMemoryReuse({ KILN_XLA_CPU_REUSE_MEMORY: " 0 " }), false);
  assert.equal(cpuMemoryReuse({ KILN_XLA_CPU_REUSE_MEMORY: "false" }), false);
  assert.throws(() => cpuMemoryReuse({ KILN_XLA_CPU_REUSE_MEMORY: "yes" }), /KILN_XLA_CPU_REUSE_MEMORY must be 1 or 0, got "yes"/);
  assert.deepEqual(REUSING_CPU_CLIENT_OPTIONS, { asynchronous: false });
});

test("the option cpuReuseMemory takes true or false only, refused before a client exists", { skip: xlaCpuSkip }, () => {
  assert.throws(
    () => createXlaExecutor({ pluginPath: jaxlibCpuPluginPath(), cpuReuseMemory: "no" as unknown as boolean }),
    /XlaExecutor: cpuReuseMemory = "no" \(a string\) must be true or false/,
  );
});

const BLOCK = 4096 * 8192 * 4;

function runChild(setting: "on" | "off") {
  const child = spawnSync(process.execPath, [fileURLToPath(new URL("./cpu-host-memory-run.js", import.meta.url)), setting], {
    encoding: "utf8",
    env: { ...process.env, NODE_TEST_CONTEXT: "" },
  });
  assert.equal(child.status, 0, `${setting}: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { sums: number[]; expected: number; freeInArena: number; mmapped: number };
}

test("a program's working block stays in the heap for the next run, and is unmapped with the reuse off", { skip: xlaCpuSkip }, () => {
  const on = runChild("on"),
    off = runChild("off");
  for (const r of [on, off]) for (const s of r.sums) assert.ok(Math.abs(s - r.expected) <= 1e-5 * r.expected, `${s} against ${r.expected}`);
  assert.ok(on.freeInArena >= BLOCK, `on: ${on.freeInArena} free bytes in the main arena, fewer than the ${BLOCK}-byte block`);
  assert.ok(off.freeInArena < BLOCK, `off: ${off.freeInArena} free bytes in the main arena`);
});
