// Nothing lost: checkpoint writes interrupted at any point leave a checkpoint to resume from, resume
// falls back past a damaged checkpoint, a resumed run logs every step once, changed settings are named,
// a fresh run never writes over a finished one, and a full disk is one message with nothing left behind.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stderrOf } from "../helpers/stderr-of.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { OutputDirInUseError } from "../../src/train/output-dir.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-recovery-");
const data = join(root, "data");
await writeTinyShards(data);

/** [step, loss] of every loss line of metrics.jsonl, in file order. */
function loggedLosses(dir: string): [number, number][] {
  return readFileSync(join(dir, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((m) => m.loss !== undefined)
    .map((m) => [m.step, m.loss]);
}

const straight = join(root, "straight");
const reference = (await trainTiny(data, straight, 6)).history.map((h) => [h.step, h.loss]);

test("a checkpoint rewrite killed between its renames: the next start puts the moved-aside copy back and resumes from it", async () => {
  const dir = join(root, "aside");
  await trainTiny(data, dir, 6);
  // The state a kill leaves after `checkpoint-6` was moved aside and before its replacement arrived,
  // with another write's temporary directory beside it.
  renameSync(join(dir, "checkpoint-6"), join(dir, ".checkpoint-6.old-4242"));
  mkdirSync(join(dir, ".checkpoint-8.tmp-4243"));
  writeFileSync(join(dir, ".checkpoint-8.tmp-4243", "model.safetensors"), "half");
  const { value, lines } = await stderrOf(() => trainTiny(data, dir, 8, { resume: true }));
  assert.ok(lines.includes(`${dir}: restored checkpoint-6 from .checkpoint-6.old-4242 (its rewrite was interrupted)`), lines.join("\n"));
  assert.ok(lines.includes(`${dir}: removed .checkpoint-8.tmp-4243, an unfinished write of checkpoint-8`), lines.join("\n"));
  assert.ok(lines.some((l) => l.startsWith(`resume: continuing from ${join(dir, "checkpoint-6")} at step 6`)));
  assert.equal(value.globalStep, 8);
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith(".")),
    [],
  );
});

test("resume falls back past a damaged newest checkpoint, says which and why, and reproduces the uninterrupted losses", async () => {
  const dir = join(root, "damaged");
  await trainTiny(data, dir, 6);
  truncateSync(join(dir, "checkpoint-6", "model.safetensors"), 100);
  // Replay from checkpoint-4: steps 5 and 6 again.
  const { lines } = await stderrOf(() => trainTiny(data, dir, 6, { resume: true }));
  const skipped = lines.find((l) => l.startsWith(`resume: skipped ${join(dir, "checkpoint-6")}, which cannot be loaded: `));
  assert.ok(skipped, lines.join("\n"));
  assert.match(skipped!, /model\.safetensors/);
  assert.ok(lines.some((l) => l.startsWith(`resume: continuing from ${join(dir, "checkpoint-4")} at step 4`)));
  // metrics.jsonl: each step once (the lines past step 4 were dropped before they were trained again).
  assert.deepEqual(loggedLosses(dir), reference);
  const state = JSON.parse(readFileSync(join(dir, "checkpoint-6", "trainer_state.json"), "utf8"));
  assert.deepEqual(
    state.log_history.map((h: { step: number }) => h.step),
    [1, 2, 3, 4, 5, 6],
    "the whole loss history is kept for the loss curve",
  );
});

test("resume names the settings that changed since the checkpoint was written", async () => {
  const dir = join(root, "changed");
  await trainTiny(data, dir, 4);
  const { lines } = await stderrOf(() => trainTiny(data, dir, 6, { resume: true, optimizer: { learningRate: 1e-3 } }));
  assert.ok(
    lines.includes(
      `resume: continuing from ${join(dir, "checkpoint-4")} at step 4, with changed settings: learning_rate 0.003 → 0.001, max_steps 4 → 6`,
    ),
    lines.join("\n"),
  );
});

test("resume with no checkpoint says it starts from scratch, and the stale log of the earlier attempt is dropped", async () => {
  const dir = join(root, "nothing-yet");
  mkdirSync(dir);
  writeFileSync(join(dir, "metrics.jsonl"), JSON.stringify({ step: 1, loss: 99 }) + "\n");
  const { lines } = await stderrOf(() => trainTiny(data, dir, 2, { resume: true }));
  assert.ok(lines.includes(`resume: no checkpoint in ${dir}; starting from scratch`), lines.join("\n"));
  assert.deepEqual(loggedLosses(dir), reference.slice(0, 2));
});

test("a fresh run refuses a directory holding a finished run; overwrite replaces that run's files", async () => {
  const dir = join(root, "finished");
  await trainTiny(data, dir, 4);
  writeFileSync(join(dir, "notes.txt"), "mine");
  await assert.rejects(
    trainTiny(data, dir, 2),
    (e: Error) =>
      e instanceof OutputDirInUseError &&
      e.message ===
        `the output directory ${dir} is not empty (checkpoint-2, checkpoint-4, checksums.json, config.json, … (9 entries)): ` +
          `pass resume: true to continue the run in it, overwrite: true to replace it, or choose another outputDir`,
  );
  const { value } = await stderrOf(() => trainTiny(data, dir, 2, { trainer: { overwrite: true } }));
  assert.equal(value.globalStep, 2);
  assert.deepEqual(
    readdirSync(dir)
      .filter((n) => n.startsWith("checkpoint-"))
      .sort(),
    ["checkpoint-2"],
    "the old run's checkpoints are gone, so they cannot outrank the new ones",
  );
  assert.deepEqual(loggedLosses(dir), reference.slice(0, 2), "metrics.jsonl holds only the new run");
  assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "mine", "files that are not the run's are left alone");
});

/** A small tmpfs at `dir` (as root), or why there can't be one here. */
function mountSmallDisk(dir: string, size: string): string | undefined {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { encoding: "utf8" });
  return r.status === 0 ? undefined : `cannot mount a small tmpfs here (${(r.stderr || r.error?.message || "").trim()})`;
}

test("a disk that fills while a checkpoint is written: one message naming it and the space needed, no temporary left", async (t) => {
  const disk = join(root, "small-disk");
  // Room for one checkpoint of the tiny model (about 100 KiB with its optimizer state), not two.
  const why = mountSmallDisk(disk, "160k");
  if (why) {
    if (process.env.CI === "true") assert.fail(why);
    return t.skip(why);
  }
  try {
    const dir = join(disk, "run");
    await assert.rejects(
      stderrOf(() => trainTiny(data, dir, 4)),
      (e: Error) =>
        new RegExp(
          "^no space left on the device to write checkpoint-4 in .*run: it needs about [\\d.]+ KiB and [\\d.]+ KiB are free\\. " +
            "Free up space there \\(or pass --keep-checkpoints 1\\), " +
            "then continue with --resume from checkpoint-2, the newest complete checkpoint; nothing partial was left behind\\.$",
        ).test(e.message) || assert.fail(e.message),
    );
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.includes("checkpoint")),
      ["checkpoint-2"],
      "the checkpoint that fitted, and no temporary directory",
    );
    assert.ok(!existsSync(join(dir, "model.safetensors")));
  } finally {
    spawnSync("umount", [disk]);
  }
});

test("a final evaluation that fails on damaged data: the trained model and its checkpoint are saved before the error", async () => {
  const evalDir = join(root, "damaged-eval");
  await writeTinyShards(evalDir, 16);
  const victim = join(evalDir, readdirSync(evalDir).sort()[1]!);
  const bytes = readFileSync(victim);
  bytes[bytes.length - 10]! ^= 0xff;
  writeFileSync(victim, bytes);
  const dir = join(root, "eval-fails");
  const { lines } = await stderrOf(() =>
    assert.rejects(trainTiny(data, dir, 3, { evalDir }), (e: Error) => e.message.includes(victim) && /checksum/.test(e.message)),
  );
  assert.ok(lines.includes(`the final evaluation failed; the trained model was saved to ${dir} first`), lines.join("\n"));
  assert.ok(existsSync(join(dir, "model.safetensors")));
  assert.ok(existsSync(join(dir, "checkpoint-3", "trainer_state.json")));
});
