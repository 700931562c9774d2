// A bad KILN_CPU_THREADS is one line naming the variable and what it takes, not a stack trace from
// importing the package.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { OrtExecutor } from "../../../src/exec/ort/executor.js";

const entry = fileURLToPath(new URL("../../../src/index.js", import.meta.url));
const MESSAGE = /KILN_CPU_THREADS must be a positive integer, got "abc" \(unset it to use every core, \d+ here\)/;

test("KILN_CPU_THREADS=abc does not break importing the package: the first use reports it in one line", async () => {
  const script = `const { ortExecutor } = await import(${JSON.stringify(entry)});
try { ortExecutor.threads; } catch (e) { console.log(e.message); process.exit(3); }`;
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script],
      { env: { ...process.env, KILN_CPU_THREADS: "abc" } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
  assert.equal(r.stderr, "", "no stack trace from the import");
  assert.equal(r.code, 3);
  assert.match(r.stdout.trim(), new RegExp(`^${MESSAGE.source}$`));
});

test("the thread count is read from the environment on first use, as the error of that use", () => {
  const saved = process.env.KILN_CPU_THREADS;
  process.env.KILN_CPU_THREADS = "abc";
  try {
    const executor = new OrtExecutor();
    assert.throws(() => executor.threads, MESSAGE);
  } finally {
    if (saved === undefined) delete process.env.KILN_CPU_THREADS;
    else process.env.KILN_CPU_THREADS = saved;
  }
});
