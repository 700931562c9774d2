// pipeline(task, dir): a model directory as one async function, in the shape of transformers.js'
// `pipeline` (`const fillMask = await pipeline("fill-mask", dir); await fillMask(text)`). The classes
// underneath (FillMaskPipeline, TextGenerationPipeline) stay reachable as `.pipeline`.
import { join } from "node:path";
import { OptionError } from "../core/option-error.js";
import { loadModel } from "../models/pretrained.js";
import { loadTokenizer } from "../text/index.js";
import { FillMaskPipeline, type FillMaskOptions, type FillMaskResult } from "./fill-mask.js";
import { TextGenerationPipeline, type TextGeneration, type TextGenerationOptions } from "./text-generation.js";
import type { GeneratorOptions } from "./generation/generator.js";
import {
  TextClassificationPipeline,
  type ClassificationInput,
  type ClassificationResult,
  type TextClassificationOptions,
  type TextPair,
} from "./text-classification.js";

/** The tasks `pipeline` builds, named as in transformers. */
export const PIPELINE_TASKS = ["fill-mask", "text-generation", "text-classification"] as const;
/** The tasks `pipeline` builds: "fill-mask", "text-generation" or "text-classification". */
export type PipelineTask = (typeof PIPELINE_TASKS)[number];

/**
 * `await fillMask(text)`: the top guesses for the text's [MASK]; with `eachMask: true`, one list per mask;
 * for a list of texts, one list per text (FillMaskPipeline.call's overloads).
 */
export interface FillMask {
  (text: string, opts?: FillMaskOptions & { eachMask?: false }): Promise<FillMaskResult[]>;
  (text: string, opts: FillMaskOptions & { eachMask: true }): Promise<FillMaskResult[][]>;
  (texts: readonly string[], opts?: FillMaskOptions & { eachMask?: false }): Promise<FillMaskResult[][]>;
  readonly task: "fill-mask";
  readonly pipeline: FillMaskPipeline;
}

/** `await generate(prompt)`: each prompt's continuation, with its token ids and how it finished. */
export type TextGenerator = ((prompts: string | readonly string[], opts?: TextGenerationOptions) => Promise<TextGeneration>) & {
  readonly task: "text-generation";
  readonly pipeline: TextGenerationPipeline;
};

/**
 * `await classify(text)`: the best class of a text (`{ text, textPair }` for a pair; `[text, pair]` in a list), as [{ label, score }];
 * with topK, the best topK; for a list, one best class per input (topK 1) or one list per input.
 */
export interface TextClassifier {
  (input: string | TextPair, opts?: TextClassificationOptions): Promise<ClassificationResult[]>;
  (inputs: readonly ClassificationInput[], opts?: TextClassificationOptions & { topK?: 1 }): Promise<ClassificationResult[]>;
  (inputs: readonly ClassificationInput[], opts: TextClassificationOptions): Promise<ClassificationResult[] | ClassificationResult[][]>;
  readonly task: "text-classification";
  readonly pipeline: TextClassificationPipeline;
  /** What loading reported (a freshly initialized head, unused tensors). */
  readonly notices: readonly string[];
}

/** Options of `pipeline`: where the tokenizer is when it is not beside the model. */
export interface PipelineOptions {
  /** Where tokenizer.json is, when it is not beside the model (default: the model directory). */
  tokenizerDir?: string;
}

/**
 * Loads the model and tokenizer in `dir` (a directory `kiln train` or `Trainer.fit` wrote, or
 * transformers' `save_pretrained` with a Kiln tokenizer beside it) for `task`, and returns it as a
 * function. Text generation also takes the Generator's options (e.g. `decodeLoop`).
 */
export async function pipeline(task: "fill-mask", dir: string, opts?: PipelineOptions): Promise<FillMask>;
export async function pipeline(task: "text-generation", dir: string, opts?: PipelineOptions & GeneratorOptions): Promise<TextGenerator>;
export async function pipeline(task: "text-classification", dir: string, opts?: PipelineOptions): Promise<TextClassifier>;
export async function pipeline(
  task: PipelineTask,
  dir: string,
  opts: PipelineOptions & GeneratorOptions = {},
): Promise<FillMask | TextGenerator | TextClassifier> {
  if (task === "fill-mask") {
    const tokenizerDir = opts.tokenizerDir ?? dir;
    const [{ model, params }, tokenizer] = await Promise.all([loadModel(dir, { task: "mlm" }), loadTokenizer(tokenizerDir)]);
    const pipe = new FillMaskPipeline(model, params, tokenizer, {
      model: join(dir, "config.json"),
      tokenizer: join(tokenizerDir, "tokenizer.json"),
    });
    // One implementation behind the overloads: the pipeline's call checks the options at run time.
    const call = pipe.call.bind(pipe) as (
      text: string | readonly string[],
      o?: FillMaskOptions,
    ) => Promise<FillMaskResult[] | FillMaskResult[][]>;
    return Object.assign((text: string | readonly string[], o?: FillMaskOptions) => call(text, o), {
      task,
      pipeline: pipe,
    } as const) as FillMask;
  }
  if (task === "text-generation") {
    const pipe = await TextGenerationPipeline.fromPretrained(dir, opts);
    return Object.assign((prompts: string | readonly string[], o?: TextGenerationOptions) => pipe.generate(prompts, o), {
      task,
      pipeline: pipe,
    } as const);
  }
  if (task === "text-classification") {
    const tokenizerDir = opts.tokenizerDir ?? dir;
    const [{ model, params, notices }, tokenizer] = await Promise.all([
      loadModel(dir, { task: "sequence-classification" }),
      loadTokenizer(tokenizerDir),
    ]);
    const pipe = new TextClassificationPipeline(model, params, tokenizer, {
      model: join(dir, "config.json"),
      tokenizer: join(tokenizerDir, "tokenizer.json"),
    });
    const call = pipe.call.bind(pipe) as (
      input: ClassificationInput | readonly ClassificationInput[],
      o?: TextClassificationOptions,
    ) => Promise<ClassificationResult[] | ClassificationResult[][]>;
    return Object.assign((input: ClassificationInput | readonly ClassificationInput[], o?: TextClassificationOptions) => call(input, o), {
      task,
      pipeline: pipe,
      notices,
    } as const) as TextClassifier;
  }
  throw new OptionError({
    option: "task",
    value: task,
    why: `is not a task Kiln has a pipeline for`,
    fix: `Use one of ${PIPELINE_TASKS.map((t) => `"${t}"`).join(", ")}`,
    where: "pipeline",
  });
}
