// The persistent compilation cache on XLA's CPU plugin (the xla-cpu-pjrt wheel): a compile writes the
// plugin's serialized executable, another process loads it instead of compiling and computes the same
// values, a changed program gets its own entry, a damaged entry is reported once and replaced, and the
// environment's settings are checked by name.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createXlaExecutor } from "../../../src/exec/xla/index.js";
import { compilationCacheFromEnv } from "../../../src/exec/xla/compilation-cache.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../../helpers/xla-cpu-plugin.js";
import { run } from "./compilation-cache-run.js";
import { tempDir } from "../../helpers/temp-dir.js";

const skip = xlaCpuSkip;
const root = tempDir("kiln-compile-cache-");

const entries = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".pjrt"));

test("a compile is written, and another process loads it instead of compiling, with the same values", { skip }, async () => {
  const dir = join(root, "two-processes");
  const first = createXlaExecutor({ pluginPath: xlaCpuPluginPath(), compilationCache: { dir, minCompileSeconds: 0 } });
  const values = await run(first, 16);
  assert.deepEqual(first.compilationCacheStats(), { hits: 0, misses: 1, written: 1 });
  assert.equal(entries(dir).length, 1);
  first.close();

  // A new process, the cache named by the environment as a user would.
  const child = spawnSync(process.execPath, [fileURLToPath(new URL("./compilation-cache-run.js", import.meta.url))], {
    encoding: "utf8",
    env: { ...process.env, KILN_COMPILATION_CACHE_DIR: dir, KILN_COMPILATION_CACHE_MIN_COMPILE_S: "0", NODE_TEST_CONTEXT: "" },
  });
  assert.equal(child.status, 0, child.stderr);
  const report = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { stats: unknown; values: number[] };
  assert.deepEqual(report.stats, { hits: 1, misses: 0, written: 0 });
  assert.deepEqual(report.values, values);

  // Another program is another entry.
  const again = createXlaExecutor({ pluginPath: xlaCpuPluginPath(), compilationCache: { dir, minCompileSeconds: 0 } });
  await run(again, 24);
  assert.deepEqual(again.compilationCacheStats(), { hits: 0, misses: 1, written: 1 });
  assert.equal(entries(dir).length, 2);
  again.close();
});

test("a damaged entry is reported once, compiled again and replaced; short compiles are not written", { skip }, async () => {
  const dir = join(root, "damaged");
  const writer = createXlaExecutor({ pluginPath: xlaCpuPluginPath(), compilationCache: { dir, minCompileSeconds: 0 } });
  const values = await run(writer, 16);
  writer.close();
  const [entry] = entries(dir);
  writeFileSync(join(dir, entry!), "not an executable");
  const warnings: string[] = [];
  const onWarning = (w: Error & { code?: string }) => void (w.code === "KILN_COMPILATION_CACHE" && warnings.push(w.message));
  process.on("warning", onWarning);
  try {
    const reader = createXlaExecutor({ pluginPath: xlaCpuPluginPath(), compilationCache: { dir, minCompileSeconds: 0 } });
    assert.deepEqual(await run(reader, 16), values);
    assert.deepEqual(reader.compilationCacheStats(), { hits: 0, misses: 1, written: 1 });
    reader.close();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off("warning", onWarning);
  }
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /the cached executable .*\.pjrt could not be loaded \(.*\); compiling again and replacing it/);
  const reread = createXlaExecutor({ pluginPath: xlaCpuPluginPath(), compilationCache: { dir, minCompileSeconds: 0 } });
  assert.deepEqual(await run(reread, 16), values);
  assert.deepEqual(reread.compilationCacheStats(), { hits: 1, misses: 0, written: 0 });
  reread.close();

  // Compiles under the threshold (default 1 s; these take milliseconds) are left out.
  const quick = join(root, "quick");
  const skipping = createXlaExecutor({ pluginPath: xlaCpuPluginPath(), compilationCache: { dir: quick } });
  await run(skipping, 16);
  assert.deepEqual(skipping.compilationCacheStats(), { hits: 0, misses: 1, written: 0 });
  skipping.close();
});

test("the environment's settings: unset is no cache, a bad threshold is refused by name", () => {
  assert.equal(compilationCacheFromEnv({}), undefined);
  assert.deepEqual(compilationCacheFromEnv({ KILN_COMPILATION_CACHE_DIR: "/tmp/c" }), { dir: "/tmp/c" });
  assert.deepEqual(compilationCacheFromEnv({ KILN_COMPILATION_CACHE_DIR: "/tmp/c", KILN_COMPILATION_CACHE_MIN_COMPILE_S: "2.5" }), {
    dir: "/tmp/c",
    minCompileSeconds: 2.5,
  });
  assert.throws(
    () => compilationCacheFromEnv({ KILN_COMPILATION_CACHE_DIR: "/tmp/c", KILN_COMPILATION_CACHE_MIN_COMPILE_S: "soon" }),
    /KILN_COMPILATION_CACHE_MIN_COMPILE_S must be a number of seconds ≥ 0, got "soon"/,
  );
});
