// A bad KILN_CPU_THREADS is one line naming the variable and what it takes, not a stack trace from
// importing the package.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { OrtExecutor } from "../../../src/exec/ort/executor.js";

const main = fileURLToPath(new URL("../../../src/cli/main.js", import.meta.url));
const MESSAGE = /KILN_CPU_THREADS must be a positive integer, got "abc" \(unset it to use every core, \d+ here\)/;

test("KILN_CPU_THREADS=abc is a one-line error naming the variable, not a stack trace", async () => {
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [main, "devices"],
      { env: { ...process.env, KILN_CPU_THREADS: "abc", KILN_DEBUG: "" } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
  assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  assert.equal(r.code, 0, r.stderr);
  const line = r.stdout.split("\n").find((l) => l.startsWith("ort:"));
  assert.match(line ?? "", new RegExp(`^ort: unavailable: ${MESSAGE.source}$`));
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
