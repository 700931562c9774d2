// The XLA executor's failure paths that need no accelerator: no plugin, a plugin path that is not a
// file, a file that is not a shared library, and a real shared library that is not a PJRT plugin.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createXlaExecutor } from "../../../src/exec/xla/index.js";
import { tempDir } from "../../helpers/temp-dir.js";

test("a plugin path that is not a file: the error says so", () => {
  assert.throws(
    () => createXlaExecutor({ pluginPath: "/nonexistent/xla_plugin.so" }),
    /no PJRT plugin for the XLA executor: --pjrt-plugin names \/nonexistent\/xla_plugin.so, which is not a file/,
  );
});

test("a file that is not a shared library cannot be loaded, and the error names it", () => {
  const dir = tempDir("kiln-pjrt-");
  try {
    const fake = join(dir, "not_a_library.so");
    writeFileSync(fake, "plain text");
    assert.throws(() => createXlaExecutor({ pluginPath: fake }), new RegExp(`cannot load the PJRT plugin ${fake}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib/libc.so.6"].find(
  existsSync,
);

test(
  "a shared library without GetPjrtApi is not a plugin",
  { skip: libc ? false : "no libc.so.6 at the usual paths to stand for a non-plugin library" },
  () => {
    assert.throws(
      () => createXlaExecutor({ pluginPath: libc! }),
      new RegExp(`${libc} is not a PJRT plugin: it does not export GetPjrtApi`),
    );
  },
);
