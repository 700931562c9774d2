// Child processes of the bundle builder: each runs to the end with its output kept, and a failure is an
// error naming the command and ending with what it printed.
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";

const running = new Set();

/** Ends the children still running (a build that failed in one part stops the others). */
export function stopAll() {
  for (const child of running) child.kill();
}

/** Runs `command args`; resolves when it exits 0. `stdoutTo` writes its standard output to that file. */
export function run(command, args, { cwd, stdoutTo } = {}) {
  const fd = stdoutTo ? openSync(stdoutTo, "w") : undefined;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", fd ?? "pipe", "pipe"] });
    running.add(child);
    let out = "";
    const keep = (chunk) => (out = (out + chunk).slice(-4000));
    child.stdout?.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (e) =>
      reject(new Error(`${command}: ${e.code === "ENOENT" ? "not found on PATH (the bundle builder needs it)" : e.message}`)),
    );
    child.on("close", (code, signal) => {
      running.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${out.trim()}`));
    });
  }).finally(() => fd !== undefined && closeSync(fd));
}

/** `xz -6` of `from` into `to`, on every core (the Node binary is about 100 MB). */
export function xz(from, to) {
  return run("xz", ["-6", "-T0", "-c", from], { stdoutTo: to });
}
