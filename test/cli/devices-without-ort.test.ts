// `kiln devices` where ONNX Runtime's library is nowhere: the built package without its vendor/ copied
// beside a node_modules holding every installed package but onnxruntime-node (as the GPU bundle is) says
// what ONNX Runtime's executor needs, and lists none of its devices: only the devices of executors that
// can run here.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";
import { tempDir } from "../helpers/temp-dir.js";

test("without ONNX Runtime's library, kiln devices lists ONNX Runtime as unavailable, with no devices", () => {
  const root = repoRoot();
  const dir = tempDir("kiln-no-ort-");
  try {
    cpSync(join(root, "dist", "src"), join(dir, "dist", "src"), { recursive: true });
    cpSync(join(root, "package.json"), join(dir, "package.json"));
    mkdirSync(join(dir, "node_modules"));
    const modules = realpathSync(join(root, "node_modules"));
    for (const name of readdirSync(modules)) {
      if (name === "onnxruntime-node" || name.startsWith(".")) continue;
      symlinkSync(join(modules, name), join(dir, "node_modules", name));
    }
    const env = { ...process.env };
    delete env.KILN_PJRT_PLUGIN;
    const r = spawnSync(process.execPath, [join(dir, "dist", "src", "cli", "main.js"), "devices"], {
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split("\n");
    assert.match(
      lines[0]!,
      /^ort: unavailable: the ONNX Runtime executor \(cpu:N, the default device\) needs ONNX Runtime's C library \(libonnxruntime/,
    );
    assert.match(
      lines[0]!,
      /Kiln's package lacks its copy \(.*vendor\/onnxruntime\/linux-x64\/libonnxruntime\.so\.1; reinstall the package\)/,
    );
    assert.match(
      lines[0]!,
      /and npm package onnxruntime-node is not installed: install npm package onnxruntime-node \(`npm install onnxruntime-node@/,
    );
    assert.match(lines[1]!, /^ref: reference interpreter/);
    assert.deepEqual(
      lines.filter((l) => l.startsWith("  devices: ")),
      ["  devices: ref:0, ref:1, ref:2, ref:3, ref:4, ref:5, ref:6, ref:7"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
