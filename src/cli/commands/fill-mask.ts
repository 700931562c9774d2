// `kiln fill-mask`: the top-k predictions for each [MASK] in a text, as lines to read or (--json) as
// the pipeline's records.
import { join } from "node:path";
import { UsageError } from "../args.js";
import { flagTable, helpText, readFlags } from "../flags.js";
import { loadModel } from "../../models/pretrained.js";
import { loadTokenizer } from "../../text/index.js";
import { FillMaskPipeline } from "../../pipelines/fill-mask.js";
import type { Command } from "./types.js";
import { localInputDir } from "../gcs-paths.js";

const FLAGS = flagTable({
  command: "fill-mask",
  usage: `Usage: kiln fill-mask --model DIR "text with [MASK]" [--top-k 5] [--tokenizer DIR] [--json]`,
  about: `Prints the model's top-k guesses for each mask token, one a line: the score, the token, and the text
with the mask filled. --json prints the pipeline's records instead, as transformers' fill-mask pipeline
returns them: [{score, token, token_str, sequence}] (a list of such lists for a text with several masks).
DIR is a model directory written by \`kiln train\` (config.json, model.safetensors, tokenizer files),
local or gs:// (downloaded first). --tokenizer DIR reads the tokenizer from another directory (local or
gs://); it must be the model's own vocabulary.`,
  positionals: "TEXT",
  flags: {
    model: { type: "string", value: "DIR", required: true, help: "the model directory, local or gs://" },
    "top-k": { type: "int", min: 1, default: 5, help: "guesses per mask" },
    tokenizer: { type: "string", value: "DIR", help: "read the tokenizer from another directory (the model's own vocabulary)" },
    json: { type: "bool", help: "print the pipeline's records as JSON" },
  },
});

export const fillMaskCommand: Command = {
  name: "fill-mask",
  summary: "predict the masked words of a text with a trained model",
  async run(argv) {
    const flags = readFlags(FLAGS, argv);
    if (!flags) return;
    const { values, positionals } = flags;
    if (positionals.length !== 1)
      throw new UsageError(`kiln fill-mask: give exactly one text (quote it), got ${positionals.length}\n\n${helpText(FLAGS)}`);
    const dir = await localInputDir("model", values.model);
    const tokenizerDir = values.tokenizer ? await localInputDir("tokenizer", values.tokenizer) : dir;
    const [{ model, params }, tokenizer] = await Promise.all([loadModel(dir, { task: "mlm" }), loadTokenizer(tokenizerDir)]);
    const pipe = new FillMaskPipeline(model, params, tokenizer, {
      model: join(values.model, "config.json"),
      tokenizer: join(values.tokenizer ?? values.model, "tokenizer.json"),
    });
    // One list per mask; a text with one mask prints its list alone (transformers' shape for one mask).
    const perMask = await pipe.call(positionals[0]!, { topK: values["top-k"], eachMask: true });
    if (values.json) return console.log(JSON.stringify(perMask.length === 1 ? perMask[0] : perMask));
    perMask.forEach((guesses, m) => {
      if (perMask.length > 1) console.log(`mask ${m + 1}:`);
      for (const r of guesses) console.log(`${r.score.toFixed(4)}  ${JSON.stringify(r.token_str)}  ${r.sequence}`);
    });
  },
};
