// One contender process of the device check, driven over bench/peers/gpu_worker.py's line protocol: a
// request is one JSON line on its stdin, the answer the next JSON line on its stdout that names the worker.
// A process that exits, or does not answer in time, fails the request with the tail of its stderr.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

export type Answer = Record<string, unknown>;

export class WorkerProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly answers: Answer[] = [];
  private waiting: ((a: Answer | Error) => void) | undefined;
  private stderr = "";
  private exited: string | undefined;

  constructor(
    readonly name: string,
    command: string,
    args: readonly string[],
    env: Record<string, string | undefined>,
  ) {
    this.child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      let a: Answer;
      try {
        a = JSON.parse(line) as Answer;
      } catch {
        return;
      }
      if (!("worker" in a)) return;
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w(a);
      } else this.answers.push(a);
    });
    this.child.on("error", (e) => this.fail(`could not start ${command}: ${e.message}`));
    this.child.on("exit", (code, signal) => this.fail(`exited (${signal ?? `code ${code}`})`));
  }

  private fail(why: string): void {
    this.exited ??= why;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w(new Error(`${this.name} ${why}; its stderr ends:\n${this.stderr.slice(-1500)}`));
    }
  }

  /** The next answer (the ready line first), within `timeoutMs`. */
  next(timeoutMs: number): Promise<Answer> {
    const queued = this.answers.shift();
    if (queued) return Promise.resolve(queued);
    if (this.exited) return Promise.reject(new Error(`${this.name} ${this.exited}; its stderr ends:\n${this.stderr.slice(-1500)}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(
          new Error(`${this.name} did not answer within ${Math.round(timeoutMs / 1000)} s; its stderr ends:\n${this.stderr.slice(-1500)}`),
        );
      }, timeoutMs);
      this.waiting = (a) => {
        clearTimeout(timer);
        if (a instanceof Error) reject(a);
        else resolve(a);
      };
    });
  }

  /** Sends one request and waits for its answer. */
  request(req: Record<string, unknown>, timeoutMs: number): Promise<Answer> {
    if (!this.exited) this.child.stdin.write(JSON.stringify(req) + "\n");
    return this.next(timeoutMs);
  }

  /** Asks it to exit, and kills it if it has not within a few seconds. */
  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.stdin.end();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.child.kill("SIGKILL");
        resolve();
      }, 5000);
      this.child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
