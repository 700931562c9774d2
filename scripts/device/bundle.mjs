#!/usr/bin/env node
// `npm run device:bundle [-- --out DIR]`: everything one run on a GPU machine needs, in device-bundle/
// (or DIR), under 60 MiB: the Node binary (node.xz), a kiln/ package root without ONNX Runtime, the
// device scripts, the Python peers, small prepared data with the CPU reference steps, and MANIFEST.json.
// The layout and its use: the issue 26 contract, and MANIFEST.json's "use". Built beside the target and
// renamed into place, so a failed or refused build leaves the previous bundle as it was.
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeKilnPackage } from "./bundle-kiln.mjs";
import { writeReference, writeSotuCorpus, writeStepData } from "./bundle-data.mjs";
import { manifest, mib, sizeBreakdown } from "./bundle-manifest.mjs";
import { stopAll, xz } from "./bundle-run.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));
/** What may travel with the tracked tree is 64 MiB; the tree is ~3.3 MB, so the bundle keeps 60. */
const DEFAULT_LIMIT_MIB = 60;

/** How to use each part on arrival (written into MANIFEST.json). */
const USE = {
  "node.xz":
    "the Node binary of the building machine (needs glibc and libstdc++): xz -dc node.xz > DIR/node && chmod +x DIR/node " +
    "(or python3 -c \"import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))\" node.xz DIR/node)",
  kiln: "the package root: node kiln/dist/src/cli/main.js devices | train | bench train ...; no onnxruntime-node (XLA only)",
  "scripts/device": "the repository's scripts/device/ (check.sh --bundle DIR)",
  peers: "the repository's bench/peers/ (PyTorch and JAX peers)",
  "data/tokenizer, data/shards":
    "the equivalence steps' data: node kiln/dist/bench/device/steps.js compare " +
    "--reference reference/cpu-steps.json --data data --platform gpu",
  "data/sotu/sotu.txt.xz":
    "the main job's corpus: xz -dc data/sotu/sotu.txt.xz > RUN/sotu.txt, then kiln quickstart --dir RUN reuses it " +
    "and makes its tokenizer and shards from it in seconds",
  "reference/cpu-steps.json": "steps.js record on the building machine's CPU (ONNX Runtime)",
};

async function build(out, limitBytes) {
  const started = performance.now();
  const work = `${out}.tmp-${process.pid}`;
  const scratch = mkdtempSync(join(tmpdir(), "kiln-bundle-"));
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    // The two compressions run beside the rest (the reference steps are the other long part).
    const [, sotu, data] = await Promise.all([
      xz(process.execPath, join(work, "node.xz")),
      writeSotuCorpus(repo, work, scratch),
      (async () => {
        writeKilnPackage(repo, work);
        cpSync(join(repo, "scripts", "device"), join(work, "scripts", "device"), { recursive: true });
        cpSync(join(repo, "bench", "peers"), join(work, "peers"), { recursive: true, filter: (p) => !p.includes("__pycache__") });
        const data = await writeStepData(repo, work, scratch);
        await writeReference(repo, work);
        return data;
      })(),
    ]);
    const m = manifest(repo, work, { use: USE, nodeBinary: process.execPath, stepData: data, sotu });
    writeFileSync(join(work, "MANIFEST.json"), JSON.stringify(m, null, 2) + "\n");
    const total = m.totalBytes + statSync(join(work, "MANIFEST.json")).size;
    const parts = sizeBreakdown(work);
    if (total > limitBytes) {
      const largest = parts.slice(0, 3).map(([p, b]) => `${p} ${mib(b)}`);
      throw new Error(
        `the bundle is ${mib(total)}, over the limit of ${mib(limitBytes)} (largest: ${largest.join(", ")}); nothing was written`,
      );
    }
    rmSync(out, { recursive: true, force: true });
    renameSync(work, out);
    for (const [path, bytes] of parts) console.log(`${mib(bytes).padStart(11)}  ${path}`);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    console.log(`${mib(total).padStart(11)}  total, ${m.files.length} files, in ${out} (limit ${mib(limitBytes)}; built in ${seconds} s)`);
  } finally {
    stopAll();
    rmSync(work, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  const { values } = parseArgs({ options: { out: { type: "string" }, "limit-mib": { type: "string" } }, strict: true });
  const limit = Number(values["limit-mib"] ?? DEFAULT_LIMIT_MIB);
  // A lower limit only: above 60 MiB the bundle and the tracked tree no longer fit what travels.
  if (!(limit > 0 && limit <= DEFAULT_LIMIT_MIB))
    throw new Error(`--limit-mib must be a number in (0, ${DEFAULT_LIMIT_MIB}], got "${values["limit-mib"]}"`);
  await build(resolve(values.out ?? join(repo, "device-bundle")), limit * 2 ** 20);
} catch (e) {
  console.error(`device:bundle: ${e.message}`);
  process.exitCode = 1;
}
