// `kiln export`: a trained model as an ONNX graph that transformers.js and ONNX Runtime serve.
import { rm } from "node:fs/promises";
import { checkOutputFlag } from "../args.js";
import { flagTable, readFlags } from "../flags.js";
import { isGcsPath } from "../../data/storage/index.js";
import { localStandIn } from "../../data/storage/transfer.js";
import { localInputDir, probeRemote, publishDir } from "../gcs-paths.js";
import { exportModel } from "../../export/export-model.js";
import { kilnVersion } from "../version.js";
import type { Command } from "./types.js";

const FLAGS = flagTable({
  command: "export",
  usage: "Usage: kiln export --model DIR --format onnx [--batch N|dynamic] [--max-length N] [--precision f32] [--out DIR]",
  about: `Writes the model's inference graph as OUT/onnx/model.onnx beside config.json and the tokenizer files:
the layout transformers.js loads in Node or the browser. DIR is a directory written by \`kiln train\` or
by transformers' save_pretrained.
  roberta, bert   input_ids, attention_mask → logits, last_hidden_state, for pipeline("fill-mask", OUT);
                  an encoder-only checkpoint exports last_hidden_state alone
  llama, gpt2     input_ids, attention_mask, position_ids, past_key_values.N.key/value → logits,
                  present.N.key/value (the key/value cache), for pipeline("text-generation", OUT)
  classifiers     (*ForSequenceClassification) input_ids, attention_mask, and BERT's token_type_ids →
                  logits [batch, labels], for pipeline("text-classification", OUT)`,
  flags: {
    model: { type: "string", value: "DIR", required: true, help: "the model directory, local or gs://" },
    format: { type: "string", value: "onnx", required: true, help: "the format to write (onnx)" },
    batch: {
      type: "string",
      value: "N|dynamic",
      default: "dynamic",
      help:
        "dynamic: batch and sequence length chosen per call, up to --max-length tokens;\n" +
        "N: a fixed signature [N, max-length] (XLA-style serving; inputs padded to max-length;\n" +
        "encoders only)",
      check: (v) =>
        v === "dynamic" || (Number.isInteger(Number(v)) && Number(v) >= 1) ? undefined : 'must be "dynamic" or an integer ≥ 1',
    },
    "max-length": { type: "int", min: 1, help: "the longest sequence (default 128, or the model's limit when lower)" },
    precision: { type: "string", value: "f32", default: "f32", help: "weights and outputs in f32 (the only precision exported so far)" },
    out: { type: "string", value: "DIR", help: "where to write (default: the model directory)" },
  },
  footer: "DIR and OUT may be gs:// paths: the model is downloaded first, and the export uploaded.",
});

export const exportCommand: Command = {
  name: "export",
  summary: "export a trained model as ONNX for transformers.js / ONNX Runtime serving",
  async run(argv) {
    const flags = readFlags(FLAGS, argv);
    if (!flags) return;
    const values = flags.values;
    const batch = values.batch === "dynamic" ? "dynamic" : Number(values.batch);
    const out = values.out ?? values.model;
    const outFlag = values.out ? "out" : "model";
    checkOutputFlag(outFlag, out);
    const remoteOut = isGcsPath(out);
    if (remoteOut) await probeRemote(outFlag, out);
    const modelDir = await localInputDir("model", values.model);
    // A gs:// output is written into a local stand-in, then uploaded.
    const localOut = remoteOut ? localStandIn(out, "outputs") : out;
    if (remoteOut) await rm(localOut, { recursive: true, force: true });
    const result = await exportModel({
      modelDir,
      format: values.format,
      batch,
      maxLength: values["max-length"],
      precision: values.precision,
      outDir: localOut,
      producerVersion: kilnVersion(),
    });
    if (remoteOut) await publishDir(outFlag, localOut, out);
    for (const n of result.notices) console.error(`note: ${n}`);
    console.log(
      `wrote ${remoteOut ? `${out.replace(/\/+$/, "")}/onnx/model.onnx` : result.modelPath} ` +
        `(${(result.bytes / 1e6).toFixed(2)} MB; outputs ${result.outputs.join(", ")}; ` +
        `${batch === "dynamic" ? "dynamic batch and length" : `batch ${batch}`}, at most ${result.maxLength} tokens)`,
    );
  },
};
