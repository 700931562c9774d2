// The coordination store against the real server over loopback: the contract's six operations, their
// timeouts and errors, barriers that name the missing rank, abort reaching pending requests, and the
// wire protocol spoken by hand (framing, a malformed message).
import test from "node:test";
import assert from "node:assert/strict";
import { connect, createServer, type Socket } from "node:net";
import { StoreClient, StoreError, StoreServer, checkSameSettings } from "../../src/launch/index.js";

async function withStore(body: (server: StoreServer, client: StoreClient) => Promise<void>): Promise<void> {
  const server = await StoreServer.start();
  const client = await StoreClient.connect({ host: "127.0.0.1", port: server.port });
  try {
    await body(server, client);
  } finally {
    client.close();
    await server.close();
  }
}

const code = (c: string) => (e: unknown) => e instanceof StoreError && e.code === c;

test("put, get, tryGet and delete; a second put is ALREADY_EXISTS unless it overwrites", { timeout: 10_000 }, () =>
  withStore(async (_server, store) => {
    const bytes = new Uint8Array([0, 255, 1, 128]);
    await store.put("a", bytes);
    assert.deepEqual([...(await store.get("a", { timeoutMs: 100 }))], [0, 255, 1, 128]);
    assert.equal(await store.tryGet("missing"), undefined);
    await assert.rejects(store.put("a", "again"), (e: unknown) => code("ALREADY_EXISTS")(e) && /"a" is already set/.test(String(e)));
    await store.put("a", "again", { overwrite: true });
    assert.equal((await store.tryGet("a"))!.toString(), "again");
    await store.delete("a");
    assert.equal(await store.tryGet("a"), undefined);
    await store.delete("never-set"); // deleting a missing key is fine
  }),
);

test("a get waits for the key up to its timeout, then DEADLINE_EXCEEDED", { timeout: 10_000 }, () =>
  withStore(async (_server, store) => {
    const t0 = performance.now();
    await assert.rejects(store.get("late", { timeoutMs: 300 }), code("DEADLINE_EXCEEDED"));
    const waited = performance.now() - t0;
    assert.ok(waited >= 290 && waited < 2000, `waited ${waited} ms`);
  }),
);

test("concurrent gets from several clients all receive one put", { timeout: 10_000 }, () =>
  withStore(async (server, store) => {
    const others = await Promise.all([1, 2, 3].map(() => StoreClient.connect({ host: "127.0.0.1", port: server.port })));
    try {
      const gets = [store, ...others].flatMap((c) => [c.get("k", { timeoutMs: 5000 }), c.get("k", { timeoutMs: 5000 })]);
      await new Promise((r) => setTimeout(r, 100));
      // The put goes through the same client as two waiting gets: each request has a connection of its own.
      await store.put("k", "v");
      assert.deepEqual(
        (await Promise.all(gets)).map((b) => b.toString()),
        Array(8).fill("v"),
      );
    } finally {
      for (const c of others) c.close();
    }
  }),
);

test("a barrier releases everyone once all ranks arrive, and its name can be used again", { timeout: 10_000 }, () =>
  withStore(async (_server, store) => {
    for (let round = 0; round < 2; round++) {
      const order: number[] = [];
      const arrivals = [0, 1, 2].map(async (rank) => {
        await new Promise((r) => setTimeout(r, rank * 50));
        await store.barrier("sync", { rank, count: 3, timeoutMs: 5000 });
        order.push(rank);
      });
      await Promise.all(arrivals);
      assert.equal(order.length, 3);
    }
  }),
);

test("a barrier with a missing rank times out naming it, and aborts the run with that rank", { timeout: 10_000 }, () =>
  withStore(async (server, store) => {
    const waits = [0, 2].map((rank) =>
      store.barrier("step-5", { rank, count: 3, timeoutMs: 300 }).then(
        () => "released",
        (e: StoreError) => `${e.code}: ${e.message}`,
      ),
    );
    const results = await Promise.all(waits);
    for (const r of results) assert.match(r, /^ABORTED: rank 1 failed: did not arrive at barrier "step-5" within 300 ms$/);
    assert.deepEqual(server.aborted, { rank: 1, reason: 'did not arrive at barrier "step-5" within 300 ms' });
  }),
);

test("without abortOnTimeout a barrier timeout is DEADLINE_EXCEEDED listing the ranks that did not arrive", { timeout: 10_000 }, () =>
  withStore(async (server, store) => {
    await assert.rejects(
      store.barrier("b", { rank: 1, count: 4, timeoutMs: 200, abortOnTimeout: false }),
      (e: unknown) => code("DEADLINE_EXCEEDED")(e) && /barrier b: ranks 0, 2, 3 did not arrive within 200 ms/.test(String(e)),
    );
    assert.equal(server.aborted, undefined);
    // A late arrival at the failed barrier gets the same answer at once.
    await assert.rejects(store.barrier("b", { rank: 0, count: 4, timeoutMs: 5000, abortOnTimeout: false }), code("DEADLINE_EXCEEDED"));
  }),
);

test("a get whose writer never comes aborts naming that rank when asked to", { timeout: 10_000 }, () =>
  withStore(async (server, store) => {
    await assert.rejects(
      store.get("nccl-id", { timeoutMs: 200, from: 3 }),
      (e: unknown) => code("ABORTED")(e) && /rank 3 failed: did not set "nccl-id" within 200 ms/.test(String(e)),
    );
    assert.equal(server.aborted?.rank, 3);
  }),
);

test("abort reaches pending gets and barriers at once, and every later request; the first cause wins", { timeout: 10_000 }, () =>
  withStore(async (server, store) => {
    const other = await StoreClient.connect({ host: "127.0.0.1", port: server.port });
    try {
      const t0 = performance.now();
      const pending = [store.get("never", { timeoutMs: 60_000 }), other.barrier("never", { rank: 0, count: 2, timeoutMs: 60_000 })].map(
        (p) =>
          p.then(
            () => "ok",
            (e: StoreError) => `${e.code}: ${e.message}`,
          ),
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(await other.abort(2, "exited with code 1"), "rank 2 failed: exited with code 1");
      assert.deepEqual(await Promise.all(pending), Array(2).fill("ABORTED: rank 2 failed: exited with code 1"));
      assert.ok(performance.now() - t0 < 2000);
      await assert.rejects(store.put("x", "y"), (e: unknown) => code("ABORTED")(e) && /rank 2 failed/.test(String(e)));
      assert.equal(await store.abort(0, "a later failure"), "rank 2 failed: exited with code 1");
    } finally {
      other.close();
    }
  }),
);

/** Speaks the wire protocol by hand: one framed request, the framed reply's JSON. */
async function rawExchange(port: number, body: Buffer): Promise<{ reply: unknown; closed: boolean }> {
  const socket: Socket = connect({ host: "127.0.0.1", port });
  await new Promise((r) => socket.once("connect", r));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  socket.write(Buffer.concat([head, body]));
  const data: Buffer[] = [];
  let closed = false;
  const reply = await new Promise<unknown>((resolve) => {
    socket.on("data", (c) => {
      data.push(c);
      const all = Buffer.concat(data);
      if (all.length >= 4 && all.length >= 4 + all.readUInt32BE(0))
        resolve(JSON.parse(all.subarray(4, 4 + all.readUInt32BE(0)).toString()));
    });
  });
  await new Promise((r) => setTimeout(r, 50));
  closed = socket.readableEnded || socket.destroyed;
  socket.destroy();
  return { reply, closed };
}

test("the wire protocol by hand: base64 values, and malformed messages answered INVALID_ARGUMENT", { timeout: 10_000 }, () =>
  withStore(async (server, store) => {
    const put = await rawExchange(server.port, Buffer.from(JSON.stringify({ op: "put", key: "k", value: "AAEC", overwrite: false })));
    assert.deepEqual(put.reply, { ok: true });
    assert.deepEqual([...(await store.get("k", { timeoutMs: 10 }))], [0, 1, 2]);
    const bad = await rawExchange(server.port, Buffer.from("{not json"));
    assert.equal((bad.reply as { error: string }).error, "INVALID_ARGUMENT");
    const noKey = await rawExchange(server.port, Buffer.from(JSON.stringify({ op: "get", timeoutMs: 5 })));
    assert.deepEqual(noKey.reply, { error: "INVALID_ARGUMENT", message: 'get: "key" must be a string' });
    const unknown = await rawExchange(server.port, Buffer.from(JSON.stringify({ op: "increment", key: "k" })));
    assert.match((unknown.reply as { message: string }).message, /unknown op "increment"/);
    const rank = await rawExchange(server.port, Buffer.from(JSON.stringify({ op: "barrier", name: "b", count: 2, rank: 2, timeoutMs: 5 })));
    assert.match((rank.reply as { message: string }).message, /rank 2 is not below the count 2/);
    // A length no store accepts: answered, then the connection is closed (the stream cannot be trusted).
    const socket = connect({ host: "127.0.0.1", port: server.port });
    await new Promise((r) => socket.once("connect", r));
    socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff]));
    const chunks: Buffer[] = [];
    await new Promise((r) => socket.on("data", (c) => chunks.push(c)).once("close", r));
    assert.match(Buffer.concat(chunks).subarray(4).toString(), /longer than the \d+ the store accepts/);
    // The store still serves everyone else.
    assert.equal((await store.tryGet("k"))!.length, 3);
  }),
);

test("onRequest sees every well-formed request with its connection, before it is answered", { timeout: 10_000 }, async () => {
  const seen: [string, number][] = [];
  const server = await StoreServer.start({ onRequest: (r, connection) => seen.push([`${r.op} ${"key" in r ? r.key : ""}`, connection]) });
  const a = await StoreClient.connect({ host: "127.0.0.1", port: server.port });
  const b = await StoreClient.connect({ host: "127.0.0.1", port: server.port });
  try {
    const waiting = a.get("k", { timeoutMs: 5000 }); // recorded when taken up, while it waits
    while (seen.length < 1) await new Promise((r) => setTimeout(r, 5));
    await b.put("k", "v");
    assert.equal((await waiting).toString(), "v");
    await rawExchange(server.port, Buffer.from(JSON.stringify({ op: "get", timeoutMs: 5 }))); // malformed: not recorded
    await b.tryGet("k");
    assert.deepEqual(seen, [
      ["get k", 0],
      ["put k", 1],
      ["tryGet k", 1],
    ]);
  } finally {
    a.close();
    b.close();
    await server.close();
  }
});

test("a port in use is refused naming host:port", { timeout: 10_000 }, async () => {
  const first = await StoreServer.start();
  try {
    const where = `127.0.0.1:${first.port}`;
    await assert.rejects(StoreServer.start({ port: first.port }), {
      message: `cannot serve the coordination store on ${where}: the port is in use (another run's store, or another program)`,
    });
  } finally {
    await first.close();
  }
});

test(
  "an unreachable store is retried for the time given, then one line names host:port and what to check",
  { timeout: 10_000 },
  async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const t0 = performance.now();
    await assert.rejects(StoreClient.connect({ host: "127.0.0.1", port, connectTimeoutMs: 700 }), (e: unknown) => {
      assert.ok(e instanceof StoreError && e.code === "UNAVAILABLE");
      assert.equal(e.message.split("\n").length, 1);
      assert.match(e.message, new RegExp(`^cannot reach the coordination store at 127\\.0\\.0\\.1:${port} within 1 s \\(ECONNREFUSED\\)`));
      assert.match(e.message, /is running/);
      return true;
    });
    const waited = performance.now() - t0;
    assert.ok(waited >= 500 && waited < 3000, `gave up after ${waited} ms`);
  },
);

test("a store that starts late is reached by the retry", { timeout: 10_000 }, async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const connecting = StoreClient.connect({ host: "127.0.0.1", port, connectTimeoutMs: 5000 });
  await new Promise((r) => setTimeout(r, 400));
  const server = await StoreServer.start({ port });
  const client = await connecting;
  await client.put("up", "yes");
  client.close();
  await server.close();
});

test("checkSameSettings passes equal settings and names the rank and keys that differ", { timeout: 10_000 }, () =>
  withStore(async (server, store) => {
    const base = { model: { layers: 2, hidden: 64 }, learningRate: 1e-3, files: ["a", "b"] };
    // Same settings built in another key order are the same.
    await Promise.all(
      [0, 1].map((rank) =>
        checkSameSettings(store, rank, 2, rank ? { files: ["a", "b"], learningRate: 1e-3, model: { hidden: 64, layers: 2 } } : base, {
          name: "ok",
        }),
      ),
    );
    const settings = [base, base, { ...base, learningRate: 2e-3, seed: 1 }];
    const results = await Promise.all(
      [0, 1, 2].map((rank) =>
        checkSameSettings(store, rank, 3, settings[rank]!, { name: "bad" }).then(
          () => "passed",
          (e: Error) => e.message,
        ),
      ),
    );
    for (const r of results)
      assert.equal(
        r,
        "rank 2 failed: its settings differ from rank 0's: learningRate, seed (only rank 2 has it) " +
          "(start every process with the same model, data and flags)",
      );
    assert.equal(server.aborted?.rank, 2);
  }),
);
