// `kiln export`: a trained model as an ONNX graph that transformers.js and ONNX Runtime serve.
import { rm } from "node:fs/promises";
import { parseFlags, intFlag, noPositionals, UsageError, checkOutputFlag } from "../args.js";
import { isGcsPath } from "../../data/storage/index.js";
import { localStandIn } from "../../data/storage/transfer.js";
import { localInputDir, probeRemote, publishDir } from "../gcs-paths.js";
import { exportModel } from "../../export/export-model.js";
import { kilnVersion } from "../version.js";
import type { Command } from "./types.js";

const HELP = `Usage: kiln export --model DIR --format onnx [--batch N|dynamic] [--max-length N] [--precision f32] [--out DIR]

Writes the model's inference graph as OUT/onnx/model.onnx beside config.json and the tokenizer files:
the layout transformers.js loads in Node or the browser. DIR is a directory written by \`kiln train\` or
by transformers' save_pretrained.
  roberta, bert   input_ids, attention_mask → logits, last_hidden_state, for pipeline("fill-mask", OUT);
                  an encoder-only checkpoint exports last_hidden_state alone
  llama, gpt2     input_ids, attention_mask, position_ids, past_key_values.N.key/value → logits,
                  present.N.key/value (the key/value cache), for pipeline("text-generation", OUT)

  --batch dynamic   batch and sequence length chosen per call, up to --max-length tokens (default)
  --batch N         a fixed signature [N, max-length] (XLA-style serving; inputs padded to max-length;
                    encoders only)
  --max-length N    the longest sequence (default 128, or the model's limit when lower)
  --precision f32   weights and outputs in f32 (the only precision exported so far)
  --out DIR         where to write (default: the model directory)

DIR and OUT may be gs:// paths: the model is downloaded first, and the export uploaded.`;

export const exportCommand: Command = {
  name: "export",
  summary: "export a trained model as ONNX for transformers.js / ONNX Runtime serving",
  async run(argv) {
    const { values, positionals } = parseFlags("export", argv, {
      model: { type: "string" },
      format: { type: "string" },
      batch: { type: "string" },
      "max-length": { type: "string" },
      precision: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    if (values.help) return console.log(HELP);
    noPositionals("export", positionals);
    if (!values.model) throw new UsageError(`kiln export: --model is required\n\n${HELP}`);
    if (!values.format) throw new UsageError(`kiln export: --format is required (onnx)\n\n${HELP}`);
    const batch = (values.batch ?? "dynamic") === "dynamic" ? "dynamic" : Number(values.batch);
    if (batch !== "dynamic" && !(Number.isInteger(batch) && batch >= 1))
      throw new UsageError(`kiln export: --batch must be "dynamic" or an integer ≥ 1, got "${values.batch}"\n\n${HELP}`);
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
      maxLength: values["max-length"] === undefined ? undefined : intFlag("max-length", values["max-length"], 128, 1),
      precision: values.precision ?? "f32",
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
