// Finding a PJRT plugin, in this order:
//   1. an explicit path (the --pjrt-plugin option), then the KILN_PJRT_PLUGIN environment variable;
//   2. the CUDA plugin of an installed jax-cuda*-pjrt wheel (site-packages/jax_plugins/xla_cuda*/
//      xla_cuda_plugin.so; the newest CUDA major first), with the nvidia-* wheels' libraries to preload;
//   3. libtpu: TPU_LIBRARY_PATH, then the libtpu package (site-packages/libtpu/libtpu.so);
//   4. only when asked for (`includeCpu`): XLA's CPU plugin from OpenXLA's xla-cpu-pjrt wheel
//      (site-packages/xla_plugins/<name>/<name>.so). A CPU plugin is never an accelerator, so callers
//      that look for one (the --accelerator auto choice) leave it out, and `kind` says what was found.
// The site-packages searched are python3's, the active VIRTUAL_ENV's and CONDA_PREFIX's, the project's
// own .venv (next to the package.json above this file), then the usual system places.
// Nothing is loaded here: the answer is a path, or a sentence saying what was looked for and where.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** cuda / tpu / cpu: found by discovery; explicit: named by --pjrt-plugin or KILN_PJRT_PLUGIN (any platform). */
export type PjrtPluginKind = "cuda" | "tpu" | "cpu" | "explicit";

/** A PJRT plugin discoverPjrtPlugin found: its path, kind, and the libraries to load first. */
export interface PjrtPluginFound {
  readonly path: string;
  readonly kind: PjrtPluginKind;
  /** Shared libraries to load (symbols global) before the plugin: the CUDA wheels' libraries. */
  readonly preload: readonly string[];
}

/** What discoverPjrtPlugin looked for, and where, when it found no plugin. */
export interface PjrtPluginNotFound {
  /** What was looked for, and where. */
  readonly notFound: string;
}

/** Options of discoverPjrtPlugin: an explicit plugin, the environment, where to search. */
export interface DiscoveryOptions {
  /** An explicit plugin (the --pjrt-plugin option): used as is, or reported missing. */
  readonly pluginPath?: string;
  /** The environment to read (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Python site-packages directories to search (default: asked of python3, plus common places). */
  readonly sitePackages?: readonly string[];
  /** Also take XLA's CPU plugin wheels, after the accelerators (default false). */
  readonly includeCpu?: boolean;
}

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
const list = (dir: string) => (isDir(dir) ? readdirSync(dir).sort() : []);

/** The directory of the package.json above this file: the project (or the installed package) root. */
function packageRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (isFile(join(dir, "package.json"))) return dir;
  }
  return undefined;
}

/** site-packages directories: python3's own answer, then the venvs and the usual install locations. */
export function defaultSitePackages(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const dirs: string[] = [];
  const python = spawnSync(
    "python3",
    ["-c", "import site, sys; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()]))"],
    { encoding: "utf8", timeout: 10_000 },
  );
  if (python.status === 0)
    dirs.push(
      ...python.stdout
        .split("\n")
        .map((s) => s.trim())
        .filter(Boolean),
    );
  const root = packageRoot();
  const projectVenv = root ? join(root, ".venv") : undefined;
  const prefixes = [env.VIRTUAL_ENV, env.CONDA_PREFIX, projectVenv, "/usr/local", "/usr", join(env.HOME ?? homedir(), ".local")].filter(
    (p): p is string => !!p,
  );
  for (const prefix of prefixes) {
    for (const py of list(join(prefix, "lib")).filter((d) => /^python3(\.\d+)?$/.test(d))) {
      dirs.push(join(prefix, "lib", py, "site-packages"), join(prefix, "lib", py, "dist-packages"));
    }
  }
  dirs.push("/usr/lib/python3/dist-packages");
  return [...new Set(dirs)].filter(isDir);
}

/** The newest jax_plugins/xla_cuda<N>/xla_cuda_plugin.so in a site-packages directory. */
function cudaPluginIn(site: string): string | undefined {
  const versions = list(join(site, "jax_plugins"))
    .map((d) => ({ d, major: /^xla_cuda(\d+)$/.exec(d)?.[1] }))
    .filter((x) => x.major !== undefined)
    .sort((a, b) => Number(b.major) - Number(a.major));
  return versions.map((v) => join(site, "jax_plugins", v.d, "xla_cuda_plugin.so")).find(isFile);
}

/** The CPU plugin of an xla-cpu-pjrt wheel: site-packages/xla_plugins/<dir>/<file>.so with "cpu" in the directory name. */
function cpuPluginIn(site: string): string | undefined {
  for (const d of list(join(site, "xla_plugins")).filter((n) => /cpu/.test(n))) {
    const so = list(join(site, "xla_plugins", d)).find((f) => f.endsWith(".so") && isFile(join(site, "xla_plugins", d, f)));
    if (so) return join(site, "xla_plugins", d, so);
  }
  return undefined;
}

/** The shared libraries of the nvidia-* wheels (site-packages/nvidia/<pkg>[/<sub>]/lib/*.so*), each once. */
export function nvidiaLibraries(site: string): string[] {
  const root = join(site, "nvidia");
  const libDirs: string[] = [];
  for (const pkg of list(root)) {
    libDirs.push(join(root, pkg, "lib"));
    for (const sub of list(join(root, pkg))) libDirs.push(join(root, pkg, sub, "lib"));
  }
  const seen = new Set<string>();
  const libs: string[] = [];
  for (const dir of libDirs.filter(isDir)) {
    for (const f of list(dir).filter((n) => /\.so(\.\d+)*$/.test(n))) {
      const path = join(dir, f);
      const real = realpathSync(path);
      if (!seen.has(real) && isFile(real)) {
        seen.add(real);
        libs.push(path);
      }
    }
  }
  return libs;
}

/** For a plugin inside site-packages/jax_plugins/…, that site-packages directory. */
function siteOfPlugin(plugin: string): string | undefined {
  const pluginDir = dirname(plugin),
    jaxPlugins = dirname(pluginDir);
  return basename(jaxPlugins) === "jax_plugins" ? dirname(jaxPlugins) : undefined;
}

function explicit(path: string, source: string): PjrtPluginFound | PjrtPluginNotFound {
  if (!isFile(path)) return { notFound: `${source} names ${path}, which is not a file` };
  const site = siteOfPlugin(path);
  return { path, kind: "explicit", preload: site ? nvidiaLibraries(site) : [] };
}

/** XLA's CPU plugin from an xla-cpu-pjrt wheel in the first of `sites` that holds one. */
export function discoverCpuPlugin(sites: readonly string[] = defaultSitePackages()): PjrtPluginFound | undefined {
  for (const site of sites) {
    const plugin = cpuPluginIn(site);
    if (plugin) return { path: plugin, kind: "cpu", preload: [] };
  }
  return undefined;
}

/** Finds a PJRT plugin: the explicit path, else KILN_PJRT_PLUGIN, else an installed CUDA or TPU plugin. */
export function discoverPjrtPlugin(opts: DiscoveryOptions = {}): PjrtPluginFound | PjrtPluginNotFound {
  const env = opts.env ?? process.env;
  if (opts.pluginPath) return explicit(opts.pluginPath, "--pjrt-plugin");
  if (env.KILN_PJRT_PLUGIN) return explicit(env.KILN_PJRT_PLUGIN, "KILN_PJRT_PLUGIN");

  const sites = opts.sitePackages ?? defaultSitePackages(env);
  for (const site of sites) {
    const plugin = cudaPluginIn(site);
    if (plugin) return { path: plugin, kind: "cuda", preload: nvidiaLibraries(site) };
  }

  const tpuCandidates = [
    ...(env.TPU_LIBRARY_PATH ? [env.TPU_LIBRARY_PATH] : []),
    ...sites.map((site) => join(site, "libtpu", "libtpu.so")),
  ];
  const tpu = tpuCandidates.find(isFile);
  if (tpu) return { path: tpu, kind: "tpu", preload: [] };

  if (opts.includeCpu) {
    const cpu = discoverCpuPlugin(sites);
    if (cpu) return cpu;
  }

  const where = sites.length ? sites.join(", ") : "no Python site-packages directory found";
  return {
    notFound: [
      "no --pjrt-plugin given and KILN_PJRT_PLUGIN is not set",
      `no CUDA plugin jax_plugins/xla_cuda*/xla_cuda_plugin.so (from a jax-cuda*-pjrt wheel) in: ${where}`,
      "no libtpu: " +
        (env.TPU_LIBRARY_PATH ? `TPU_LIBRARY_PATH=${env.TPU_LIBRARY_PATH} is not a file, and ` : "TPU_LIBRARY_PATH is not set, and ") +
        "no libtpu/libtpu.so in the same directories",
      ...(opts.includeCpu ? ["no XLA CPU plugin xla_plugins/*cpu*/*.so (from the xla-cpu-pjrt wheel) in the same directories"] : []),
    ].join("; "),
  };
}
