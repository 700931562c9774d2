// `kiln generate`: continue prompts with a causal language model. One prompt streams its new text to
// the terminal as it comes; several are generated as one batch and printed when done. What was
// compiled, and how long it took, goes to stderr.
import { join } from "node:path";
import { UsageError } from "../args.js";
import { flagTable, helpText, readFlags } from "../flags.js";
import { localInputDir } from "../gcs-paths.js";
import { TextGenerationPipeline, type TextGeneration, type TokenEvent } from "../../pipelines/text-generation.js";
import { GenerateInputError } from "../../pipelines/generation/buckets.js";
import { SAMPLING_DEFAULTS, samplingProblem } from "../../pipelines/generation/sampling.js";
import type { Command } from "./types.js";

const FLAGS = flagTable({
  command: "generate",
  usage: `Usage: kiln generate --model DIR "prompt" ["prompt2" …] [--max-new-tokens 32]
                     [--temperature 1 --top-k 50 --top-p 1 --seed 0 | --greedy] [--no-eos-stop] [--json]`,
  about: `Continues each prompt with the causal language model in DIR (a directory written by \`kiln train
--task causal-lm\` or by transformers' save_pretrained: config.json, model.safetensors, tokenizer files;
local or gs://). One prompt streams its new text as it comes; several run as one batch and are printed
when all are done.`,
  positionals: "PROMPT…",
  flags: {
    model: { type: "string", value: "DIR", required: true, help: "the causal language model's directory, local or gs://" },
    "max-new-tokens": {
      type: "int",
      min: 1,
      default: 32,
      help:
        "new tokens per prompt at most; a row stops earlier at the model's\n" +
        "end-of-sequence token. A prompt plus N must fit the model's positions.",
    },
    temperature: { type: "number", value: "T", default: SAMPLING_DEFAULTS.temperature, help: "sampling: divide the logits by T (> 0)" },
    "top-k": {
      type: "int",
      value: "K",
      min: 0,
      default: SAMPLING_DEFAULTS.topK,
      help: "sampling: keep the K most likely tokens (0 keeps all)",
    },
    "top-p": {
      type: "number",
      value: "P",
      default: SAMPLING_DEFAULTS.topP,
      help: "sampling: keep the most likely tokens whose probabilities add up to P (0 < P ≤ 1)",
    },
    seed: { type: "int", value: "S", min: 0, default: 0, help: "sampling: the same seed gives the same text" },
    greedy: { type: "bool", help: "the most likely token every step instead of sampling (no seed needed)" },
    "no-eos-stop": { type: "bool", help: "always generate N tokens, past end-of-sequence tokens" },
    tokenizer: { type: "string", value: "DIR", help: "read the tokenizer from another directory (it must be the model's own vocabulary)" },
    json: { type: "bool", help: "print [{prompt, generated_text, new_text, token_ids, finish_reason}] instead" },
  },
  footer: `Prompts are padded into length buckets (16, 32, 64, …) so that the prefill and decode programs compile
once per bucket; stderr says what was compiled and how fast the tokens came.`,
});

export const generateCommand: Command = {
  name: "generate",
  summary: "continue prompts with a causal language model (greedy or sampled, streamed)",
  async run(argv) {
    const flags = readFlags(FLAGS, argv);
    if (!flags) return;
    const { values, positionals, given } = flags;
    if (positionals.length === 0) throw new UsageError(`kiln generate: give at least one prompt (quote it)\n\n${helpText(FLAGS)}`);
    const samplingFlags = (["temperature", "top-k", "top-p", "seed"] as const).filter((f) => given.has(f));
    if (values.greedy && samplingFlags.length)
      throw new UsageError(
        `kiln generate: --greedy takes the most likely token, so --${samplingFlags[0]} would do nothing; ` +
          `leave out --greedy to sample, or --${samplingFlags[0]} to decode greedily`,
      );
    const opts = {
      maxNewTokens: values["max-new-tokens"],
      greedy: values.greedy,
      temperature: values.temperature,
      topK: values["top-k"],
      topP: values["top-p"],
      seed: values.seed,
      stopAtEos: !values["no-eos-stop"],
    };
    const problem = samplingProblem(opts);
    if (problem) throw new UsageError(`kiln generate: --${problem.replace("topK", "top-k").replace("topP", "top-p")}`);
    const dir = await localInputDir("model", values.model);
    const tokenizerDir = values.tokenizer ? await localInputDir("tokenizer", values.tokenizer) : dir;
    const pipe = await inputErrorsAsUsage(() =>
      TextGenerationPipeline.fromPretrained(dir, {
        tokenizerDir,
        sources: { model: join(values.model, "config.json"), tokenizer: join(values.tokenizer ?? values.model, "tokenizer.json") },
      }),
    );
    for (const notice of pipe.notices) console.error(`kiln generate: ${notice}`);
    const stream = positionals.length === 1 && !values.json;
    let streamed = -1;
    // The prompt goes out with the first token: a prompt the pipeline refuses prints nothing.
    const onToken = (e: TokenEvent) => {
      if (streamed < 0) process.stdout.write(positionals[0]!);
      process.stdout.write(e.text);
      streamed = Math.max(streamed, 0) + e.text.length;
    };
    const result = await inputErrorsAsUsage(() => pipe.generate(positionals, { ...opts, onToken: stream ? onToken : undefined }));
    // What streaming held back (an incomplete character at the very end).
    if (stream) process.stdout.write(`${streamed < 0 ? positionals[0]! : ""}${result.texts[0]!.slice(Math.max(streamed, 0))}\n`);
    else if (values.json)
      console.log(
        JSON.stringify(
          positionals.map((prompt, i) => ({
            prompt,
            generated_text: prompt + result.texts[i]!,
            new_text: result.texts[i]!,
            token_ids: result.tokenIds[i]!,
            finish_reason: result.finishReasons[i]!,
          })),
        ),
      );
    else console.log(positionals.map((prompt, i) => prompt + result.texts[i]!).join("\n\n"));
    console.error(report(result));
  },
};

/** "compiled 2 programs (prefill 32, decode ×8) in 1.4 s; 31 tokens in 0.52 s (59.6 tokens/s)". */
export function report(r: TextGeneration): string {
  const compiled = r.compiled.length
    ? `compiled ${r.compiled.length} program${r.compiled.length > 1 ? "s" : ""} (${r.compiled.map((c) => c.program).join(", ")}) in ` +
      `${r.compiled.reduce((s, c) => s + c.seconds, 0).toFixed(1)} s`
    : "compiled nothing (every program was compiled before)";
  const tokens = r.tokenIds.reduce((s, t) => s + Math.max(0, t.length - 1), 0);
  const rate = r.decodeSeconds > 0 ? ` (${(tokens / r.decodeSeconds).toFixed(1)} tokens/s)` : "";
  return `${compiled}; prefill ${r.prefillSeconds.toFixed(2)} s; ${tokens} decoded tokens in ${r.decodeSeconds.toFixed(2)} s${rate}`;
}

/** Inputs the pipeline refuses before any work (a prompt too long, another tokenizer) are usage errors (exit 2). */
async function inputErrorsAsUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof GenerateInputError) throw new UsageError(`kiln ${e.message}`);
    throw e;
  }
}
