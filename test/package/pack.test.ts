// The package as a user gets it: `npm pack`, installed into a fresh project with `npm ci --offline`
// (nothing from the network: the lock lists the tarballs `npm ci` left in npm's cache), then every
// name README.md documents is imported from "kiln" and its subpaths and checked, a tiny model trains a
// few steps and fills a mask, and a TypeScript file type-checks against the package's types through
// package.json `exports`.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";

const root = repoRoot();

/** README's table of entry points: `entry` → [values, types]. */
function documentedNames(readme: string): Map<string, { values: string[]; types: string[] }> {
  const section = readme.split("\n## ").find((s) => s.startsWith("The library"));
  assert.ok(section, "README.md has a section 'The library'");
  const names = (cell: string) => [...cell.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]!);
  const out = new Map<string, { values: string[]; types: string[] }>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const entry = /^`(kiln(?:\/[a-z]+)?)`$/.exec(cells[1] ?? "")?.[1];
    if (entry) out.set(entry, { values: names(cells[2]!), types: names(cells[3] ?? "") });
  }
  return out;
}

/**
 * package-lock.json for a project that depends on the tarball alone: the package's dependencies and
 * theirs, copied from the repository's lock (same versions, resolved URLs and integrity), so that
 * `npm ci --offline` finds every one of them in npm's cache.
 */
function consumerLock(tarball: string): object {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, Record<string, any>> };
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, any>;
  const packages = lock.packages;
  const kept = new Map<string, Record<string, unknown>>();
  const resolve = (from: string, name: string): string | undefined => {
    for (let base = from; ;) {
      const path = `${base ? `${base}/` : ""}node_modules/${name}`;
      if (packages[path]) return path;
      if (!base) return undefined;
      const i = base.lastIndexOf("/node_modules/");
      base = i < 0 ? "" : base.slice(0, i);
    }
  };
  const visit = (from: string, deps: Record<string, string> | undefined, optional: boolean) => {
    for (const name of Object.keys(deps ?? {})) {
      const path = resolve(from, name);
      if (!path) {
        if (optional) continue;
        throw new Error(`${name} (needed by ${from || "kiln"}) is not in package-lock.json`);
      }
      if (kept.has(path)) continue;
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = packages[path]!;
      kept.set(path, entry);
      visit(path, entry.dependencies as Record<string, string>, false);
      visit(path, entry.optionalDependencies as Record<string, string>, true);
      visit(path, entry.peerDependencies as Record<string, string>, true);
    }
  };
  visit("", pkg.dependencies, false);
  return {
    name: "consumer",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "consumer", version: "1.0.0", dependencies: { kiln: `file:${tarball}` } },
      "node_modules/kiln": {
        version: pkg.version,
        resolved: `file:${tarball}`,
        license: pkg.license,
        dependencies: pkg.dependencies,
        bin: pkg.bin,
        engines: pkg.engines,
      },
      ...Object.fromEntries(kept),
    },
  };
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  try {
    return execFileSync(cmd, args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
      timeout: 240_000,
    });
  } catch (e) {
    const err = e as { status?: number; stdout?: string; stderr?: string };
    throw new Error(
      `${cmd} ${args[0]} in ${cwd} exited with ${err.status}:\n${(err.stdout ?? "").slice(-3000)}\n${(err.stderr ?? "").slice(-3000)}`,
    );
  }
}

test("the packed package installs offline, exports every documented name, trains, fills masks, and type-checks", async () => {
  const t0 = performance.now();
  const lap = (what: string) => console.log(`${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const documented = documentedNames(readFileSync(join(root, "README.md"), "utf8"));
  assert.deepEqual(
    [...documented.keys()].sort(),
    [
      "kiln",
      ...Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).exports as object)
        .filter((k) => k !== "." && k !== "./package.json")
        .map((k) => `kiln/${k.slice(2)}`),
    ].sort(),
    "README documents every entry point of package.json exports",
  );

  const dir = mkdtempSync(join(tmpdir(), "kiln-pack-"));
  // dist/ is built (the tests run from it): packing needs no second compile.
  const tarball = run("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], root).trim().split("\n").at(-1)!;
  const packed = readFileSync(join(dir, tarball)).length;
  assert.ok(packed < 2_000_000, `the tarball is ${packed} bytes`);
  lap(`npm pack (${(packed / 1e6).toFixed(2)} MB)`);

  const project = join(dir, "project");
  mkdirSync(project);
  copyFileSync(join(dir, tarball), join(project, tarball));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module", dependencies: { kiln: `file:${tarball}` } }),
  );
  writeFileSync(join(project, "package-lock.json"), JSON.stringify(consumerLock(tarball), null, 2));
  writeFileSync(join(project, ".npmrc"), "onnxruntime-node-install=skip\n");
  run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], project, { ONNXRUNTIME_NODE_INSTALL: "skip" });
  lap("npm ci --offline");
  const installed = readdirSync(join(project, "node_modules", "kiln", "dist"));
  assert.deepEqual(installed, ["src"], "only dist/src is packed");

  // Values: imported at run time, each of the right kind; then a few training steps and fill-mask.
  const values = Object.fromEntries([...documented].map(([entry, n]) => [entry, n.values]));
  copyFileSync(join(root, "test", "package", "consumer.mjs"), join(project, "consumer.mjs"));
  const out = run(process.execPath, ["consumer.mjs", JSON.stringify(values), join(dir, "work")], project);
  const report = JSON.parse(out.trim().split("\n").at(-1)!) as { steps: number; loss: number; guess: string };
  assert.equal(report.steps, 3);
  assert.ok(Number.isFinite(report.loss));
  lap("imports, 3 training steps, fill-mask");

  // Types: every documented name through `exports`, with the repository's TypeScript compiler.
  // Each entry's names under an alias of their own (entries share some names).
  writeFileSync(
    join(project, "consumer.ts"),
    [
      ...[...documented].map(
        ([entry, n], i) => `import type { ${[...n.values, ...n.types].map((x) => `${x} as E${i}_${x}`).join(", ")} } from "${entry}";`,
      ),
      `import { Trainer, RobertaForMaskedLM, type TrainerOptions, type FillMaskResult } from "kiln";`,
      `import { allReduceMean } from "kiln/distribute";`,
      `const options: TrainerOptions = { outputDir: "out", maxSteps: 2, precision: "bf16-mixed", devices: 2 };`,
      `export const trainer: Trainer = new Trainer(options);`,
      `export const build = (c: ConstructorParameters<typeof RobertaForMaskedLM>[0]) => new RobertaForMaskedLM(c);`,
      `export const reduce: typeof allReduceMean = allReduceMean;`,
      `export const best = (r: FillMaskResult[]): string => r[0]!.token_str;`,
      `// @ts-expect-error: a misspelled option is a type error`,
      `export const wrong: TrainerOptions = { outputDir: "out", maxStep: 2 };`,
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ["consumer.ts"],
    }),
  );
  const tsc = join(root, "node_modules", ".bin", "tsc");
  run(tsc, ["-p", "tsconfig.json"], project);
  lap("type-checked consumer.ts");
});
