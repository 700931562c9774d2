// The training tasks in the words of `--help`, read from their specs (train/tasks/): the `--task NAME`
// choices with each task's lines, per-task defaults ("600 for causal-lm"), a task's presets. The
// commands that train (train, bench train, quickstart) print these instead of naming tasks.
import { presetNames } from "../models/index.js";
import { modelTaskOf, TASK_SPECS, type TaskSpec } from "../train/tasks/index.js";

/** The widest `--task NAME` that the task column holds. */
const NAME_COLUMN = 16;

/**
 * One block per task: `--task NAME` then its lines (the first task marked as the default), the lines
 * after the first indented to one column, as in `kiln train --help`.
 */
export function taskChoices(lines: (t: TaskSpec) => readonly string[] | undefined, specs: readonly TaskSpec[] = TASK_SPECS): string {
  // The column fits the usual names; a longer one ("--task sequence-classification") runs past it.
  const names = specs.map((t) => `--task ${t.name}`.length);
  const width = Math.max(...names.filter((n) => n <= NAME_COLUMN), Math.min(...names));
  const indent = " ".repeat(2 + width + 2);
  return specs
    .flatMap((t) => {
      const [first = "", ...rest] = lines(t) ?? [];
      const mark = t === TASK_SPECS[0] ? "(default) " : "";
      return [`  ${`--task ${t.name}`.padEnd(width)}  ${mark}${first}`, ...rest.map((line) => indent + line)];
    })
    .join("\n");
}

/** A default that differs by task: "8 for mlm, 16 for causal-lm". */
export function perTask(value: (t: TaskSpec) => string | number | undefined, specs: readonly TaskSpec[] = TASK_SPECS): string {
  return specs.map((t) => `${value(t)} for ${t.name}`).join(", ");
}

/** Each task's presets, "TASK: a | b", joined by `between`; `names` joins a task's presets, `after` follows them. */
export function presetsByTask(
  between: string,
  names = " | ",
  specs: readonly TaskSpec[] = TASK_SPECS,
  after: (t: TaskSpec) => string = () => "",
): string {
  return specs.map((t) => `${t.name}: ${presetNames(modelTaskOf(t)).join(names)}${after(t)}`).join(between);
}

/** The task whose own setting `option` is (the help's "mlm: …" before a flag only it takes). */
export function ownerOf(option: string): string {
  return TASK_SPECS.find((t) => t.ownSettings?.[option] !== undefined)?.name ?? "";
}
