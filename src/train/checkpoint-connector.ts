// The Trainer's checkpoints (Lightning's checkpoint connector): the output directory made ready for a
// run, what a checkpoint records of the run (step, epoch, data position, run settings, history, the
// best so far), resuming from the newest one that loads, and the final model directory. The files themselves are checkpoint.ts's; in a
// multi-process run rank 0 writes and every rank leaves only once the write is complete.
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type * as k from "../core/index.js";
import { writeFileAtomic } from "../io/atomic-file.js";
import { OptionError } from "../core/option-error.js";
import type { DatasetState } from "../data/pipeline/dataset.js";
import type { LanguageModel } from "../models/language-model.js";
import { saveModel } from "../models/pretrained.js";
import { writeChecksums } from "../models/file-digests.js";
import type { Optimizer } from "../optim/optimizer.js";
import type { ProcessGroup } from "../distribute/multi-process.js";
import type { Callback, Metrics, TrainerView } from "./callbacks.js";
import {
  checkpointPath,
  cleanCheckpointLeftovers,
  copyTokenizerFiles,
  listCheckpoints,
  loadNewestCheckpoint,
  pruneCheckpoints,
  saveCheckpoint,
  type TrainerStateJson,
} from "./checkpoint.js";
import type { TrainingTask } from "./objectives/objective.js";
import { lossCurveHtml } from "./plot.js";
import { prepareOutputDir } from "./output-dir.js";
import type { TrainState } from "./train-step.js";
import type { FitArgs, RunSettings } from "./trainer-options.js";

/** The Trainer as its checkpoints see it. */
export interface CheckpointHost extends TrainerView {
  readonly group: ProcessGroup | undefined;
  readonly isMainRank: boolean;
  warn(message: string): void;
}

/** What a checkpoint of the run in progress holds besides the step and epoch. */
export interface RunRecord {
  model: LanguageModel;
  task: TrainingTask;
  state: TrainState;
  /** The data position just past the last batch trained on. */
  data: () => DatasetState;
  tokenizerDir?: string;
  history: Metrics[];
  settings: RunSettings;
  /** Training seconds spent so far (TrainingClock): a resumed run's time budget and schedule go on from it. */
  trainSeconds: () => number;
}

/** Where a resumed run continues from. */
export interface Resumed {
  path: string;
  state: TrainState;
  globalStep: number;
  epoch: number;
  dataState: DatasetState;
  history: Metrics[];
  /** The training seconds the checkpoint recorded (0 in checkpoints from before they were recorded). */
  trainSeconds: number;
}

export class CheckpointConnector {
  private bestMetric: number | undefined;
  private bestCheckpoint: string | undefined;

  constructor(
    private readonly o: { outputDir: string; seed: number; keepCheckpoints: number; callbacks: Callback[] },
    private readonly host: CheckpointHost,
  ) {}

  /**
   * The output directory before a run: leftovers of killed writes tidied, another run's files never
   * mixed in (by rank 0; the other ranks read it, for resume, once it is ready).
   */
  async prepareDirectory(how: { resume: boolean; overwrite: boolean }): Promise<void> {
    const dir = this.o.outputDir;
    if (this.host.isMainRank) {
      for (const line of await cleanCheckpointLeftovers(dir)) this.host.warn(`${dir}: ${line}`);
      const removed = await prepareOutputDir(dir, how);
      if (removed.length) this.host.warn(`overwrite: removed ${removed.join(", ")} from ${dir}`);
      await mkdir(dir, { recursive: true });
    }
    await this.host.group?.comm.barrier({ forWrites: true });
  }

  /** `metrics.best_metric` (else eval_loss) is recorded as the best value when `reason` is "best". */
  async save(run: RunRecord, reason: string, metrics: Metrics): Promise<string> {
    const t = this.host;
    if (reason === "best") {
      // Recorded first, so the best checkpoint's own trainer_state.json names itself.
      this.bestMetric = metrics.best_metric ?? metrics.eval_loss;
      this.bestCheckpoint = checkpointPath(this.o.outputDir, t.globalStep);
    }
    const state: TrainerStateJson = {
      global_step: t.globalStep,
      epoch: t.epoch,
      data_state: run.data(),
      seed: this.o.seed,
      run_settings: run.settings,
      log_history: run.history,
      train_seconds: run.trainSeconds(),
      reason,
      ...(this.bestMetric !== undefined ? { best_metric: this.bestMetric, best_model_checkpoint: this.bestCheckpoint } : {}),
    };
    if (!t.isMainRank) {
      // Rank 0 writes; every rank leaves the checkpoint only once it is complete on disk.
      await t.group!.comm.barrier({ forWrites: true });
      return checkpointPath(this.o.outputDir, t.globalStep);
    }
    const path = await saveCheckpoint(this.o.outputDir, {
      model: run.model,
      params: run.state.params,
      opt: run.state.opt,
      optimizer: run.settings.optimizer ?? "adamw",
      ...(run.state.scaler ? { scaler: run.state.scaler } : {}),
      state,
      ...(run.tokenizerDir ? { tokenizerDir: run.tokenizerDir } : {}),
    });
    await pruneCheckpoints(this.o.outputDir, this.o.keepCheckpoints, this.bestCheckpoint);
    for (const cb of this.o.callbacks) await cb.onCheckpointSaved?.(t, path);
    await t.group?.comm.barrier({ forWrites: true });
    return path;
  }

  /**
   * The newest checkpoint that loads (falling back past damaged ones, each named), or undefined when
   * there is none. Refuses a checkpoint of another task, optimizer or seed before loading it.
   */
  async resume(model: LanguageModel, device: k.Device, optimizer: Optimizer<any>, settings: RunSettings): Promise<Resumed | undefined> {
    const dir = this.o.outputDir;
    await refuseOtherRun(dir, settings.task ?? "mlm", optimizer.name);
    const ck = await loadNewestCheckpoint(dir, model, device, optimizer);
    if (!ck) return undefined;
    for (const s of ck.skipped) this.host.warn(`resume: skipped ${s.path}, which cannot be loaded: ${s.reason}`);
    if (ck.state.seed !== this.o.seed)
      throw new OptionError({
        where: "Trainer",
        option: "seed",
        value: this.o.seed,
        why: `differs from the seed ${ck.state.seed} that ${ck.path} was trained with`,
        fix: `Resume it with seed ${ck.state.seed}`,
      });
    this.bestMetric = ck.state.best_metric;
    this.bestCheckpoint = ck.state.best_model_checkpoint;
    const changed = settingsChanges(ck.state.run_settings as RunSettings | undefined, settings);
    this.host.warn(
      `resume: continuing from ${ck.path} at step ${ck.state.global_step}` + (changed ? `, with changed settings: ${changed}` : ""),
    );
    return {
      path: ck.path,
      state: { params: ck.params, opt: ck.opt, ...(ck.scaler ? { scaler: ck.scaler } : {}) },
      globalStep: ck.state.global_step,
      epoch: ck.state.epoch,
      dataState: ck.state.data_state as DatasetState,
      history: [...ck.state.log_history],
      trainSeconds: typeof ck.state.train_seconds === "number" ? ck.state.train_seconds : 0,
    };
  }

  /** The final model directory: config.json, model.safetensors, tokenizer files, and the loss curve. */
  async writeFinal(a: FitArgs, state: TrainState, history: Metrics[], evalHistory: Metrics[]): Promise<void> {
    const group = this.host.group;
    if (!this.host.isMainRank) return void (await group!.comm.barrier({ forWrites: true }));
    const dir = this.o.outputDir;
    await saveModel(dir, a.model, state.params);
    if (a.tokenizerDir) await writeChecksums(dir, await copyTokenizerFiles(a.tokenizerDir, dir, a.model.config), { merge: true });
    const html = lossCurveHtml("Kiln training loss", [
      { name: "train loss", color: "#1f77b4", points: history.map((h) => [h.step!, h.loss!]) },
      { name: "eval loss", color: "#d62728", points: evalHistory.map((h) => [h.step!, h.eval_loss!]) },
    ]);
    await writeFileAtomic(join(dir, "loss_curve.html"), html);
    await group?.comm.barrier({ forWrites: true });
  }
}

/** "learning_rate 0.0007 → 0.001, max_steps 800 → 1000", or "" when nothing changed (or nothing was recorded). */
function settingsChanges(before: RunSettings | undefined, now: RunSettings): string {
  if (!before) return "";
  return (Object.keys(now) as (keyof RunSettings)[])
    .filter((key) => before[key] !== undefined && before[key] !== now[key])
    .map((key) => `${key} ${before[key]} → ${now[key]}`)
    .join(", ");
}

/**
 * Refuses to resume a run of the other task (its checkpoints hold another kind of model) or of another
 * optimizer (another state): said before any checkpoint is loaded, rather than as names that do not match.
 */
async function refuseOtherRun(outputDir: string, task: TrainingTask, optimizer: string): Promise<void> {
  const newest = (await listCheckpoints(outputDir)).at(-1);
  if (!newest) return;
  let state: TrainerStateJson;
  try {
    state = JSON.parse(await readFile(join(newest.path, "trainer_state.json"), "utf8"));
  } catch {
    return; // a damaged checkpoint: loadNewestCheckpoint says why and falls back past it
  }
  const before = (state.run_settings as RunSettings | undefined)?.task ?? "mlm";
  if (before !== task)
    throw new Error(
      `${newest.path} is a ${before} run, but this model trains as ${task}: ` +
        `resume it with the model it was trained with, or train into another output directory`,
    );
  const trainedWith = (state.run_settings as RunSettings | undefined)?.optimizer ?? "adamw";
  if (trainedWith !== optimizer)
    throw new Error(
      `${newest.path} was trained with the ${trainedWith} optimizer, but this run's optimizer is ${optimizer}: ` +
        `resume it with optimizer "${trainedWith}", or train into another output directory`,
    );
}
