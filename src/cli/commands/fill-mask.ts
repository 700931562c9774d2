// `kiln fill-mask`: the top-k predictions for each [MASK] in a text, as JSON.
import { join } from "node:path";
import { parseFlags, intFlag, UsageError } from "../args.js";
import { loadModel } from "../../models/pretrained.js";
import { loadTokenizer } from "../../text/index.js";
import { FillMaskPipeline } from "../../pipelines/fill-mask.js";
import type { Command } from "./types.js";
import { localInputDir } from "../gcs-paths.js";

const HELP = `Usage: kiln fill-mask --model DIR "text with [MASK]" [--top-k 5] [--tokenizer DIR]

Prints the model's top-k guesses for each mask token as JSON: [{score, token, token_str, sequence}].
DIR is a model directory written by \`kiln train\` (config.json, model.safetensors, tokenizer files),
local or gs:// (downloaded first). --tokenizer DIR reads the tokenizer from another directory (local or
gs://); it must be the model's own vocabulary.`;

export const fillMaskCommand: Command = {
  name: "fill-mask",
  summary: "predict the masked words of a text with a trained model",
  async run(argv) {
    const { values, positionals } = parseFlags("fill-mask", argv, {
      model: { type: "string" },
      "top-k": { type: "string" },
      tokenizer: { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    if (values.help) return console.log(HELP);
    if (!values.model) throw new UsageError(`kiln fill-mask: --model is required\n\n${HELP}`);
    if (positionals.length !== 1)
      throw new UsageError(`kiln fill-mask: give exactly one text (quote it), got ${positionals.length}\n\n${HELP}`);
    const dir = await localInputDir("model", values.model);
    const tokenizerDir = values.tokenizer ? await localInputDir("tokenizer", values.tokenizer) : dir;
    const [{ model, params }, tokenizer] = await Promise.all([loadModel(dir), loadTokenizer(tokenizerDir)]);
    const pipe = new FillMaskPipeline(model, params, tokenizer, {
      model: join(values.model, "config.json"),
      tokenizer: join(values.tokenizer ?? values.model, "tokenizer.json"),
    });
    console.log(JSON.stringify(await pipe.call(positionals[0]!, { topK: intFlag("top-k", values["top-k"], 5, 1) }), null, 2));
  },
};
