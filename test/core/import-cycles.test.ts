// No module of src/ imports itself through others at runtime (type-only imports are erased, so they
// don't count): a cycle makes a module's exports undefined while its partner is still loading.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repoRoot } from "../helpers/repo-paths.js";

const src = join(repoRoot(), "src");

function runtimeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s+"(\.[^"]+)"|^\s*import\s+"(\.[^"]+)"/gms;
  for (const m of text.matchAll(re)) {
    if (m[2]) continue; // import type / export type
    const target = m[4] ?? m[5]!;
    out.push(resolve(dirname(file), target.replace(/\.js$/, ".ts")));
  }
  return out;
}

test("src/ has no runtime import cycles", () => {
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).map((f) => join(src, f));
  const graph = new Map(files.map((f) => [f, runtimeImports(f)]));
  const cycles: string[] = [];
  const state = new Map<string, "active" | "done">();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, "active");
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === "active") cycles.push([...stack.slice(stack.indexOf(g)), g].map((p) => relative(src, p)).join(" → "));
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, "done");
  };
  for (const f of files) if (!state.has(f)) visit(f);
  assert.deepEqual(cycles, []);
});
