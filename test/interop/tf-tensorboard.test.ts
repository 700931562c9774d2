// Kiln's TensorBoard event files read by TensorBoard 2.21 itself, from a real short training run with
// evaluation: every scalar that metrics.jsonl holds is there, with its step and (float32) value, at a
// plausible wall time, with no tag missing or extra, both in EventAccumulator and on the path the
// scalars dashboard reads (test/python/tf_tensorboard.py).
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pinnedVersion, pythonSkip, runPython } from "../helpers/python.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";

/** [wall_time, step, value]; a value JSON has no number for is a string ("nan", "inf"). */
type Point = [number, number, number | string];

interface TensorBoardView {
  tensorboard: string;
  accumulator: { file_version: number | null; scalars: Record<string, Point[]>; other_tags: Record<string, unknown> };
  dashboard: Record<string, Record<string, { max_step: number; points: Point[] }>>;
}

/** The points metrics.jsonl holds, by tag, in logging order: [time, step, value]. */
function jsonlPoints(path: string): Map<string, Point[]> {
  const byTag = new Map<string, Point[]>();
  for (const line of readFileSync(path, "utf8").trim().split("\n")) {
    const { step, time, ...metrics } = JSON.parse(line) as Record<string, number | null>;
    for (const [tag, value] of Object.entries(metrics)) {
      const points = byTag.get(tag) ?? [];
      points.push([time!, step!, value === null ? "nan" : value]);
      byTag.set(tag, points);
    }
  }
  return byTag;
}

/** The float32 a logged number becomes in the event file, as TensorBoard hands it back. */
function asFloat32(v: number | string): number | string {
  return typeof v === "number" ? Math.fround(v) : v;
}

function assertSamePoints(what: string, got: Point[], expected: Point[], started: number, ended: number): void {
  assert.deepEqual(
    got.map(([, step, value]) => [step, value]),
    expected.map(([, step, value]) => [step, asFloat32(value)]),
    `${what}: steps and values`,
  );
  got.forEach(([wall], i) => {
    assert.ok(wall >= started && wall <= ended, `${what}: wall time ${wall} outside the run (${started}…${ended})`);
    const logged = expected[i]![0];
    assert.ok(Math.abs(wall - logged) < 1, `${what}: wall time ${wall} vs the time metrics.jsonl logged, ${logged}`);
    if (i > 0) assert.ok(wall >= got[i - 1]![0], `${what}: wall times go back at point ${i}`);
  });
}

test(
  "TensorBoard 2.21 reads every scalar of a training run's event files: tags, steps, values, wall times",
  { skip: pythonSkip },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "kiln-tensorboard-"));
    const data = join(dir, "data");
    const evalData = join(dir, "eval");
    await writeTinyShards(data);
    await writeTinyShards(evalData, 16);
    const out = join(dir, "out");
    const started = Date.now() / 1000;
    await trainTiny(data, out, 4, { evalDir: evalData, trainer: { evalEvery: 2 } });
    const ended = Date.now() / 1000;

    const runs = join(out, "runs");
    assert.equal(readdirSync(runs).filter((n) => n.startsWith("events.out.tfevents.")).length, 1);
    const expected = jsonlPoints(join(out, "metrics.jsonl"));
    for (const tag of ["loss", "accuracy", "eval_loss", "eval_accuracy"]) assert.ok(expected.has(tag), `metrics.jsonl has no ${tag}`);
    assert.deepEqual(
      expected.get("eval_loss")!.map(([, step]) => step),
      [2, 4],
    );

    const tb = runPython<TensorBoardView>("tf_tensorboard.py", [runs]);
    assert.equal(tb.tensorboard, pinnedVersion("tensorboard"));
    const tags = [...expected.keys()].sort();

    // EventAccumulator.
    assert.equal(tb.accumulator.file_version, 2, "the file_version event (brain.Event:2)");
    assert.deepEqual(Object.keys(tb.accumulator.scalars).sort(), tags, "scalar tags: EventAccumulator vs metrics.jsonl");
    assert.deepEqual(tb.accumulator.other_tags, {}, "no tags of other kinds");
    for (const tag of tags) assertSamePoints(`EventAccumulator ${tag}`, tb.accumulator.scalars[tag]!, expected.get(tag)!, started, ended);

    // The scalars dashboard: the log directory itself is the run ".".
    assert.deepEqual(Object.keys(tb.dashboard), ["."]);
    const dashboard = tb.dashboard["."]!;
    assert.deepEqual(Object.keys(dashboard).sort(), tags, "scalar tags: the scalars dashboard vs metrics.jsonl");
    for (const tag of tags) {
      const points = expected.get(tag)!;
      assert.equal(dashboard[tag]!.max_step, Math.max(...points.map(([, step]) => step)));
      assertSamePoints(`dashboard ${tag}`, dashboard[tag]!.points, points, started, ended);
    }
  },
);
