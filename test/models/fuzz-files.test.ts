// Hostile and damaged model files: 12,500 mutations of real files (a safetensors checkpoint, a Kiln
// tokenizer.json, RoBERTa and Llama config.json files, a sharded checkpoint's index) are read by the real readers. Each case either
// loads or throws an error that names the file; never a TypeError/RangeError from deep inside, a hang,
// or memory beyond a bound. The PRNG is seeded: a failing case names its seed and index to replay.
import test from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture } from "../helpers/fixtures.js";
import { rng } from "../helpers/random.js";
import * as k from "../../src/index.js";
import { decodeSafetensors } from "../../src/models/safetensors.js";
import { createModel, loadModel, parameterLayout, presetConfig, readModelConfig } from "../../src/models/index.js";
import { configJson } from "../../src/models/pretrained.js";
import { loadTokenizer, saveTokenizer } from "../../src/text/index.js";
import { trainUnigram } from "../../src/text/train/unigram-trainer.js";
import { tempDir } from "../helpers/temp-dir.js";

k.setDefaultDevice("ref:0");
const SEED = 20261126;
const root = tempDir("kiln-fuzz-");

/** Values that break readers that trust what they read. */
const HOSTILE: unknown[] = [
  null,
  true,
  "",
  "x",
  "F32",
  "__proto__",
  [],
  {},
  [1],
  [-1, 2],
  0,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 64,
  1e21,
  "/etc/passwd",
  "../roberta-tiny.safetensors",
  [2 ** 20, 2 ** 20],
  [0, 2 ** 40],
  { content: 1 },
  [null],
  ["a", NaN],
];

type Mutate = (r: () => number, input: Uint8Array) => Uint8Array;

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Byte-level damage: flipped bits, overwritten, inserted or deleted runs, truncation, a duplicated slice. */
const byteMutation: Mutate = (r, input) => {
  const b = Uint8Array.from(input);
  const at = () => Math.floor(r() * b.length);
  switch (Math.floor(r() * 6)) {
    case 0:
      for (let i = 1 + Math.floor(r() * 4); i > 0; i--) b[at()]! ^= 1 << Math.floor(r() * 8);
      return b;
    case 1:
      for (let i = 1 + Math.floor(r() * 8); i > 0; i--) b[at()] = Math.floor(r() * 256);
      return b;
    case 2: {
      const p = at();
      const noise = Uint8Array.from({ length: 1 + Math.floor(r() * 16) }, () => Math.floor(r() * 256));
      return Buffer.concat([b.subarray(0, p), noise, b.subarray(p)]);
    }
    case 3: {
      const p = at();
      return Buffer.concat([b.subarray(0, p), b.subarray(Math.min(b.length, p + 1 + Math.floor(r() * 64)))]);
    }
    case 4:
      return b.subarray(0, at());
    default: {
      const p = at();
      return Buffer.concat([b, b.subarray(p, Math.min(b.length, p + Math.floor(r() * 256)))]);
    }
  }
};

/** Structural damage to a JSON document: one value somewhere replaced by a hostile one, or removed. */
function mutateJson(r: () => number, doc: unknown): unknown {
  const copy = structuredClone(doc) as Record<string, unknown>;
  const paths: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (v: unknown) => {
    const entries: [string | number, unknown][] = Array.isArray(v)
      ? v.slice(0, 64).map((x, i) => [i, x])
      : v && typeof v === "object"
        ? Object.entries(v)
        : [];
    for (const [key, x] of entries) {
      paths.push([v as Record<string, unknown>, key]);
      walk(x);
    }
  };
  walk(copy);
  for (let n = 1 + Math.floor(r() * 2); n > 0 && paths.length; n--) {
    const [parent, key] = pick(r, paths);
    if (r() < 0.15 && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[key as string];
    else (parent as Record<string | number, unknown>)[key] = pick(r, HOSTILE);
  }
  return copy;
}

const enc = new TextEncoder();
const jsonMutation =
  (doc: unknown): Mutate =>
  (r, input) =>
    r() < 0.5 ? byteMutation(r, input) : enc.encode(JSON.stringify(mutateJson(r, doc)));

/** A safetensors file rebuilt around a mutated header (so the mutation reaches the checks past the header length). */
function safetensorsMutation(file: Buffer): Mutate {
  const n = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + n).toString("utf8"));
  const data = file.subarray(8 + n);
  return (r, input) => {
    const roll = r();
    if (roll < 0.4) return byteMutation(r, input);
    if (roll < 0.5) {
      const b = Buffer.from(input);
      b.writeBigUInt64LE(pick(r, [0n, 1n, 7n, BigInt(n - 1), BigInt(n + 1), BigInt(file.length), 2n ** 63n, 2n ** 64n - 1n]), 0);
      return b;
    }
    const json = Buffer.from(JSON.stringify(mutateJson(r, header)));
    const out = Buffer.alloc(8 + json.length + data.length);
    out.writeBigUInt64LE(BigInt(json.length), 0);
    json.copy(out, 8);
    data.copy(out, 8 + json.length);
    return out;
  };
}

/** Runs `cases` mutations through `read`; an error must be a plain Kiln error naming `where`. */
async function fuzz(name: string, input: Uint8Array, mutate: Mutate, cases: number, where: string, read: (b: Uint8Array) => unknown) {
  const r = rng(SEED + name.length);
  let loaded = 0,
    refused = 0,
    slowest = 0;
  const begun = performance.now();
  for (let i = 0; i < cases; i++) {
    const bytes = mutate(r, input);
    const t0 = performance.now();
    try {
      await read(bytes);
      loaded++;
    } catch (e) {
      refused++;
      const err = e as Error;
      const internal = [TypeError, RangeError, SyntaxError, ReferenceError].some((C) => e instanceof C) || !(e instanceof Error);
      if (internal || !err.message.includes(where))
        assert.fail(
          `${name} case ${i} (seed ${SEED + name.length}): ` +
            `${internal ? "an internal error" : "an error not naming the file"}: ${err?.stack ?? e}`,
        );
    }
    slowest = Math.max(slowest, performance.now() - t0);
  }
  assert.ok(slowest < 2000, `${name}: the slowest case took ${slowest.toFixed(0)} ms`);
  console.log(`${name}: ${((performance.now() - begun) / 1000).toFixed(2)} s`);
  return { loaded, refused, slowest };
}

test(
  "12,500 mutated safetensors, tokenizer.json, config.json and shard index files: each loads or is refused by name",
  { timeout: 180_000 },
  async () => {
    const started = performance.now();
    const rssBefore = process.resourceUsage().maxRSS;
    const results: string[] = [];

    const st = readFileSync(fixture("roberta-tiny.safetensors"));
    const s = await fuzz("safetensors", st, safetensorsMutation(st), 6000, "fuzz.safetensors", (b) =>
      decodeSafetensors(Buffer.from(b.buffer, b.byteOffset, b.byteLength), "fuzz.safetensors"),
    );
    results.push(`safetensors 6000 (${s.loaded} loaded, ${s.refused} refused)`);

    const tokDir = join(root, "tokenizer");
    await saveTokenizer(await trainUnigram(["the cat sat on the mat", "a dog ran far", "cats and dogs"], { vocabSize: 40 }), tokDir);
    const tokText = readFileSync(join(tokDir, "tokenizer.json"));
    const tokConfig = readFileSync(join(tokDir, "tokenizer_config.json"), "utf8");
    const tokenizerPath = join(tokDir, "tokenizer.json");
    const t = await fuzz("tokenizer.json", tokText, jsonMutation(JSON.parse(tokText.toString())), 3000, tokenizerPath, async (b) => {
      const text = new TextDecoder().decode(b);
      const tok = await loadTokenizer(tokDir, async (p) => (p === tokenizerPath ? text : tokConfig));
      tok.encode("the cat and the dog");
    });
    results.push(`tokenizer.json 3000 (${t.loaded} loaded, ${t.refused} refused)`);

    const configPath = join(root, "config.json");
    const llama = configJson(presetConfig("llama-tiny", { vocabSize: 64, padId: 3, clsId: 0, sepId: 1 }, 16));
    for (const [name, doc] of [
      ["roberta config.json", JSON.parse(readFileSync(fixture("roberta-tiny.json"), "utf8"))],
      ["llama config.json", llama],
    ] as const) {
      const c = await fuzz(name, enc.encode(JSON.stringify(doc)), jsonMutation(doc), 1500, configPath, async (b) => {
        writeFileSync(configPath, b);
        // The model's parameter shapes, abstractly (what loadModel sizes before it reads any weight).
        parameterLayout(createModel(await readModelConfig(configPath)));
      });
      results.push(`${name} 1500 (${c.loaded} loaded, ${c.refused} refused)`);
    }

    // A sharded checkpoint's index, read by loadModel: no name may take it out of the directory.
    const sharded = join(root, "sharded");
    mkdirSync(sharded);
    copyFileSync(fixture("roberta-tiny.json"), join(sharded, "config.json"));
    copyFileSync(fixture("roberta-tiny.safetensors"), join(sharded, "model-00001-of-00001.safetensors"));
    const names = Object.keys(decodeSafetensors(st).tensors);
    const index = {
      metadata: { total_size: st.length },
      weight_map: Object.fromEntries(names.map((n) => [n, "model-00001-of-00001.safetensors"])),
    };
    const indexPath = join(sharded, "model.safetensors.index.json");
    const x = await fuzz(
      "model.safetensors.index.json",
      enc.encode(JSON.stringify(index)),
      jsonMutation(index),
      500,
      sharded,
      async (b) => {
        writeFileSync(indexPath, b);
        await loadModel(sharded, { task: "mlm" });
      },
    );
    results.push(`model.safetensors.index.json 500 (${x.loaded} loaded, ${x.refused} refused)`);
    const grownMiB = (process.resourceUsage().maxRSS - rssBefore) / 1024;
    console.log(
      `fuzz: ${results.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)} s; peak RSS grew ${grownMiB.toFixed(0)} MiB`,
    );
    assert.ok(grownMiB < 256, `peak memory grew by ${grownMiB.toFixed(0)} MiB`);
  },
);
