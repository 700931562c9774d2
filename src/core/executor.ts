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

/**
 * What an executor can do, for the code that chooses or feeds one (placement, loops, device lists):
 * it asks these instead of naming executors.
 */
export interface ExecutorAbilities {
  /** The platforms this kind of executor runs on (this one's is `Executor.platform`). */
  readonly platforms: readonly Platform[];
  /**
   * Every device reads the others' buffers in place (one host memory: ONNX Runtime's virtual CPU
   * devices), so a value the replicas share is not copied to each device.
   */
  readonly sharesHostMemory: boolean;
  /**
   * How a loop of steps (generation's decode loop) runs fastest: "scan", one loop primitive, or
   * "unrolled", the steps traced one after another (ONNX Runtime's Scan copies the carried state every step).
   */
  readonly loopForm: "scan" | "unrolled";
  /**
   * Weights that do not change between runs (generation's) are best compiled into the program as
   * constants, up to this many bytes of them: ONNX Runtime packs a constant matrix operand once per
   * session instead of on every run. Absent: they stay inputs.
   */
  readonly constantWeightBytes?: number;
  /**
   * bf16/f16 arithmetic is computed in f32 and rounded after every op (no 16-bit kernels), so a 16-bit
   * precision is always slower than f32 here: choosing by measurement leaves it out unless asked for.
   */
  readonly emulatesNarrowFloats?: boolean;
  /**
   * The reference interpreter, which every other executor is checked against: never the one a run
   * picks, nor listed among the devices a run could use.
   */
  readonly reference: boolean;
}

/** What runs compiled programs on devices: ONNX Runtime (cpu), XLA through a PJRT plugin, or the reference interpreter. */
export interface Executor {
  /** Short name: "ref", "ort", "xla". */
  readonly name: string;
  readonly platform: Platform;
  readonly abilities: ExecutorAbilities;
  devices(): readonly Device[];
  compile(program: Program, options?: CompileOptions): Executable;
  /** Copies host data to a device (the data may be referenced until the buffer is ready). */
  fromHost(data: HostArray, aval: AVal, device?: Device): DeviceBuffer;
  /** One-line description for `kiln devices` (versions, threads). */
  describe(): string;
  /** Adds devices up to `n`, where they are virtual (ONNX Runtime's); absent where the count is fixed when made. */
  setDeviceCount?(n: number): void;
  /**
   * Compiles a program whose replicas span every device of every process of the client (XLA clients
   * made for several processes: all_reduce sums across processes); absent where devices are this process's only.
   */
  compileGlobal?(program: Program, options?: { readonly donate?: readonly boolean[] }): Executable;
}
