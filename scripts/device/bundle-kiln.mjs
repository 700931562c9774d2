// The bundle's kiln/: a package root that mirrors the repository for what a GPU run needs: package.json
// (its "type": "module" makes dist/ ESM), dist/ compiled from src/, bench/ and test/ without source maps
// or declarations, the non-compiled files the device tests read, and koffi with its linux-x64 build only.
// No ONNX Runtime (neither vendor/ nor onnxruntime-node): an XLA-only run never loads it
// (src/exec/ort/ort-api.ts loads it on first use), and its 46 MB for linux-x64 alone would not fit.
import { cpSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** What of dist/ travels: the compiled JavaScript of these trees. */
const COMPILED = ["src", "bench", "test"];
/** Files the compiled tests read from the source tree (test/helpers/repo-paths.ts finds them from kiln/). */
const NOT_COMPILED = ["test/exec/xla/golden"];

/** koffi's JavaScript loader: the ESM and CommonJS entries and the loader they import (no C sources, docs or typings). */
const KOFFI_FILES = [
  "package.json",
  "LICENSE.txt",
  "index.js",
  "index.cjs",
  "indirect.js",
  "indirect.cjs",
  "src/koffi/index.js",
  "src/koffi/index.cjs",
  "src/koffi/indirect.js",
  "src/koffi/indirect.cjs",
  "src/koffi/src/static.js",
  "src/koffi/src/static.cjs",
];

export function writeKilnPackage(repo, out) {
  const kiln = join(out, "kiln");
  mkdirSync(kiln, { recursive: true });
  cpSync(join(repo, "package.json"), join(kiln, "package.json"));
  for (const tree of COMPILED) {
    const from = join(repo, "dist", tree);
    if (!existsSync(from)) throw new Error(`${from} is missing: build first (npx tsc -p tsconfig.json)`);
    cpSync(from, join(kiln, "dist", tree), { recursive: true, filter: (src) => !/\.(map|d\.ts|tsbuildinfo)$/.test(src) });
  }
  for (const path of NOT_COMPILED) cpSync(join(repo, path), join(kiln, path), { recursive: true });
  writeKoffi(repo, join(kiln, "node_modules", "koffi"));
}

/**
 * koffi finds its native module either in the @koromix/koffi-<platform> package npm installs beside it or
 * in its own build/koffi/<platform>_<arch>/koffi.node (src/koffi/index.js, loadDynamic); the bundle uses
 * the second, with the glibc x64 binary only (the GPU machines are glibc x86-64 Linux).
 */
function writeKoffi(repo, to) {
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(
      `the GPU bundle carries koffi's linux-x64 build; build it on x86-64 Linux (this is ${process.platform}-${process.arch})`,
    );
  // koffi's "exports" hide its package.json; its CommonJS entry (index.cjs) sits at the package root.
  const koffi = dirname(createRequire(join(repo, "package.json")).resolve("koffi"));
  for (const f of KOFFI_FILES) cpSync(join(koffi, f), join(to, f));
  const native = dirname(createRequire(join(koffi, "package.json")).resolve("@koromix/koffi-linux-x64/package.json"));
  cpSync(join(native, "linux_x64", "koffi.node"), join(to, "build", "koffi", "linux_x64", "koffi.node"));
}
