// Directories that Python transformers wrote (save_pretrained) export as Kiln's own do: a BertForMaskedLM
// gives transformers' logits and hidden states through onnxruntime-node, and an encoder-only RobertaModel
// exports its last_hidden_state alone (its head would be random). One Python process writes both.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { readSafetensors } from "../../src/models/safetensors.js";
import { kiln, maxAbsDiff, padBatch, writeBatch } from "../helpers/hf-interop.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { ortFeeds } from "../helpers/onnx-serving.js";
import { rng } from "../helpers/random.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOLERANCE = 1e-4;
const root = tempDir("kiln-export-hf-");

// Three rows of different lengths over transformers' 100-token vocabulary (pad id 1), padded on the right.
const r = rng(5);
const batch = padBatch(
  [12, 7, 20].map((n) => Array.from({ length: n }, () => 2 + Math.floor(r() * 98))),
  1,
);

test(
  "save_pretrained directories: BertForMaskedLM → transformers' logits; RobertaModel → its last_hidden_state only",
  { skip: pythonSkip },
  async (t) => {
    const batchFile = join(root, "batch.safetensors");
    await writeBatch(batchFile, batch);
    const report = runPython<{ transformers: string }>("export_hf_models.py", [], {
      input: JSON.stringify({ out: root, batch: batchFile }),
    });
    const expected = (await readSafetensors(join(root, "outputs.safetensors"))).tensors;
    const cases = [
      { dir: "bert", outputs: ["logits", "last_hidden_state"] },
      { dir: "roberta-encoder", outputs: ["last_hidden_state"] },
    ];
    for (const c of cases) {
      const log = kiln("export", "--model", join(root, c.dir), "--format", "onnx");
      assert.match(log, new RegExp(`outputs ${c.outputs.join(", ")};`));
      const session = await ort.InferenceSession.create(join(root, c.dir, "onnx", "model.onnx"));
      assert.deepEqual(session.outputNames, c.outputs);
      const out = await session.run(ortFeeds(batch));
      for (const name of c.outputs) {
        const want = expected[`${c.dir}.${name}`]!;
        assert.deepEqual(out[name]!.dims, want.shape);
        const diff = maxAbsDiff(out[name]!.data as Float32Array, want.data as Float32Array);
        t.diagnostic(`${c.dir} ${name}: largest difference from transformers ${report.transformers}: ${diff.toExponential(2)}`);
        assert.ok(diff < TOLERANCE, `${c.dir} ${name} differs by ${diff}`);
      }
    }
  },
);
