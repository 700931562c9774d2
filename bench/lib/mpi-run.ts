// Starting a bench script as N MPI processes on this machine (Open MPI's mpirun, else MPICH's mpiexec),
// one ONNX Runtime thread each, its stdout passed through.
import { spawnSync } from "node:child_process";

function installed(cmd: string): boolean {
  return spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;
}

/** The launcher's argv for n processes. */
export function launcherArgv(n: number): string[] {
  if (installed("mpirun.openmpi"))
    return ["mpirun.openmpi", ...(process.getuid?.() === 0 ? ["--allow-run-as-root"] : []), "--oversubscribe", "-n", String(n)];
  if (installed("mpiexec.mpich")) return ["mpiexec.mpich", "-n", String(n)];
  if (installed("mpirun")) return ["mpirun", "-n", String(n)];
  throw new Error("no MPI launcher found: apt-get install -y openmpi-bin libopenmpi-dev (or mpich libmpich-dev)");
}

/** Runs `node script args` as n processes with `threads` intra-op threads each; returns its stdout. */
export function mpiRunNode(n: number, script: string, args: string[], threads = 1): string {
  const argv = [...launcherArgv(n), process.execPath, script, ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), {
    env: { ...process.env, KILN_CPU_THREADS: String(threads) },
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    timeout: 900_000,
  });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (exit ${r.status ?? r.signal})`);
  return r.stdout;
}
