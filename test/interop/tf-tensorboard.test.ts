// Kiln's TensorBoard event files read by TensorBoard 2.21 itself, from real short training runs with
// evaluation: every scalar that metrics.jsonl holds is there, with its step and (float32) value, at a
// plausible wall time, with no tag missing or extra, both in EventAccumulator and on the path the
// scalars dashboard reads; and a run resumed from a checkpoint shows each step once.
// One Python process (test/python/tf_tensorboard.py) reads both runs.
import test from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pinnedVersion, pythonSkip, runPython } from "../helpers/python.js";
import { trainTiny, writeTinyShards, type TinyOptions } from "../helpers/tiny-training.js";
import { LearningRateMonitor } from "../../src/train/callbacks.js";
import { tempDir } from "../helpers/temp-dir.js";

/** [wall_time, step, value]; a value JSON has no number for is a string ("nan", "inf"). */
type Point = [number, number, number | string];
type Points = Map<string, Point[]>;

interface LogdirView {
  accumulator: { file_version: number | null; scalars: Record<string, Point[]>; other_tags: Record<string, unknown> };
  dashboard: Record<string, Record<string, { max_step: number; points: Point[] }>>;
}
interface TensorBoardReport {
  tensorboard: string;
  logdirs: Record<string, LogdirView>;
}

const STEPS = 4;
/** Evaluation every 2 steps, and the learning rate logged by a callback. */
const OPTIONS: TinyOptions = { trainer: { evalEvery: 2 }, callbacks: [new LearningRateMonitor()] };

interface Run {
  /** The run's `runs/` directory. */
  logdir: string;
  /** What TensorBoard should show, by tag, from metrics.jsonl. */
  expected: Points;
  started: number;
  ended: number;
}

interface Shared {
  fresh: Run;
  resumed: Run;
  tb: TensorBoardReport;
}

let shared: Promise<Shared> | undefined;
const setup = () => (shared ??= build());

async function build(): Promise<Shared> {
  const dir = tempDir("kiln-tensorboard-");
  const data = join(dir, "data");
  const evalData = join(dir, "eval");
  await writeTinyShards(data);
  await writeTinyShards(evalData, 16);
  const out = join(dir, "out");
  const options = { ...OPTIONS, evalDir: evalData };

  const started = Date.now() / 1000;
  await trainTiny(data, out, STEPS, options);
  const ended = Date.now() / 1000;
  // A copy of the finished run, before it is resumed below.
  const freshDir = join(dir, "fresh");
  cpSync(join(out, "runs"), join(freshDir, "runs"), { recursive: true });
  cpSync(join(out, "metrics.jsonl"), join(freshDir, "metrics.jsonl"));
  const fresh = { logdir: join(freshDir, "runs"), expected: jsonlPoints(join(freshDir, "metrics.jsonl")), started, ended };

  // As if killed after logging its last steps but before their checkpoint: resumed from checkpoint-2,
  // it trains and logs steps 3 and 4 again.
  rmSync(join(out, `checkpoint-${STEPS}`), { recursive: true });
  const linesBefore = readFileSync(join(out, "metrics.jsonl"), "utf8").trim().split("\n").length;
  await trainTiny(data, out, STEPS, { ...options, resume: true });
  const resumedEnded = Date.now() / 1000;
  const resumed = {
    logdir: join(out, "runs"),
    expected: resumedPoints(join(out, "metrics.jsonl"), linesBefore),
    started,
    ended: resumedEnded,
  };

  const tb = runPython<TensorBoardReport>("tf_tensorboard.py", [fresh.logdir, resumed.logdir]);
  return { fresh, resumed, tb };
}

/** The points of metrics.jsonl lines (all, or from line `from`), by tag, in logging order. */
function jsonlPoints(path: string, from = 0, to = Infinity): Points {
  const byTag: Points = new Map();
  for (const line of readFileSync(path, "utf8").trim().split("\n").slice(from, to)) {
    const { step, time, ...metrics } = JSON.parse(line) as Record<string, number | null>;
    for (const [tag, value] of Object.entries(metrics)) {
      const points = byTag.get(tag) ?? [];
      points.push([time!, step!, value === null ? "nan" : value]);
      byTag.set(tag, points);
    }
  }
  return byTag;
}

/**
 * What a resumed run should show: the interrupted run's points before the first step the resumed run
 * logged, then the resumed run's points.
 */
function resumedPoints(path: string, linesBefore: number): Points {
  const before = jsonlPoints(path, 0, linesBefore);
  const after = jsonlPoints(path, linesBefore);
  const firstStep = Math.min(...[...after.values()].flat().map(([, step]) => step));
  const out: Points = new Map();
  for (const tag of new Set([...before.keys(), ...after.keys()])) {
    const points = [...(before.get(tag) ?? []).filter(([, step]) => step < firstStep), ...(after.get(tag) ?? [])];
    if (points.length > 0) out.set(tag, points);
  }
  return out;
}

/** The float32 a logged number becomes in the event file, as TensorBoard hands it back. */
function asFloat32(v: number | string): number | string {
  return typeof v === "number" ? Math.fround(v) : v;
}

function assertSamePoints(what: string, got: Point[], expected: Point[], run: Run): void {
  assert.deepEqual(
    got.map(([, step, value]) => [step, value]),
    expected.map(([, step, value]) => [step, asFloat32(value)]),
    `${what}: steps and values`,
  );
  got.forEach(([wall], i) => {
    assert.ok(wall >= run.started && wall <= run.ended, `${what}: wall time ${wall} outside the run (${run.started}…${run.ended})`);
    const logged = expected[i]![0];
    assert.ok(Math.abs(wall - logged) < 1, `${what}: wall time ${wall} vs the time metrics.jsonl logged, ${logged}`);
    if (i > 0) assert.ok(wall >= got[i - 1]![0], `${what}: wall times go back at point ${i}`);
  });
}

/** TensorBoard's two views of a run against what metrics.jsonl says it should show. */
function assertShows(view: LogdirView, run: Run): void {
  const tags = [...run.expected.keys()].sort();
  // EventAccumulator.
  assert.equal(view.accumulator.file_version, 2, "the file_version event (brain.Event:2)");
  assert.deepEqual(Object.keys(view.accumulator.scalars).sort(), tags, "scalar tags: EventAccumulator vs metrics.jsonl");
  assert.deepEqual(view.accumulator.other_tags, {}, "no tags of other kinds");
  for (const tag of tags) assertSamePoints(`EventAccumulator ${tag}`, view.accumulator.scalars[tag]!, run.expected.get(tag)!, run);

  // The scalars dashboard: the log directory itself is the run ".".
  assert.deepEqual(Object.keys(view.dashboard), ["."]);
  const dashboard = view.dashboard["."]!;
  assert.deepEqual(Object.keys(dashboard).sort(), tags, "scalar tags: the scalars dashboard vs metrics.jsonl");
  for (const tag of tags) {
    const points = run.expected.get(tag)!;
    assert.equal(dashboard[tag]!.max_step, Math.max(...points.map(([, step]) => step)));
    assertSamePoints(`dashboard ${tag}`, dashboard[tag]!.points, points, run);
  }
}

test(
  "TensorBoard 2.21 reads every scalar of a training run's event files: tags, steps, values, wall times",
  { skip: pythonSkip },
  async () => {
    const { fresh, tb } = await setup();
    assert.equal(tb.tensorboard, pinnedVersion("tensorboard"));
    assert.equal(readdirSync(fresh.logdir).filter((n) => n.startsWith("events.out.tfevents.")).length, 1);
    for (const tag of ["loss", "accuracy", "lr", "eval_loss", "eval_accuracy"])
      assert.ok(fresh.expected.has(tag), `metrics.jsonl has no ${tag}`);
    assert.deepEqual(
      fresh.expected.get("eval_loss")!.map(([, step]) => step),
      [2, 4],
    );
    assertShows(tb.logdirs[fresh.logdir]!, fresh);
  },
);

test(
  "a run resumed from a checkpoint shows each step once in TensorBoard, the resumed run's values from where it logged again",
  { skip: pythonSkip },
  async () => {
    const { resumed, tb } = await setup();
    // The interrupted run logged steps 3 and 4, which the resumed one trains and logs again.
    assert.deepEqual(
      resumed.expected.get("loss")!.map(([, step]) => step),
      [1, 2, 3, 4],
    );
    assertShows(tb.logdirs[resumed.logdir]!, resumed);
  },
);
