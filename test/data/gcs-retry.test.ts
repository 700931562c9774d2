// gs:// requests through a fault-injecting proxy in front of the real GCS emulator: passing failures
// (503, 429, resets, stalls) are retried with backoff and counted, a read broken off mid-body goes on
// from its byte with a ranged request, an upload broken off mid-session goes on from the server's
// offset in the same session, and lasting failures (403, 404) fail after one request.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { emulatorSkip, startGcsEmulator, type GcsEmulator } from "../helpers/gcs-emulator.js";
import { startFaultyProxy, type Fault, type FaultyProxy, type ProxiedRequest } from "../helpers/faulty-proxy.js";

let emulator: GcsEmulator | undefined;
let proxy: FaultyProxy | undefined;
test.after(async () => {
  await proxy?.close();
  emulator?.stop();
});

async function setUp() {
  emulator ??= await startGcsEmulator("emu");
  proxy ??= await startFaultyProxy(emulator.host);
  process.env.STORAGE_EMULATOR_HOST = proxy.host;
  const storage = await import("../../src/data/storage/index.js");
  const retry = await import("../../src/data/storage/retry.js");
  retry.setGcsRetrySettings({ initialDelayMs: 10, maxDelayMs: 100, timeoutMs: 400, deadlineMs: 10_000, chunkBytes: 256 << 10 });
  return { gcs: storage.storageFor("gs://emu"), ...retry, GcsError: storage.GcsError, proxy };
}

/** Fails the requests that `match` picks, the n-th of them (counting from 0) with `faults[n]`, then none. */
function failMatching(match: (r: ProxiedRequest) => boolean, faults: (Fault | undefined)[]) {
  let n = 0;
  return (r: ProxiedRequest) => (match(r) ? faults[n++] : undefined);
}

const bytes = (n: number, seed: number) => Buffer.from(new Uint8Array(n).map((_, i) => (i * 31 + seed) % 251));

test("a read reset or stalled mid-body goes on from the byte it reached, with a ranged request", { skip: emulatorSkip }, async () => {
  const { gcs, gcsRequestCounts, proxy } = await setUp();
  const data = bytes(1_500_000, 1);
  await gcs.writeAtomic("gs://emu/read/object.bin", data);
  const before = gcsRequestCounts();
  const from = proxy.requests.length;
  proxy.plan = failMatching((r) => r.method === "GET" && r.url.includes("alt=media"), ["reset-mid-body", "stall-mid-body", "503"]);
  assert.deepEqual(await gcs.readAll("gs://emu/read/object.bin"), data);
  proxy.plan = () => undefined;
  const gets = proxy.requests.slice(from).filter((r) => r.url.includes("alt=media"));
  assert.equal(gets.length, 4, gets.map((r) => r.fault).join());
  // Each later try asks for the bytes after those already read (the first answer broke off halfway).
  const starts = gets.map((r) => Number(/bytes=(\d+)-/.exec(String(r.headers.range))?.[1] ?? 0));
  assert.equal(starts[0], 0);
  assert.ok(starts[1]! >= data.length / 2 - 65536 && starts[1]! < data.length, `second try from byte ${starts[1]}`);
  assert.ok(starts[2]! > starts[1]!, `third try from byte ${starts[2]}`);
  assert.equal(starts[3], starts[2]);
  const after = gcsRequestCounts();
  assert.equal(after.retries - before.retries, 3);
  assert.equal(after.resumedReads - before.resumedReads, 3);
  assert.equal((after.byCause["503"] ?? 0) - (before.byCause["503"] ?? 0), 1);
  assert.equal((after.byCause.timeout ?? 0) - (before.byCause.timeout ?? 0), 1);
});

test("an upload broken off mid-session goes on from the server's offset in the same session", { skip: emulatorSkip }, async () => {
  const { gcs, gcsRequestCounts, proxy } = await setUp();
  const data = bytes(1_200_000, 2); // five chunks of 256 KiB
  const before = gcsRequestCounts();
  const from = proxy.requests.length;
  const chunkPut = (r: ProxiedRequest) => r.method === "PUT" && r.url.includes("upload_id") && r.bytes > 0;
  proxy.plan = failMatching(chunkPut, [undefined, "reset-mid-body", undefined, "stall", "503"]);
  await gcs.writeAtomic("gs://emu/upload/object.bin", data);
  proxy.plan = () => undefined;
  assert.deepEqual(await gcs.readAll("gs://emu/upload/object.bin"), data);
  const seen = proxy.requests.slice(from);
  assert.equal(seen.filter((r) => r.method === "POST" && r.url.includes("uploadType=resumable")).length, 1, "one upload session");
  const sent = seen.filter(chunkPut);
  // The reset came after the server stored the second chunk: it is not sent again; the stalled and
  // refused chunks are. Nothing restarts from byte 0.
  assert.equal(sent.filter((r) => String(r.headers["content-range"]).startsWith("bytes 0-")).length, 1);
  assert.equal(
    sent.reduce((n, r) => n + r.bytes, 0),
    data.length + 2 * (256 << 10),
  );
  const after = gcsRequestCounts();
  assert.equal(after.retries - before.retries, 3);
  assert.equal(after.resumedUploads - before.resumedUploads, 3);
});

test("asking a resumable upload's offset again after a reset or a stall counts each by its cause", { skip: emulatorSkip }, async () => {
  const { gcs, gcsRequestCounts, proxy } = await setUp();
  const data = bytes(700_000, 4); // three chunks of 256 KiB
  const before = gcsRequestCounts();
  const from = proxy.requests.length;
  const chunkPut = (r: ProxiedRequest) => r.method === "PUT" && r.url.includes("upload_id") && r.bytes > 0;
  // The empty PUT that asks the server how many bytes of the session it holds.
  const offsetQuery = (r: ProxiedRequest) => r.method === "PUT" && r.url.includes("upload_id") && r.bytes === 0;
  const chunks = failMatching(chunkPut, [undefined, "503"]);
  const queries = failMatching(offsetQuery, ["reset", "stall"]);
  proxy.plan = (r) => chunks(r) ?? queries(r);
  await gcs.writeAtomic("gs://emu/offset/object.bin", data);
  proxy.plan = () => undefined;
  assert.deepEqual(await gcs.readAll("gs://emu/offset/object.bin"), data);
  assert.equal(proxy.requests.slice(from).filter(offsetQuery).length, 3);
  const after = gcsRequestCounts();
  const added = (cause: string) => (after.byCause[cause] ?? 0) - (before.byCause[cause] ?? 0);
  assert.deepEqual([added("503"), added("ECONNRESET"), added("timeout")], [1, 1, 1]);
  assert.equal(after.retries - before.retries, 3);
  assert.equal(after.failed, before.failed);
});

test(
  "a cut answer to an upload's last chunk costs one retry, though the emulator then forgets the session",
  { skip: emulatorSkip },
  async () => {
    const { gcs, gcsRequestCounts, proxy } = await setUp();
    const data = bytes(700_000, 5); // three chunks of 256 KiB, the last one shorter
    const before = gcsRequestCounts();
    const from = proxy.requests.length;
    const chunkPut = (r: ProxiedRequest) => r.method === "PUT" && r.url.includes("upload_id") && r.bytes > 0;
    proxy.plan = failMatching(chunkPut, [undefined, undefined, "reset-mid-body"]);
    await gcs.writeAtomic("gs://emu/last/object.bin", data);
    proxy.plan = () => undefined;
    assert.deepEqual(await gcs.readAll("gs://emu/last/object.bin"), data);
    // The server stored the last chunk and completed the object before the answer was cut. Google Cloud
    // Storage then answers the offset query with the object; the emulator no longer knows the session,
    // so a new one sends the object again, within the same retry.
    const sessions = proxy.requests.slice(from).filter((r) => r.method === "POST" && r.url.includes("uploadType=resumable"));
    assert.ok(sessions.length <= 2, `${sessions.length} sessions`);
    const after = gcsRequestCounts();
    assert.equal(after.retries - before.retries, 1);
    assert.equal((after.byCause.ECONNRESET ?? 0) - (before.byCause.ECONNRESET ?? 0), 1);
    assert.equal(after.failed, before.failed);
  },
);

test("an upload damaged on the way fails its CRC32C check and leaves no object", { skip: emulatorSkip }, async () => {
  const { gcs, proxy } = await setUp();
  const chunkPut = (r: ProxiedRequest) => r.method === "PUT" && r.url.includes("upload_id") && r.bytes > 0;
  proxy.plan = failMatching(chunkPut, [undefined, "corrupt-body"]);
  await assert.rejects(gcs.writeAtomic("gs://emu/damaged/object.bin", bytes(700_000, 3)), /differs from the data's .*it was deleted/);
  proxy.plan = () => undefined;
  assert.equal(await gcs.isFile("gs://emu/damaged/object.bin"), false);
});

test(
  "listing, metadata, small uploads and deletes retry 503, 429, resets and stalls; the counts say so",
  { skip: emulatorSkip },
  async () => {
    const { gcs, gcsRequestCounts, describeGcsRequestCounts, proxy } = await setUp();
    const before = gcsRequestCounts();
    const faults: Fault[] = ["503", "429", "reset", "stall", "reset-mid-body"];
    for (const [i, fault] of faults.entries()) {
      proxy.plan = failMatching(() => true, [fault]);
      await gcs.writeAtomic(`gs://emu/small/${i}.json`, bytes(1000, i));
      proxy.plan = failMatching(() => true, [fault]);
      assert.deepEqual(
        await gcs.glob("gs://emu/small/*.json"),
        faults.slice(0, i + 1).map((_, j) => `gs://emu/small/${j}.json`),
      );
      proxy.plan = failMatching(() => true, [fault]);
      assert.equal(await gcs.size(`gs://emu/small/${i}.json`), 1000);
      proxy.plan = failMatching(() => true, [fault]);
      assert.equal(await gcs.isFile(`gs://emu/small/${i}.json`), true);
    }
    proxy.plan = failMatching(() => true, ["503"]);
    await gcs.remove("gs://emu/small/0.json");
    proxy.plan = () => undefined;
    assert.equal(await gcs.isFile("gs://emu/small/0.json"), false);
    for (const i of [1, 2, 3, 4]) assert.deepEqual(await gcs.readAll(`gs://emu/small/${i}.json`), bytes(1000, i));
    const after = gcsRequestCounts();
    assert.equal(after.retries - before.retries, 4 * faults.length + 1);
    // Each by its cause: a connection cut before or halfway through the answer is a reset, never a stall.
    const added = (cause: string) => (after.byCause[cause] ?? 0) - (before.byCause[cause] ?? 0);
    assert.deepEqual(
      { 503: added("503"), 429: added("429"), ECONNRESET: added("ECONNRESET"), timeout: added("timeout") },
      { 503: 5, 429: 4, ECONNRESET: 8, timeout: 4 },
    );
    assert.equal(after.failed, before.failed);
    assert.match(describeGcsRequestCounts(after)!, /^gs:\/\/: \d+ operations, \d+ retries \(.*503 ×\d+.*429 ×\d+/);
  },
);

test("403 and 404 fail after one request, and passing failures stop at the deadline", { skip: emulatorSkip }, async () => {
  const { gcs, gcsRequestCounts, setGcsRetrySettings, GcsError, proxy } = await setUp();
  await gcs.writeAtomic("gs://emu/lasting/x", bytes(10, 0));
  const before = gcsRequestCounts();
  let from = proxy.requests.length;
  await assert.rejects(
    gcs.readAll("gs://emu/lasting/missing"),
    (e: Error) => e instanceof GcsError && /no such object \(404\)/.test(e.message),
  );
  await assert.rejects(gcs.size("gs://emu/lasting/missing"), /no such object \(404\)/);
  assert.equal(proxy.requests.length - from, 2);
  from = proxy.requests.length;
  proxy.plan = () => "403";
  await assert.rejects(gcs.readAll("gs://emu/lasting/x"), /permission denied \(403\)/);
  await assert.rejects(gcs.writeAtomic("gs://emu/lasting/y", bytes(10, 0)), /permission denied \(403\)/);
  await assert.rejects(gcs.glob("gs://emu/lasting/*"), /permission denied \(403\)/);
  assert.equal(proxy.requests.length - from, 3);
  assert.equal(gcsRequestCounts().retries, before.retries);

  setGcsRetrySettings({ deadlineMs: 300 });
  proxy.plan = () => "503";
  from = proxy.requests.length;
  const started = performance.now();
  await assert.rejects(gcs.size("gs://emu/lasting/x"), /gs:\/\/emu\/lasting\/x: .*503|injected 503/);
  const ms = performance.now() - started;
  proxy.plan = () => undefined;
  setGcsRetrySettings({ deadlineMs: 10_000 });
  assert.ok(ms < 1500, `gave up after ${ms.toFixed(0)} ms`);
  assert.ok(proxy.requests.length - from >= 3, `${proxy.requests.length - from} tries`);
  assert.equal(gcsRequestCounts().failed - before.failed, 6);
});

test("a bad retry setting is an OptionError naming the setting or the variable it came from", async () => {
  const { setGcsRetrySettings, gcsRetrySettings } = await import("../../src/data/storage/retry.js");
  const before = gcsRetrySettings();
  assert.throws(() => setGcsRetrySettings({ timeoutMs: 0 }), /^OptionError: timeoutMs = 0 must be a finite number of milliseconds ≥ 1\./);
  assert.throws(() => setGcsRetrySettings({ chunkBytes: 1000 }), /chunkBytes = 1000 must be a multiple of 256 KiB/);
  assert.deepEqual(gcsRetrySettings(), before);
  const module = fileURLToPath(new URL("../../src/data/storage/retry.js", import.meta.url));
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", `(await import(${JSON.stringify(module)})).gcsRetrySettings()`], {
    env: { ...process.env, KILN_GCS_TIMEOUT_MS: "ten" },
    encoding: "utf8",
  });
  assert.notEqual(r.status, 0);
  assert.match(
    r.stderr,
    /KILN_GCS_TIMEOUT_MS = "ten" \(a string\) must be a finite number of milliseconds ≥ 1\. set KILN_GCS_TIMEOUT_MS or/,
  );
});
