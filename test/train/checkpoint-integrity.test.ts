// A checkpoint's bytes are checked against the checksums.json written with it: one flipped byte inside a
// finite weight (which no other check can see) makes --resume skip that checkpoint, naming the file and
// the tensor, and continue from the one before; every corruption injected into a checkpoint is caught.
import test from "node:test";
import assert from "node:assert/strict";
import { cpSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stderrOf } from "../helpers/stderr-of.js";
import { trainTiny, tinyConfig, writeTinyShards } from "../helpers/tiny-training.js";
import { rng } from "../helpers/random.js";
import { checkCheckpoint, loadCheckpoint } from "../../src/train/checkpoint.js";
import { createMaskedLM } from "../../src/models/index.js";
import { safetensorsLayout } from "../../src/models/safetensors.js";
import { CorruptFileError } from "../../src/models/file-digests.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-ck-integrity-");
const data = join(root, "data");
await writeTinyShards(data);
const run = join(root, "run");
await trainTiny(data, run, 4);
const model = createMaskedLM(tinyConfig());

/** Flips the lowest mantissa bit of one f32 value inside tensor `name`: the value stays finite. */
function flipInsideTensor(file: string, name: string): void {
  const bytes = readFileSync(file);
  const t = safetensorsLayout(bytes).tensors.find((x) => x.name === name)!;
  bytes[t.begin + 4 * 3]! ^= 0x01;
  assert.ok(Number.isFinite(new DataView(bytes.buffer, bytes.byteOffset).getFloat32(t.begin + 12, true)));
  writeFileSync(file, bytes);
}

test("one flipped byte in checkpoint-4/model.safetensors: --resume names the file and tensor and continues from checkpoint-2", async () => {
  const dir = join(root, "flipped");
  cpSync(run, dir, { recursive: true });
  const tensor = "roberta.encoder.layer.1.attention.self.query.weight";
  const file = join(dir, "checkpoint-4", "model.safetensors");
  flipInsideTensor(file, tensor);
  await assert.rejects(
    loadCheckpoint(join(dir, "checkpoint-4"), model),
    (e: Error) =>
      e instanceof CorruptFileError &&
      e.file === file &&
      e.tensors.join() === tensor &&
      e.message.startsWith(`${file} is damaged: the bytes of tensor "${tensor}" changed. `) &&
      /resume from an earlier one/.test(e.message),
  );
  const { value, lines } = await stderrOf(() => trainTiny(data, dir, 6, { resume: true }));
  assert.equal(value.globalStep, 6);
  const skipped = lines.find((l) => l.startsWith(`resume: skipped ${join(dir, "checkpoint-4")}, which cannot be loaded: `));
  assert.ok(skipped, lines.join("\n"));
  assert.ok(skipped!.includes(`the bytes of tensor "${tensor}" changed`), skipped);
  assert.ok(lines.some((l) => l.startsWith(`resume: continuing from ${join(dir, "checkpoint-2")} at step 2`)));
});

test("every corruption injected into a checkpoint is caught, naming the file", async () => {
  const source = join(run, "checkpoint-4");
  const files = readdirSync(source).sort();
  const r = rng(7);
  let injected = 0,
    caught = 0;
  const scratch = join(root, "scratch");
  const inject = async (label: string, damage: (dir: string) => string) => {
    rmSync(scratch, { recursive: true, force: true });
    cpSync(source, scratch, { recursive: true });
    const victim = damage(scratch);
    injected++;
    const check = await checkCheckpoint(scratch);
    const named = check.damaged.some((e) => e.file === join(scratch, victim));
    // The three files resuming reads are refused by loadCheckpoint itself.
    let refused = true;
    if (["model.safetensors", "optimizer.safetensors", "trainer_state.json", "checksums.json"].includes(victim))
      refused = await loadCheckpoint(scratch, model).then(
        () => false,
        (e: Error) => e.message.includes(join(scratch, victim)),
      );
    if (named && refused) caught++;
    else assert.fail(`${label} in ${victim} was not caught`);
  };
  // A flipped bit at a random place of each file, 20 times per file.
  for (const name of files)
    for (let i = 0; i < 20; i++)
      await inject(`a flipped bit`, (dir) => {
        const bytes = readFileSync(join(dir, name));
        bytes[Math.floor(r() * bytes.length)]! ^= 1 << Math.floor(r() * 8);
        writeFileSync(join(dir, name), bytes);
        return name;
      });
  for (const name of files) {
    await inject("a cut-short file", (dir) => (truncateSync(join(dir, name), Math.floor(readFileSync(join(dir, name)).length / 2)), name));
    await inject("a deleted file", (dir) => (rmSync(join(dir, name)), name));
  }
  console.log(`checkpoint corruptions caught: ${caught} of ${injected} injected (files: ${files.join(", ")})`);
  assert.equal(caught, injected);
});
