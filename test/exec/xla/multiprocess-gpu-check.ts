// The many-process check on a machine with the CUDA plugin (jax-cuda*-pjrt) and a GPU, run by
// scripts/device/multiprocess-gpu.sh (not part of `npm test`): a coordination store on 127.0.0.1 and two
// Kiln processes with node_id 0 and 1 that share the GPU. Each creates its client with node_id/num_nodes
// and PJRT's key-value callbacks (the plugin exchanges its topology through the store), compiles an
// all_reduce for the 2 global devices (compileGlobal) and runs it on its own device; XLA's NCCL does the
// sum. It prints one JSON line: what each process reached, the all_reduce's result against the expected
// sum, and the store keys the plugin used.
//
//   node dist/test/exec/xla/multiprocess-gpu-check.js [--timeout-s 120]
//
// Two phases, each two fresh processes: "nccl" (XLA's real NCCL; NCCL may refuse two ranks on one GPU,
// and the line then says so) and "mock-nccl" (enable_mock_nccl: client creation, the topology exchange
// through the store, compilation and launch run, with no real exchange, so its sum is not checked).
// A child process runs with --node-id N --port P [--mock-nccl].
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as k from "../../../src/index.js";
import { allReduceSum } from "../../../src/distribute/collectives.js";
import { createXlaExecutor } from "../../../src/exec/xla/index.js";
import type { StoreRequest } from "../../../src/io/store-wire.js";
import { StoreServer } from "../../../src/launch/store-server.js";

const NUM_NODES = 2;
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const value = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : fallback);

/** Node n's input to the all_reduce; the expected result is their sum. */
const inputOf = (n: number) => Float32Array.from([1, 2, 3, 4], (v) => v * (n + 1));
const expected = Array.from(inputOf(0), (_, i) => Array.from({ length: NUM_NODES }, (_, n) => inputOf(n)[i]!).reduce((a, b) => a + b));

async function child(nodeId: number, port: number, mockNccl: boolean): Promise<void> {
  const report: Record<string, unknown> = { nodeId, stage: "start" };
  const say = () => process.stdout.write(JSON.stringify(report) + "\n");
  try {
    const t0 = performance.now();
    const xla = createXlaExecutor({
      distributed: { nodeId, numNodes: NUM_NODES, coordinator: { host: "127.0.0.1", port } },
      // Both processes use GPU 0 (the machine has one; the plugin numbers the global devices 0 and 1),
      // so neither may take 75% of its memory up front as Kiln's CUDA defaults do.
      clientOptions: { visible_devices: [0], preallocate: false, ...(mockNccl ? { enable_mock_nccl: true } : {}) },
    });
    report.stage = "client";
    report.clientMs = Math.round(performance.now() - t0);
    report.plugin = xla.plugin.path;
    report.apiVersion = `${xla.apiVersion.major}.${xla.apiVersion.minor}`;
    report.processIndex = xla.processIndex();
    report.localDevices = xla.devices().map((d) => d.id);
    report.globalDeviceIds = xla.globalDeviceIds();
    const ref = k.refExecutor.devices()[0]!;
    const program = k
      .jit((x: k.Array) => allReduceSum(x), { name: "all_reduce_across_processes", device: ref })
      .lower(k.array(new Float32Array(4), { shape: [4], device: ref }));
    const exe = xla.compileGlobal(program);
    report.stage = "compiled";
    report.localReplicas = exe.localReplicas;
    const t1 = performance.now();
    const [[out]] = exe.execute([[xla.fromHost(inputOf(nodeId), { shape: [4], dtype: "f32" }, xla.devices()[0])]]);
    report.result = Array.from((await out!.toHost()) as Float32Array);
    report.stage = "executed";
    report.executeMs = Math.round(performance.now() - t1);
    xla.close();
    report.stage = "closed";
  } catch (e) {
    report.error = (e as Error).message;
  }
  say();
}

/** One phase: a store and two processes; what each reached, and the store traffic. */
async function phase(mockNccl: boolean, timeoutS: number) {
  const requests: StoreRequest[] = [];
  const store = await StoreServer.start({ host: "127.0.0.1", onRequest: (r) => requests.push(r) });
  const self = fileURLToPath(import.meta.url);
  const t0 = performance.now();
  const runs = Array.from(
    { length: NUM_NODES },
    (_, n) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const args = [self, "--node-id", String(n), "--port", String(store.port), ...(mockNccl ? ["--mock-nccl"] : [])];
        const c = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutS * 1000 });
        let out = "",
          err = "";
        c.stdout.on("data", (b: Buffer) => (out += b));
        c.stderr.on("data", (b: Buffer) => (err += b));
        c.on("close", (code, signal) => {
          const last = out.trim().split("\n").pop() ?? "";
          let r: Record<string, unknown>;
          try {
            r = JSON.parse(last) as Record<string, unknown>;
          } catch {
            r = { nodeId: n, stage: "no report" };
          }
          if (code !== 0 || signal) r.exit = signal ? `killed (${signal}): a crash, or still running after ${timeoutS} s` : code;
          if (r.stage !== "closed") r.stderrTail = err.slice(-1500);
          resolve(r);
        });
      }),
  );
  const processes = await Promise.all(runs);
  await store.close();
  const storeTraffic = [...new Set(requests.map((r) => `${r.op} ${"key" in r ? r.key : ""}`))];
  const sumsMatch = processes.every((p) => JSON.stringify(p.result) === JSON.stringify(expected));
  const ok = processes.every((p) => p.stage === "closed") && (mockNccl || sumsMatch);
  return { ok, sumsMatch, seconds: Math.round((performance.now() - t0) / 100) / 10, storeTraffic, processes };
}

async function parent(): Promise<void> {
  const timeoutS = Number(value("--timeout-s", "120"));
  const nccl = await phase(false, timeoutS);
  const mock = await phase(true, timeoutS);
  const line = {
    check: "kiln multi-process XLA: 2 processes (node_id 0/1) sharing one GPU, all_reduce compiled for the 2 global devices",
    ok: nccl.ok || mock.ok,
    expected,
    phases: { nccl, "mock-nccl": mock },
  };
  process.stdout.write(JSON.stringify(line) + "\n");
}

if (flag("--node-id")) await child(Number(value("--node-id", "0")), Number(value("--port", "0")), flag("--mock-nccl"));
else await parent();
