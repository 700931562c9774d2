// Runs the coordination store of coordination-store.ts on a worker thread, for tests whose JS main
// thread blocks in native calls (a store on that thread's event loop could not answer then).
import { parentPort, Worker, workerData } from "node:worker_threads";
import type { StoreRequest } from "../../src/exec/xla/distributed/store-wire.js";
import { serveCoordinationStore } from "./coordination-store.js";

const ROLE = "kiln-coordination-store";

export interface StoreInWorker {
  readonly port: number;
  /** The requests received so far, per connection number. */
  log(): Promise<{ connection: number; request: StoreRequest }[]>;
  close(): Promise<void>;
}

export async function startStoreInWorker(): Promise<StoreInWorker> {
  const worker = new Worker(new URL(import.meta.url), { workerData: ROLE });
  const next = () => new Promise<any>((resolve, reject) => worker.once("message", resolve).once("error", reject));
  const { port } = (await next()) as { port: number };
  return {
    port,
    log: async () => {
      worker.postMessage("log");
      return (await next()) as { connection: number; request: StoreRequest }[];
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

if (parentPort && workerData === ROLE) {
  const store = await serveCoordinationStore();
  parentPort.on("message", () => parentPort!.postMessage(store.log));
  parentPort.postMessage({ port: store.port });
}
