// Runs the coordination store (src/launch/store-server.ts) on a worker thread, for tests whose JS main
// thread blocks in native calls (a store on that thread's event loop could not answer then). It records
// every request it receives, with its connection, so that tests can hold the traffic to what they expect.
// Listens on 127.0.0.1 only.
import { parentPort, Worker, workerData } from "node:worker_threads";
import type { StoreRequest } from "../../src/io/store-wire.js";
import { StoreServer } from "../../src/launch/store-server.js";

const ROLE = "kiln-coordination-store";

export interface StoreRequestRecord {
  /** The connection it came on, numbered from 0 in accept order. */
  readonly connection: number;
  readonly request: StoreRequest;
}

export interface StoreInWorker {
  readonly port: number;
  /** The requests received so far, in the order the store took them up. */
  log(): Promise<StoreRequestRecord[]>;
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
      return (await next()) as StoreRequestRecord[];
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

if (parentPort && workerData === ROLE) {
  const log: StoreRequestRecord[] = [];
  const store = await StoreServer.start({ host: "127.0.0.1", onRequest: (request, connection) => log.push({ connection, request }) });
  parentPort.on("message", () => parentPort!.postMessage(log));
  parentPort.postMessage({ port: store.port });
}
