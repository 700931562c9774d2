// What the JS thread and the run worker share: the layout of the shared state words and the messages.
//
// Runs are numbered from 1 in submission order and the worker runs them in that order, one at a time.
// That order is what makes the executor's memory reuse safe: a buffer released after run n was
// submitted can be written by any later run, because that run starts after run n has finished.
import type { Ptr } from "./ort-api.js";

/** Runs that may be in flight at once (their statuses live in a ring of this size). */
export const RING = 4096;
/** Shared Int32 words: the last finished run, the last failed run, its message length, then statuses. */
export const DONE = 0, FAILED_SEQ = 1, FAILED_LEN = 2, STATUS = 3;
export const STATUS_OK = 1, STATUS_FAILED = 2;
/** Bytes of the shared buffer holding the last failure's message. */
export const ERROR_BYTES = 4096;

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
