import test from "node:test";
import assert from "node:assert/strict";
import { readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { storageFor, joinPath } from "../../src/data/storage/index.js";
import { globToRegExp, literalPrefix } from "../../src/data/storage/glob.js";
import { tempDir } from "../helpers/temp-dir.js";

test("glob patterns: * and ? stay within a segment, ** crosses segments", () => {
  assert.ok(globToRegExp("a/*.tfrecord").test("a/x-1.tfrecord"));
  assert.ok(!globToRegExp("a/*.tfrecord").test("a/b/x.tfrecord"));
  assert.ok(globToRegExp("a/**/x.tfrecord").test("a/x.tfrecord"));
  assert.ok(globToRegExp("a/**/x.tfrecord").test("a/b/c/x.tfrecord"));
  assert.ok(globToRegExp("a/x-?.bin").test("a/x-7.bin"));
  assert.ok(!globToRegExp("a/x-?.bin").test("a/x-17.bin"));
  assert.ok(!globToRegExp("a/x.bin").test("a/xxbin"), "dots are literal");
  assert.equal(literalPrefix("gs://b/p/dataset-*.tfrecord"), "gs://b/p/dataset-");
});

test("local storage: glob, ranged reads, atomic writes into new directories, temporaries", async () => {
  const dir = tempDir("kiln-storage-");
  const storage = storageFor(dir);
  await storage.writeAtomic(join(dir, "new/sub/a-1.tfrecord"), new TextEncoder().encode("0123456789"));
  await storage.writeAtomic(join(dir, "new/a-2.tfrecord"), new Uint8Array(3));
  writeFileSync(join(dir, "new/notes.txt"), "x");
  assert.deepEqual(await storage.glob(join(dir, "new/*.tfrecord")), [join(dir, "new/a-2.tfrecord")]);
  assert.deepEqual(await storage.glob(join(dir, "new/**/*.tfrecord")), [join(dir, "new/a-2.tfrecord"), join(dir, "new/sub/a-1.tfrecord")]);
  assert.deepEqual(await storage.glob(join(dir, "missing/*.tfrecord")), []);
  // Relative patterns give relative paths, as written.
  const rel = relative(process.cwd(), join(dir, "new"));
  assert.deepEqual(await storage.glob(`${rel}/*.tfrecord`), [`${rel}/a-2.tfrecord`]);
  assert.equal(await storage.size(join(dir, "new/sub/a-1.tfrecord")), 10);
  const chunks: Uint8Array[] = [];
  for await (const c of storage.read(join(dir, "new/sub/a-1.tfrecord"), { start: 2, end: 6 })) chunks.push(c);
  assert.equal(Buffer.concat(chunks).toString(), "2345");
  // An unfinished writer is a hidden temporary next to the final name, found by staleTemporaries.
  mkdirSync(join(dir, "w"));
  const writer = await storage.createWriter(join(dir, "w/out.tfrecord"));
  await writer.write(new Uint8Array(5));
  const [temp] = readdirSync(join(dir, "w"));
  assert.match(temp!, /^\.out\.tfrecord\.tmp-\d+-[0-9a-f]+$/);
  assert.deepEqual(await storage.staleTemporaries(join(dir, "w")), [join(dir, "w", temp!)]);
  await writer.commit();
  assert.deepEqual(readdirSync(join(dir, "w")), ["out.tfrecord"]);
  assert.equal(joinPath("gs://b/p/", "train"), "gs://b/p/train");
  assert.equal(joinPath("out", "train", "x"), "out/train/x");
});
