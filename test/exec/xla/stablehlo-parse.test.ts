// Every golden module through a real MLIR parser (mlir-opt, generic syntax, StableHLO unregistered):
// the syntax, SSA dominance and the type of every use are checked as the plugin's parser will.
// Skips, saying why, where no mlir-opt is installed (Debian: apt-get install mlir-19-tools).
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { lowerToStableHlo } from "../../../src/exec/xla/stablehlo/lower.js";
import { loweringCases } from "./lowering-cases.js";

function findMlirOpt(): string | undefined {
  const candidates = (process.env.PATH ?? "").split(":").map((d) => join(d, "mlir-opt"));
  if (existsSync("/usr/lib")) {
    const llvm = readdirSync("/usr/lib")
      .filter((d) => /^llvm-\d+$/.test(d))
      .sort((a, b) => Number(b.slice(5)) - Number(a.slice(5)));
    candidates.push(...llvm.map((d) => join("/usr/lib", d, "bin", "mlir-opt")));
  }
  return candidates.find((p) => existsSync(p));
}

const mlirOpt = findMlirOpt();

test(
  "every lowered module parses with mlir-opt",
  { skip: mlirOpt ? false : "no mlir-opt on PATH or in /usr/lib/llvm-*/bin (apt-get install mlir-19-tools)" },
  () => {
    const modules = loweringCases().map((c) => lowerToStableHlo(c.program, c.options).text);
    const out = execFileSync(mlirOpt!, ["--allow-unregistered-dialect", "--split-input-file", "-"], {
      input: modules.join("// -----\n"),
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe"],
    });
    assert.equal(out.match(/^module @/gm)?.length, modules.length);
  },
);
