// What the JS thread and the run worker share: the layout of the shared state words and the messages.
//
// Runs are numbered from 1 in submission order and the worker runs them in that order, one at a time.
// That order is what makes the executor's memory reuse safe: a buffer released after run n was
// submitted can be written by any later run, because that run starts after run n has finished.
import type { Ptr } from "./ort-api.js";

/** Runs that may be queued at once (submitting more waits for the oldest to finish). */
export const MAX_IN_FLIGHT = 4096;
/**
 * Failures are remembered in a ring, so that a run's failure can be read even before the JS thread has
 * processed the worker's messages (e.g. in a loop of synchronous reads): the last FAILURES failures,
 * each with its run number and up to MESSAGE_BYTES of message.
 */
export const FAILURES = 256,
  MESSAGE_BYTES = 2048;
/** Shared Int32 words: the last finished run, failures so far, then per failure slot its run and length. */
export const DONE = 0,
  FAILURE_COUNT = 1,
  FAILED_SEQ = 2,
  FAILED_LEN = FAILED_SEQ + FAILURES,
  STATE_WORDS = FAILED_LEN + FAILURES;

export interface WorkerData {
  readonly state: SharedArrayBuffer;
  readonly errorText: SharedArrayBuffer;
}

export interface RunMessage {
  readonly seq: number;
  /** The program's name, for messages. */
  readonly label: string;
  readonly session: Ptr;
  readonly inputNames: BigUint64Array;
  readonly inputs: BigUint64Array;
  readonly outputNames: BigUint64Array;
  readonly outputs: BigUint64Array;
  /** Allocation ids of the inputs and outputs: a run whose input came from a failed run fails too. */
  readonly inputAllocs: readonly number[];
  readonly outputAllocs: readonly number[];
}

export interface DoneMessage {
  readonly seq: number;
  readonly error?: string;
}
