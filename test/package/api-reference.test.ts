// docs/api/ is generated (scripts/api-reference.mjs, `npm run docs:api`) from the built .d.ts files and
// checked in: regenerating it must give the same pages, so it cannot fall behind the package's surface.
// Every exported name also needs a doc comment summary: its line in the reference.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../helpers/repo-paths.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = repoRoot();

interface EntryReport {
  entry: string;
  names: string[];
  missing: string[];
}

test("docs/api matches a fresh generation, and every exported name has a summary", { timeout: 180_000 }, async () => {
  const script = pathToFileURL(join(root, "scripts", "api-reference.mjs")).href;
  const { generateApiReference } = (await import(script)) as { generateApiReference(outDir: string): Promise<EntryReport[]> };
  const out = tempDir("kiln-api-reference-");
  try {
    const report = await generateApiReference(out);
    const checkedIn = join(root, "docs", "api");
    const fresh = readdirSync(out).sort();
    assert.deepEqual(readdirSync(checkedIn).sort(), fresh, "docs/api/ has other pages than a fresh generation: run `npm run docs:api`");
    const stale = fresh.filter((page) => readFileSync(join(out, page), "utf8") !== readFileSync(join(checkedIn, page), "utf8"));
    assert.deepEqual(stale, [], `docs/api/ is out of date (${stale.join(", ")}): run \`npm run docs:api\` and commit the pages`);

    assert.ok(report.length > 1 && report.every((r) => r.names.length > 0), "every package entry exports names");
    const undocumented = report.flatMap((r) => r.missing.map((name) => `${r.entry}: ${name}`));
    assert.deepEqual(undocumented, [], "exported names without a doc comment summary: give each a one-line /** … */");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
