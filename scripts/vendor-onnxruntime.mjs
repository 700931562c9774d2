// Copies ONNX Runtime's CPU C library out of npm onnxruntime-node (a devDependency) into
// vendor/onnxruntime/, which the package ships (package.json "files"). Part of `npm run build`, which
// `npm test`, `npm run main` and `prepack` (before `npm pack`/`npm publish`) run; never in a project
// that installs Kiln. Not an install script: npm would list one of Kiln's for review in every project.
//
// Why Kiln ships the library instead of depending on onnxruntime-node: that package's install script
// downloads CUDA binaries from NuGet on Linux x64 (hundreds of MB; the install fails where only the npm
// registry is reachable), and nothing in a package that depends on it can turn the script off (it reads
// only its own environment variable and npm configuration; npm reads `allowScripts` from the root
// project alone). Kiln calls the C API through koffi (src/exec/ort/ort-api.ts), so the library is all it
// needs: not the Node binding, not the CUDA providers.
//
// Only the platforms where Kiln's ONNX Runtime executor runs are copied: Linux (x64, arm64) and macOS
// (arm64). Its tensors live in memory from the C library's aligned_alloc (src/exec/ort/native-memory.ts),
// which Windows lacks. The files are hard links where the file system allows (no second copy on disk),
// written under a temporary name and renamed, so a reader never sees half a library.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(repo, "vendor", "onnxruntime");
const MANIFEST = join(out, "manifest.json");

/** Per platform-arch directory: the one file Kiln loads (the names ortLibraryPath looks for). */
const LIBRARIES = {
  "linux-x64": "libonnxruntime.so.1",
  "linux-arm64": "libonnxruntime.so.1",
  "darwin-arm64": "libonnxruntime.1.dylib",
};

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

let pkgDir;
try {
  pkgDir = dirname(createRequire(join(repo, "package.json")).resolve("onnxruntime-node/package.json"));
} catch {
  if (existsSync(MANIFEST)) process.exit(0); // an install without devDependencies keeps what is there
  console.error(
    "vendor-onnxruntime: npm package onnxruntime-node (a devDependency, the source of ONNX Runtime's library) is not installed: " +
      "run `npm ci` without --omit=dev",
  );
  process.exit(1);
}
const version = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version;

// Nothing to do when the manifest names this version and every file is there with its size.
if (existsSync(MANIFEST)) {
  const old = JSON.parse(readFileSync(MANIFEST, "utf8"));
  const same =
    old.onnxruntimeNode === version &&
    Object.entries(LIBRARIES).every(([dir, file]) => {
      const path = join(out, dir, file);
      return existsSync(path) && statSync(path).size === old.files?.[`${dir}/${file}`]?.bytes;
    });
  if (same) process.exit(0);
}

const files = {};
for (const [dir, file] of Object.entries(LIBRARIES)) {
  const [platform, arch] = dir.split("-");
  const from = join(pkgDir, "bin", "napi-v6", platform, arch, file);
  if (!existsSync(from)) {
    console.error(`vendor-onnxruntime: onnxruntime-node ${version} has no ${from}: pick a version that ships ${dir}`);
    process.exit(1);
  }
  const to = join(out, dir, file);
  const partial = `${to}.partial-${process.pid}`;
  mkdirSync(dirname(to), { recursive: true });
  rmSync(partial, { force: true });
  try {
    linkSync(from, partial);
  } catch {
    copyFileSync(from, partial);
  }
  renameSync(partial, to);
  files[`${dir}/${file}`] = { bytes: statSync(to).size, sha256: sha256(to) };
}
const manifest = { onnxruntimeNode: version, files };
writeFileSync(`${MANIFEST}.partial`, JSON.stringify(manifest, null, 2) + "\n");
renameSync(`${MANIFEST}.partial`, MANIFEST);
console.log(`vendor-onnxruntime: ONNX Runtime ${version} for ${Object.keys(LIBRARIES).join(", ")} in vendor/onnxruntime/`);
