// koffi's native stacks are sized when Kiln is imported, before any library loads (koffi refuses the
// change afterwards): XLA compiles inside PJRT_Client_Compile on the synchronous stack.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import koffi from "koffi";
import "../../../src/index.js";
import { ASYNC_STACK_BYTES, SYNC_STACK_BYTES } from "../../../src/exec/native-stacks.js";

test("importing Kiln sets koffi's synchronous and asynchronous stacks", () => {
  const config = koffi.config();
  assert.equal(config.sync_stack_size, SYNC_STACK_BYTES);
  assert.equal(config.async_stack_size, ASYNC_STACK_BYTES);
  assert.ok(SYNC_STACK_BYTES >= 16 << 20 && ASYNC_STACK_BYTES >= 8 << 20);
});

test("a library loaded through koffi before Kiln leaves the stacks as they were, with a warning", () => {
  const index = new URL("../../../src/index.js", import.meta.url).href;
  const script = `import koffi from "koffi";
    koffi.load("libc.so.6");
    await import(${JSON.stringify(index)});
    console.log(koffi.config().sync_stack_size);`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    cwd: new URL("../../../..", import.meta.url).pathname,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(Number(r.stdout.trim()), 2 << 20);
  assert.match(
    r.stderr,
    new RegExp(
      "koffi's native stacks stay at \\d+ \\/ \\d+ bytes \\(Cannot change Koffi configuration once a library has been loaded\\); " +
        "import kiln before",
    ),
  );
});
