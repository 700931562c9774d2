// The measurement behind choosing who runs the CPU: a few compiled training steps of the run's own
// model shape on each candidate (executor, precision), timed in interleaved rounds so that a load
// that comes and goes on a shared machine falls on every candidate alike. As XLA's autotuner and
// cuDNN's benchmark mode, it measures the real compiled kernels rather than guessing from flags.
//
// The shape is the run's own (width, heads, feed-forward size, vocabulary, sequence length and its
// objective) cut to one layer (a classifier's to two) and at most PROBE_TOKENS tokens per step: the
// executors differ per layer and per token, and XLA's compile time grows with depth (mlm-small: about
// 3 s for one layer, 10 s for two), so more depth would cost compile time and tell little more. Its
// parameters, data and random streams are its own: the run's numbers depend only on the executor and
// precision chosen.
import * as k from "../core/index.js";
import { createModel, modelSpec, type ModelConfig } from "../models/index.js";
import type { ClassifierConfig } from "../models/classification/config.js";
import { createSequenceClassifier } from "../models/classification/model.js";
import { AdamW } from "../optim/adamw.js";
import { precisionPolicy, type PrecisionName } from "../optim/precision.js";
import type { CpuExecutorName } from "../distribute/devices.js";
import { objectiveFor } from "./objectives/select.js";
import { makeTrainStep, type TrainState } from "./train-step.js";

/** Most tokens (batch × sequence length) a probe step computes: the batch is cut to fit, the sequence never. */
export const PROBE_TOKENS = 1024;

/** Who runs the CPU and in which precision: what a probe compares. */
export interface ExecutionCandidate {
  readonly executor: CpuExecutorName;
  readonly precision: PrecisionName;
}

/** One candidate's measurement: its fastest timed step, compile time, and how many steps were timed. */
export interface CandidateTiming extends ExecutionCandidate {
  readonly stepSeconds: number;
  readonly compileSeconds: number;
  readonly timedSteps: number;
}

/** The shape a probe compiles: the run's config one layer deep and a batch of at most PROBE_TOKENS tokens. */
export interface ProbeShape {
  readonly config: ModelConfig;
  readonly batch: number;
  readonly maxLength: number;
}

/** Whether a probe shape is a sequence classifier's (its config has the classes: num_labels). */
export function isClassifierShape(config: ModelConfig): config is ClassifierConfig {
  return typeof (config as Partial<ClassifierConfig>).num_labels === "number";
}

/**
 * The probe shape of a run that trains `config` on batches of `batch` records of `maxLength` tokens. A
 * classifier keeps two layers: its last one computes the first token's row alone (what its head reads),
 * so one layer would leave out the full layers that make up the rest of the model.
 */
export function probeShape(config: ModelConfig, batch: number, maxLength: number): ProbeShape {
  const layers = isClassifierShape(config) ? 2 : 1;
  const depth = "n_layer" in config ? { n_layer: layers } : { num_hidden_layers: layers };
  return {
    config: { ...config, ...depth } as ModelConfig,
    batch: Math.max(1, Math.min(batch, Math.floor(PROBE_TOKENS / maxLength))),
    maxLength,
  };
}

/**
 * What of a probe shape its timings depend on (the cache key's shape): the family, width, feed-forward
 * size, heads, vocabulary, batch and sequence length; not the special tokens' ids, nor the position
 * table's length beyond the sequence.
 */
export function probeShapeClass(s: ProbeShape): Record<string, string | number> {
  const c = s.config as unknown as Record<string, unknown>;
  const first = (...names: string[]) => names.map((n) => c[n]).find((x) => typeof x === "number" || typeof x === "string");
  const field = (...names: string[]) => {
    const x = first(...names);
    return x === undefined ? {} : { [names[0]!]: x as string | number };
  };
  return {
    model_type: s.config.model_type,
    width: modelSpec(s.config).layersAndWidth(s.config).width,
    ...field("intermediate_size", "n_inner"),
    ...field("num_attention_heads", "n_head"),
    ...field("num_key_value_heads"),
    ...field("hidden_act", "activation_function"),
    // A classifier's step differs from a language model's of the same shape (its head, its last layer).
    ...(isClassifierShape(s.config) ? { task: "sequence-classification", num_labels: s.config.num_labels } : {}),
    vocab_size: s.config.vocab_size,
    batch: s.batch,
    max_length: s.maxLength,
  };
}

/** A short human description of a probe shape ("roberta width 256, vocab 8192, 8×128 tokens, 1 layer"). */
export function describeProbeShape(s: ProbeShape): string {
  const { width, layers } = modelSpec(s.config).layersAndWidth(s.config);
  const what = isClassifierShape(s.config) ? `${s.config.model_type} classifier` : s.config.model_type;
  const depth = `${layers} layer${layers === 1 ? "" : "s"}`;
  return `${what} width ${width}, vocab ${s.config.vocab_size}, ${s.batch}×${s.maxLength} tokens, ${depth}`;
}

/** How long a probe may measure (compiles apart) and how many rounds it times. */
export interface ProbeBudget {
  /** Seconds of timed rounds after every candidate's first step (default 3). */
  seconds?: number;
  /** Rounds timed at least, whatever the seconds (default 3), and at most (default 8). */
  minRounds?: number;
  maxRounds?: number;
}

/** Where the candidates run: each candidate's device, made by the caller (its executor's first CPU device). */
export type CandidateDevice = (c: ExecutionCandidate) => k.Device;

/** A compiled training step of the probe shape on one device, one step per call. */
function probeSession(
  shape: ProbeShape,
  precision: PrecisionName,
  device: k.Device,
): { step(): Promise<number>; compileSeconds(): number } {
  const classifier = isClassifierShape(shape.config) ? createSequenceClassifier(shape.config) : undefined;
  const model = classifier ?? createModel(shape.config);
  const vocab = shape.config.vocab_size;
  // The masking of a masked LM draws its own positions (ids 0-4 special, as the benchmark's synthetic
  // batches); a causal LM and a classifier have none. The model's task picks the objective, as in a run.
  const settings = classifier || modelSpec(shape.config).task === "causal-lm" ? {} : maskingSettings(vocab);
  const objective = objectiveFor(model, settings);
  const policy = precisionPolicy(precision);
  const optimizer = new AdamW({ learningRate: 1e-4, weightDecay: 0.01 });
  const params = k.jit((key: k.Array) => model.init(key), { name: "probe_init", device })(k.randomKey(0, device));
  let state: TrainState = {
    params: policy.paramDtype === "f32" ? params : k.treeMap((p: k.Array) => p.astype(policy.paramDtype), params),
    opt: k.jit((p: unknown) => optimizer.init(p), { name: "probe_opt_init", device })(params),
  };
  const trainStep = k.jit(makeTrainStep({ objective, optimizer, computeDtype: policy.computeDtype, dropoutSeed: 1 }), {
    name: "probe_train_step",
    donateArgs: [0],
    device,
  });
  const { batch, maxLength } = shape;
  const ids = new Int32Array(batch * maxLength);
  for (let i = 0; i < ids.length; i++) ids[i] = 5 + ((Math.imul(i + 1, 2654435761) >>> 0) % Math.max(1, vocab - 5));
  const inputs = {
    inputIds: k.array(ids, { shape: [batch, maxLength], device }),
    attentionMask: k.array(new Int32Array(ids.length).fill(1), { shape: [batch, maxLength], device }),
    exampleOffset: k.array(new Int32Array([0]), { shape: [], device }),
    epoch: k.array(new Int32Array([0]), { shape: [], device }),
    // A classifier's batches carry one class per record.
    ...(classifier
      ? {
          labels: k.array(
            Int32Array.from({ length: batch }, (_, i) => i % classifier.config.num_labels),
            { shape: [batch], device },
          ),
        }
      : {}),
  };
  let done = 0;
  return {
    async step() {
      const t0 = performance.now();
      const out = trainStep(state, inputs, k.array(new Int32Array([done++]), { shape: [], device }));
      state = out.state;
      await out.metrics.loss.data();
      return (performance.now() - t0) / 1000;
    },
    compileSeconds: () => trainStep.metrics.compileMs / 1000,
  };
}

function maskingSettings(vocab: number) {
  return { masking: { maskTokenId: 4, vocabSize: vocab, specialIds: [0, 1, 2, 3, 4], seed: 2 } };
}

/**
 * Times `candidates` on the probe shape: each compiles and runs one step, then rounds of one step each,
 * in turn, until the budget is spent; a candidate's figure is its fastest timed step (the one least
 * disturbed by other work on the machine).
 */
export async function probeExecutions(
  shape: ProbeShape,
  candidates: readonly ExecutionCandidate[],
  deviceOf: CandidateDevice,
  budget: ProbeBudget = {},
): Promise<CandidateTiming[]> {
  const sessions = candidates.map((c) => probeSession(shape, c.precision, deviceOf(c)));
  for (const s of sessions) await s.step(); // compiles, and warms the caches
  const times = candidates.map((): number[] => []);
  const seconds = budget.seconds ?? 3;
  const minRounds = budget.minRounds ?? 3;
  const maxRounds = Math.max(minRounds, budget.maxRounds ?? 8);
  const t0 = performance.now();
  for (let round = 0; round < maxRounds; round++) {
    if (round >= minRounds && (performance.now() - t0) / 1000 > seconds) break;
    for (let i = 0; i < sessions.length; i++) times[i]!.push(await sessions[i]!.step());
  }
  return candidates.map((c, i) => ({
    executor: c.executor,
    precision: c.precision,
    stepSeconds: Math.min(...times[i]!),
    compileSeconds: sessions[i]!.compileSeconds(),
    timedSteps: times[i]!.length,
  }));
}
