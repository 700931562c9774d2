// `data prepare`: text files → tokenized, grouped, fixed-length chunks → sharded TFRecord files.
//
// The main thread reads lines (as bytes), assigns them to splits, and hands batches of lines to
// encoder worker threads (see defaultWorkers). Results are consumed in submission order, so the
// output is identical whatever the number of workers. Each split concatenates the ids of every
// `groupSize` rows, cuts them into `maxLength` chunks (dropping the remainder) and writes shards of
// `shardSize` records.
//
// Restartable: shards are written atomically and a re-run skips shards already present once a read
// through each has found it whole (see soundShards). A
// `prepare.json` in each split directory records the settings, so a re-run with different settings is
// refused instead of mixing incompatible shards.
import { checkOptions } from "../../core/check-options.js";
import { OptionError } from "../../core/option-error.js";
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { availableParallelism } from "node:os";
import { EncoderPool } from "./pool.js";
import { forEachLine } from "./line-reader.js";
import { TaskBuilder } from "./task-builder.js";
import { splitNames, splitOf, type SplitFractions } from "./splits.js";
import { GroupChunker } from "./chunker.js";
import { ShardWriter } from "./shard-writer.js";
import { ProgressBar, type ProgressSink } from "./progress.js";
import { joinPath, storageFor } from "../storage/index.js";
import type { Compression } from "../tfrecord/files.js";
import { ShardCountError, TFRecordError } from "../tfrecord/errors.js";
import { checkShard } from "../shard-check.js";
import { MANIFEST, type ShardDigest } from "./manifest.js";

/** Options of prepareDataset: the tokenizer, the input texts, the output directory, the splits and shard sizes. */
export interface PrepareOptions {
  /** Directory holding tokenizer.json. */
  tokenizer: string;
  /** Text files, one document per line (local or gs://). */
  inputs: string[];
  /** Output directory (local or gs://); shards go to `{out}/{split}/`. */
  out: string;
  maxLength?: number;
  shardSize?: number;
  /** Rows concatenated together before chunking. */
  groupSize?: number;
  /** Split that receives the rows not carved out by the fractions. */
  split?: string;
  validationFraction?: number;
  testFraction?: number;
  /** Seed of the row → split assignment. */
  seed?: number;
  compression?: Compression;
  /** Encoder worker threads (default: one per core beyond the main thread's, at least one). */
  workers?: number;
  /** Progress display: default a bar on stderr; null for none. */
  progress?: ProgressSink | null;
}

/** One split prepareDataset wrote: its directory, rows, tokens and shards. */
export interface SplitSummary {
  split: string;
  dir: string;
  rows: number;
  tokens: number;
  /** Tokens dropped as group remainders. */
  droppedTokens: number;
  records: number;
  shardsWritten: number;
  shardsReused: number;
  /** Shards an earlier run left that failed their check ("FILE: what was wrong", one each); they were rewritten. */
  damagedShards: string[];
}

/** What prepareDataset wrote: each split's rows, tokens and shards, the bytes read and the time taken. */
export interface PrepareResult {
  splits: SplitSummary[];
  inputBytes: number;
  seconds: number;
}

/** Bytes of text per encoder task: large enough to amortize messaging, small enough to balance. */
const TASK_BYTES = 256 * 1024;

interface SplitState {
  name: string;
  dir: string;
  chunker: GroupChunker;
  writer: ShardWriter;
  /** Digests of the shards an earlier run left, which this run keeps. */
  reusedDigests: Map<string, ShardDigest>;
  task: TaskBuilder;
  rowsInGroup: number;
  rows: number;
  tokens: number;
}

interface Task {
  state: SplitState;
  endsGroup: boolean;
  result: ReturnType<EncoderPool["encode"]>;
}

/** Tokenizes text files into TFRecord shards (a main split, and validation and test when asked for), in worker threads. */
export async function prepareDataset(options: PrepareOptions): Promise<PrepareResult> {
  const o = resolveOptions(options);
  const started = performance.now();
  // Workers load the tokenizer while the inputs and output directories are checked.
  const pool = new EncoderPool({ tokenizerDir: o.tokenizer }, o.workers);
  try {
    return await prepareWith(pool, o, started);
  } finally {
    await pool.close();
  }
}

async function prepareWith(pool: EncoderPool, o: Resolved, started: number): Promise<PrepareResult> {
  const inputBytes = await totalInputBytes(o.inputs);
  const tokenizerSha256 = await tokenizerDigest(o.tokenizer);
  const fractions: SplitFractions = { main: o.split, validation: o.validationFraction, test: o.testFraction, seed: o.seed };
  const settings = {
    maxLength: o.maxLength,
    shardSize: o.shardSize,
    groupSize: o.groupSize,
    split: o.split,
    validationFraction: o.validationFraction,
    testFraction: o.testFraction,
    seed: o.seed,
    compression: o.compression,
    tokenizerSha256,
    inputs: await Promise.all(o.inputs.map(async (path) => ({ path, bytes: await storageFor(path).size(path) }))),
  };

  const states = new Map<string, SplitState>();
  const damagedShards = new Map<string, string[]>();
  for (const name of splitNames(fractions)) {
    const dir = joinPath(o.out, name);
    await claimSplitDir(dir, settings);
    const { existing, damaged, digests } = await soundShards(dir, o.compression);
    damagedShards.set(name, damaged);
    const writer = new ShardWriter({ dir, shardSize: o.shardSize, maxLength: o.maxLength, compression: o.compression, existing });
    const chunker = new GroupChunker(o.maxLength, (ids, count) => writer.add(ids, count));
    states.set(name, { name, dir, chunker, writer, reusedDigests: digests, task: new TaskBuilder(), rowsInGroup: 0, rows: 0, tokens: 0 });
  }

  const progress = o.progress === undefined ? new ProgressBar(inputBytes) : o.progress;
  // Enough queued work that a worker does not wait while the main thread writes shards.
  const maxInFlight = pool.size * 2 + 2;
  const queue: Task[] = [];
  let bytesRead = 0;
  const records = () => [...states.values()].reduce((n, s) => n + s.writer.records, 0);

  const drainOne = async () => {
    const task = queue.shift()!;
    const { ids, rows } = await task.result;
    task.state.rows += rows;
    task.state.tokens += ids.length;
    await task.state.chunker.add(ids);
    if (task.endsGroup) task.state.chunker.endGroup();
    progress?.update(bytesRead, records());
  };
  const submit = async (state: SplitState, file: string, endsGroup: boolean) => {
    if (state.task.lines > 0) {
      const result = pool.encode(state.task.take(file));
      result.catch(() => {}); // reported when the task is drained, in order
      queue.push({ state, endsGroup, result });
    } else if (endsGroup) queue.push({ state, endsGroup, result: Promise.resolve({ ids: new Int32Array(0), rows: 0 }) });
    if (endsGroup) state.rowsInGroup = 0;
    while (queue.length > maxInFlight) await drainOne();
  };

  // A row is a line of input; blank lines count as rows (as in the reference) but yield no tokens.
  let rowIndex = 0;
  for (const file of o.inputs) {
    await forEachLine(
      file,
      (n) => (bytesRead += n),
      (bytes, start, end, line) => {
        const state = states.get(splitOf(rowIndex++, fractions))!;
        state.task.append(bytes, start, end, line);
        state.rowsInGroup++;
        if (state.rowsInGroup === o.groupSize) return submit(state, file, true);
        if (state.task.bytes >= TASK_BYTES) return submit(state, file, false);
      },
    );
    // Tasks do not span files, so that errors can name the file of a line.
    for (const state of states.values()) await submit(state, file, false);
  }
  // The last, smaller group of each split is chunked like the others.
  for (const state of states.values()) if (state.rowsInGroup > 0) await submit(state, "", true);
  while (queue.length > 0) await drainOne();
  for (const state of states.values()) await state.writer.finish();
  progress?.done(bytesRead, records());

  const splits = [...states.values()].map((s) => ({
    split: s.name,
    dir: s.dir,
    rows: s.rows,
    tokens: s.tokens,
    droppedTokens: s.chunker.dropped,
    records: s.writer.records,
    shardsWritten: s.writer.written,
    shardsReused: s.writer.reused,
    damagedShards: damagedShards.get(s.name)!,
  }));
  for (const s of states.values()) {
    // Every shard's digest, so that a reader can tell the shards written here from any other file.
    const shards = new Map<string, ShardDigest>([...s.reusedDigests, ...s.writer.digests]);
    const split = splits.find((x) => x.split === s.name)!;
    await writeManifest(s.dir, settings, split, Object.fromEntries([...shards].sort(([a], [b]) => a.localeCompare(b))));
  }
  return { splits, inputBytes, seconds: (performance.now() - started) / 1000 };
}

/**
 * One encoder thread per core, less one: the main thread is busy too (reading, chunking, serializing,
 * checksumming and writing shards), and the tokenizer runs its own threads when learning new pieces.
 * Every extra worker also repeats the start-up work (loading the tokenizer, warming its piece cache),
 * so on two cores one worker finishes sooner than two.
 */
export function defaultWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

type Resolved = Required<Omit<PrepareOptions, "progress">> & { progress: ProgressSink | null | undefined };

const PREPARE_OPTIONS = [
  "tokenizer",
  "inputs",
  "out",
  "maxLength",
  "shardSize",
  "groupSize",
  "split",
  "validationFraction",
  "testFraction",
  "seed",
  "compression",
  "workers",
  "progress",
] as const satisfies readonly (keyof PrepareOptions)[];

function resolveOptions(options: PrepareOptions): Resolved {
  const where = "prepareDataset";
  checkOptions(where, options, PREPARE_OPTIONS, {
    strings: ["tokenizer", "out", "split"],
    ints: ["maxLength", "shardSize", "groupSize", "seed", "workers"],
    positive: ["maxLength", "shardSize", "groupSize", "workers"],
    numbers: ["validationFraction", "testFraction"],
    nonNegative: ["validationFraction", "testFraction"],
    choices: { compression: ["none", "gzip"] },
  });
  for (const name of ["tokenizer", "out"] as const)
    if (!options[name])
      throw new OptionError({
        where,
        option: name,
        value: options[name],
        why: "is required",
        fix: `Pass ${name}: the ${name === "out" ? "output" : "tokenizer"} directory`,
      });
  if (!Array.isArray(options.inputs) || options.inputs.some((f) => typeof f !== "string"))
    throw new OptionError({
      where,
      option: "inputs",
      value: options.inputs,
      why: "is not a list of text files",
      fix: 'Pass inputs: ["corpus.txt"]',
    });
  const o: Resolved = {
    tokenizer: options.tokenizer,
    inputs: options.inputs,
    out: options.out.replace(/\/+$/, "") || "/",
    maxLength: options.maxLength ?? 128,
    shardSize: options.shardSize ?? 1000,
    groupSize: options.groupSize ?? 1000,
    split: options.split ?? "train",
    validationFraction: options.validationFraction ?? 0,
    testFraction: options.testFraction ?? 0,
    seed: options.seed ?? 0,
    compression: options.compression ?? "none",
    workers: options.workers ?? defaultWorkers(),
    progress: options.progress,
  };
  if (o.inputs.length === 0)
    throw new OptionError({
      where,
      option: "inputs",
      value: o.inputs,
      why: "is empty",
      fix: 'Pass at least one text file, e.g. inputs: ["corpus.txt"]',
    });
  for (const name of ["validationFraction", "testFraction"] as const)
    if (!(o[name] < 1)) throw new OptionError({ where, option: name, value: o[name], why: "must be in [0, 1)" });
  if (o.validationFraction + o.testFraction >= 1)
    throw new OptionError({
      where,
      option: "testFraction",
      value: o.testFraction,
      why: `with validationFraction ${o.validationFraction} leaves no rows for the split "${o.split}"`,
      fix: "Keep validationFraction + testFraction below 1",
    });
  if (!/^[A-Za-z0-9_.-]+$/.test(o.split) || o.split === "." || o.split === "..")
    throw new OptionError({
      where,
      option: "split",
      value: o.split,
      why: "is not a plain directory name",
      fix: 'Pass a name like split: "train"',
    });
  if (o.validationFraction + o.testFraction > 0 && (o.split === "validation" || o.split === "test"))
    throw new OptionError({
      where,
      option: "split",
      value: o.split,
      why: "collides with the split the fractions carve out",
      fix: 'Name the main split differently, e.g. split: "train"',
    });
  return o;
}

async function totalInputBytes(inputs: readonly string[]): Promise<number> {
  let total = 0;
  for (const path of inputs) {
    if (!(await storageFor(path).isFile(path))) throw new Error(`input ${path} does not exist or is not a file`);
    total += await storageFor(path).size(path);
  }
  return total;
}

async function tokenizerDigest(dir: string): Promise<string> {
  const path = joinPath(dir, "tokenizer.json");
  if (!(await storageFor(path).isFile(path)))
    throw new OptionError({
      option: "tokenizer",
      value: dir,
      why: `holds no tokenizer (${path} is missing)`,
      fix: "Pass the directory holding tokenizer.json",
      where: "prepareDataset",
    });
  return createHash("sha256")
    .update(await storageFor(path).readAll(path))
    .digest("hex");
}

/** How the settings recorded in prepare.json are named in messages. */
const SETTING_NAMES: Record<string, string> = {
  tokenizerSha256: "the tokenizer",
  inputs: "the inputs",
};

/**
 * Checks that `dir` is empty of shards or holds shards made with the same settings, removes
 * temporaries left by an interrupted run, and records the settings.
 */
async function claimSplitDir(dir: string, settings: object): Promise<void> {
  const storage = storageFor(dir);
  const path = joinPath(dir, MANIFEST);
  if (await storage.isFile(path)) {
    const previous = JSON.parse(new TextDecoder().decode(await storage.readAll(path))) as { settings: Record<string, unknown> };
    const now = settings as Record<string, unknown>;
    const differing = Object.keys(now)
      .filter((k) => JSON.stringify(previous.settings?.[k]) !== JSON.stringify(now[k]))
      .map((k) => SETTING_NAMES[k] ?? k);
    if (differing.length > 0) {
      throw new OptionError({
        option: "out",
        value: dir,
        why: `already holds shards prepared with different settings (${differing.join(", ")} changed)`,
        fix: `Write to a new out directory, or delete ${dir} to start over`,
        where: "prepareDataset",
      });
    }
    return void (await removeTemporaries(dir));
  }
  const shards = await storage.glob(joinPath(dir, "*.tfrecord*"));
  if (shards.length > 0)
    throw new OptionError({
      option: "out",
      value: dir,
      why: `already holds ${shards.length} TFRecord files not made by data prepare`,
      fix: "Write to a new out directory",
      where: "prepareDataset",
    });
  await removeTemporaries(dir);
  await writeJson(path, { settings, complete: false });
}

/**
 * The shards an earlier run left in `dir` that are whole: each is read through once (lengths, both
 * checksums, record count against its name) before it is trusted, since a shard cut short (a full disk,
 * a copy that stopped) can sit under its final name. Damaged shards are removed, to be written again.
 */
async function soundShards(
  dir: string,
  compression: Compression,
): Promise<{ existing: Set<string>; damaged: string[]; digests: Map<string, ShardDigest> }> {
  const existing = new Set<string>();
  const damaged: string[] = [];
  const digests = new Map<string, ShardDigest>();
  for (const path of await storageFor(dir).glob(joinPath(dir, "*.tfrecord*"))) {
    try {
      const { digest } = await checkShard(path, { compression, digest: true });
      existing.add(basename(path));
      digests.set(basename(path), digest!);
    } catch (e) {
      if (!(e instanceof TFRecordError || e instanceof ShardCountError)) throw e;
      // What was wrong, without the error's advice to re-create the file: this is the re-creation.
      damaged.push(
        e instanceof TFRecordError
          ? `${e.file}: bad TFRecord at byte offset ${e.offset}${compression === "gzip" ? " of the decompressed stream" : ""}: ${e.problem}`
          : `${e.file}: holds ${e.records} records but its name says ${e.expected}`,
      );
      await storageFor(path).remove(path);
    }
  }
  return { existing, damaged, digests };
}

async function removeTemporaries(dir: string): Promise<void> {
  for (const temp of await storageFor(dir).staleTemporaries(dir)) await storageFor(temp).remove(temp);
}

async function writeManifest(dir: string, settings: object, summary: SplitSummary, shards: Record<string, ShardDigest>): Promise<void> {
  const { split, rows, tokens, droppedTokens, records } = summary;
  await writeJson(joinPath(dir, MANIFEST), { settings, complete: true, split, rows, tokens, droppedTokens, records, shards });
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await storageFor(path).writeAtomic(path, new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n"));
}
