// The gs:// storage adapter against an in-process fake of the GCS JSON API (see helpers/fake-gcs.ts):
// the real @google-cloud/storage client, talking HTTP to a local server.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync, readdirSync } from "node:fs";
import { startFakeGcs } from "../helpers/fake-gcs.js";
import { storageFor } from "../../src/data/storage/index.js";
import { parseGcsPath } from "../../src/data/storage/gcs.js";
import { prepareDataset } from "../../src/data/prepare/prepare.js";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { TFRecordError } from "../../src/data/tfrecord/errors.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";

const gcs = await startFakeGcs();
process.env.STORAGE_EMULATOR_HOST = gcs.host;
test.after(() => gcs.close());

const text = (s: string) => new TextEncoder().encode(s);

test("gs:// paths are parsed, and anything else is refused with the expected form", () => {
  assert.deepEqual(parseGcsPath("gs://bucket/a/b.txt"), { bucket: "bucket", object: "a/b.txt" });
  assert.deepEqual(parseGcsPath("gs://bucket"), { bucket: "bucket", object: "" });
  assert.throws(() => parseGcsPath("s3://bucket/x"), /write it as gs:\/\/bucket\/path\/to\/object/);
});

test("write, stat, list by glob (across pages), ranged and whole reads, delete", async () => {
  const storage = storageFor("gs://b/");
  for (const name of ["d/x-1.tfrecord", "d/x-2.tfrecord", "d/y.txt", "d/sub/x-3.tfrecord", "e/x-4.tfrecord"]) {
    await storage.writeAtomic(`gs://b/${name}`, text(`contents of ${name}`));
  }
  assert.equal(gcs.objects.get("b/d/y.txt")!.toString(), "contents of d/y.txt");
  assert.equal(await storage.isFile("gs://b/d/y.txt"), true);
  assert.equal(await storage.isFile("gs://b/d/none.txt"), false);
  assert.equal(await storage.isFile("gs://b/d"), false);
  assert.equal(await storage.size("gs://b/d/y.txt"), "contents of d/y.txt".length);
  assert.deepEqual(await storage.glob("gs://b/d/*.tfrecord"), ["gs://b/d/x-1.tfrecord", "gs://b/d/x-2.tfrecord"]);
  assert.deepEqual(await storage.glob("gs://b/d/**/x-*.tfrecord"), [
    "gs://b/d/sub/x-3.tfrecord",
    "gs://b/d/x-1.tfrecord",
    "gs://b/d/x-2.tfrecord",
  ]);
  const chunks: Uint8Array[] = [];
  for await (const c of storage.read("gs://b/d/y.txt", { start: 3, end: 11 })) chunks.push(c);
  assert.equal(Buffer.concat(chunks).toString(), "tents of"); // bytes 3 to 10
  assert.equal(Buffer.from(await storage.readAll("gs://b/d/y.txt")).toString(), "contents of d/y.txt");
  assert.ok(
    gcs.requests.some((r) => r.startsWith("GET /b/b/o?") && r.includes("pageToken=")),
    "listing was paginated",
  );
  await storage.remove("gs://b/d/y.txt");
  await storage.remove("gs://b/d/y.txt"); // removing a missing object is not an error
  assert.equal(await storage.isFile("gs://b/d/y.txt"), false);
});

test("reading a large object raises no library warning", async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on("warning", onWarning);
  try {
    const storage = storageFor("gs://b/");
    const data = new Uint8Array(3_000_000).map((_, i) => i % 251);
    await storage.writeAtomic("gs://b/large.bin", data);
    assert.deepEqual(await storage.readAll("gs://b/large.bin"), Buffer.from(data));
    let n = 0;
    for await (const c of storage.read("gs://b/large.bin")) n += c.length;
    assert.equal(n, data.length);
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(warnings, []);
});

test("an aborted upload leaves no object", async () => {
  const storage = storageFor("gs://b/");
  const writer = await storage.createWriter("gs://b/aborted.bin");
  await writer.write(text("partial"));
  await writer.abort();
  assert.equal(gcs.objects.has("b/aborted.bin"), false);
});

test("prepare reads and writes gs:// and the dataset streams the shards back", async () => {
  const fixture = await makeTestCorpus(3);
  await storageFor("gs://b/").writeAtomic("gs://b/corpus.txt", readFileSync(fixture.corpus));
  const common = { tokenizer: fixture.tokenizerDir, maxLength: 32, shardSize: 100, progress: null, workers: 1 } as const;
  const remote = await prepareDataset({ ...common, inputs: ["gs://b/corpus.txt"], out: "gs://b/prepared" });
  const local = await prepareDataset({ ...common, inputs: [fixture.corpus], out: join(fixture.dir, "prepared") });
  assert.equal(remote.splits[0]!.records, local.splits[0]!.records);
  const localDir = join(fixture.dir, "prepared", "train");
  for (const name of readdirSync(localDir)) {
    if (name.endsWith(".tfrecord")) assert.deepEqual(gcs.objects.get(`b/prepared/train/${name}`), readFileSync(join(localDir, name)), name);
  }
  const read = async (files: string) => {
    const rows: number[] = [];
    for await (const b of await openDataset({ files, maxLength: 32, batchSize: 10, seed: 4, dropRemainder: false }))
      rows.push(...b.inputIds);
    return rows;
  };
  assert.deepEqual(await read("gs://b/prepared/train"), await read(localDir));
});

test("a damaged gs:// shard is reported with its URL and the record's offset", async () => {
  const name = [...gcs.objects.keys()].find((k) => k.startsWith("b/prepared/train/dataset-0-"))!;
  const data = Buffer.from(gcs.objects.get(name)!);
  data[500]! ^= 0xff;
  gcs.objects.set("b/damaged/dataset-0-100.tfrecord", data);
  await assert.rejects(
    (async () => {
      for await (const _ of await openDataset({ files: "gs://b/damaged", maxLength: 32, batchSize: 10, shuffle: false }));
    })(),
    (e: unknown) =>
      e instanceof TFRecordError &&
      e.file === "gs://b/damaged/dataset-0-100.tfrecord" &&
      e.offset <= 500 &&
      /bad TFRecord at byte offset/.test(e.message),
  );
});
