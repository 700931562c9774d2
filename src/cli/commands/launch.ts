// `kiln launch`: runs a command as N cooperating processes per node (torchrun's shape). Flags come first;
// the command starts at `--` or at the first word that is not a flag; `kiln` (or a kiln command name
// alone, e.g. `train`) means this very CLI.
import { fileURLToPath } from "node:url";
import { UsageError } from "../args.js";
import { flagTable, readFlags } from "../flags.js";
import {
  LaunchError,
  parseHostPort,
  ProcessEnvError,
  signalExitCode,
  superviseProcesses,
  type SuperviseOptions,
} from "../../launch/index.js";
import type { Command } from "./types.js";

const FLAGS = flagTable({
  command: "launch",
  usage: "Usage: kiln launch --nproc-per-node N [--nnodes M --node-rank R --coordinator HOST:PORT] [--] COMMAND ARGS…",
  about: `Runs COMMAND as N processes on this node, each told its place in the run by environment variables:
KILN_RANK, KILN_WORLD_SIZE, KILN_LOCAL_RANK, KILN_LOCAL_WORLD_SIZE, KILN_NODE_RANK, KILN_NUM_NODES,
KILN_COORDINATOR (host:port of the coordination store), and torchrun's RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT. Every line a process writes is shown behind "[rank R] ".
COMMAND "kiln …", or a kiln command alone ("train …"), runs this kiln.

Processes that call MPI_Init (kiln train on CPUs, any MPICH program) form one MPI world across every
node: each launcher serves MPICH's process-management interface on 127.0.0.1 (PMI_PORT, PMI_ID,
PMI_RANK, PMI_SIZE, and KILN_MPI=mpich), its key-value space and barrier kept in the coordination store.

Node 0 serves the coordination store; with several nodes, start one launcher per node, each with the
same --nnodes and --coordinator (node 0's address and a free port) and its own --node-rank.

When a process exits non-zero or is killed, every other process on every node is stopped (SIGTERM, then
SIGKILL after the grace period) and the launcher exits 1 with one line naming the rank and the cause.
SIGTERM or SIGINT to the launcher is forwarded to every process (so they can save their work), and the
launcher exits 128 + the signal's number once they have exited.`,
  positionals: "COMMAND ARGS…",
  flags: {
    "nproc-per-node": { type: "int", min: 1, required: true, help: "processes on this node" },
    nnodes: { type: "int", value: "M", min: 1, default: 1, help: "nodes in the run" },
    "node-rank": { type: "int", value: "R", min: 0, default: 0, help: "this node's index, 0 … M-1" },
    coordinator: {
      type: "string",
      value: "HOST:PORT",
      help: "where node 0 serves the coordination store (default: a free port on 127.0.0.1;\nrequired with more than one node)",
    },
    "grace-period": {
      type: "number",
      value: "SECONDS",
      default: 30,
      help: "between SIGTERM and SIGKILL when the run stops",
      check: seconds,
    },
    "join-timeout": {
      type: "number",
      value: "SECONDS",
      default: 120,
      help: "how long to wait for the coordinator and the other nodes",
      check: seconds,
    },
  },
});

/** Splits the launcher's flags from the command it runs (at `--`, or at the first word that is not a flag or its value). */
function splitCommand(argv: string[]): { flags: string[]; command: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return { flags: argv.slice(0, i), command: argv.slice(i + 1) };
    if (!a.startsWith("-")) return { flags: argv.slice(0, i), command: argv.slice(i) };
    const name = a.replace(/^--?/, "").split("=")[0]!;
    const spec = (FLAGS.flags as Record<string, { type: string }>)[name];
    if (spec !== undefined && spec.type !== "bool" && !a.includes("=")) i++; // its value
  }
  return { flags: argv, command: [] };
}

/** The kiln CLI itself: this node, its flags (source maps, …), this main.js. */
function kilnItself(args: string[]): { command: string; args: string[] } {
  const main = fileURLToPath(new URL("../main.js", import.meta.url));
  return { command: process.execPath, args: [...process.execArgv, main, ...args] };
}

export const launchCommand: Command = {
  name: "launch",
  summary: "run a command (kiln train, or any program) as N processes per node, with a coordination store",
  async run(argv) {
    const split = splitCommand(argv);
    const flags = readFlags(FLAGS, split.flags);
    if (!flags) return;
    const { values, positionals } = flags;
    const words = [...positionals, ...split.command];
    if (words.length === 0) throw new UsageError(`kiln launch: no command to run (give it after the flags, e.g. -- kiln train …)`);
    const { COMMANDS } = await import("./index.js"); // the command table imports this file
    const [first, ...rest] = words as [string, ...string[]];
    const target =
      first === "kiln" ? kilnItself(rest) : COMMANDS.some((c) => c.name === first) ? kilnItself(words) : { command: first, args: rest };
    const options: SuperviseOptions = {
      ...target,
      nprocPerNode: values["nproc-per-node"],
      numNodes: values.nnodes,
      nodeRank: values["node-rank"],
      gracePeriodMs: Math.round(values["grace-period"] * 1000),
      joinTimeoutMs: Math.round(values["join-timeout"] * 1000),
    };
    if (values.coordinator !== undefined) {
      try {
        options.coordinator = parseHostPort(values.coordinator, "--coordinator");
      } catch (e) {
        throw new UsageError(`kiln launch: ${(e as ProcessEnvError).message.replace("--coordinator=", "--coordinator ")}`);
      }
    }
    if (options.nodeRank! >= options.numNodes!)
      throw new UsageError(`kiln launch: --node-rank ${options.nodeRank} must be below --nnodes ${options.numNodes} (nodes count from 0)`);
    if (options.numNodes! > 1 && !options.coordinator)
      throw new UsageError(
        `kiln launch: --nnodes ${options.numNodes} needs --coordinator HOST:PORT (node 0's address), the same on every node`,
      );
    try {
      await superviseProcesses(options);
    } catch (e) {
      if (!(e instanceof LaunchError)) throw e;
      if (e.details.refused && e.details.rank === undefined) {
        const fix = /port is in use/.test(e.message) ? ": give --coordinator another port, or stop what listens there" : "";
        throw new UsageError(`kiln launch: ${e.message.replace(/\bcoordinator\b/, "--coordinator")}${fix}`);
      }
      console.error(`kiln launch: ${e.message}`);
      process.exitCode = e.details.signal ? signalExitCode(e.details.signal) : 1;
    }
  },
};

/** A duration flag's check: a number of seconds, not below 0. */
function seconds(s: number): string | undefined {
  return s < 0 ? "must be a number of seconds ≥ 0" : undefined;
}
