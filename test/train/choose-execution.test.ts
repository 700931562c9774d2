// Choosing who runs the CPU by measurement: a real probe of a tiny MLM's training step on ONNX Runtime
// and on XLA's CPU plugin (no stand-ins), its result cached and read back, probed again when the key
// differs or the file is damaged (with a warning), and no probe where there is nothing to choose.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import "../../src/index.js";
import { classifierConfig, presetConfig } from "../../src/models/index.js";
import { OptionError } from "../../src/core/option-error.js";
import { chooseCpuExecution, type CpuExecutionOptions } from "../../src/train/choose-execution.js";
import { PROBE_CACHE_FILE, readProbeCache } from "../../src/train/probe-cache.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { tempDir } from "../helpers/temp-dir.js";

const options = (cacheDir: string): CpuExecutionOptions => ({
  config: presetConfig("mlm-tiny", { vocabSize: 64, padId: 1, clsId: 0, sepId: 2 }, 16),
  batch: 2,
  maxLength: 16,
  pjrtPlugin: xlaCpuPluginPath(),
  cacheDir,
  // One timed round after each candidate's first step: the test is about the mechanism, not the figure.
  budget: { seconds: 0, minRounds: 1, maxRounds: 1 },
});

/** A module that chooses with `o` in a process of its own and prints the choice and whether XLA was loaded. */
function readCachedChoice(o: CpuExecutionOptions): string {
  const from = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  return `
    const k = await import(${from("../../src/index.js")});
    const { chooseCpuExecution } = await import(${from("../../src/train/choose-execution.js")});
    const c = await chooseCpuExecution(${JSON.stringify(o)});
    const xlaLoaded = k.availableExecutors().some((e) => e.name === "xla");
    console.log(JSON.stringify({ fromCache: c.fromCache, executor: c.executor, xlaLoaded }));`;
}

test(
  "a real probe times ONNX Runtime and XLA's CPU plugin, caches the result, and the next run reads it",
  { skip: xlaCpuSkip },
  async () => {
    const dir = tempDir("kiln-choose-");
    const notices: string[] = [];
    const first = await chooseCpuExecution({ ...options(dir), notice: (l) => notices.push(l) });
    assert.equal(first.fromCache, false);
    assert.deepEqual(
      first.timings.map((t) => `${t.executor} ${t.precision}`),
      ["ort 32", "xla 32"],
    );
    for (const t of first.timings) assert.ok(t.stepSeconds > 0 && t.compileSeconds > 0 && t.timedSteps === 1, JSON.stringify(t));
    assert.ok(["ort", "xla"].includes(first.executor));
    assert.equal(first.precision, "32");
    assert.ok(first.line.startsWith(`executor ${first.executor} (32): `), first.line);
    assert.match(first.line, /ort f32 \d+ ms/);
    assert.match(first.line, /xla f32 \d+ ms/);
    assert.ok(first.line.includes(`cached in ${join(dir, PROBE_CACHE_FILE)}`), first.line);
    assert.deepEqual(notices, [], "f32 only: nothing to warn about");

    const t0 = performance.now();
    const second = await chooseCpuExecution(options(dir));
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(second.fromCache, true);
    assert.equal(second.executor, first.executor);
    assert.equal(second.probedAt, first.probedAt);
    assert.deepEqual(second.timings, first.timings);
    assert.ok(seconds < 2, `read from the cache, nothing compiled: ${seconds} s`);

    // A new process reading the cache loads no XLA plugin (nor prints the plugin's start-up log): the
    // run loads the executor it was told to use, if that is XLA.
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", readCachedChoice(options(dir))], { encoding: "utf8" });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { fromCache: true, executor: first.executor, xlaLoaded: false });
    assert.equal(child.stderr, "");

    // Another key (here another Kiln version wrote the entry): probed again, both entries kept.
    const path = join(dir, PROBE_CACHE_FILE);
    const file = JSON.parse(readFileSync(path, "utf8"));
    file.entries[0].key.kiln = "0.0.0-older";
    writeFileSync(path, JSON.stringify(file));
    const third = await chooseCpuExecution(options(dir));
    assert.equal(third.fromCache, false);
    assert.notEqual(third.probedAt, first.probedAt);
    assert.equal((await readProbeCache(path)).entries.length, 2);
  },
);

test(
  "a classifier's shape is probed as a classifier (two layers, its classes) and cached apart from its language model's",
  { skip: xlaCpuSkip },
  async () => {
    const dir = tempDir("kiln-choose-classifier-");
    const lm = options(dir).config;
    const config = classifierConfig(lm, "the test's config", { numLabels: 3 });
    const classifier = await chooseCpuExecution({ ...options(dir), config });
    assert.equal(classifier.fromCache, false);
    assert.deepEqual(
      classifier.timings.map((t) => `${t.executor} ${t.precision}`),
      ["ort 32", "xla 32"],
    );
    assert.match(classifier.line, /per step of roberta classifier width 32, vocab 64, 2×16 tokens, 2 layers\b/);
    const [entry] = (await readProbeCache(join(dir, PROBE_CACHE_FILE))).entries;
    const shape = JSON.parse(entry!.key.shape) as Record<string, unknown>;
    assert.equal(shape.task, "sequence-classification");
    assert.equal(shape.num_labels, 3);
    // The language model of the same shape is another key: probed, not read from the classifier's entry.
    const language = await chooseCpuExecution(options(dir));
    assert.equal(language.fromCache, false);
    assert.match(language.line, /per step of roberta width 32, vocab 64, 2×16 tokens, 1 layer\b/);
    assert.equal((await chooseCpuExecution({ ...options(dir), config })).fromCache, true);
  },
);

test("a damaged cache file is reported once, probed again and replaced", { skip: xlaCpuSkip }, async () => {
  const dir = tempDir("kiln-choose-");
  const path = join(dir, PROBE_CACHE_FILE);
  writeFileSync(path, '{"version": 1, "entries": [{"key": ');
  const notices: string[] = [];
  const choice = await chooseCpuExecution({ ...options(dir), notice: (l) => notices.push(l) });
  assert.equal(choice.fromCache, false);
  assert.equal(notices.length, 1, notices.join("\n"));
  assert.ok(notices[0]!.includes(path) && notices[0]!.includes("not valid JSON") && notices[0]!.includes("probing again"), notices[0]);
  const cache = await readProbeCache(path);
  assert.equal(cache.problem, undefined);
  assert.equal(cache.entries.length, 1);
});

test(
  "one candidate is not probed: an executor named alone, or ONNX Runtime's emulated bf16 under precision auto",
  { skip: xlaCpuSkip },
  async () => {
    const dir = tempDir("kiln-choose-");
    const xla = await chooseCpuExecution({ ...options(dir), executors: ["xla"] });
    assert.deepEqual([xla.executor, xla.precision, xla.timings.length], ["xla", "32", 0]);
    const ort = await chooseCpuExecution({ ...options(dir), executors: ["ort"], precision: "auto" });
    assert.deepEqual([ort.executor, ort.precision, ort.timings.length], ["ort", "32", 0]);
    assert.match(ort.line, /emulated/);
    assert.equal(existsSync(join(dir, PROBE_CACHE_FILE)), false, "nothing measured, nothing cached");
  },
);

test("wrong options are refused in the library's words", { skip: xlaCpuSkip }, async () => {
  const dir = tempDir("kiln-choose-");
  for (const [bad, option] of [
    [{ precision: "fp8" }, "precision"],
    [{ batch: 0 }, "batch"],
    [{ executors: ["tpu"] }, "executors"],
    [{ executors: [] }, "executors"],
  ] as const) {
    await assert.rejects(
      chooseCpuExecution({ ...options(dir), ...(bad as object) }),
      (e: unknown) => e instanceof OptionError && e.message.includes(option) && !e.message.includes("--"),
    );
  }
});
