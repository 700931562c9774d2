// The seam between the engine and the machines: an executor compiles IR programs and owns device
// buffers. The reference interpreter, ONNX Runtime (CPU) and XLA (GPU/TPU) all implement this.
import type { HostArray } from "./dtype.js";
import type { AVal, Program } from "./ir.js";

/** The kind of hardware a device is. */
export type Platform = "cpu" | "gpu" | "tpu";

/** One device of an executor: where arrays live and programs run. */
export interface Device {
  /** Stable name, e.g. "cpu:0", "gpu:1". */
  readonly id: string;
  readonly platform: Platform;
  readonly index: number;
  readonly executor: Executor;
}

/**
 * Memory on a device holding one array. Results of an execution may still be being computed: `ready`
 * settles when the value exists (and rejects with the execution's error).
 */
export interface DeviceBuffer {
  readonly aval: AVal;
  readonly device: Device;
  readonly ready: Promise<void>;
  isReady(): boolean;
  /** The value on the host (a copy or a view the caller must not mutate). */
  toHost(): Promise<HostArray>;
  /** The value on the host now; throws a clear error if it is still being computed and cannot wait. */
  toHostSync(): HostArray;
  dispose(): void;
  readonly disposed: boolean;
}

/** How an executor compiles a program (buffer donation, replicas). */
export interface CompileOptions {
  /** One entry per program input: the executor may reuse that input's memory for an output. */
  readonly donate?: readonly boolean[];
  /** Replicas run the same program on their own inputs; `all_reduce` sums across them. Default 1. */
  readonly replicas?: number;
  /** The devices the replicas run on, in replica order (default: the executor's first devices). */
  readonly devices?: readonly Device[];
}

/** A program compiled by an executor, ready to run on device buffers. */
export interface Executable {
  readonly program: Program;
  readonly replicas: number;
  /**
   * Starts the program; returns output buffers immediately (they settle when done).
   * `args[r][i]` is input i on replica r. Donated inputs must not be used afterwards.
   */
  execute(args: readonly (readonly DeviceBuffer[])[]): DeviceBuffer[][];
  dispose(): void;
}

/** A backend that holds device buffers and compiles and runs programs (ONNX Runtime, XLA, the reference interpreter). */
export interface Executor {
  /** Short name: "ref", "ort", "xla". */
  readonly name: string;
  readonly platform: Platform;
  devices(): readonly Device[];
  compile(program: Program, options?: CompileOptions): Executable;
  /** Copies host data to a device (the data may be referenced until the buffer is ready). */
  fromHost(data: HostArray, aval: AVal, device?: Device): DeviceBuffer;
  /** One-line description for `kiln devices` (versions, threads). */
  describe(): string;
}
