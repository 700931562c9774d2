// A command that takes no positional arguments refuses one (a mistyped flag, or a value whose flag was
// left out) in one line that names it, instead of ignoring it and running without what was meant.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("kiln devices, quickstart, export and bench train refuse a stray argument before doing anything", () => {
  for (const [command, args] of [
    ["devices", ["devices", "cpu"]],
    ["quickstart", ["quickstart", "--steps", "1", "runs/elsewhere"]],
    ["export", ["export", "--model", "no-such-dir", "--format", "onnx", "dynamic"]],
    ["bench train", ["bench", "train", "--steps", "1", "mlm-base"]],
  ] as const) {
    const r = kiln(...args);
    assert.equal(r.code, 2, `${command}: ${r.err}`);
    assert.equal(r.out, "");
    assert.equal(
      r.err.trim(),
      `kiln ${command}: unexpected argument "${args.at(-1)}" (flags start with --; run \`kiln ${command} --help\`)`,
    );
  }
});

test("kiln quickstart --accelerator and kiln bench train --vocab refuse bad values before doing anything", () => {
  const q = kiln("quickstart", "--accelerator", "xpu", "--dir", "runs/never-made");
  assert.equal(q.code, 2, q.err);
  assert.equal(q.err.trim(), '--accelerator must be one of cpu, gpu, tpu, auto, got "xpu"');
  const b = kiln("bench", "train", "--vocab", "3");
  assert.equal(b.code, 2, b.err);
  assert.equal(b.err.trim(), '--vocab must be an integer ≥ 6, got "3"');
});
