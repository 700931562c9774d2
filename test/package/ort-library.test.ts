// The ONNX Runtime library that Kiln's package carries (vendor/onnxruntime/, made by `npm run build`
// through scripts/vendor-onnxruntime.mjs): for each platform, the very file of the installed
// onnxruntime-node, as manifest.json says, and every one of them in what `npm pack` packs.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";

const root = repoRoot();
const vendor = join(root, "vendor", "onnxruntime");

interface Manifest {
  onnxruntimeNode: string;
  files: Record<string, { bytes: number; sha256: string }>;
}
const manifest = JSON.parse(readFileSync(join(vendor, "manifest.json"), "utf8")) as Manifest;

test("vendor/onnxruntime holds onnxruntime-node's own library for each platform, as its manifest says", () => {
  const ortNode = dirname(createRequire(join(root, "package.json")).resolve("onnxruntime-node/package.json"));
  const version = (JSON.parse(readFileSync(join(ortNode, "package.json"), "utf8")) as { version: string }).version;
  assert.equal(manifest.onnxruntimeNode, version, "the copy is of the onnxruntime-node that is installed");
  assert.deepEqual(Object.keys(manifest.files).sort(), [
    "darwin-arm64/libonnxruntime.1.dylib",
    "linux-arm64/libonnxruntime.so.1",
    "linux-x64/libonnxruntime.so.1",
  ]);
  for (const [file, { bytes, sha256 }] of Object.entries(manifest.files)) {
    const copy = readFileSync(join(vendor, file));
    const [platformArch, name] = file.split("/") as [string, string];
    const original = readFileSync(join(ortNode, "bin", "napi-v6", ...platformArch.split("-"), name));
    assert.equal(copy.length, bytes, `${file}: size`);
    assert.equal(createHash("sha256").update(copy).digest("hex"), sha256, `${file}: SHA-256`);
    assert.ok(copy.equals(original), `${file} is onnxruntime-node's file, unchanged`);
  }
});

test("npm pack packs every vendored library, the manifest, and ONNX Runtime's license", () => {
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ) as [{ files: { path: string }[] }];
  const files = packed.files.map((f) => f.path).filter((p) => p.startsWith("vendor/"));
  assert.deepEqual(
    files.sort(),
    [
      ...Object.keys(manifest.files).map((f) => `vendor/onnxruntime/${f}`),
      "vendor/onnxruntime/LICENSE",
      "vendor/onnxruntime/README.md",
      "vendor/onnxruntime/manifest.json",
    ].sort(),
  );
});
