// The PMI service `kiln launch` runs on each node, spoken to over TCP as MPICH's simple-PMI client speaks
// (the lines of src/pmi/simple/simple_pmi.c), backed by a real coordination store: the handshake, the
// process mapping, puts and gets through the store, a barrier that holds every rank (of every node) until
// all arrive, refusals, and MPI_Abort ending the run. (MPICH itself joining through it:
// test/distribute/multi-process-launch.test.ts.)
import test from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { StoreServer } from "../../src/launch/store-server.js";
import { StoreClient, StoreError } from "../../src/launch/store-client.js";
import { PmiServer, parsePmiLine, type PmiWorld } from "../../src/launch/pmi-server.js";

/** A PMI client connection: `ask` sends one line and reads `replies` lines back. */
class PmiClient {
  private buffered = "";
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (c: string) => {
      this.buffered += c;
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("close", () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static open(port: number): Promise<PmiClient> {
    return new Promise((resolve, reject) => {
      const s = connect(port, "127.0.0.1", () => resolve(new PmiClient(s)));
      s.once("error", reject);
    });
  }

  /** The next line, or undefined once the server closed the connection; fails the test after 5 s. */
  async line(timeoutMs = 5000): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const nl = this.buffered.indexOf("\n");
      if (nl >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        return line;
      }
      if (this.closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no reply within the time limit");
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  /** Sends `request` and reads `replies` lines (undefined for each after the server closed the connection). */
  async ask(request: string, replies = 1): Promise<(string | undefined)[]> {
    this.socket.write(`${request}\n`);
    const out: (string | undefined)[] = [];
    for (let i = 0; i < replies; i++) out.push(await this.line());
    return out;
  }

  close(): void {
    this.socket.destroy();
  }
}

async function world(o: PmiWorld[], f: (servers: PmiServer[], store: StoreClient, problems: string[]) => Promise<void>) {
  const server = await StoreServer.start({});
  const store = await StoreClient.connect({ host: server.host, port: server.port });
  const problems: string[] = [];
  const pmis = await Promise.all(o.map((w) => PmiServer.start(store, w, (p) => problems.push(p))));
  try {
    await f(pmis, store, problems);
  } finally {
    await Promise.all(pmis.map((p) => p.close()));
    store.close();
    await server.close();
  }
}

/** Connects as rank `rank` does with PMI_ID set: initack, then size, rank and debug. */
async function handshake(pmi: PmiServer, rank: number): Promise<PmiClient> {
  const c = await PmiClient.open(pmi.port);
  const replies = await c.ask(`cmd=initack pmiid=${rank}`, 4);
  assert.deepEqual(replies, ["cmd=initack", `cmd=set size=${pmi.environment(rank).PMI_SIZE}`, `cmd=set rank=${rank}`, "cmd=set debug=0"]);
  return c;
}

test("parsePmiLine reads cmd=… key=value tokens", () => {
  assert.deepEqual(parsePmiLine("cmd=put kvsname=kiln key=-bcast-1-0 value=2F6465\n"), {
    cmd: "put",
    kvsname: "kiln",
    key: "-bcast-1-0",
    value: "2F6465",
  });
  assert.deepEqual(parsePmiLine("cmd=get_result rc=0 msg=success value="), { cmd: "get_result", rc: "0", msg: "success", value: "" });
});

test("the environment points MPICH at the service: PMI_PORT, PMI_ID, PMI_RANK, PMI_SIZE, KILN_MPI", async () => {
  await world([{ worldSize: 4, numNodes: 2, nprocPerNode: 2, firstRank: 2 }], async ([pmi]) => {
    assert.deepEqual(pmi!.environment(3), {
      PMI_PORT: `127.0.0.1:${pmi!.port}`,
      PMI_ID: "3",
      PMI_RANK: "3",
      PMI_SIZE: "4",
      KILN_MPI: "mpich",
    });
  });
});

test("MPI_Init's exchange: handshake, maxes, mapping, puts, a barrier over every rank, gets", { timeout: 20_000 }, async () => {
  await world([{ worldSize: 2, numNodes: 1, nprocPerNode: 2, firstRank: 0 }], async ([pmi], _store, problems) => {
    const [a, b] = [await handshake(pmi!, 0), await handshake(pmi!, 1)];
    assert.deepEqual(await a.ask("cmd=init pmi_version=1 pmi_subversion=1"), ["cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"]);
    assert.deepEqual(await a.ask("cmd=get_maxes"), ["cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"]);
    assert.deepEqual(await a.ask("cmd=get_my_kvsname"), ["cmd=my_kvsname kvsname=kiln"]);
    assert.deepEqual(await a.ask("cmd=get_appnum"), ["cmd=appnum appnum=0"]);
    assert.deepEqual(await a.ask("cmd=get_universe_size"), ["cmd=universe_size size=2"]);
    assert.deepEqual(await a.ask("cmd=get kvsname=kiln key=PMI_process_mapping"), [
      "cmd=get_result rc=0 msg=success value=(vector,(0,1,2))",
    ]);
    assert.deepEqual(await a.ask("cmd=put kvsname=kiln key=card-0 value=AB01"), ["cmd=put_result rc=0 msg=success"]);
    // Rank 0 waits at the barrier until rank 1 arrives.
    void a.ask("cmd=barrier_in", 0);
    await assert.rejects(a.line(300), /no reply/);
    assert.deepEqual(await b.ask("cmd=put kvsname=kiln key=card-1 value=CD02"), ["cmd=put_result rc=0 msg=success"]);
    assert.deepEqual(await b.ask("cmd=barrier_in"), ["cmd=barrier_out"]);
    assert.equal(await a.line(), "cmd=barrier_out");
    assert.deepEqual(await a.ask("cmd=get kvsname=kiln key=card-1"), ["cmd=get_result rc=0 msg=success value=CD02"]);
    assert.deepEqual(await b.ask("cmd=get kvsname=kiln key=card-0"), ["cmd=get_result rc=0 msg=success value=AB01"]);
    assert.deepEqual(await b.ask("cmd=get kvsname=kiln key=card-9"), ["cmd=get_result rc=-1 msg=key_card-9_not_found value=unknown"]);
    // A second barrier is a new one (MPI_Finalize's), again over both ranks.
    const second = b.ask("cmd=barrier_in");
    assert.deepEqual(await a.ask("cmd=barrier_in"), ["cmd=barrier_out"]);
    assert.deepEqual(await second, ["cmd=barrier_out"]);
    assert.deepEqual(await a.ask("cmd=finalize"), ["cmd=finalize_ack"]);
    assert.deepEqual(problems, []);
    a.close();
    b.close();
  });
});

test("two nodes' services share one key-value space and one barrier through the store", { timeout: 20_000 }, async () => {
  const nodes = [0, 1].map((n) => ({ worldSize: 2, numNodes: 2, nprocPerNode: 1, firstRank: n }));
  await world(nodes, async ([n0, n1]) => {
    const [a, b] = [await handshake(n0!, 0), await handshake(n1!, 1)];
    assert.deepEqual(await b.ask("cmd=get kvsname=kiln key=PMI_process_mapping"), [
      "cmd=get_result rc=0 msg=success value=(vector,(0,2,1))",
    ]);
    await a.ask("cmd=put kvsname=kiln key=card-0 value=AA");
    await b.ask("cmd=put kvsname=kiln key=card-1 value=BB");
    const waiting = a.ask("cmd=barrier_in");
    assert.deepEqual(await b.ask("cmd=barrier_in"), ["cmd=barrier_out"]);
    assert.deepEqual(await waiting, ["cmd=barrier_out"]);
    assert.deepEqual(await a.ask("cmd=get kvsname=kiln key=card-1"), ["cmd=get_result rc=0 msg=success value=BB"]);
    assert.deepEqual(await b.ask("cmd=get kvsname=kiln key=card-0"), ["cmd=get_result rc=0 msg=success value=AA"]);
    a.close();
    b.close();
  });
});

test("refused: another node's rank, a rank twice, PMI-2, a spawn, an unknown request", { timeout: 20_000 }, async () => {
  await world([{ worldSize: 4, numNodes: 2, nprocPerNode: 2, firstRank: 2 }], async ([pmi], _store, problems) => {
    const stranger = await PmiClient.open(pmi!.port);
    assert.deepEqual(await stranger.ask("cmd=initack pmiid=0"), [undefined]);
    assert.match(problems.shift()!, /rank 0 \(PMI_ID\), which is not one of this node's ranks 2–3 not yet connected/);
    const c = await handshake(pmi!, 2);
    const twice = await PmiClient.open(pmi!.port);
    assert.deepEqual(await twice.ask("cmd=initack pmiid=2"), [undefined]);
    assert.match(problems.shift()!, /rank 2 \(PMI_ID\)/);
    assert.deepEqual(await c.ask("cmd=init pmi_version=2 pmi_subversion=0"), ["cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1"]);
    void c.ask("mcmd=spawn", 0);
    void c.ask("nprocs=2", 0);
    assert.deepEqual(await c.ask("endcmd"), ["cmd=spawn_result rc=-1 msg=kiln_launch_does_not_spawn_processes"]);
    assert.match(problems.shift()!, /rank 2 asked to spawn processes \(MPI_Comm_spawn\)/);
    assert.deepEqual(await c.ask("cmd=lookup_name service=x"), ["cmd=lookup_result rc=1 msg=not_served_by_kiln_launch"]);
    assert.match(problems.shift()!, /rank 2 sent PMI request "cmd=lookup_name service=x", which kiln launch does not serve/);
    c.close();
  });
});

test("MPI_Abort aborts the run naming the rank; a barrier then ends the waiting client's connection", { timeout: 20_000 }, async () => {
  await world([{ worldSize: 2, numNodes: 1, nprocPerNode: 2, firstRank: 0 }], async ([pmi], store) => {
    const [a, b] = [await handshake(pmi!, 0), await handshake(pmi!, 1)];
    const waiting = a.ask("cmd=barrier_in");
    void b.ask("cmd=abort exitcode=7", 0);
    assert.deepEqual(await waiting, [undefined], "rank 0's barrier ends with its connection");
    await assert.rejects(
      store.tryGet("anything"),
      (e: unknown) => e instanceof StoreError && e.code === "ABORTED" && e.message === "rank 1 failed: called MPI_Abort (exit code 7)",
    );
  });
});
