// How long the main job trains: its recipe's time budget unless asked otherwise (quickstart-length.ts).
import test from "node:test";
import assert from "node:assert/strict";
import { quickstartLength } from "../../src/cli/quickstart-length.js";
import { TASK_SPECS } from "../../src/train/tasks/index.js";

test("the quickstart trains for its recipe's budget; --steps gives a fixed run and --max-time another budget", () => {
  const budgeted = { steps: 2000, maxTime: 330 };
  assert.deepEqual(quickstartLength(budgeted, {}), { maxTime: 330 });
  assert.deepEqual(quickstartLength(budgeted, { steps: 3 }), { maxSteps: 3 });
  assert.deepEqual(quickstartLength(budgeted, { maxTime: 60 }), { maxTime: 60 });
  // A recipe without a budget trains its steps.
  assert.deepEqual(quickstartLength({ steps: 600 }, {}), { maxSteps: 600 });
});

test("both SOTU jobs (masked and causal LM) are bounded in time by default, within the main job's 8 minutes", () => {
  for (const name of ["mlm", "causal-lm"]) {
    const r = TASK_SPECS.find((t) => t.name === name)!.quickstart!;
    const length = quickstartLength(r, {});
    assert.ok("maxTime" in length, `${name} trains for a budget`);
    // Training is the job's long stage; the tokenizer, shards and the last outputs take seconds.
    assert.ok(length.maxTime <= 6 * 60, `${name}: ${length.maxTime} s`);
  }
});
