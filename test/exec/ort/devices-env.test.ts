// A bad KILN_CPU_DEVICES is one line naming the variable and what it takes, as KILN_CPU_THREADS is: not
// a stack trace from importing the package (the device list used to be built at import).
import test from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { OrtExecutor } from "../../../src/exec/ort/executor.js";

const entry = fileURLToPath(new URL("../../../src/index.js", import.meta.url));
const cli = fileURLToPath(new URL("../../../src/cli/main.js", import.meta.url));
const MESSAGE = 'KILN_CPU_DEVICES must be a positive integer, got "abc" (unset it to use one device)';

test("KILN_CPU_DEVICES=abc does not break importing the package: the first use reports it in one line", async () => {
  const script = `const k = await import(${JSON.stringify(entry)});
try { k.getDefaultDevice(); } catch (e) { console.log(e.message); process.exit(3); }`;
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script],
      { env: { ...process.env, KILN_CPU_DEVICES: "abc" } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
  assert.equal(r.stderr, "", "no stack trace from the import");
  assert.equal(r.code, 3);
  assert.equal(r.stdout.trim(), MESSAGE);
});

test("every kiln command reports a bad KILN_CPU_DEVICES in one line, before any work", () => {
  for (const args of [["devices"], ["tokenizer", "encode", "--tokenizer", "nowhere", "text"], ["fill-mask", "--help"]]) {
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, KILN_CPU_DEVICES: "abc" } });
    assert.equal(r.status, 1, args.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, `kiln: ${MESSAGE}\n`);
  }
});

test("the device count is read from the environment on first use; an explicit count needs no environment", () => {
  const saved = process.env.KILN_CPU_DEVICES;
  process.env.KILN_CPU_DEVICES = "abc";
  try {
    const executor = new OrtExecutor();
    assert.throws(
      () => executor.devices(),
      (e: Error) => e.message === MESSAGE,
    );
    assert.deepEqual(
      new OrtExecutor({ devices: 2 }).devices().map((d) => d.id),
      ["cpu:0", "cpu:1"],
    );
    process.env.KILN_CPU_DEVICES = "3";
    assert.equal(new OrtExecutor().devices().length, 3);
  } finally {
    if (saved === undefined) delete process.env.KILN_CPU_DEVICES;
    else process.env.KILN_CPU_DEVICES = saved;
  }
});
