// `kiln launch`: runs a command as N cooperating processes per node (torchrun's shape). Flags come first;
// the command starts at `--` or at the first word that is not a flag; `kiln` (or a kiln command name
// alone, e.g. `train`) means this very CLI.
import { fileURLToPath } from "node:url";
import { UsageError, intFlag, numberFlag, parseFlags } from "../args.js";
import {
  LaunchError,
  parseHostPort,
  ProcessEnvError,
  signalExitCode,
  superviseProcesses,
  type SuperviseOptions,
} from "../../launch/index.js";
import type { Command } from "./types.js";

const HELP = `Usage: kiln launch --nproc-per-node N [--nnodes M --node-rank R --coordinator HOST:PORT] [--] COMMAND ARGS…

Runs COMMAND as N processes on this node, each told its place in the run by environment variables:
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
launcher exits 128 + the signal's number once they have exited.

  --nproc-per-node N      processes on this node (required)
  --nnodes M              nodes in the run (default 1)
  --node-rank R           this node's index, 0 … M-1 (default 0)
  --coordinator HOST:PORT where node 0 serves the coordination store (default: a free port on 127.0.0.1;
                          required with more than one node)
  --grace-period SECONDS  between SIGTERM and SIGKILL when the run stops (default 30)
  --join-timeout SECONDS  how long to wait for the coordinator and the other nodes (default 120)`;

const FLAGS = {
  "nproc-per-node": { type: "string" },
  nnodes: { type: "string" },
  "node-rank": { type: "string" },
  coordinator: { type: "string" },
  "grace-period": { type: "string" },
  "join-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** Splits the launcher's flags from the command it runs (at `--`, or at the first word that is not a flag or its value). */
function splitCommand(argv: string[]): { flags: string[]; command: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return { flags: argv.slice(0, i), command: argv.slice(i + 1) };
    if (!a.startsWith("-")) return { flags: argv.slice(0, i), command: argv.slice(i) };
    const name = a.replace(/^--?/, "").split("=")[0]!;
    const spec = (FLAGS as Record<string, { type: string }>)[name];
    if (spec?.type === "string" && !a.includes("=")) i++; // its value
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
    const { values, positionals } = parseFlags("launch", split.flags, FLAGS);
    if (values.help) return console.log(HELP);
    const words = [...positionals, ...split.command];
    if (values["nproc-per-node"] === undefined) throw new UsageError(`kiln launch: --nproc-per-node is required\n\n${HELP}`);
    if (words.length === 0) throw new UsageError(`kiln launch: no command to run (give it after the flags, e.g. -- kiln train …)`);
    const { COMMANDS } = await import("./index.js"); // the command table imports this file
    const [first, ...rest] = words as [string, ...string[]];
    const target =
      first === "kiln" ? kilnItself(rest) : COMMANDS.some((c) => c.name === first) ? kilnItself(words) : { command: first, args: rest };
    const options: SuperviseOptions = {
      ...target,
      nprocPerNode: intFlag("nproc-per-node", values["nproc-per-node"], 1, 1),
      numNodes: intFlag("nnodes", values.nnodes, 1, 1),
      nodeRank: intFlag("node-rank", values["node-rank"], 0, 0),
      gracePeriodMs: seconds("grace-period", values["grace-period"], 30),
      joinTimeoutMs: seconds("join-timeout", values["join-timeout"], 120),
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

function seconds(flag: string, value: string | undefined, fallback: number): number {
  const s = numberFlag(flag, value, fallback);
  if (s < 0) throw new UsageError(`--${flag} must be a number of seconds ≥ 0, got "${value}"`);
  return Math.round(s * 1000);
}
