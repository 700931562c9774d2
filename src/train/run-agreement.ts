// What every process of a multi-process run must agree on before training: the settings that decide
// the numbers (model, data, optimizer, precision, seed, replicas per process). A rank started with other
// flags or data would otherwise sum gradients of another model, or wait forever at a collective.
import type { FitArgs, RunSettings, TrainerOptions } from "./trainer-options.js";

export function runSettingsDigest(
  t: { options: TrainerOptions; localReplicas: number },
  a: FitArgs,
  settings: RunSettings,
): Record<string, unknown> {
  const o = t.options;
  return {
    ...settings,
    model_config: a.model.config,
    initial_params: a.params ? "given" : "fresh",
    train_files: a.train.files,
    train_records: a.train.numRecords,
    eval_files: a.eval?.files ?? null,
    masking: a.masking ?? null,
    label_capacity: a.labelCapacity ?? null,
    seed: o.seed ?? 42,
    replicas_per_process: t.localReplicas,
    steps_per_execution: o.stepsPerExecution ?? 1,
    loops: o.loops ?? null,
    on_non_finite: o.onNonFinite ?? "stop",
    loss_scale: o.lossScale ?? null,
    eval_every: o.evalEvery ?? 0,
    evaluations: o.evaluations ?? null,
    checkpoint_every: o.checkpointEvery ?? 0,
    resume: o.resume ?? false,
    output_dir: o.outputDir,
  };
}
