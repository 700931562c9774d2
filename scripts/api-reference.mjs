#!/usr/bin/env node
// The API reference in docs/api/: one Markdown page per package entry (read from package.json `exports`,
// so it follows the package's surface), each exported name with its kind, its declaration and the first
// paragraph of its doc comment. API Extractor reads the built .d.ts files (run `npx tsc -p tsconfig.json`
// first) with its own TypeScript; the pages are written here from its .api.json model rather than by
// api-documenter, whose page per member came to 761 files (560 kB) for the root entry alone. No dates:
// the output is checked in and test/package/api-reference.test.ts regenerates it to compare.
//
//   node scripts/api-reference.mjs [--out DIR] [--missing]
//
// --out writes elsewhere than docs/api/; --missing lists the names that have no doc comment summary.
import { Extractor, ExtractorConfig, CompilerState } from "@microsoft/api-extractor";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The package's entry points from package.json `exports`: `{ name: "kiln/train", types: <abs .d.ts>, page }`. */
export function packageEntries() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const entries = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (typeof target !== "object" || target === null) continue; // a plain file such as "./package.json"
    const types = target.types;
    if (typeof types !== "string")
      throw new Error(`package.json exports["${subpath}"] has no "types" path: add the entry's .d.ts so it can be documented`);
    const name = subpath === "." ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, "")}`;
    entries.push({ name, isRoot: subpath === ".", types: resolve(root, types), page: `${name.replaceAll("/", "-")}.md` });
  }
  return entries;
}

function extractorConfig(entry, apiJsonPath) {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry.types,
      // The .d.ts files are already checked by the build; this only resolves them (node's types included).
      compiler: { overrideTsconfig: { compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", types: ["node"] } } },
      apiReport: { enabled: false },
      docModel: { enabled: true, apiJsonFilePath: apiJsonPath },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // Release tags and TSDoc strictness are not this project's conventions; compiler errors still show.
        extractorMessageReporting: { default: { logLevel: "none" } },
        tsdocMessageReporting: { default: { logLevel: "none" } },
        compilerMessageReporting: { default: { logLevel: "warning" } },
      },
    },
    configObjectFullPath: join(root, "api-extractor.json"),
    packageJsonFullPath: join(root, "package.json"),
  });
}

/**
 * Runs API Extractor once per entry, all on one TypeScript program; returns that program and each entry's
 * .api.json.
 */
function extract(entries, workDir) {
  const missing = entries.filter((e) => !existsSync(e.types));
  if (missing.length) throw new Error(`${missing.map((e) => e.types).join(", ")} not found: build first with \`npx tsc -p tsconfig.json\``);
  const configs = entries.map((e, i) => extractorConfig(e, join(workDir, `${i}.api.json`)));
  const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: entries.map((e) => e.types) });
  const models = entries.map((entry, i) => {
    const result = Extractor.invoke(configs[i], {
      localBuild: true,
      compilerState,
      messageCallback: (message) => {
        if (message.category !== "console") return;
        message.handled = true; // the "Analysis will use the bundled TypeScript version" preamble
      },
    });
    if (!result.succeeded) throw new Error(`API Extractor failed on ${entry.name}: ${result.errorCount} errors (shown above)`);
    return JSON.parse(readFileSync(join(workDir, `${i}.api.json`), "utf8"));
  });
  return { program: compilerState.program, models };
}

/** The first paragraph of a doc comment as one line (inline tags reduced to their text), or "" when there is none. */
export function summaryOf(docComment) {
  const lines = (docComment ?? "")
    .replace(/^\s*\/\*\*/, "")
    .replace(/\*\/\s*$/, "")
    .split("\n")
    .map((l) => l.replace(/^\s*\* ?/, "").trim());
  const paragraph = [];
  for (const raw of lines) {
    // The summary ends at the first block tag (@param, @deprecated, …), on its own line or not.
    const line = raw.replace(/(^|\s)@[a-zA-Z]+\b.*$/, "").trim();
    if (line !== raw.trim()) {
      if (line) paragraph.push(line);
      break;
    }
    if (!line) {
      if (paragraph.length) break;
      continue;
    }
    paragraph.push(line);
  }
  return paragraph
    .join(" ")
    .replace(/\{@(?:link|linkcode|linkplain)\s+([^}|\s]+)(?:[\s|]+([^}]*))?\}/g, (_, ref, text) => `\`${text?.trim() || ref}\``)
    .replace(/\{@\w+\s*([^}]*)\}/g, "$1")
    .replace(/^Constructs a new instance of the `\w+` class$/, ""); // API Extractor's own filler for constructors
}

const excerptText = (item) => (item.excerptTokens ?? []).map((t) => t.text).join("");

const KIND_LABEL = {
  Class: "class",
  Interface: "interface",
  Function: "function",
  TypeAlias: "type",
  Variable: "const",
  Enum: "enum",
  Namespace: "namespace",
};

/** API Extractor renames a declaration that shadows a global (`Array` becomes `Array_2`); this undoes it. */
function renamer(items, exported) {
  const renames = new Map();
  for (const item of items) {
    const original = item.name.replace(/_\d+$/, "");
    if (original !== item.name && exported.has(original)) renames.set(item.name, original);
  }
  if (!renames.size) return (text) => text;
  const pattern = new RegExp(`\\b(${[...renames.keys()].join("|")})\\b`, "g");
  return (text) => text.replace(pattern, (name) => renames.get(name));
}

/** A declaration as it reads in a .d.ts, members included, each with its summary as a one-line comment. */
function declaration(item, rename, indent = "") {
  let head = rename(excerptText(item))
    .trim()
    .replace(/^export /, "");
  // A const's excerpt is only `name: Type` (functions made by a factory are consts too).
  if (!/^(declare|function|class|abstract|interface|type|enum|namespace) /.test(head)) head = `declare const ${head.replace(/;?$/, ";")}`;
  else head = head.replace(/^declare (?!const |let |var )/, "");
  if (!item.members) return `${indent}${head}`;
  const body = [];
  for (const member of item.members) {
    const summary = summaryOf(member.docComment);
    if (summary) body.push(`${indent}  /** ${summary.replaceAll("*/", "*\\/")} */`);
    const text = member.members ? declaration(member, rename, `${indent}  `) : `${indent}  ${rename(excerptText(member)).trim()}`;
    body.push(member.kind === "EnumMember" ? `${text.replace(/,?$/, ",")}` : text);
  }
  return `${indent}${head} {\n${body.join("\n")}\n${indent}}`;
}

/** GitHub's heading anchors: lowercase, punctuation dropped, a repeated one numbered (`array`, `array-1`). */
function anchors(headings) {
  const seen = new Map();
  return headings.map((heading) => {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replaceAll(" ", "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    return n ? `${slug}-${n}` : slug;
  });
}

const KIND_HEADING = [
  ["Class", "Classes"],
  ["Function", "Functions"],
  ["Interface", "Interfaces"],
  ["TypeAlias", "Types"],
  ["Variable", "Constants"],
  ["Enum", "Enums"],
  ["Namespace", "Namespaces"],
];

/** An entry's names: exported name → its declarations (several for an overloaded function). */
function namesOf(entry, apiJson, exported) {
  const items = apiJson.members[0].members;
  const rename = renamer(items, exported);
  const byName = new Map();
  for (const item of items) {
    const name = rename(item.name);
    if (!byName.has(name)) byName.set(name, []);
    byName.get(name).push(item);
  }
  const names = [...byName.keys()].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" }) || (a < b ? -1 : 1));
  const slugs = anchors([entry.name, ...names]).slice(1);
  return { byName, rename, names, anchor: new Map(names.map((n, i) => [n, slugs[i]])) };
}

/** Where a declaration is identified across entries: its .d.ts file and its name there. */
const declarationKey = (item) => `${item.fileUrlPath}#${item.name}`;

/**
 * One entry's page: an index of its names by kind, then each name with its summary and declaration.
 * A class's or interface's members are listed on one page only, its `home` (the first subpath entry
 * that exports it); the other pages that export it link there.
 */
function renderPage(entry, { byName, rename, names, anchor }, home) {
  const missing = [];
  const index = [];
  for (const [kind, heading] of KIND_HEADING) {
    const ofKind = names.filter((n) => byName.get(n)[0].kind === kind);
    if (ofKind.length) index.push(`- ${heading}: ${ofKind.map((n) => `[\`${n}\`](#${anchor.get(n)})`).join(", ")}`);
  }
  const sections = [];
  for (const name of names) {
    const group = byName.get(name);
    const summary = group.map((i) => summaryOf(i.docComment)).find(Boolean) ?? "";
    if (!summary) missing.push(name);
    const elsewhere = home.get(declarationKey(group[0]));
    const kind = KIND_LABEL[group[0].kind] ?? group[0].kind;
    let body;
    if (elsewhere && elsewhere.entry !== entry && group[0].members?.length) {
      const head = declaration({ ...group[0], members: undefined }, rename);
      body = `\`${head}\` (${kind}): members in [${elsewhere.entry.name}](${elsewhere.entry.page}#${elsewhere.anchor}).`;
    } else {
      body = `\`\`\`ts\n${group.map((i) => declaration(i, rename)).join("\n")}\n\`\`\``;
    }
    sections.push(`### ${name}\n\n${summary ? `${summary}\n\n` : ""}${body}`);
  }
  const text = [
    `# ${entry.name}`,
    `\`import { … } from "${entry.name}";\`: ${names.length} names. Generated by \`npm run docs:api\`; see [README.md](README.md).`,
    index.join("\n"),
    sections.join("\n\n"),
  ].join("\n\n");
  return { text: `${text}\n`, names, missing };
}

/** The names a .d.ts entry exports, from the TypeScript program API Extractor built. */
function exportedNames(program, entry) {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry.types);
  const symbol = source && checker.getSymbolAtLocation(source);
  return new Set(symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : []);
}

/**
 * Writes the reference into `outDir` (its old .md pages replaced) and returns, per entry, its names and
 * those without a summary.
 */
export async function generateApiReference(outDir = join(root, "docs", "api")) {
  const entries = packageEntries();
  const workDir = mkdtempSync(join(tmpdir(), "kiln-api-"));
  let extracted;
  try {
    extracted = extract(entries, workDir);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const prettierConfig = (await prettier.resolveConfig(join(root, "docs", "api", "README.md"))) ?? {};
  const format = (text) => prettier.format(text, { ...prettierConfig, parser: "markdown" });
  const named = entries.map((entry, i) => namesOf(entry, extracted.models[i], exportedNames(extracted.program, entry)));
  // Each declaration's home: the first subpath entry (in package.json order) that exports it, else the root.
  const home = new Map();
  const subpathsFirst = entries.map((entry, i) => ({ entry, i })).sort((a, b) => Number(a.entry.isRoot) - Number(b.entry.isRoot));
  for (const { entry, i } of subpathsFirst)
    for (const [name, group] of named[i].byName)
      if (!home.has(declarationKey(group[0]))) home.set(declarationKey(group[0]), { entry, anchor: named[i].anchor.get(name) });
  const pages = new Map();
  const report = [];
  const index = ["| Entry | Names | Page |", "| --- | --- | --- |"];
  for (const [i, entry] of entries.entries()) {
    const page = renderPage(entry, named[i], home);
    pages.set(entry.page, await format(page.text));
    report.push({ entry: entry.name, names: page.names, missing: page.missing });
    index.push(`| \`${entry.name}\` | ${page.names.length} | [${entry.page}](${entry.page}) |`);
  }
  const readme = [
    "# API reference",
    "Every name each package entry exports, with its declaration and the first paragraph of its doc comment. " +
      "Generated from the built .d.ts files by `npm run docs:api` (scripts/api-reference.mjs); " +
      "test/package/api-reference.test.ts checks that it is current.",
    index.join("\n"),
  ].join("\n\n");
  pages.set("README.md", await format(`${readme}\n`));

  mkdirSync(outDir, { recursive: true });
  for (const name of readdirSync(outDir)) if (name.endsWith(".md") && !pages.has(name)) rmSync(join(outDir, name));
  for (const [name, text] of pages) writeFileSync(join(outDir, name), text);
  return report;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf("--out");
  if (outAt >= 0 && !args[outAt + 1]) throw new Error("--out needs a directory: node scripts/api-reference.mjs --out DIR");
  const outDir = outAt >= 0 ? resolve(args[outAt + 1]) : undefined;
  const started = Date.now();
  const report = await generateApiReference(outDir);
  let total = 0;
  let undocumented = 0;
  for (const { entry, names, missing } of report) {
    total += names.length;
    undocumented += missing.length;
    console.log(`${entry}: ${names.length} names, ${missing.length} without a summary`);
    if (args.includes("--missing") && missing.length) console.log(`  ${missing.join(" ")}`);
  }
  const where = outDir ?? join(root, "docs", "api");
  console.log(`${total} names, ${undocumented} without a summary; written to ${where} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
