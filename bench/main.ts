// `npm run bench -- NAME [ARGS...]`: runs bench/NAME.ts, which prints one JSON object per line with
// "bench": NAME and its figures. Each bench module exports `run(args: string[]): Promise<void>`.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith(".js") && f !== "main.js")
  .map((f) => f.slice(0, -3))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- NAME [ARGS...]\nbenchmarks: ${available.join(", ") || "(none yet)"}`);
  process.exit(name ? 2 : 0);
}
const mod = (await import(`./${name}.js`)) as { run(args: string[]): Promise<void> };
await mod.run(args);
