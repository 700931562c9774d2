// A test corpus prepared into small shards (20 records each, two shards a group, one worker), for the
// tests that damage, swap or replace shards and check that they are refused.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { prepareDataset } from "../../src/data/prepare/prepare.js";
import { makeTestCorpus, type TestCorpus } from "./sotu-slice.js";

/** The prepared records' length in tokens. */
export const MAX_LENGTH = 32;

export interface PreparedShards {
  fixture: TestCorpus;
  /** prepare's output directory (train/ below it). */
  prepared: string;
  /** The train split's shard file names, sorted. */
  shardNames: string[];
}

/** The first `speeches` speeches, their tokenizer, and the corpus prepared with it into `fixture.dir`/prepared. */
export async function prepareTestShards(speeches: number): Promise<PreparedShards> {
  const fixture = await makeTestCorpus(speeches);
  const prepared = join(fixture.dir, "prepared");
  await prepareDataset({
    tokenizer: fixture.tokenizerDir,
    inputs: [fixture.corpus],
    out: prepared,
    maxLength: MAX_LENGTH,
    shardSize: 20,
    groupSize: 2,
    progress: null,
    workers: 1,
  });
  const shardNames = readdirSync(join(prepared, "train"))
    .filter((n) => n.endsWith(".tfrecord"))
    .sort();
  return { fixture, prepared, shardNames };
}
