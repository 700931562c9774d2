// `kiln classify`: a classifier's best classes for each text (or a pair of texts), as lines to read or
// (--json) as the text-classification pipeline's records.
import { join } from "node:path";
import { UsageError } from "../args.js";
import { flagTable, helpText, readFlags } from "../flags.js";
import { loadModel } from "../../models/pretrained.js";
import { loadTokenizer } from "../../text/index.js";
import { TextClassificationPipeline, type ClassificationInput, type ClassificationResult } from "../../pipelines/text-classification.js";
import type { Command } from "./types.js";
import { localInputDir } from "../gcs-paths.js";

const FLAGS = flagTable({
  command: "classify",
  usage: `Usage: kiln classify --model DIR "text" ["text" …] [--pair "second text"] [--top-k 1 | --all] [--tokenizer DIR] [--json]`,
  about: `Prints the best classes of each text, one a line: the score and the label (with several texts, the
text first). --json prints the pipeline's records instead, as transformers' text-classification pipeline
returns them: [{label, score}] for one text, one list per text for several. --pair classifies the text and
the second text together (as [CLS] text [SEP] pair [SEP]: a premise and hypothesis, a question and answer).
DIR is a sequence classifier's directory (transformers' *ForSequenceClassification or Kiln's), local or
gs://; a base model's directory gets a freshly initialized head, reported, whose scores mean nothing yet.`,
  positionals: "TEXT…",
  flags: {
    model: { type: "string", value: "DIR", required: true, help: "the classifier's directory, local or gs://" },
    "top-k": { type: "int", min: 1, default: 1, help: "classes per text, best first" },
    all: { type: "bool", help: "every class of each text (instead of --top-k)" },
    pair: { type: "string", value: "TEXT", help: "a second text classified together with the one text given" },
    tokenizer: { type: "string", value: "DIR", help: "read the tokenizer from another directory (the model's own vocabulary)" },
    json: { type: "bool", help: "print the pipeline's records as JSON" },
  },
});

export const classifyCommand: Command = {
  name: "classify",
  summary: "classify texts (or pairs of texts) with a sequence classifier",
  async run(argv) {
    const flags = readFlags(FLAGS, argv);
    if (!flags) return;
    const { values, positionals, given } = flags;
    if (positionals.length === 0) throw new UsageError(`kiln classify: give at least one text (quote each)\n\n${helpText(FLAGS)}`);
    if (values.pair !== undefined && positionals.length !== 1)
      throw new UsageError(`kiln classify: --pair goes with exactly one text, got ${positionals.length}\n\n${helpText(FLAGS)}`);
    if (values.all && given.has("top-k")) throw new UsageError(`kiln classify: give --top-k or --all, not both`);
    const dir = await localInputDir("model", values.model);
    const tokenizerDir = values.tokenizer ? await localInputDir("tokenizer", values.tokenizer) : dir;
    const [{ model, params, notices }, tokenizer] = await Promise.all([
      loadModel(dir, { task: "sequence-classification" }),
      loadTokenizer(tokenizerDir),
    ]);
    for (const notice of notices) console.error(`notice: ${notice}`);
    const pipe = new TextClassificationPipeline(model, params, tokenizer, {
      model: join(values.model, "config.json"),
      tokenizer: join(values.tokenizer ?? values.model, "tokenizer.json"),
    });
    const inputs: ClassificationInput[] = values.pair !== undefined ? [{ text: positionals[0]!, textPair: values.pair }] : positionals;
    const topK = values.all ? null : values["top-k"];
    // One batch; the pipeline gives one result per input for top-k 1, one list per input otherwise.
    const out = await pipe.call(inputs, { topK });
    const perInput = topK === 1 ? (out as ClassificationResult[]).map((r) => [r]) : (out as ClassificationResult[][]);
    if (values.json) return console.log(JSON.stringify(perInput.length === 1 ? perInput[0] : perInput));
    const line = (r: ClassificationResult) => `${r.score.toFixed(4)}  ${r.label}`;
    perInput.forEach((results, i) => {
      if (perInput.length > 1) console.log(JSON.stringify(positionals[i]));
      for (const r of results) console.log(perInput.length > 1 ? `  ${line(r)}` : line(r));
    });
  },
};
