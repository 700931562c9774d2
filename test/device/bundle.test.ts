// The GPU bundle (`npm run device:bundle`, scripts/device/bundle.mjs) built into a temporary directory
// outside the repository, then used as the GPU machine will use it: node.xz unpacked, and the bundle's
// own package root (koffi, no onnxruntime-node, no repository node_modules above it) running
// `kiln devices`, `kiln train --executor xla`, `kiln bench train --executor xla`, and the whole device
// check (every section with its figures, the equivalence steps against the bundle's CPU reference) on
// XLA's CPU plugin.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { pythonSkip, venvPythonPath } from "../helpers/python.js";
import { assertCpuCheckReport, CHECK_SECTIONS, type CheckReport } from "../helpers/device-check-report.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = repoRoot();
const MiB = 2 ** 20;
const noXz = spawnSync("xz", ["--version"]).status === 0 ? false : "xz is not on PATH (the bundle builder needs it)";
const skip = noXz || (process.platform !== "linux" || process.arch !== "x64" ? "the bundle carries linux-x64 builds" : false);

const work = tempDir("kiln-bundle-test-");
const bundle = join(work, "device-bundle");
const kilnRoot = join(bundle, "kiln");
const unpackedNode = join(work, "node");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

/** The unpacked node running a file of the bundle's package root, from that root, with nothing else on its module path. */
function inBundle(args: string[], timeoutMs = 180_000): SpawnSyncReturns<string> {
  const env = { ...process.env };
  delete env.NODE_PATH;
  delete env.NODE_OPTIONS;
  return spawnSync(unpackedNode, args, { cwd: kilnRoot, encoding: "utf8", timeout: timeoutMs, env });
}

let built: SpawnSyncReturns<string> | undefined;

test("npm run device:bundle builds the contract's layout under 60 MiB and prints its size", { skip }, () => {
  built = spawnSync(process.execPath, [join(root, "scripts", "device", "bundle.mjs"), "--out", bundle], {
    encoding: "utf8",
    timeout: 600_000,
  });
  assert.equal(built.status, 0, `the builder failed:\n${built.stderr}`);
  console.log(built.stdout.trim());
  const total = /([\d.]+) MiB {2}total/.exec(built.stdout);
  assert.ok(total, `it prints its total size:\n${built.stdout}`);
  const all = files(bundle);
  const bytes = all.reduce((n, f) => n + statSync(join(bundle, f)).size, 0);
  assert.ok(Math.abs(Number(total[1]) * MiB - bytes) < 0.01 * MiB, `printed ${total[1]} MiB, the files hold ${bytes} bytes`);
  assert.ok(bytes < 60 * MiB, `the bundle is ${(bytes / MiB).toFixed(1)} MiB`);
  // With the repository's tracked files it must fit what travels to the GPU machine.
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && existsSync(join(root, f)))
    .reduce((n, f) => n + statSync(join(root, f)).size, 0);
  assert.ok(bytes + tracked < 64 * MiB, `bundle ${bytes} + tracked ${tracked} bytes`);

  for (const path of [
    "MANIFEST.json",
    "node.xz",
    "kiln/package.json",
    "kiln/dist/src/cli/main.js",
    "kiln/dist/bench/device/steps.js",
    "kiln/dist/test/exec/xla/device.test.js",
    "kiln/test/exec/xla/golden/add.mlir",
    "kiln/node_modules/koffi/package.json",
    "kiln/node_modules/koffi/build/koffi/linux_x64/koffi.node",
    "scripts/device/bundle.mjs",
    "data/tokenizer/tokenizer.json",
    "data/shards/train/prepare.json",
    "data/shards/validation/prepare.json",
    "data/sotu/sotu.txt.xz",
    "reference/cpu-steps.json",
  ])
    assert.ok(all.includes(path), `the bundle has ${path}`);
  for (const peer of readdirSync(join(root, "bench", "peers")).filter((f) => f.endsWith(".py")))
    assert.ok(all.includes(`peers/${peer}`), `the bundle has peers/${peer}`);
  assert.ok(
    all.some((f) => /^data\/shards\/train\/.*\.tfrecord$/.test(f)),
    "the bundle has training shards",
  );
  assert.deepEqual(
    all.filter((f) => f.startsWith("kiln/dist/") && /\.(map|d\.ts)$/.test(f)),
    [],
    "no source maps or declarations",
  );
  assert.deepEqual(
    all.filter((f) => /onnxruntime|@google-cloud|@stdlib/.test(f)),
    [],
    "no onnxruntime-node, @google-cloud/storage or the corpus package",
  );
});

test("MANIFEST.json lists every file with its size and SHA-256, the commit and the Node version", { skip }, () => {
  const m = JSON.parse(readFileSync(join(bundle, "MANIFEST.json"), "utf8")) as {
    git: { commit: string };
    node: string;
    builtAt: string;
    totalBytes: number;
    files: { path: string; bytes: number; sha256: string }[];
  };
  assert.deepEqual(
    m.files.map((f) => f.path),
    files(bundle).filter((f) => f !== "MANIFEST.json"),
  );
  for (const f of m.files) {
    const data = readFileSync(join(bundle, f.path));
    assert.equal(f.bytes, data.length, f.path);
    assert.equal(f.sha256, createHash("sha256").update(data).digest("hex"), f.path);
  }
  assert.equal(
    m.totalBytes,
    m.files.reduce((n, f) => n + f.bytes, 0),
  );
  assert.equal(m.git.commit, execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim());
  assert.equal(m.node, process.version);
  assert.ok(Date.now() - Date.parse(m.builtAt) < 3_600_000);
});

test("node.xz unpacks, with xz or with python3's lzma, to this Node", { skip }, () => {
  execFileSync("sh", ["-c", `xz -dc "${join(bundle, "node.xz")}" > "${unpackedNode}"`]);
  chmodSync(unpackedNode, 0o755);
  assert.equal(execFileSync(unpackedNode, ["--version"], { encoding: "utf8" }).trim(), process.version);
  const viaPython = join(work, "node-python");
  const py = spawnSync(
    "python3",
    [
      "-c",
      "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))",
      join(bundle, "node.xz"),
      viaPython,
    ],
    { encoding: "utf8" },
  );
  assert.equal(py.status, 0, py.stderr);
  assert.ok(readFileSync(viaPython).equals(readFileSync(unpackedNode)), "both ways give the same binary");
  rmSync(viaPython);
});

test("the bundle's package root reaches no other node_modules, and koffi loads from it", { skip }, () => {
  const rel = relative(root, bundle);
  assert.ok(rel.startsWith("..") || rel.startsWith(sep), `the bundle is outside the repository (${bundle})`);
  for (let dir = dirname(kilnRoot); dir !== dirname(dir); dir = dirname(dir))
    assert.ok(!existsSync(join(dir, "node_modules")), `${dir}/node_modules would be reachable from the bundle`);
  const script =
    "import koffi from 'koffi'; const getpid = koffi.load('libc.so.6').func('int getpid()');" +
    "console.log(JSON.stringify({ at: import.meta.resolve('koffi'), pid: getpid(), self: process.pid }))";
  const r = inBundle(["--input-type=module", "-e", script]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { at: string; pid: number; self: number };
  assert.ok(out.at.startsWith(`file://${kilnRoot}/node_modules/koffi/`), out.at);
  assert.equal(out.pid, out.self, "a C function called through the bundle's koffi");
  const ort = inBundle(["--input-type=module", "-e", "import.meta.resolve('onnxruntime-node')"]);
  assert.notEqual(ort.status, 0, "onnxruntime-node cannot be resolved from the bundle");
});

test(
  "from the unpacked bundle, kiln devices lists XLA's devices and says ONNX Runtime is not installed",
  { skip: skip || xlaCpuSkip },
  () => {
    const r = inBundle(["dist/src/cli/main.js", "devices", "--pjrt-plugin", xlaCpuPluginPath()]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^ort: unavailable: .*needs ONNX Runtime's C library .*and npm package onnxruntime-node is not installed: install npm package/m,
    );
    assert.match(r.stdout, /^xla: XLA through the PJRT plugin .*\n {2}PJRT C API 0\.\d+/m);
    assert.match(r.stdout, /xla-cpu:0/);
  },
);

test("from the unpacked bundle, kiln train and kiln bench train run on XLA without ONNX Runtime", { skip: skip || xlaCpuSkip }, () => {
  const data = join(bundle, "data");
  const xla = ["--executor", "xla", "--accelerator", "cpu", "--pjrt-plugin", xlaCpuPluginPath()];
  const trainArgs = [
    "dist/src/cli/main.js",
    "train",
    "--tokenizer",
    join(data, "tokenizer"),
    "--train-data",
    join(data, "shards", "train"),
  ];
  const train = inBundle([...trainArgs, "--output-dir", join(work, "run"), "--preset", "mlm-tiny", "--max-steps", "2", "--quiet", ...xla]);
  assert.equal(train.status, 0, train.stderr);
  assert.match(train.stdout, /"steps":2/);
  const bench = inBundle([
    "dist/src/cli/main.js",
    "bench",
    "train",
    "--preset",
    "mlm-tiny",
    "--per-replica-batch-size",
    "2",
    "--max-length",
    "16",
    "--steps",
    "1",
    "--warmup",
    "1",
    "--json",
    ...xla,
  ]);
  assert.equal(bench.status, 0, bench.stderr);
  assert.equal((JSON.parse(bench.stdout) as { device: string }).device, "xla-cpu:0");
  // Where ONNX Runtime is needed (the default executor), the one error says what is missing and how to get it.
  const ort = inBundle([...trainArgs, "--output-dir", join(work, "run-ort"), "--preset", "mlm-tiny", "--max-steps", "1", "--quiet"]);
  assert.equal(ort.status, 1);
  assert.match(
    ort.stderr,
    /^kiln: the ONNX Runtime executor .*needs ONNX Runtime's C library .*and npm package onnxruntime-node is not installed: install/m,
  );
});

test(
  "the device check runs whole from the unpacked bundle (its own Kiln, peers, data and reference), no ONNX Runtime in reach",
  { skip: skip || xlaCpuSkip || pythonSkip, timeout: 8 * 60_000 },
  () => {
    const out = join(work, "check-out");
    // The GPU machine's python3 has torch, transformers, jax and optax; here the project's environment
    // plays it, first on PATH. The bundle's node.xz stands in for a machine without Node.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${dirname(venvPythonPath())}:${dirname(unpackedNode)}:/usr/bin:/bin`,
      KILN_PJRT_PLUGIN: xlaCpuPluginPath(),
    };
    delete env.NODE_PATH;
    delete env.NODE_OPTIONS;
    const r = spawnSync("bash", [join(bundle, "scripts", "device", "check.sh"), "--bundle", bundle, "--platform", "cpu", "--out", out], {
      cwd: work,
      encoding: "utf8",
      timeout: 7 * 60_000,
      env,
    });
    const log = existsSync(join(out, "check.log")) ? readFileSync(join(out, "check.log"), "utf8") : "";
    const report = JSON.parse(readFileSync(join(out, "gpu-report.json"), "utf8")) as CheckReport;
    // Section 3 compares against the bundle's recorded CPU reference (reference/cpu-steps.json).
    assertCpuCheckReport(report, CHECK_SECTIONS, () => `${r.stderr}\n--- check.log (end) ---\n${log.slice(-6000)}`);
    const md = readFileSync(join(out, "gpu-report.md"), "utf8");
    for (const n of CHECK_SECTIONS) assert.ok(md.includes(`## ${n}: `), `gpu-report.md has no section ${n}`);
    assert.equal(r.status, 0, `check.sh exit status ${r.status}\n${r.stderr}`);
    assert.match(log, new RegExp(`kiln at ${bundle}/kiln`), "the check ran the bundle's Kiln, not the repository's");
  },
);
