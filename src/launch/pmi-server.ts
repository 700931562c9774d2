// MPICH's process-management interface, served by each node's launcher, so that the MPICH processes
// `kiln launch` starts on every node join one MPI_COMM_WORLD (as they would under mpiexec). MPI_Init in
// MPICH (Debian's libmpich 4.0: PMI-1 only, the "simple PMI" client) connects to PMI_PORT, says who it is
// (PMI_ID: its rank), and then exchanges business cards through a key-value space: every rank puts its
// own, all meet at a barrier, then each gets the others'. Here the puts go to the coordination store and
// the barrier is the store's, so the launchers of all nodes serve one key-value space and one barrier.
//
// The wire protocol (src/pmi/simple/simple_pmi.c and hydra's pmiserv in MPICH): one text line per message,
// `cmd=NAME key=value …` separated by spaces and ended by "\n"; one request at a time, answered in order.
import { createServer, type Server, type Socket } from "node:net";
import { MAX_TIMEOUT_MS } from "../io/store-wire.js";
import type { StoreClient } from "./store-client.js";

/** The run the processes belong to, and which of its ranks this node starts. */
export interface PmiWorld {
  worldSize: number;
  numNodes: number;
  nprocPerNode: number;
  /** This node's first rank (its ranks are firstRank … firstRank + nprocPerNode - 1). */
  firstRank: number;
}

/** The one key-value space of a run (MPICH passes its name back with every put and get). */
const KVS_NAME = "kiln";
const STORE_PREFIX = "kiln/pmi/";
/** hydra's limits (pm/pmiserv/common.h): the client sizes its buffers and value segments by them. */
const MAXES = "kvsname_max=256 keylen_max=64 vallen_max=1024";
/** A line longer than this is not PMI (the client's own limit is 1024 bytes). */
const MAX_LINE = 64 * 1024;

/** The reply a request for something this service does not do gets, so the client fails instead of waiting. */
const UNSUPPORTED: Record<string, string> = {
  publish_name: "publish_result",
  unpublish_name: "unpublish_result",
  lookup_name: "lookup_result",
  spawn: "spawn_result",
};

/** One client's connection: its rank (once it said it), its barriers so far, inside a multi-line request. */
interface ConnectionState {
  rank?: number;
  barriers: number;
  spawning: boolean;
}

/** `cmd=put kvsname=kiln key=K value=V` → { cmd: "put", kvsname: "kiln", key: "K", value: "V" }. */
export function parsePmiLine(line: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const token of line.trim().split(/ +/)) {
    if (!token) continue;
    const eq = token.indexOf("=");
    if (eq > 0) fields[token.slice(0, eq)] = token.slice(eq + 1);
  }
  return fields;
}

/** A message for a PMI reply's `msg=` (one token: no spaces). */
function token(text: string): string {
  return text.replace(/\s+/g, "_");
}

/**
 * MPICH's PMI-1 for this node's processes, on a free port of 127.0.0.1 (the processes are local; the
 * key-value space and the barrier are the coordination store's, shared by every node).
 */
export class PmiServer {
  private readonly sockets = new Set<Socket>();
  private readonly connectedRanks = new Set<number>();

  private constructor(
    private readonly server: Server,
    private readonly store: StoreClient,
    private readonly world: PmiWorld,
    readonly port: number,
    private readonly report: (problem: string) => void,
  ) {
    server.on("connection", (socket) => this.serve(socket));
  }

  /** Starts serving; `report` hears of requests that were refused (a bad rank, an unknown command). */
  static start(store: StoreClient, world: PmiWorld, report: (problem: string) => void = () => {}): Promise<PmiServer> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        server.unref();
        const address = server.address();
        resolve(new PmiServer(server, store, world, typeof address === "object" && address ? address.port : 0, report));
      });
    });
  }

  /**
   * The variables that point rank `rank`'s MPI at this service: PMI_PORT and PMI_ID (MPICH's client
   * connects and is told its rank and size), PMI_RANK and PMI_SIZE (read by others, e.g. readProcessEnv),
   * and KILN_MPI=mpich (Kiln loads MPICH's library, the one that speaks this interface).
   */
  environment(rank: number): Record<string, string> {
    return {
      PMI_PORT: `127.0.0.1:${this.port}`,
      PMI_ID: `${rank}`,
      PMI_RANK: `${rank}`,
      PMI_SIZE: `${this.world.worldSize}`,
      KILN_MPI: "mpich",
    };
  }

  /** Stops listening and drops every connection. */
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** MPICH's PMI_process_mapping: ranks in blocks of nprocPerNode per node, node 0 first. */
  private processMapping(): string {
    return `(vector,(0,${this.world.numNodes},${this.world.nprocPerNode}))`;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.setEncoding("utf8");
    const state: ConnectionState = { barriers: 0, spawning: false };
    let pending = "";
    // Lines are handled one after another: a barrier holds the lines behind it until it completes.
    let queue: Promise<void> = Promise.resolve();
    socket.on("data", (chunk: string) => {
      pending += chunk;
      if (pending.length > MAX_LINE && !pending.includes("\n")) {
        this.report(`a PMI client sent a line longer than ${MAX_LINE} bytes: closed its connection`);
        socket.destroy();
        return;
      }
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        queue = queue
          .then(() => this.handle(socket, state, line))
          .catch(() => {
            // The run is stopping (the store aborted or went away): the client's MPI call fails.
            socket.destroy();
          });
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      this.sockets.delete(socket);
      if (state.rank !== undefined) this.connectedRanks.delete(state.rank);
    });
  }

  private async handle(socket: Socket, state: ConnectionState, line: string): Promise<void> {
    const send = (reply: string) => {
      if (!socket.destroyed) socket.write(`${reply}\n`);
    };
    // MPI_Comm_spawn's request spans lines (mcmd=spawn … endcmd): refused once it is whole.
    if (state.spawning) {
      if (line.trim() === "endcmd") {
        state.spawning = false;
        this.report(`rank ${state.rank ?? "?"} asked to spawn processes (MPI_Comm_spawn), which kiln launch does not do`);
        send(`cmd=${UNSUPPORTED.spawn} rc=-1 msg=kiln_launch_does_not_spawn_processes`);
      }
      return;
    }
    const f = parsePmiLine(line);
    if (f.mcmd !== undefined) {
      state.spawning = true;
      return;
    }
    switch (f.cmd) {
      case "initack": {
        const rank = Number(f.pmiid);
        const { firstRank, nprocPerNode, worldSize } = this.world;
        if (!Number.isInteger(rank) || rank < firstRank || rank >= firstRank + nprocPerNode || this.connectedRanks.has(rank)) {
          this.report(
            `a PMI client said it is rank ${f.pmiid} (PMI_ID), which is not one of this node's ranks ` +
              `${firstRank}–${firstRank + nprocPerNode - 1} not yet connected: closed its connection`,
          );
          socket.destroy();
          return;
        }
        state.rank = rank;
        this.connectedRanks.add(rank);
        return send(`cmd=initack\ncmd=set size=${worldSize}\ncmd=set rank=${rank}\ncmd=set debug=0`);
      }
      case "init":
        return send(`cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=${f.pmi_version === "1" ? 0 : -1}`);
      case "get_maxes":
        return send(`cmd=maxes ${MAXES}`);
      case "get_appnum":
        return send("cmd=appnum appnum=0");
      case "get_my_kvsname":
        return send(`cmd=my_kvsname kvsname=${KVS_NAME}`);
      case "get_universe_size":
        return send(`cmd=universe_size size=${this.world.worldSize}`);
      case "put": {
        if (f.kvsname !== KVS_NAME || !f.key) return send(`cmd=put_result rc=-1 msg=${token(`no key-value space ${f.kvsname} or no key`)}`);
        try {
          await this.store.put(STORE_PREFIX + f.key, f.value ?? "", { overwrite: true });
          return send("cmd=put_result rc=0 msg=success");
        } catch (e) {
          return send(`cmd=put_result rc=-1 msg=${token((e as Error).message)}`);
        }
      }
      case "get": {
        if (f.key === "PMI_process_mapping") return send(`cmd=get_result rc=0 msg=success value=${this.processMapping()}`);
        // A dead process ends the whole run here (the launcher stops every rank), so none is ever listed.
        if (f.key === "PMI_dead_processes") return send("cmd=get_result rc=0 msg=success value=");
        if (f.kvsname !== KVS_NAME || !f.key) return send(`cmd=get_result rc=-1 msg=${token(`no key-value space ${f.kvsname} or no key`)}`);
        let value: Buffer | undefined;
        try {
          value = await this.store.tryGet(STORE_PREFIX + f.key);
        } catch (e) {
          return send(`cmd=get_result rc=-1 msg=${token((e as Error).message)} value=unknown`);
        }
        // As hydra answers: a key not (yet) put is not waited for (MPICH gets only after a barrier).
        return value === undefined
          ? send(`cmd=get_result rc=-1 msg=key_${f.key}_not_found value=unknown`)
          : send(`cmd=get_result rc=0 msg=success value=${value.toString("utf8")}`);
      }
      case "barrier_in": {
        if (state.rank === undefined) {
          this.report("a PMI client entered a barrier without saying its rank (PMI_ID): closed its connection");
          socket.destroy();
          return;
        }
        // Every rank of every node, through the store. No time limit: ranks reach MPI_Init and MPI_Finalize
        // at their own pace (rank 0 saves the model last), and a rank that fails aborts the run, which
        // answers this barrier and stops every process.
        const n = ++state.barriers;
        await this.store.barrier(`${STORE_PREFIX}barrier/${n}`, {
          rank: state.rank,
          count: this.world.worldSize,
          timeoutMs: MAX_TIMEOUT_MS,
          abortOnTimeout: false,
        });
        return send("cmd=barrier_out");
      }
      case "finalize":
        return send("cmd=finalize_ack");
      case "abort": {
        // MPI_Abort: the client waits for the launcher to end it. Aborting the run stops every rank.
        const rank = state.rank ?? this.world.firstRank;
        await this.store.abort(rank, `called MPI_Abort (exit code ${f.exitcode ?? "?"})`).catch(() => {});
        return;
      }
      default: {
        const result = UNSUPPORTED[f.cmd ?? ""];
        this.report(`rank ${state.rank ?? "?"} sent PMI request ${JSON.stringify(line.slice(0, 80))}, which kiln launch does not serve`);
        if (result) return send(`cmd=${result} rc=1 msg=not_served_by_kiln_launch`);
        socket.destroy();
      }
    }
  }
}
