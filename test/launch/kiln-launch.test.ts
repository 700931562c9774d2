// `kiln launch` with real processes on 127.0.0.1: scripts that use the coordination store (barrier,
// put/get), rank prefixes, a rank that fails or is killed -9 (the others stopped, one line naming it), a
// hung rank named by the others' barrier timeout, SIGTERM forwarded, a port in use, an unreachable
// coordinator, and two launchers ("nodes") forming one world of 4. Every run is bounded in time.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { freePort } from "../helpers/free-port.js";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchedGlibcTunables } from "../../src/launch/host-malloc-env.js";
import { tempDir } from "../helpers/temp-dir.js";

const main = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const launchLib = new URL("../../src/launch/index.js", import.meta.url).href;
const dir = tempDir("kiln-launch-");

/** A child script: `body` runs with `env` (readProcessEnv()), `store` (connected) and `pidFile(rank)`. */
function script(name: string, body: string): string {
  const path = join(dir, `${name}.mjs`);
  writeFileSync(
    path,
    [
      `import { readProcessEnv, StoreClient } from ${JSON.stringify(launchLib)};`,
      `import { writeFileSync } from "node:fs";`,
      `const env = readProcessEnv();`,
      `const store = await StoreClient.connect(env.coordinator);`,
      `writeFileSync(${JSON.stringify(join(dir, name))} + ".pid." + env.rank, String(process.pid));`,
      body,
    ].join("\n"),
  );
  return path;
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** Runs `kiln launch ARGS`, killing it (and so failing the test) past `limitMs`. */
function kilnLaunch(args: string[], limitMs: number, during?: (pid: number) => void): Promise<Ran> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [main, "launch", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "",
    stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  during?.(child.pid!);
  return new Promise((resolve) =>
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, seconds: (performance.now() - t0) / 1000 });
    }),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const pids = (name: string, ranks: number[]) => ranks.map((r) => Number(readFileSync(join(dir, `${name}.pid.${r}`), "utf8")));

async function waitFor(what: () => boolean, limitMs: number): Promise<void> {
  for (const t0 = Date.now(); !what();) {
    if (Date.now() - t0 > limitMs) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

test(
  "2 processes share the store (put/get, barrier), see their environment, and print behind rank prefixes",
  { timeout: 30_000 },
  async () => {
    const path = script(
      "share",
      `await store.put("hello/" + env.rank, "from " + env.rank);
     await store.barrier("all-here", { rank: env.rank, count: env.worldSize, timeoutMs: 10000 });
     const other = await store.get("hello/" + (1 - env.rank), { timeoutMs: 1000 });
     const e = process.env;
     console.log(["rank", e.KILN_RANK, e.RANK, "of", e.KILN_WORLD_SIZE, e.WORLD_SIZE, "local", e.KILN_LOCAL_RANK, e.LOCAL_RANK,
       e.KILN_LOCAL_WORLD_SIZE, e.LOCAL_WORLD_SIZE, "node", e.KILN_NODE_RANK, e.KILN_NUM_NODES, "store",
       e.KILN_COORDINATOR === e.MASTER_ADDR + ":" + e.MASTER_PORT, env.source, "got", other.toString(),
       "tunables", e.GLIBC_TUNABLES].join(" "));
     console.error("two\\nlines"); process.stdout.write("no newline at the end");
     store.close();`,
    );
    const r = await kilnLaunch(["--nproc-per-node", "2", "--", "node", path], 25_000);
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout.split("\n").filter(Boolean).sort();
    // On Linux the ranks' malloc asks for huge pages (host-malloc-env.ts), after what this process has.
    const tunables = launchedGlibcTunables(process.env.GLIBC_TUNABLES) ?? "";
    assert.deepEqual(out, [
      "[rank 0] no newline at the end",
      `[rank 0] rank 0 0 of 2 2 local 0 0 2 2 node 0 1 store true kiln got from 1 tunables ${tunables}`,
      "[rank 1] no newline at the end",
      `[rank 1] rank 1 1 of 2 2 local 1 1 2 2 node 0 1 store true kiln got from 0 tunables ${tunables}`,
    ]);
    assert.deepEqual(r.stderr.split("\n").filter(Boolean).sort(), ["[rank 0] lines", "[rank 0] two", "[rank 1] lines", "[rank 1] two"]);
  },
);

test("one rank exiting 1 stops the others, and one line names the rank and its exit code", { timeout: 30_000 }, async () => {
  const path = script(
    "exit1",
    `if (env.rank === 1) { await new Promise((r) => setTimeout(r, 300)); process.exit(1); }
     setInterval(() => {}, 1000);`,
  );
  const r = await kilnLaunch(["--nproc-per-node", "3", "--", "node", path], 25_000);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "kiln launch: rank 1 failed: exited with code 1\n");
  assert.ok(r.seconds < 20, `took ${r.seconds} s`);
  for (const pid of pids("exit1", [0, 2])) assert.equal(alive(pid), false, `pid ${pid} still runs`);
});

test(
  "kill -9 of one rank stops the others within 60 s, SIGKILL after the grace period for one that ignores SIGTERM",
  { timeout: 90_000 },
  async () => {
    const path = script(
      "kill9",
      `process.on("SIGTERM", () => console.log("ignoring SIGTERM"));
     console.log("started");
     setInterval(() => {}, 1000);`,
    );
    const r = await kilnLaunch(["--nproc-per-node", "3", "--grace-period", "2", "--", "node", path], 80_000, () => {
      void waitFor(() => [0, 1, 2].every((i) => existsSync(join(dir, `kill9.pid.${i}`))), 20_000).then(() => {
        setTimeout(() => process.kill(pids("kill9", [1])[0]!, "SIGKILL"), 200);
      });
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, "kiln launch: rank 1 failed: killed by SIGKILL\n");
    assert.ok(r.seconds < 60, `took ${r.seconds} s`);
    assert.match(r.stdout, /\[rank 0\] ignoring SIGTERM/);
    for (const pid of pids("kill9", [0, 2])) assert.equal(alive(pid), false, `pid ${pid} still runs`);
  },
);

test("a hung rank is named by the others' barrier timeout, and the whole run stops", { timeout: 30_000 }, async () => {
  const path = script(
    "hung",
    `if (env.rank === 2) setInterval(() => {}, 1000); // never arrives
     else await store.barrier("step-1", { rank: env.rank, count: env.worldSize, timeoutMs: 1500 });`,
  );
  const r = await kilnLaunch(["--nproc-per-node", "3", "--grace-period", "5", "--", "node", path], 25_000);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.split("\n").at(-2), 'kiln launch: rank 2 failed: did not arrive at barrier "step-1" within 1.5 s');
  assert.equal(alive(pids("hung", [2])[0]!), false);
});

test(
  "SIGTERM to the launcher is forwarded to every process, which can finish its work; the launcher exits 143",
  { timeout: 30_000 },
  async () => {
    const path = script(
      "term",
      `process.on("SIGTERM", () => { console.log("saving a checkpoint"); setTimeout(() => process.exit(0), 200); });
     console.log("started");
     setInterval(() => {}, 1000);`,
    );
    const r = await kilnLaunch(["--nproc-per-node", "2", "--", "node", path], 25_000, (pid) => {
      void waitFor(() => [0, 1].every((i) => existsSync(join(dir, `term.pid.${i}`))), 20_000).then(() =>
        setTimeout(() => process.kill(pid, "SIGTERM"), 200),
      );
    });
    assert.equal(r.code, 143, r.stderr);
    assert.equal(r.stderr, "kiln launch: stopped by SIGTERM (forwarded to ranks 0–1)\n");
    assert.deepEqual(
      r.stdout
        .split("\n")
        .filter((l) => l.includes("checkpoint"))
        .sort(),
      ["[rank 0] saving a checkpoint", "[rank 1] saving a checkpoint"],
    );
  },
);

test("a coordinator port in use is refused with one line", { timeout: 20_000 }, async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
  const port = (busy.address() as { port: number }).port;
  try {
    const r = await kilnLaunch(["--nproc-per-node", "2", "--coordinator", `127.0.0.1:${port}`, "--", "node", "-e", "1"], 15_000);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      `kiln launch: cannot serve the coordination store on 127.0.0.1:${port}: the port is in use (another run's store, or another ` +
        `program): give --coordinator another port, or stop what listens there\n`,
    );
    assert.equal(r.stdout, "");
  } finally {
    busy.close();
  }
});

test(
  "an unreachable coordinator is retried for --join-timeout, then refused with one line naming host:port",
  { timeout: 20_000 },
  async () => {
    const port = await freePort();
    const args = [
      "--nproc-per-node",
      "1",
      "--nnodes",
      "2",
      "--node-rank",
      "1",
      "--coordinator",
      `127.0.0.1:${port}`,
      "--join-timeout",
      "1",
    ];
    const r = await kilnLaunch([...args, "--", "node", "-e", "1"], 15_000);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`^kiln launch: cannot reach the coordination store at 127\\.0\\.0\\.1:${port} within 1 s \\(ECONNREFUSED\\)`),
    );
  },
);

test("two launchers (--nnodes 2, --node-rank 0 and 1, one --coordinator) form one world of 4", { timeout: 40_000 }, async () => {
  const path = script(
    "nodes",
    `await store.put("where/" + env.rank, env.nodeRank + "/" + env.localRank);
     await store.barrier("world", { rank: env.rank, count: env.worldSize, timeoutMs: 20000 });
     const all = [];
     for (let r = 0; r < env.worldSize; r++) all.push((await store.get("where/" + r, { timeoutMs: 1000 })).toString());
     console.log("world " + env.worldSize + " nodes " + env.numNodes + ": " + all.join(" "));
     store.close();`,
  );
  const coordinator = `127.0.0.1:${await freePort()}`;
  const node = (rank: number) =>
    kilnLaunch(["--nproc-per-node", "2", "--nnodes", "2", "--node-rank", `${rank}`, "--coordinator", coordinator, "node", path], 35_000);
  // Node 1 starts first: it waits for node 0's store.
  const one = node(1);
  await new Promise((r) => setTimeout(r, 300));
  const [zero, first] = await Promise.all([node(0), one]);
  for (const r of [zero, first]) assert.equal(r.code, 0, r.stderr);
  const line = "world 4 nodes 2: 0/0 0/1 1/0 1/1";
  assert.deepEqual(zero.stdout.split("\n").filter(Boolean).sort(), [`[rank 0] ${line}`, `[rank 1] ${line}`]);
  assert.deepEqual(first.stdout.split("\n").filter(Boolean).sort(), [`[rank 2] ${line}`, `[rank 3] ${line}`]);
});

test("a failure on one node stops the processes of the other, and both launchers name it", { timeout: 40_000 }, async () => {
  const path = script("nodefail", `if (env.rank === 3) setTimeout(() => process.exit(7), 500); setInterval(() => {}, 1000);`);
  const coordinator = `127.0.0.1:${await freePort()}`;
  const node = (rank: number) =>
    kilnLaunch(["--nproc-per-node", "2", "--nnodes", "2", "--node-rank", `${rank}`, "--coordinator", coordinator, "node", path], 35_000);
  const [zero, one] = await Promise.all([node(0), node(1)]);
  for (const r of [zero, one]) {
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "kiln launch: rank 3 failed: exited with code 7\n");
  }
  for (const pid of pids("nodefail", [0, 1, 2])) assert.equal(alive(pid), false);
});

test("launchers whose settings differ are refused, naming the node and the setting", { timeout: 30_000 }, async () => {
  const coordinator = `127.0.0.1:${await freePort()}`;
  const node = (rank: number, nproc: number) =>
    kilnLaunch(
      [
        "--nproc-per-node",
        `${nproc}`,
        "--nnodes",
        "2",
        "--node-rank",
        `${rank}`,
        "--coordinator",
        coordinator,
        "--join-timeout",
        "10",
        "node",
        "-e",
        "1",
      ],
      25_000,
    );
  const zero = node(0, 2);
  await new Promise((r) => setTimeout(r, 300));
  const one = await node(1, 3);
  const message =
    "kiln launch: rank 3 failed: its launcher (node 1) was started with nprocPerNode 3, node 0's with 2: give every node the same";
  assert.equal(one.code, 1);
  assert.equal(one.stderr, `${message}\n`);
  const z = await zero;
  assert.notEqual(z.code, 0);
  assert.match(z.stderr, /rank 3 failed: its launcher \(node 1\) was started with nprocPerNode 3/);
});

test("`kiln` and a kiln command name run this kiln in every process", { timeout: 30_000 }, async () => {
  const version = await kilnLaunch(["--nproc-per-node", "2", "--", "kiln", "--version"], 25_000);
  assert.equal(version.code, 0, version.stderr);
  const lines = version.stdout.split("\n").filter(Boolean).sort();
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^\[rank 0\] \S+/);
  assert.equal(lines[0]!.slice(9), lines[1]!.slice(9));
  const help = await kilnLaunch(["--nproc-per-node", "1", "tokenizer", "--help"], 25_000);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^\[rank 0\] Usage: kiln tokenizer/m);
});

test("bad flags are refused before anything starts", { timeout: 20_000 }, async () => {
  const cases: [string[], RegExp][] = [
    [["node", "-e", "1"], /--nproc-per-node is required/],
    [["--nproc-per-node", "0", "node"], /--nproc-per-node must be an integer ≥ 1, got "0"/],
    [["--nproc-per-node", "2"], /no command to run/],
    [["--nproc-per-node", "2", "--nnodes", "2", "node"], /--nnodes 2 needs --coordinator HOST:PORT/],
    [["--nproc-per-node", "2", "--coordinator", "localhost", "node"], /--coordinator "localhost" must be HOST:PORT/],
    [["--nproc-per-node", "2", "--nnodes", "2", "--node-rank", "2", "--coordinator", "h:1", "node"], /--node-rank 2 must be below/],
  ];
  for (const [args, expected] of cases) {
    const r = await kilnLaunch(args, 10_000);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, expected);
  }
});

test(
  "when node 0's launcher dies, the other node stops its processes and says the coordinator went away",
  { timeout: 40_000 },
  async () => {
    // A process that joined the run with joinRun() exits by itself when its launcher is gone.
    const path = script(
      "lost",
      `const { joinRun } = await import(${JSON.stringify(launchLib)}); await joinRun(); setInterval(() => {}, 1000);`,
    );
    const coordinator = `127.0.0.1:${await freePort()}`;
    const node = (rank: number, during?: (pid: number) => void) =>
      kilnLaunch(
        [
          "--nproc-per-node",
          "1",
          "--nnodes",
          "2",
          "--node-rank",
          `${rank}`,
          "--coordinator",
          coordinator,
          "--grace-period",
          "2",
          "node",
          path,
        ],
        35_000,
        during,
      );
    const started = () => [0, 1].every((i) => existsSync(join(dir, `lost.pid.${i}`)));
    const zero = node(0, (pid) => void waitFor(started, 20_000).then(() => process.kill(pid, "SIGKILL")));
    const one = await node(1);
    await zero;
    // Node 0's launcher, killed -9, could not stop its rank: the rank saw the store go and exited.
    const orphan = pids("lost", [0])[0]!;
    const exitedAlone = await waitFor(() => !alive(orphan), 10_000).then(
      () => true,
      () => (process.kill(orphan, "SIGKILL"), false),
    );
    assert.equal(one.code, 1);
    assert.equal(
      one.stderr.split("\n").at(-2),
      `kiln launch: the coordination store at ${coordinator} went away (node 0's launcher stopped): this node's processes were stopped`,
    );
    assert.equal(alive(pids("lost", [1])[0]!), false);
    assert.ok(exitedAlone, "node 0's rank outlived its launcher by 10 s");
  },
);

test(
  "SIGTERM to one node's launcher stops that node's processes, then the other node's, naming the signal",
  { timeout: 40_000 },
  async () => {
    const path = script("nodeterm", `setInterval(() => {}, 1000);`);
    const coordinator = `127.0.0.1:${await freePort()}`;
    const node = (rank: number, during?: (pid: number) => void) =>
      kilnLaunch(
        [
          "--nproc-per-node",
          "1",
          "--nnodes",
          "2",
          "--node-rank",
          `${rank}`,
          "--coordinator",
          coordinator,
          "--grace-period",
          "2",
          "node",
          path,
        ],
        35_000,
        during,
      );
    const started = () => [0, 1].every((i) => existsSync(join(dir, `nodeterm.pid.${i}`)));
    const [zero, one] = await Promise.all([
      node(0),
      node(1, (pid) => void waitFor(started, 20_000).then(() => process.kill(pid, "SIGTERM"))),
    ]);
    assert.equal(one.code, 143);
    assert.equal(one.stderr, "kiln launch: stopped by SIGTERM (forwarded to rank 1)\n");
    assert.equal(zero.code, 1);
    assert.equal(zero.stderr, "kiln launch: rank 1 failed: its launcher (node 1) was stopped by SIGTERM\n");
    for (const pid of pids("nodeterm", [0, 1])) assert.equal(alive(pid), false);
  },
);

test("a program that cannot be started fails the run with one line naming it", { timeout: 20_000 }, async () => {
  const r = await kilnLaunch(["--nproc-per-node", "2", "--", "no-such-program-for-kiln", "x"], 15_000);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^kiln launch: rank [01] failed: could not be started: no-such-program-for-kiln was not found \(give a path, or a program on PATH\)\n$/,
  );
});
