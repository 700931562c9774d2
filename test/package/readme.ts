// What the package test reads from README.md: the Install section's commands, the two programs with the
// commands that run them, and the API table's rows. Each is found by its heading, so a README that moves
// or loses one fails the test with the heading's name.
import assert from "node:assert/strict";

/** The text under `## heading`, up to the next `## `. */
function section(readme: string, heading: string): string {
  const s = readme.split("\n## ").find((part) => part.startsWith(`${heading}\n`));
  assert.ok(s, `README.md has a section "## ${heading}"`);
  return s;
}

/** The fenced blocks of a section, in order, with their language. */
function fences(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** The shell commands of `## Install`: its first `sh` block, one command a line. */
export function installCommands(readme: string): string[] {
  const block = fences(section(readme, "Install")).find((f) => f.lang === "sh");
  assert.ok(block, "README.md's Install section has a ```sh block");
  return block.body.split("\n").filter((l) => l.trim() !== "");
}

/** A program section: its ```ts block, the file name the command after it compiles, and that command. */
export function program(readme: string, heading: string): { file: string; source: string; command: string } {
  const blocks = fences(section(readme, heading));
  const source = blocks.find((f) => f.lang === "ts")?.body;
  const command = blocks.find((f) => f.lang === "sh")?.body.trim();
  assert.ok(source && command, `README.md's "${heading}" has a \`\`\`ts program and a \`\`\`sh command`);
  const file = /\b([\w-]+\.ts)\b/.exec(command)?.[1];
  assert.ok(file, `the command under "${heading}" names the .ts file it compiles: ${command}`);
  return { file, source, command };
}

export interface EntryRow {
  values: string[];
  types: string[];
}

/** README's API table: entry specifier → the names in its values and types columns. */
export function apiTable(readme: string): Map<string, EntryRow> {
  const names = (cell: string) => [...cell.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]!);
  const out = new Map<string, EntryRow>();
  for (const line of section(readme, "The library (TypeScript API)").split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const entry = /^`(@kiln-ml\/kiln(?:\/[a-z]+)?)`$/.exec(cells[1] ?? "")?.[1];
    if (entry) out.set(entry, { values: names(cells[2]!), types: names(cells[3] ?? "") });
  }
  assert.ok(out.size > 0, "README.md's API table has rows");
  return out;
}

/**
 * The names a type declaration file exports: its `export { … } from` and `export type { … } from` lists
 * (the entries are such lists; `export *` would hide what they export, so it is refused).
 */
export function declaredExports(dts: string, file: string): string[] {
  assert.ok(!/^export \*/m.test(dts), `${file} re-exports a whole module (export *); entries name their exports`);
  const out: string[] = [];
  for (const m of dts.matchAll(/^export (?:type )?\{([^}]*)\}/gm))
    for (const item of m[1]!.split(",").map((s) => s.trim()))
      if (item)
        out.push(
          item
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)
            .at(-1)!,
        );
  return out;
}
