// The run worker: a thread that calls OrtRun for each submitted run, in order, so that a long training
// step never blocks the JS thread (timers, progress bars and signals keep working). It owns nothing:
// sessions, tensors and memory are created and released by the JS thread.
import { parentPort, workerData } from "node:worker_threads";
import { ortApi } from "./ort-api.js";
import { flushDenormalsOnThisThread } from "./flush-denormals.js";
import {
  DONE,
  FAILED_LEN,
  FAILED_SEQ,
  FAILURE_COUNT,
  FAILURES,
  MESSAGE_BYTES,
  type DoneMessage,
  type RunMessage,
  type WorkerData,
} from "./run-protocol.js";

const api = ortApi();
// This thread computes a share of every kernel of every run, beside the pool's threads, so it flushes
// denormals as they do (flush-denormals.ts).
flushDenormalsOnThisThread();
const { state: stateBuffer, errorText: errorBuffer } = workerData as WorkerData;
const state = new Int32Array(stateBuffer);
const errorText = new Uint8Array(errorBuffer);
/** Allocations written by failed runs (their contents are garbage), with the failure's message. */
const poisoned = new Map<number, string>();

function execute(m: RunMessage): string | undefined {
  for (const id of m.inputAllocs) {
    const cause = poisoned.get(id);
    if (cause) return `${m.label}: an input was computed by a run that failed: ${cause}`;
  }
  const status = api.run(m.session, m.inputNames, m.inputs, m.outputNames, m.outputs);
  if (!status) return undefined;
  const message = api.errorMessage(status);
  api.releaseStatus(status);
  return `ONNX Runtime failed to run ${m.label}: ${message}`;
}

parentPort!.on("message", (m: RunMessage) => {
  let error: string | undefined;
  try {
    error = execute(m);
  } catch (e) {
    error = `${m.label}: ${(e as Error).message}`;
  }
  if (error) {
    for (const id of m.outputAllocs) poisoned.set(id, error);
    const count = Atomics.load(state, FAILURE_COUNT),
      slot = count % FAILURES;
    const bytes = new TextEncoder().encode(error).subarray(0, MESSAGE_BYTES);
    errorText.set(bytes, slot * MESSAGE_BYTES);
    Atomics.store(state, FAILED_LEN + slot, bytes.length);
    Atomics.store(state, FAILED_SEQ + slot, m.seq);
    Atomics.store(state, FAILURE_COUNT, count + 1);
  }
  Atomics.store(state, DONE, m.seq);
  Atomics.notify(state, DONE);
  parentPort!.postMessage({ seq: m.seq, error } satisfies DoneMessage);
});
