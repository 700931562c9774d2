// The tiny causal-LM run of the many-process CLI tests (mpirun, kiln launch): a sentence corpus, its
// 300-piece tokenizer and 32-token shards made with the CLI, and `kiln train`'s arguments for llama-tiny,
// 4 steps of 2 per replica on the CPU. The runs being compared differ only in how many processes and
// devices they are given.
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSentenceCorpus } from "./sotu-slice.js";

export const kilnCli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

/** One intra-op thread per process: the processes share this machine's cores. */
export const oneThreadEnv = { ...process.env, KILN_CPU_THREADS: "1" };

/** `kiln ARGS` in a child process that must succeed. */
export function kiln(...args: string[]): SpawnSyncReturns<string> {
  const r = spawnSync(process.execPath, [kilnCli, ...args], { encoding: "utf8", timeout: 120_000, env: oneThreadEnv });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

export interface TinyCausalData {
  tokenizer: string;
  shards: string;
}

/** The corpus, tokenizer and shards under `root`. */
export function prepareTinyCausalData(root: string): TinyCausalData {
  const corpus = writeSentenceCorpus(join(root, "corpus.txt"));
  const tokenizer = join(root, "tokenizer"),
    shards = join(root, "shards");
  kiln("tokenizer", "train", "--input", corpus, "--vocab-size", "300", "--out", tokenizer);
  kiln(
    ..."data prepare --tokenizer".split(" "),
    tokenizer,
    "--input",
    corpus,
    "--out",
    shards,
    ..."--max-length 32 --validation-fraction 0.1 --quiet".split(" "),
  );
  return { tokenizer, shards };
}

/** `kiln train` of llama-tiny on that data into `out` (4 steps unless `maxSteps` says otherwise). */
export function tinyCausalTrainArgs(d: TinyCausalData, out: string, maxSteps = 4): string[] {
  return [
    "train",
    ..."--task causal-lm --preset llama-tiny".split(" "),
    "--tokenizer",
    d.tokenizer,
    "--train-data",
    join(d.shards, "train"),
    "--eval-data",
    join(d.shards, "validation"),
    "--output-dir",
    out,
    "--max-steps",
    `${maxSteps}`,
    ..."--per-replica-batch-size 2 --log-every 1 --accelerator cpu --quiet".split(" "),
  ];
}
