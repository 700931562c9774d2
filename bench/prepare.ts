// `npm run bench -- prepare [--max-length N] [--repeats N] [--workers N]`: `data prepare` on the full
// SOTU corpus; reports MB/s of input text (median of repeats, each a fresh output directory).
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { defaultWorkers, prepareDataset } from "../src/data/prepare/prepare.js";
import { makeTestCorpus } from "../test/helpers/sotu-slice.js";

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { "max-length": { type: "string" }, repeats: { type: "string" }, workers: { type: "string" } },
  });
  const maxLength = Number(values["max-length"] ?? 128);
  const repeats = Number(values.repeats ?? 5);
  const workers = Number(values.workers ?? defaultWorkers());
  // A Kiln tokenizer (vocab 8000) trained on the whole corpus it will encode.
  const fixture = await makeTestCorpus(Infinity, 8000);
  const runs: { mbPerS: number; seconds: number; cpuSeconds: number; records: number; inputMB: number }[] = [];
  for (let r = 0; r < repeats; r++) {
    const cpu = process.cpuUsage();
    const result = await prepareDataset({
      tokenizer: fixture.tokenizerDir,
      inputs: [fixture.corpus],
      out: join(fixture.dir, `out-${r}`),
      maxLength,
      workers,
      progress: null,
    });
    const used = process.cpuUsage(cpu);
    runs.push({
      mbPerS: result.inputBytes / 1e6 / result.seconds,
      seconds: result.seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      records: result.splits[0]!.records,
      inputMB: result.inputBytes / 1e6,
    });
  }
  const sorted = runs.map((x) => x.mbPerS).sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      bench: "prepare",
      mb_per_s: round(sorted[Math.floor(sorted.length / 2)]!),
      runs_mb_per_s: runs.map((x) => round(x.mbPerS)),
      cpu_seconds: runs.map((x) => round(x.cpuSeconds)),
      input_mb: round(runs[0]!.inputMB),
      records: runs[0]!.records,
      max_length: maxLength,
      workers,
      cores: availableParallelism(),
    }),
  );
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
