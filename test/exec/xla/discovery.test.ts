// Plugin discovery over fake directory trees (files that exist, never loaded): the search order,
// what is preloaded, and the message that says what was looked for and where.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defaultSitePackages, discoverPjrtPlugin, type PjrtPluginFound } from "../../../src/exec/xla/discovery.js";
import { pythonSkip, venvSitePackages } from "../../helpers/python.js";
import { tempDir } from "../../helpers/temp-dir.js";

function tree(files: string[]): { root: string; done: () => void } {
  const root = tempDir("kiln-pjrt-");
  for (const f of files) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), "");
  }
  return { root, done: () => rmSync(root, { recursive: true, force: true }) };
}

test("an explicit plugin path wins over everything else, and a missing one is reported", () => {
  const t = tree(["a/my_plugin.so", "site/jax_plugins/xla_cuda13/xla_cuda_plugin.so"]);
  try {
    const sitePackages = [join(t.root, "site")];
    const env = { KILN_PJRT_PLUGIN: join(t.root, "site/jax_plugins/xla_cuda13/xla_cuda_plugin.so") };
    assert.deepEqual(discoverPjrtPlugin({ pluginPath: join(t.root, "a/my_plugin.so"), env, sitePackages }), {
      path: join(t.root, "a/my_plugin.so"),
      kind: "explicit",
      preload: [],
    });
    const missing = discoverPjrtPlugin({ pluginPath: join(t.root, "nope.so"), env, sitePackages });
    assert.deepEqual(missing, { notFound: `--pjrt-plugin names ${join(t.root, "nope.so")}, which is not a file` });
  } finally {
    t.done();
  }
});

test("KILN_PJRT_PLUGIN comes before the installed wheels; a plugin inside site-packages gets its nvidia libraries", () => {
  const t = tree([
    "site/jax_plugins/xla_cuda12/xla_cuda_plugin.so",
    "other/jax_plugins/xla_cuda13/xla_cuda_plugin.so",
    "other/nvidia/cublas/lib/libcublas.so.13",
  ]);
  try {
    const env = { KILN_PJRT_PLUGIN: join(t.root, "other/jax_plugins/xla_cuda13/xla_cuda_plugin.so") };
    const found = discoverPjrtPlugin({ env, sitePackages: [join(t.root, "site")] });
    assert.deepEqual(found, {
      path: env.KILN_PJRT_PLUGIN,
      kind: "explicit",
      preload: [join(t.root, "other/nvidia/cublas/lib/libcublas.so.13")],
    });
    assert.match(
      (discoverPjrtPlugin({ env: { KILN_PJRT_PLUGIN: "/no/such.so" }, sitePackages: [] }) as { notFound: string }).notFound,
      /KILN_PJRT_PLUGIN names \/no\/such.so/,
    );
  } finally {
    t.done();
  }
});

test("the CUDA wheel's plugin: the newest CUDA major, the first site-packages holding one, every nvidia library once", () => {
  const t = tree([
    "empty/unrelated/file.txt",
    "site/jax_plugins/xla_cuda12/xla_cuda_plugin.so",
    "site/jax_plugins/xla_cuda13/xla_cuda_plugin.so",
    "site/jax_plugins/xla_cuda13/__init__.py",
    "site/nvidia/cuda_runtime/lib/libcudart.so.13",
    "site/nvidia/cudnn/lib/libcudnn.so.9",
    "site/nvidia/cudnn/lib/libcudnn_graph.so.9",
    "site/nvidia/cudnn/lib/README.txt",
    "site/nvidia/cu13/nccl/lib/libnccl.so.2",
    "site/libtpu/libtpu.so",
    "later/jax_plugins/xla_cuda14/xla_cuda_plugin.so",
  ]);
  try {
    symlinkSync(join(t.root, "site/nvidia/cudnn/lib/libcudnn.so.9"), join(t.root, "site/nvidia/cudnn/lib/libcudnn.so"));
    const found = discoverPjrtPlugin({ env: {}, sitePackages: [join(t.root, "empty"), join(t.root, "site"), join(t.root, "later")] });
    const site = join(t.root, "site");
    assert.deepEqual(found, {
      path: join(site, "jax_plugins/xla_cuda13/xla_cuda_plugin.so"),
      kind: "cuda",
      preload: [
        join(site, "nvidia/cu13/nccl/lib/libnccl.so.2"),
        join(site, "nvidia/cuda_runtime/lib/libcudart.so.13"),
        join(site, "nvidia/cudnn/lib/libcudnn.so"),
        join(site, "nvidia/cudnn/lib/libcudnn_graph.so.9"),
      ],
    });
  } finally {
    t.done();
  }
});

test("libtpu when there is no CUDA plugin: TPU_LIBRARY_PATH first, then the libtpu package", () => {
  const t = tree(["site/libtpu/libtpu.so", "custom/libtpu.so"]);
  try {
    const sitePackages = [join(t.root, "site")];
    assert.deepEqual(discoverPjrtPlugin({ env: {}, sitePackages }), {
      path: join(t.root, "site/libtpu/libtpu.so"),
      kind: "tpu",
      preload: [],
    });
    assert.deepEqual(discoverPjrtPlugin({ env: { TPU_LIBRARY_PATH: join(t.root, "custom/libtpu.so") }, sitePackages }), {
      path: join(t.root, "custom/libtpu.so"),
      kind: "tpu",
      preload: [],
    });
  } finally {
    t.done();
  }
});

test("nothing found: the message names every place looked at", () => {
  const t = tree(["site/jax/__init__.py"]);
  try {
    const site = join(t.root, "site");
    const found = discoverPjrtPlugin({ env: { TPU_LIBRARY_PATH: "/opt/missing/libtpu.so" }, sitePackages: [site] });
    assert.ok("notFound" in found);
    assert.match(found.notFound, /no --pjrt-plugin given and KILN_PJRT_PLUGIN is not set/);
    assert.match(found.notFound, new RegExp(`jax_plugins/xla_cuda\\*/xla_cuda_plugin.so \\(from a jax-cuda\\*-pjrt wheel\\) in: ${site}`));
    assert.match(found.notFound, /TPU_LIBRARY_PATH=\/opt\/missing\/libtpu.so is not a file, and no libtpu\/libtpu.so/);
    assert.match(
      (discoverPjrtPlugin({ env: {}, sitePackages: [] }) as { notFound: string }).notFound,
      /no Python site-packages directory found/,
    );
  } finally {
    t.done();
  }
});

test("XLA's CPU wheel is found only when asked for, after CUDA and TPU, and says it is a CPU plugin", () => {
  const t = tree([
    "site/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so",
    "site/xla_plugins/xla_cpu_pjrt/__init__.py",
    "site/xla_plugins/other/x.so",
  ]);
  try {
    const site = join(t.root, "site");
    const cpu = { path: join(site, "xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"), kind: "cpu", preload: [] };
    assert.deepEqual(discoverPjrtPlugin({ env: {}, sitePackages: [site], includeCpu: true }), cpu);
    // Without includeCpu (what --accelerator auto asks), a CPU plugin is never an accelerator.
    const none = discoverPjrtPlugin({ env: {}, sitePackages: [site] });
    assert.ok("notFound" in none && !/xla_plugins/.test(none.notFound), JSON.stringify(none));
    const missing = discoverPjrtPlugin({ env: {}, sitePackages: [join(t.root, "empty")], includeCpu: true });
    assert.ok("notFound" in missing);
    assert.match(missing.notFound, /no XLA CPU plugin xla_plugins\/\*cpu\*\/\*\.so \(from the xla-cpu-pjrt wheel\)/);
  } finally {
    t.done();
  }
  const u = tree(["a/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so", "b/jax_plugins/xla_cuda13/xla_cuda_plugin.so", "c/libtpu/libtpu.so"]);
  try {
    const sites = ["a", "b", "c"].map((d) => join(u.root, d));
    const kind = (sitePackages: string[]) => (discoverPjrtPlugin({ env: {}, sitePackages, includeCpu: true }) as PjrtPluginFound).kind;
    assert.equal(kind(sites), "cuda");
    assert.equal(kind([sites[0]!, sites[2]!]), "tpu");
  } finally {
    u.done();
  }
});

test("the project's own .venv and VIRTUAL_ENV are searched", { skip: pythonSkip }, () => {
  const sites = defaultSitePackages({ HOME: "/nonexistent" });
  assert.ok(sites.includes(venvSitePackages()), `${venvSitePackages()} in ${sites.join(", ")}`);
  const t = tree(["venv/lib/python3.11/site-packages/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"]);
  try {
    const venvSite = join(t.root, "venv/lib/python3.11/site-packages");
    assert.ok(defaultSitePackages({ VIRTUAL_ENV: join(t.root, "venv") }).includes(venvSite));
  } finally {
    t.done();
  }
});

test("the real xla-cpu-pjrt wheel in the project's environment is found as a CPU plugin", { skip: pythonSkip }, () => {
  const found = discoverPjrtPlugin({ env: {}, sitePackages: [venvSitePackages()], includeCpu: true });
  assert.ok(!("notFound" in found), JSON.stringify(found));
  assert.equal(found.kind, "cpu");
  assert.match(found.path, /xla_plugins\/xla_cpu_pjrt\/xla_cpu_pjrt\.so$/);
});
