// The launcher of one node: node 0 serves the coordination store; every node joins it, starts its processes
// with the environment that says which rank each is, relays their output behind rank prefixes, and watches
// them. The first failure anywhere (a process exiting non-zero or killed, a barrier or get timing out on a
// hung rank) aborts the store; every launcher learns it from the store and stops its processes (SIGTERM,
// then SIGKILL after the grace period), so the whole run ends with the same one-line cause.
import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import { constants as osConstants } from "node:os";
import { StoreServer } from "./store-server.js";
import { MAX_TIMEOUT_MS } from "../io/store-wire.js";
import { StoreClient, StoreError } from "./store-client.js";
import { relayLines } from "./line-relay.js";
import { PmiServer } from "./pmi-server.js";
import { launchedGlibcTunables } from "./host-malloc-env.js";

/** Options of supervise: the command, processes per node, the run's nodes and store, the grace period. */
export interface SuperviseOptions {
  /** The program each process runs, and its arguments. */
  command: string;
  args: string[];
  /** Processes on this node. */
  nprocPerNode: number;
  /** Nodes (hosts) in the run (default 1) and this one's index (default 0). */
  numNodes?: number;
  nodeRank?: number;
  /**
   * The coordination store's address: node 0 serves it there, the others connect to it. Required with
   * more than one node; by default node 0 serves on a free port of 127.0.0.1.
   */
  coordinator?: { host: string; port: number };
  /** How long processes get between SIGTERM and SIGKILL when the run stops (default 30 000 ms). */
  gracePeriodMs?: number;
  /** How long to wait for the store to be reachable and for every node to join (default 120 000 ms). */
  joinTimeoutMs?: number;
  /** The processes' environment before the launcher's variables are added (default process.env). */
  env?: Record<string, string | undefined>;
  /** Where the processes' prefixed output goes (default this process's stdout and stderr). */
  stdout?: Writable;
  stderr?: Writable;
  /** Forward SIGTERM and SIGINT sent to this process to every process (default true). */
  forwardSignals?: boolean;
}

/** Why a run did not succeed: a rank's failure, a signal, or a refusal before any process started. */
export class LaunchError extends Error {
  constructor(
    message: string,
    readonly details: { rank?: number; signal?: NodeJS.Signals; refused?: boolean } = {},
  ) {
    super(message);
    this.name = "LaunchError";
  }
}

/** A key never set: a get on it waits until the run is aborted or the store goes away. */
export const NEVER_SET_KEY = "kiln/launch/abort-watch";

const KEYS = {
  node: (n: number) => `kiln/launch/node/${n}`,
  done: (n: number) => `kiln/launch/done/${n}`,
  watch: NEVER_SET_KEY,
  join: "kiln/launch/join",
};

/** The variables every process gets: Kiln's names and torchrun's. */
export function processEnvironment(p: {
  rank: number;
  worldSize: number;
  localRank: number;
  localWorldSize: number;
  nodeRank: number;
  numNodes: number;
  coordinator: { host: string; port: number };
}): Record<string, string> {
  const host = p.coordinator.host.includes(":") ? `[${p.coordinator.host}]` : p.coordinator.host;
  return {
    KILN_RANK: `${p.rank}`,
    KILN_WORLD_SIZE: `${p.worldSize}`,
    KILN_LOCAL_RANK: `${p.localRank}`,
    KILN_LOCAL_WORLD_SIZE: `${p.localWorldSize}`,
    KILN_NODE_RANK: `${p.nodeRank}`,
    KILN_NUM_NODES: `${p.numNodes}`,
    KILN_COORDINATOR: `${host}:${p.coordinator.port}`,
    RANK: `${p.rank}`,
    WORLD_SIZE: `${p.worldSize}`,
    LOCAL_RANK: `${p.localRank}`,
    LOCAL_WORLD_SIZE: `${p.localWorldSize}`,
    MASTER_ADDR: p.coordinator.host,
    MASTER_PORT: `${p.coordinator.port}`,
  };
}

function checkOptions(o: SuperviseOptions): { numNodes: number; nodeRank: number } {
  const int = (name: string, v: number | undefined, min: number) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= min))
      throw new LaunchError(`${name} must be an integer ≥ ${min}, got ${v}`, { refused: true });
  };
  int("nprocPerNode", o.nprocPerNode, 1);
  int("numNodes", o.numNodes, 1);
  int("nodeRank", o.nodeRank, 0);
  const numNodes = o.numNodes ?? 1;
  const nodeRank = o.nodeRank ?? 0;
  if (nodeRank >= numNodes)
    throw new LaunchError(`nodeRank ${nodeRank} must be below numNodes ${numNodes} (nodes are numbered from 0)`, { refused: true });
  if (numNodes > 1 && !o.coordinator)
    throw new LaunchError(`with ${numNodes} nodes, coordinator must be given: node 0's address and a port, the same on every node`, {
      refused: true,
    });
  return { numNodes, nodeRank };
}

/** What a node says when node 0's launcher, and with it the coordination store, is gone. */
function storeWentAway(where: string): string {
  return `the coordination store at ${where} went away (node 0's launcher stopped): this node's processes were stopped`;
}

/** "exited with code 1", "killed by SIGKILL". */
function exitCause(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exited with code ${code}`;
}

/** The address to connect to for a store listening on `host` (a wildcard address is reached on loopback). */
function connectHost(host: string): string {
  return host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
}

/**
 * Runs `nprocPerNode` processes of `command` on this node as part of a run of `numNodes` nodes; resolves
 * when every process of this node exited 0 (on node 0: of every node), rejects with a LaunchError naming
 * the failed rank and its cause otherwise.
 */
export async function superviseProcesses(options: SuperviseOptions): Promise<void> {
  const { numNodes, nodeRank } = checkOptions(options);
  const nproc = options.nprocPerNode;
  const worldSize = nproc * numNodes;
  const grace = options.gracePeriodMs ?? 30_000;
  const joinTimeoutMs = options.joinTimeoutMs ?? 120_000;
  const firstRank = nodeRank * nproc;

  let server: StoreServer | undefined;
  if (nodeRank === 0) {
    try {
      server = await StoreServer.start(options.coordinator ?? {});
    } catch (e) {
      throw new LaunchError((e as Error).message, { refused: true });
    }
  }
  const coordinator = server ? { host: server.host, port: server.port } : options.coordinator!;
  let client: StoreClient;
  try {
    client = await StoreClient.connect({ host: connectHost(coordinator.host), port: coordinator.port, connectTimeoutMs: joinTimeoutMs });
  } catch (e) {
    await server?.close();
    throw new LaunchError((e as Error).message, { refused: true });
  }
  const shutdown = async () => {
    client.close();
    await server?.close();
  };

  try {
    await join(client, { nodeRank, numNodes, nproc, joinTimeoutMs, firstRank });
  } catch (e) {
    await shutdown();
    if (e instanceof LaunchError) throw e;
    const message = (e as Error).message;
    // Another node refused to join (and aborted the run): its line is this node's too.
    const rank = e instanceof StoreError && e.code === "ABORTED" ? rankOf(message) : undefined;
    throw new LaunchError(message, rank === undefined ? { refused: true } : { rank, refused: true });
  }
  // MPICH's process-management interface, for processes that call MPI_Init (multi-process training on
  // CPUs): a port on 127.0.0.1 per node, unused by the others.
  const stderr = options.stderr ?? process.stderr;
  let pmi: PmiServer;
  try {
    pmi = await PmiServer.start(client, { worldSize, numNodes, nprocPerNode: nproc, firstRank }, (problem) =>
      stderr.write(`kiln launch: ${problem}\n`),
    );
  } catch (e) {
    await shutdown();
    throw new LaunchError(`cannot serve MPI's process-management interface on 127.0.0.1: ${(e as Error).message}`, { refused: true });
  }
  const stop = async () => {
    await pmi.close();
    await shutdown();
  };
  return new Run(options, client, pmi, { nodeRank, numNodes, nproc, worldSize, grace, firstRank, coordinator }, stop).result;
}

/**
 * Every node announces its settings and waits for the others; a node whose settings differ from node 0's,
 * or a node rank taken twice, is refused (and aborts the run, so the other nodes stop too).
 */
async function join(
  client: StoreClient,
  p: { nodeRank: number; numNodes: number; nproc: number; joinTimeoutMs: number; firstRank: number },
): Promise<void> {
  const mine = { numNodes: p.numNodes, nprocPerNode: p.nproc };
  try {
    await client.put(KEYS.node(p.nodeRank), JSON.stringify(mine));
  } catch (e) {
    if (e instanceof StoreError && e.code === "ALREADY_EXISTS")
      throw new LaunchError(`node rank ${p.nodeRank} has already joined this run: give each node its own node rank`, { refused: true });
    throw e;
  }
  const leader =
    p.nodeRank === 0 ? mine : (JSON.parse((await client.get(KEYS.node(0), { timeoutMs: p.joinTimeoutMs })).toString()) as typeof mine);
  for (const k of ["numNodes", "nprocPerNode"] as const)
    if (leader[k] !== mine[k]) {
      const cause = await client.abort(
        p.firstRank,
        `its launcher (node ${p.nodeRank}) was started with ${k} ${mine[k]}, node 0's with ${leader[k]}: give every node the same`,
      );
      throw new LaunchError(cause, { rank: p.firstRank, refused: true });
    }
  try {
    await client.barrier(KEYS.join, { rank: p.nodeRank, count: p.numNodes, timeoutMs: p.joinTimeoutMs, abortOnTimeout: false });
  } catch (e) {
    const missing =
      e instanceof StoreError && e.code === "DEADLINE_EXCEEDED" ? /ranks ([\d, ]+) did not arrive/.exec(e.message)?.[1] : undefined;
    if (missing)
      throw new LaunchError(
        `node${missing.includes(",") ? "s" : ""} ${missing} did not join within ${p.joinTimeoutMs / 1000} s: start the launcher there ` +
          `with the same coordinator and its node rank`,
        { refused: true },
      );
    throw e;
  }
}

interface Child {
  rank: number;
  process: ChildProcess;
  exited: boolean;
  output: Promise<void>[];
}

/** One node's processes, from start to the end of the run. */
class Run {
  readonly result: Promise<void>;
  private settle!: { resolve(): void; reject(e: LaunchError): void };
  private readonly children: Child[] = [];
  private stopping: { message: string; rank?: number; signal?: NodeJS.Signals } | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private finished = false;
  /** The abort a local failure sends: its answer (the run's first failure) is the line the run ends with. */
  private aborting: Promise<void> = Promise.resolve();
  private readonly onSignal = (signal: NodeJS.Signals) => this.signalled(signal);

  constructor(
    private readonly o: SuperviseOptions,
    private readonly client: StoreClient,
    private readonly pmi: PmiServer,
    private readonly p: {
      nodeRank: number;
      numNodes: number;
      nproc: number;
      worldSize: number;
      grace: number;
      firstRank: number;
      coordinator: { host: string; port: number };
    },
    private readonly shutdown: () => Promise<void>,
  ) {
    this.result = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    if (o.forwardSignals !== false) for (const s of ["SIGTERM", "SIGINT"] as const) process.on(s, this.onSignal);
    this.watchForAbort();
    for (let local = 0; local < p.nproc; local++) this.start(local);
  }

  private start(localRank: number): void {
    const rank = this.p.firstRank + localRank;
    const base = this.o.env ?? process.env;
    const env: Record<string, string | undefined> = {
      ...base,
      // An inherited PMI_FD (a launcher started under mpiexec) would take precedence over PMI_PORT.
      PMI_FD: undefined,
      GLIBC_TUNABLES: launchedGlibcTunables(base.GLIBC_TUNABLES),
      ...this.pmi.environment(rank),
      ...processEnvironment({
        rank,
        worldSize: this.p.worldSize,
        localRank,
        localWorldSize: this.p.nproc,
        nodeRank: this.p.nodeRank,
        numNodes: this.p.numNodes,
        coordinator: this.p.coordinator,
      }),
    };
    // Each process leads a process group of its own, so that a signal reaches what it started too, and the
    // terminal's Ctrl+C reaches the launcher alone (which forwards it once).
    const child = spawn(this.o.command, this.o.args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const c: Child = { rank, process: child, exited: false, output: [] };
    this.children.push(c);
    const prefix = `[rank ${rank}] `;
    c.output.push(relayLines(child.stdout!, this.o.stdout ?? process.stdout, prefix));
    c.output.push(relayLines(child.stderr!, this.o.stderr ?? process.stderr, prefix));
    child.once("error", (e: NodeJS.ErrnoException) => {
      if (c.exited) return;
      c.exited = true;
      const why = e.code === "ENOENT" ? `${this.o.command} was not found (give a path, or a program on PATH)` : e.message;
      if (!this.stopping) this.aborting = this.failed(rank, `could not be started: ${why}`);
      this.checkAllExited();
    });
    child.once("exit", (code, signal) => {
      if (c.exited) return;
      c.exited = true;
      if (code !== 0 && !this.stopping) this.aborting = this.failed(rank, exitCause(code, signal));
      this.checkAllExited();
    });
  }

  /** A local process failed: abort the run (the store keeps the first failure anywhere) and stop the others. */
  private async failed(rank: number, cause: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = { message: `rank ${rank} failed: ${cause}`, rank };
    this.stopProcesses("SIGTERM");
    try {
      const first = await this.client.abort(rank, cause);
      this.stopping = { message: first, rank: rankOf(first) ?? rank };
    } catch {
      // The store is gone: node 0's launcher stopped, which is why a process that joined the run (and
      // watches the store) exited here too, often before this launcher's own watch saw the store go.
      this.stopping = { message: storeWentAway(this.client.where), rank };
    }
  }

  /** Learns of a failure elsewhere: the store answers this long get with ABORTED (or closes when node 0 stops). */
  private watchForAbort(): void {
    const loop = async (): Promise<void> => {
      for (;;) {
        try {
          await this.client.get(KEYS.watch, { timeoutMs: MAX_TIMEOUT_MS });
        } catch (e) {
          if (this.finished) return;
          if (e instanceof StoreError && e.code === "DEADLINE_EXCEEDED") continue;
          if (this.stopping) return;
          const message = e instanceof StoreError && e.code === "ABORTED" ? e.message : storeWentAway(this.client.where);
          this.stopping = { message, ...(rankOf(message) !== undefined ? { rank: rankOf(message)! } : {}) };
          this.stopProcesses("SIGTERM");
          this.checkAllExited();
          return;
        }
      }
    };
    void loop();
  }

  private signalled(signal: NodeJS.Signals): void {
    if (this.finished) return;
    const last = this.p.firstRank + this.p.nproc - 1;
    const ranks = last === this.p.firstRank ? `rank ${last}` : `ranks ${this.p.firstRank}–${last}`;
    if (!this.stopping) this.stopping = { message: `stopped by ${signal} (forwarded to ${ranks})`, signal };
    // Forwarded every time: a second Ctrl+C asks a trainer to quit without finishing its step.
    this.stopProcesses(signal);
  }

  /** Sends `signal` to every running process (its group); SIGKILL follows after the grace period. */
  private stopProcesses(signal: NodeJS.Signals): void {
    for (const c of this.children) if (!c.exited) killGroup(c.process, signal);
    this.killTimer ??= setTimeout(() => {
      // Also the groups of processes that exited, for anything they started that outlived them.
      for (const c of this.children) killGroup(c.process, "SIGKILL");
    }, this.p.grace);
  }

  private checkAllExited(): void {
    if (this.finished || this.children.length < this.p.nproc || this.children.some((c) => !c.exited)) return;
    this.finished = true;
    void this.finish();
  }

  private async finish(): Promise<void> {
    clearTimeout(this.killTimer);
    for (const s of ["SIGTERM", "SIGINT"] as const) process.off(s, this.onSignal);
    // The output a process wrote before it exited is relayed before the result (a grandchild holding the
    // pipes open is not waited for).
    let cap: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.children.flatMap((c) => c.output)), new Promise((r) => (cap = setTimeout(r, 2000)))]);
    clearTimeout(cap);
    await this.aborting;
    let stop = this.stopping;
    if (!stop) stop = await this.allSucceeded();
    else if (stop.signal && this.p.numNodes > 1 && !stop.rank) {
      // The other nodes' processes would wait for these forever: stop them too.
      await this.client.abort(this.p.firstRank, `its launcher (node ${this.p.nodeRank}) was stopped by ${stop.signal}`).catch(() => {});
    }
    await this.shutdown();
    if (!stop) this.settle.resolve();
    else {
      const details: { rank?: number; signal?: NodeJS.Signals } = {};
      if (stop.rank !== undefined) details.rank = stop.rank;
      if (stop.signal) details.signal = stop.signal;
      this.settle.reject(new LaunchError(stop.message, details));
    }
  }

  /** This node's processes all exited 0: node 0 waits for the other nodes before it stops serving the store. */
  private async allSucceeded(): Promise<{ message: string; rank?: number } | undefined> {
    try {
      await this.client.put(KEYS.done(this.p.nodeRank), "1");
      if (this.p.nodeRank !== 0) return undefined;
      for (let n = 1; n < this.p.numNodes; n++)
        for (;;) {
          try {
            await this.client.get(KEYS.done(n), { timeoutMs: MAX_TIMEOUT_MS });
            break;
          } catch (e) {
            if (!(e instanceof StoreError && e.code === "DEADLINE_EXCEEDED")) throw e;
          }
        }
      return undefined;
    } catch (e) {
      const message = (e as Error).message;
      return { message, ...(rankOf(message) !== undefined ? { rank: rankOf(message)! } : {}) };
    }
  }
}

function rankOf(message: string): number | undefined {
  const m = /^rank (\d+) failed/.exec(message);
  return m ? Number(m[1]) : undefined;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** The exit status a launcher stopped by `signal` reports (128 + the signal's number, as shells do). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 0);
}
