#!/usr/bin/env node
// Lines of code stay within Prettier's 140 columns, strings and comments included (Prettier wraps
// code but never breaks a string or a comment). Part of `npm run lint`.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const LIMIT = 140;
const ROOTS = ["src", "test", "bench", "examples", "scripts"];
const EXTENSIONS = /\.(ts|mjs|js)$/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (EXTENSIONS.test(name)) yield path;
  }
}

const long = [];
for (const root of ROOTS)
  for (const path of files(root))
    readFileSync(path, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if ([...line].length > LIMIT) long.push(`${path}:${i + 1}: ${[...line].length} characters`);
      });
if (long.length) {
  console.error(`${long.length} lines are longer than ${LIMIT} characters (split the string or the comment):\n${long.join("\n")}`);
  process.exit(1);
}
