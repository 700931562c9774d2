// TrainerOptions.maxTime: the schedule over the fraction of the budget spent, the stop at the budget with
// a final evaluation and save, and the exact resume of a budgeted run, all on a clock the test advances
// (never by sleeping): each step "takes" the seconds the test says, so the runs are deterministic.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { OptionError } from "../../src/core/option-error.js";
import { fractionSchedule, warmupStableDecay } from "../../src/optim/schedules.js";
import { budgetSeconds } from "../../src/train/time-budget.js";
import { Trainer } from "../../src/train/trainer.js";
import type { Callback } from "../../src/train/callbacks.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-time-budget-");
const data = join(root, "data");
await writeTinyShards(data);

/** The schedule's rate at each fraction, computed as the compiled step computes it. */
async function rates(schedule: (f: k.Array) => k.Array, fractions: number[]): Promise<number[]> {
  return [...((await schedule(k.array(Float32Array.from(fractions), { shape: [fractions.length] })).data()) as Float32Array)];
}

const close = (a: readonly number[], b: readonly number[], what: string) => {
  assert.equal(a.length, b.length, `${what}: ${a} against ${b}`);
  a.forEach((x, i) => assert.ok(Math.abs(x - b[i]!) <= 1e-6 * Math.max(1, Math.abs(b[i]!)), `${what}[${i}]: ${x} ≠ ${b[i]}`));
};

test("fractionSchedule: linear warmup over its fraction of the run, then linear or cosine decay to 0 at the end", async () => {
  const linear = fractionSchedule({ peak: 2, warmupFraction: 0.1 });
  close(await rates(linear, [0, 0.05, 0.1, 0.55, 1, 1.5, -0.2]), [0, 1, 2, 1, 0, 0, 0], "linear");
  const cosine = fractionSchedule({ peak: 2, warmupFraction: 0.2, decay: "cosine" });
  close(await rates(cosine, [0.1, 0.2, 0.6, 1]), [1, 2, 1, 0], "cosine");
  close(await rates(fractionSchedule({ peak: 1, warmupFraction: 0 }), [0, 0.25]), [1, 0.75], "no warmup");
  // Held at the peak until the last decayFraction, then linear to 0.
  const wsd = fractionSchedule({ peak: 2, warmupFraction: 0.1, decay: "warmup_stable_decay", decayFraction: 0.25 });
  close(await rates(wsd, [0.05, 0.1, 0.5, 0.75, 0.875, 1, 1.5]), [1, 2, 2, 2, 1, 0, 0], "warmup_stable_decay");
  const whole = fractionSchedule({ peak: 1, warmupFraction: 0.5, decay: "warmup_stable_decay", decayFraction: 1 });
  close(await rates(whole, [0.5, 0.75, 1]), [1, 0.5, 0], "a decay longer than what the warmup leaves starts after it");
});

test("maxTime reads seconds and durations, and refuses the rest naming maxTime", () => {
  const cases: [unknown, number][] = [
    [300, 300],
    [0.5, 0.5],
    ["300", 300],
    ["90s", 90],
    ["5m", 300],
    ["1h30m", 5400],
    ["1.5h", 5400],
    ["2d", 172_800],
    ["00:00:05:00", 300],
    ["01:02:03", 3723],
    ["01:30", 90],
  ];
  for (const [given, seconds] of cases) assert.equal(budgetSeconds(given), seconds, String(given));
  for (const bad of [0, -5, Infinity, "", "soon", "5 minutes", "30m1h", "1m1m", "00:61", "1:25:00:00", true, {}]) {
    assert.throws(
      () => budgetSeconds(bad),
      (e: unknown) => e instanceof OptionError && e.option === "maxTime" && /maxTime/.test(e.message),
      String(bad),
    );
  }
});

test("the Trainer refuses a wrong maxTime, clock or warmup before any work, naming the option", async () => {
  const outputDir = join(root, "refused");
  const refuses = (options: Record<string, unknown>, option: string) =>
    assert.throws(
      () => new Trainer({ outputDir, ...options } as never),
      (e: unknown) => e instanceof OptionError && e.option === option,
      option,
    );
  refuses({ maxTime: "5 minutes" }, "maxTime");
  refuses({ maxTime: -1 }, "maxTime");
  refuses({ maxTime: 60, clock: 12 }, "clock");
  // A step warmup has no meaning when the schedule follows the time: fit says so, and what to give instead.
  await assert.rejects(
    trainTiny(data, join(root, "warmup-steps"), 4, { trainer: { maxTime: 60 }, optimizer: { warmupSteps: 2 } }),
    (e: unknown) => e instanceof OptionError && e.option === "optimizer.warmupSteps" && /warmupFraction/.test(e.message),
  );
  await assert.rejects(
    trainTiny(data, join(root, "warmup-fraction"), 4, { optimizer: { warmupSteps: undefined, warmupFraction: 1.5 } }),
    (e: unknown) => e instanceof OptionError && e.option === "optimizer.warmupFraction",
  );
});

/**
 * A clock the test advances: each step takes `secondsOf(step)` seconds (said by a callback once the step
 * is done), and the Trainer reads it through TrainerOptions.clock.
 */
function steppedClock(secondsOf: (step: number) => number, start = 0) {
  let now = start;
  const lrs = new Map<number, number>();
  const callback: Callback = {
    onStepEnd: (t, m) => {
      lrs.set(t.globalStep, m.lr!);
      now += secondsOf(t.globalStep);
    },
  };
  return { clock: () => now, callback, lrs };
}

const budgeted = (maxTime: number | string, clock: () => number) => ({
  trainer: { maxTime, clock, maxSteps: undefined },
  optimizer: { warmupSteps: undefined, warmupFraction: 0.2 },
});

test("a time budget: the rate follows the fraction of it spent; the run stops at the budget with a final eval and save", async () => {
  // Uneven steps: 5 s each for the first four, then 20 s. A step schedule would not see the difference.
  const secondsOf = (step: number) => (step <= 4 ? 5 : 20);
  const { clock, callback, lrs } = steppedClock(secondsOf);
  const out = join(root, "budget");
  const result = await trainTiny(data, out, 1_000, { ...budgeted("100s", clock), callbacks: [callback], evalDir: data });
  // 4 × 5 + 4 × 20 = 100 s: the budget is spent after step 8.
  assert.equal(result.globalStep, 8);
  assert.equal(result.trainSeconds, 100);
  assert.equal(result.stopped, undefined, "the budget ends the run as finished, not interrupted");
  // Each step's rate is the schedule's at the time spent when it started: 0, 5, 10, 15, 20, 40, 60, 80 s.
  const started = [0, 5, 10, 15, 20, 40, 60, 80];
  const expected = await rates(
    fractionSchedule({ peak: 3e-3, warmupFraction: 0.2 }),
    started.map((s) => s / 100),
  );
  close([...lrs.values()], expected, "learning rates");
  assert.ok(expected[4]! > expected[5]!, "the rate decays after the warmup");
  // The final evaluation, checkpoint and model.
  assert.equal(result.evalHistory.at(-1)?.step, 8);
  const state = JSON.parse(readFileSync(join(out, "checkpoint-8", "trainer_state.json"), "utf8"));
  assert.equal(state.reason, "end");
  assert.equal(state.train_seconds, 100);
  assert.equal(state.run_settings.max_time, 100);
  assert.equal(state.run_settings.warmup_fraction, 0.2);
  assert.ok(existsSync(join(out, "model.safetensors")));
});

test("schedule warmup_stable_decay holds the peak until the last decayFraction, over steps and over a time budget", async () => {
  const wsd = { schedule: "warmup_stable_decay" as const, decayFraction: 0.3 };
  // Over 10 steps: warmup 2 (the helper's), the peak held, the last 3 steps decaying.
  const steps = steppedClock(() => 1);
  const out = join(root, "wsd-steps");
  await trainTiny(data, out, 10, { optimizer: wsd, callbacks: [steps.callback] });
  const schedule = warmupStableDecay({ peak: 3e-3, warmupSteps: 2, totalSteps: 10, decaySteps: 3 });
  const byStep = await rates(
    schedule,
    [...steps.lrs.keys()].map((s) => s - 1),
  );
  close([...steps.lrs.values()], byStep, "the step schedule");
  assert.deepEqual(
    [...steps.lrs.values()].map((r) => Number(r.toPrecision(6))),
    [0, 0.0015, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.002, 0.001],
  );
  const settings = JSON.parse(readFileSync(join(out, "checkpoint-10", "trainer_state.json"), "utf8")).run_settings;
  assert.equal(settings.schedule, "warmup_stable_decay");
  assert.equal(settings.decay_fraction, 0.3);
  // Over a budget of 100 s in steps of 10 s: the fraction spent at each step's start, 0 to 0.9.
  const budget = steppedClock(() => 10);
  const b = budgeted(100, budget.clock);
  await trainTiny(data, join(root, "wsd-budget"), 1_000, { ...b, optimizer: { ...b.optimizer, ...wsd }, callbacks: [budget.callback] });
  const spent = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
  close(
    [...budget.lrs.values()],
    await rates(fractionSchedule({ peak: 3e-3, warmupFraction: 0.2, ...wsd, decay: wsd.schedule }), spent),
    "budget",
  );
  assert.deepEqual(
    [...budget.lrs.values()].slice(2, 8).map((r) => Number(r.toPrecision(6))),
    [0.003, 0.003, 0.003, 0.003, 0.003, 0.003],
  );
  await assert.rejects(
    trainTiny(data, join(root, "wsd-refused"), 2, { optimizer: { decayFraction: 0.3 } }),
    (e: unknown) => e instanceof OptionError && e.option === "optimizer.decayFraction" && /schedule is "linear"/.test(e.message),
  );
});

test("a time budget keeps room for the final evaluation, as long as the last evaluation took", async () => {
  // Steps of 10 s, evaluations of 25 s (the one at the start included).
  const { clock, callback, lrs } = steppedClock(() => 10);
  let now = 0;
  const evaluation: Callback = { onEvalEnd: () => void (now += 25) };
  const both = () => clock() + now;
  const result = await trainTiny(data, join(root, "reserve"), 1_000, {
    ...budgeted(100, both),
    trainer: { maxTime: 100, clock: both, evalAtStart: true, maxSteps: undefined },
    callbacks: [callback, evaluation],
    evalDir: data,
  });
  // 25 s + 6 steps = 85 s, and 85 + 25 > 100: the sixth step is the last (without the room, the eighth).
  assert.equal(result.globalStep, 6);
  assert.equal(lrs.size, 6);
  assert.equal(result.trainSeconds, 85, "the final evaluation is not training time");
  assert.deepEqual(
    result.evalHistory.map((m) => m.step),
    [0, 6],
  );
});

test("evaluations: N evaluations spread over the time budget (or the steps), the last at the end", async () => {
  // Steps of 10 s in a 100 s budget: a quarter of it is spent after step 3 (30 s), half after step 5, three
  // quarters after step 8; the budget ends after step 10, with the final evaluation.
  const timed = steppedClock(() => 10);
  const budget = await trainTiny(data, join(root, "evaluations-time"), 1_000, {
    ...budgeted(100, timed.clock),
    trainer: { maxTime: 100, clock: timed.clock, maxSteps: undefined, evaluations: 4 },
    callbacks: [timed.callback],
    evalDir: data,
  });
  assert.deepEqual(
    budget.evalHistory.map((m) => m.step),
    [3, 5, 8, 10],
  );
  // Without a budget the steps are known: a third and two thirds of 9 steps, then the end.
  const steps = await trainTiny(data, join(root, "evaluations-steps"), 9, { trainer: { evaluations: 3 }, evalDir: data });
  assert.deepEqual(
    steps.evalHistory.map((m) => m.step),
    [3, 6, 9],
  );
  const refuses = (options: Record<string, unknown>, why: RegExp) =>
    assert.throws(
      () => new Trainer({ outputDir: join(root, "evaluations-refused"), ...options } as never),
      (e: unknown) => e instanceof OptionError && e.option === "evaluations" && why.test(e.message),
    );
  refuses({ evaluations: 3, evalEvery: 10 }, /both say when to evaluate/);
  refuses({ evaluations: 0 }, /evaluations/);
});

test("steps per execution under a budget (scan loop): each step of a call gets the fraction fed for it", async () => {
  const { clock, callback, lrs } = steppedClock(() => 10);
  const result = await trainTiny(data, join(root, "scan"), 1_000, {
    ...budgeted(60, clock),
    trainer: { maxTime: 60, clock, maxSteps: undefined, stepsPerExecution: 2, loops: { steps: "scan" } },
    callbacks: [callback],
  });
  // Callbacks run once per call of 2 steps: 10 s a call on this clock, and the steps' time is read
  // between calls (0, 10, 20 … at the calls' starts; the seconds per step measured inside a call are 0).
  assert.equal(result.globalStep, 12);
  const started = [0, 0, 10, 10, 20, 20, 30, 30, 40, 40, 50, 50];
  const expected = await rates(
    fractionSchedule({ peak: 3e-3, warmupFraction: 0.2 }),
    started.map((s) => s / 60),
  );
  // The callback sees the last step of each call; its rate is the second step's.
  close(
    [...lrs.values()],
    expected.filter((_, i) => i % 2 === 1),
    "learning rates",
  );
});

test("maxSteps and maxTime together: whichever comes first ends the run, and the schedule ends with it", async () => {
  const { clock, callback, lrs } = steppedClock(() => 1);
  const result = await trainTiny(data, join(root, "both"), 3, {
    ...budgeted(100, clock),
    trainer: { maxTime: 100, clock },
    callbacks: [callback],
  });
  assert.equal(result.globalStep, 3);
  assert.equal(result.trainSeconds, 3);
  // The steps end first, so the schedule follows them (fractions 0, 1/3, 2/3 against 0, 0.01, 0.02 of the
  // time): past the warmup (0.2) the rate decays, to 5/12 of the peak at the last step, 5/6 the one before.
  assert.ok(Math.abs(lrs.get(3)! / lrs.get(2)! - 0.5) < 1e-3, `rates ${[...lrs.values()]}`);
});

test("a budgeted run stopped and resumed continues the same schedule and reproduces the uninterrupted run", async () => {
  const secondsOf = (step: number) => 6 + (step % 3);
  const straight = steppedClock(secondsOf);
  const straightDir = join(root, "straight");
  const a = await trainTiny(data, straightDir, 1_000, { ...budgeted(60, straight.clock), callbacks: [straight.callback] });

  // The same run, asked to stop after step 4 (a checkpoint at 4 records the 28 s spent) …
  const first = steppedClock(secondsOf);
  const stopAt4: Callback = { onStepEnd: (t) => void (t.globalStep === 4 && t.requestStop({ reason: "test" })) };
  const dir = join(root, "resumed");
  const stopped = await trainTiny(data, dir, 1_000, { ...budgeted(60, first.clock), callbacks: [first.callback, stopAt4] });
  assert.equal(stopped.stopped?.step, 4);
  assert.equal(JSON.parse(readFileSync(join(dir, "checkpoint-4", "trainer_state.json"), "utf8")).train_seconds, 28);
  // … then resumed in another process whose clock reads something else entirely.
  const second = steppedClock((step) => secondsOf(step), 5_000);
  const b = await trainTiny(data, dir, 1_000, { ...budgeted(60, second.clock), resume: true, callbacks: [second.callback] });

  assert.equal(b.globalStep, a.globalStep);
  assert.equal(b.trainSeconds, a.trainSeconds);
  assert.deepEqual(
    [...first.lrs.entries(), ...second.lrs.entries()],
    [...straight.lrs.entries()],
    "the resumed run's rates continue the schedule",
  );
  const losses = (h: { step?: number; loss?: number }[]) => h.map((m) => [m.step, m.loss]);
  assert.deepEqual(losses(b.history), losses(a.history));
});
