// The training tasks as data (train/tasks/): what each spec says is consistent with the model registry
// (its presets exist, its quickstart preset is its own), a task's own settings are refused by the
// library for every other task, naming the option, and the CLI's --help lines come from the specs.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/core/index.js";
import { OptionError } from "../../src/core/option-error.js";
import { createModel, presetNames } from "../../src/models/index.js";
import { objectiveFor } from "../../src/train/objectives/select.js";
import type { TrainingTask } from "../../src/train/objectives/objective.js";
import { modelTaskOf, TASK_SPECS, taskSpec } from "../../src/train/tasks/index.js";
import { checkModelStart, checkTaskSettings } from "../../src/train/trainer-options-check.js";
import { trainingModel } from "../../src/train/training-model.js";
import { benchModel } from "../../src/train/bench-train.js";
import { perTask, taskChoices } from "../../src/cli/task-help.js";
import { tinyConfig, tinyLlamaConfig } from "../helpers/tiny-training.js";

test("each task's presets (bench, quickstart) are presets of its own models", () => {
  for (const t of TASK_SPECS) {
    const presets: string[] = presetNames(modelTaskOf(t));
    if (t.benchPreset !== undefined)
      assert.ok(presets.includes(t.benchPreset), `${t.name}: bench preset ${t.benchPreset} not in ${presets.join(", ")}`);
    if (t.quickstart) assert.ok(presets.includes(t.quickstart.preset), `${t.name}: quickstart preset ${t.quickstart.preset}`);
    assert.ok(t.trainHelp.length > 0 && t.trainHelp.every((line) => line.length <= 100), `${t.name}: trainHelp`);
  }
});

test("a task's own setting is refused for every other task, by its option name", () => {
  let pairs = 0;
  for (const owner of TASK_SPECS)
    for (const [option, does] of Object.entries(owner.ownSettings ?? {})) {
      assert.doesNotThrow(() => checkTaskSettings(owner.name, { [option]: 1 }, "test"));
      for (const other of TASK_SPECS.filter((t) => t !== owner)) {
        pairs++;
        assert.throws(
          () => checkTaskSettings(other.name, { [option]: 1 }, "test"),
          (e: unknown) =>
            e instanceof OptionError && e.option === option && e.why === `${does}; task "${other.name}" has none` && e.where === "test",
        );
      }
    }
  assert.ok(pairs >= 3, "the masked LM's masking, position start and head are refused for the causal LM");
  // Not given (undefined) is not a setting.
  checkTaskSettings("causal-lm", { positionInit: undefined, "masking.mlmProbability": undefined }, "test");
});

test("trainingModel refuses a masked LM's position start for a causal LM, and for a model loaded with its positions", async () => {
  const device = k.getDefaultDevice();
  await assert.rejects(
    trainingModel(tinyLlamaConfig(), { task: "causal-lm", positionInit: "sinusoidal", seed: 0, device }),
    (e: unknown) => e instanceof OptionError && e.option === "positionInit" && /task "causal-lm" has none/.test(e.why),
  );
  assert.throws(
    () => checkModelStart({ positionInit: "normal", initFrom: "runs/x" }, "trainingModel"),
    (e: unknown) => e instanceof OptionError && e.option === "positionInit" && /initFrom loads its positions/.test(e.why),
  );
  const built = await trainingModel(tinyConfig(), { task: "mlm", positionInit: "sinusoidal", seed: 0, device });
  assert.ok(built.parameterCount > 0);
});

test("benchModel builds any task's model and objective from the registry; a head size is the masked LM's", () => {
  for (const t of TASK_SPECS.filter((x) => x.benchPreset !== undefined)) {
    const { model, objective } = benchModel({ task: t.name, preset: presetNames(modelTaskOf(t))[0]!, maxLength: 16 }, 64);
    assert.equal(objective.task, t.name);
    assert.ok(taskSpec(t.name).accepts(model));
  }
  assert.throws(
    () => benchModel({ task: "causal-lm", preset: "llama-tiny", maxLength: 16, head: "all" }, 64),
    (e: unknown) => e instanceof OptionError && e.option === "head",
  );
});

test("--help's task lines come from the specs: one column, the first task the default", () => {
  const text = taskChoices((t) => t.trainHelp);
  const lines = text.split("\n");
  assert.equal(
    lines.length,
    TASK_SPECS.reduce((n, t) => n + t.trainHelp.length, 0),
  );
  assert.equal(lines[0], `  ${"--task mlm".padEnd(16)}  (default) ${taskSpec("mlm").trainHelp[0]}`);
  const second = lines[taskSpec("mlm").trainHelp.length]!;
  assert.equal(second, `  --task causal-lm  ${taskSpec("causal-lm").trainHelp[0]}`);
  for (const line of lines) assert.ok(/^  --task \S+ +\S/.test(line) || /^ {20}\S/.test(line), line);
  assert.equal(
    perTask(
      (t) => t.benchPreset,
      TASK_SPECS.filter((t) => t.benchPreset !== undefined),
    ),
    "mlm-small for mlm, llama-small for causal-lm",
  );
});

test("fit's task names the objective; a task that does not take the model is refused by option name", () => {
  const llama = createModel(tinyLlamaConfig());
  assert.equal(objectiveFor(llama, {}, "causal-lm").task, "causal-lm");
  assert.equal(objectiveFor(llama, {}).task, "causal-lm");
  for (const task of ["mlm", "sequence-classification", "translation"])
    assert.throws(
      () => objectiveFor(llama, {}, task as TrainingTask),
      (e: unknown) => e instanceof OptionError && e.option === "task" && e.where === "Trainer.fit" && e.value === task,
    );
});
