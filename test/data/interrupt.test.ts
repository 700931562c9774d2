// A run killed with SIGKILL in the middle of writing shards: every shard under a final name must be
// complete, and running the same command again must produce exactly the output of an uninterrupted run.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countRecords } from "../../src/data/tfrecord/files.js";
import { recordsFromFileName } from "../../src/data/shards.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";

const main = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const fixture = await makeTestCorpus(6);

function prepareArgs(out: string): string[] {
  // Tiny shards make the run long enough (hundreds of atomic writes) to be killed in the middle.
  return [
    main,
    "data",
    "prepare",
    "--tokenizer",
    fixture.tokenizerDir,
    "--input",
    fixture.corpus,
    "--out",
    out,
    "--max-length",
    "16",
    "--shard-size",
    "3",
    "--quiet",
  ];
}

function run(args: string[]): Promise<number> {
  return new Promise((resolve) => spawn(process.execPath, args, { stdio: "ignore" }).on("exit", (code) => resolve(code ?? -1)));
}

const shardNames = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".tfrecord"));

test("a killed data prepare leaves only whole shards, and re-running finishes the job", async () => {
  const clean = join(fixture.dir, "clean");
  assert.equal(await run(prepareArgs(clean)), 0);

  const out = join(fixture.dir, "killed");
  const child = spawn(process.execPath, prepareArgs(out), { stdio: "ignore" });
  let running = true;
  const exited = new Promise((resolve) => child.on("exit", resolve)).then(() => (running = false));
  // Kill it once some shards exist (`running` turns false when the child exits, while this loop waits).
  // oxlint-disable-next-line no-unmodified-loop-condition
  while (running && !(existsSync(join(out, "train")) && shardNames(join(out, "train")).length >= 20))
    await new Promise((r) => setTimeout(r, 5));
  child.kill("SIGKILL");
  await exited;

  const dir = join(out, "train");
  const written = shardNames(dir);
  const total = shardNames(join(clean, "train")).length;
  assert.ok(written.length < total, `the run was killed before the end (${written.length} of ${total} shards)`);
  for (const name of written) assert.equal(await countRecords(join(dir, name)), recordsFromFileName(name), `${name} is whole`);

  assert.equal(await run(prepareArgs(out)), 0);
  assert.deepEqual(shardNames(dir).sort(), shardNames(join(clean, "train")).sort());
  for (const name of shardNames(dir)) assert.deepEqual(readFileSync(join(dir, name)), readFileSync(join(clean, "train", name)), name);
  assert.ok(!readdirSync(dir).some((n) => n.includes(".tmp-")), "temporary files were cleaned up");
});
