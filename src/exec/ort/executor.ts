// The CPU executor: every program becomes one ONNX graph run by ONNX Runtime's CPU execution provider.
//
// Threads: runs use `threads` intra-op threads (default: every core the process may use, or env
// KILN_CPU_THREADS); sessions with the default count share one process-wide pool, an executor with
// another count gives each session its own pool. Devices: `devices` virtual CPU devices
// cpu:0..N-1 (default 1; option `devices` or env KILN_CPU_DEVICES) for data-parallel replicas, which
// run as copies inside one graph and share the threads.
import type { HostArray } from "../../core/dtype.js";
import { itemSize } from "../../core/dtype.js";
import type { AVal, Program } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import type { CompileOptions, Device, DeviceBuffer, Executable, Executor, ExecutorAbilities } from "../../core/executor.js";
import { sizeOf } from "../../core/shape.js";
import { OrtBuffer } from "./buffer.js";
import { OrtExecutable } from "./executable.js";
import { lowerProgram } from "./lower-program.js";
import { disablePointwiseKernels, pointwiseCompiler, pointwiseLibrary, type PointwiseLibrary } from "./pointwise-library.js";
import { nativeBytes } from "./native-memory.js";
import { ortApi, type Ptr } from "./ort-api.js";
import { defaultThreads, ortRuntime, positiveInt } from "./runtime.js";

/** Options of OrtExecutor: threads and virtual CPU devices. */
export interface OrtExecutorOptions {
  /** Intra-op threads per session (default: env KILN_CPU_THREADS, else every available core). */
  readonly threads?: number;
  /** Virtual CPU devices for replicas (default: env KILN_CPU_DEVICES, else 1). */
  readonly devices?: number;
  /**
   * Record ONNX Runtime's profile of every program compiled (its kernels' times, as JSON) to files
   * whose names start with this path; an executable's `endProfiling()` ends one and returns its file.
   */
  readonly profile?: string;
}

/** The CPU executor: runs programs as ONNX models on ONNX Runtime. */
export class OrtExecutor implements Executor {
  readonly name = "ort";
  readonly platform = "cpu" as const;
  /**
   * The virtual devices are one process's memory; its Scan copies the carried state every step, so steps
   * run unrolled. Weights up to 1 GiB go into the graph as initializers (MatMul and Gemm pack them once
   * per session; a session holds its own copy, and the ONNX protobuf stays well under its 2 GiB limit).
   */
  readonly abilities: ExecutorAbilities = {
    platforms: ["cpu"],
    sharesHostMemory: true,
    loopForm: "unrolled",
    reference: false,
    constantWeightBytes: 1 << 30,
    emulatesNarrowFloats: true,
  };
  private threadCount: number | undefined;
  private deviceList: Device[] | undefined;
  private readonly profile: string | undefined;

  constructor(options: OrtExecutorOptions = {}) {
    this.profile = options.profile;
    if (options.threads !== undefined) this.threadCount = positiveInt("threads", options.threads, 1);
    if (options.devices !== undefined) this.deviceList = this.makeDevices(positiveInt("devices", options.devices, 1));
  }

  private makeDevices(count: number): Device[] {
    return Array.from({ length: count }, (_, index) => ({ id: `cpu:${index}`, platform: "cpu" as const, index, executor: this }));
  }

  /**
   * The virtual devices. As with the threads, KILN_CPU_DEVICES is read on first use, not when the
   * package is imported, so that a bad value is a command's one-line error instead of an import's stack trace.
   */
  private get devs(): Device[] {
    return (this.deviceList ??= this.makeDevices(positiveInt("KILN_CPU_DEVICES", process.env.KILN_CPU_DEVICES, 1, "use one device")));
  }

  /**
   * Intra-op threads per session. The environment is read on first use, not when the package is
   * imported, so that a bad KILN_CPU_THREADS is reported as a command's error instead of a stack
   * trace from the import.
   */
  get threads(): number {
    return (this.threadCount ??= defaultThreads());
  }

  devices(): readonly Device[] {
    return this.devs;
  }

  /** Adds virtual devices up to `n` (never removes any: arrays may live on them). */
  setDeviceCount(n: number): void {
    for (let index = this.devs.length; index < n; index++) this.devs.push({ id: `cpu:${index}`, platform: "cpu", index, executor: this });
  }

  /** Device buffers of this executor not yet disposed, donated or collected (as the XLA executor's). */
  liveBuffers(): number {
    return ortRuntime().liveBuffers;
  }

  /** Native tensor memory in bytes: `live` held by buffers and queued runs, `pooled` kept for reuse. */
  nativeMemory(): { live: number; pooled: number; allocations: number } {
    const { pool } = ortRuntime();
    return { live: pool.liveBytes, pooled: pool.pooled, allocations: pool.nativeAllocations };
  }

  /** ONNX Runtime's version, from the C API's GetVersionString (loads the library). */
  version(): string {
    return ortRuntime().api.version;
  }

  describe(): string {
    const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
    return (
      `ONNX Runtime ${this.version()} (CPU execution provider; ${ortRuntime().api.library}), ` +
      `${plural(this.threads, "thread")}, ${plural(this.devs.length, "device")}`
    );
  }

  private owns = (b: DeviceBuffer): b is OrtBuffer => b instanceof OrtBuffer && b.device.executor === this;

  fromHost(data: HostArray, aval: AVal, device: Device = this.devs[0]!): DeviceBuffer {
    if (device.executor !== this) throw new Error(`fromHost: device ${device.id} does not belong to the ONNX Runtime executor`);
    const n = sizeOf(aval.shape);
    if (data.length !== n || data.BYTES_PER_ELEMENT !== itemSize(aval.dtype)) {
      throw new Error(`fromHost: a ${data.constructor.name} of ${data.length} elements cannot hold ${fmtAVal(aval)}`);
    }
    const rt = ortRuntime();
    const alloc = rt.pool.acquire(data.byteLength, true);
    nativeBytes(alloc.ptr, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    return new OrtBuffer(aval, device, rt, alloc);
  }

  compile(program: Program, options: CompileOptions = {}): Executable {
    const replicas = options.replicas ?? options.devices?.length ?? 1;
    if (replicas > this.devs.length && !options.devices) {
      throw new Error(
        `${program.name}: ${replicas} replicas need ${replicas} CPU devices, but there are ${this.devs.length} ` +
          `(set KILN_CPU_DEVICES=${replicas} or new OrtExecutor({ devices: ${replicas} }))`,
      );
    }
    const devices = options.devices ?? this.devs.slice(0, replicas);
    if (devices.length !== replicas) throw new Error(`${program.name}: ${replicas} replicas but ${devices.length} devices given`);
    for (const d of devices)
      if (d.executor !== this) throw new Error(`${program.name}: device ${d.id} does not belong to the ONNX Runtime executor`);
    const donate = options.donate ?? program.inputs.map(() => false);

    const rt = ortRuntime();
    // The model's bytes (the weights, where they are compiled in) are not kept once the session holds them.
    let { model, ...lowered } = lowerProgram(program, replicas, rt.api.version, { pointwise: pointwiseCompiler() !== null });
    let library: PointwiseLibrary | undefined;
    if (lowered.pointwise.length || lowered.rowKernels.length) {
      try {
        library = pointwiseLibrary(lowered.pointwise, lowered.rowKernels);
      } catch (e) {
        // A library that cannot be built (a broken compiler, an unwritable cache) costs speed, not the run:
        // the program is lowered again without kernels, and the reason is said once.
        disablePointwiseKernels((e as Error).message);
        ({ model, ...lowered } = lowerProgram(program, replicas, rt.api.version));
      }
    }
    let session: Ptr | undefined;
    if (lowered.outputNames.length) {
      try {
        session = rt.createSession(model, this.threads, { library, profile: this.profile });
      } catch (e) {
        throw new Error(`${program.name}: ${(e as Error).message}`);
      }
    }
    return new OrtExecutable(program, replicas, devices, lowered, session, donate, rt, this.owns);
  }
}

/**
 * The ONNX Runtime executor's discovery: loads ONNX Runtime's library (ortLibraryPath), and says what is
 * missing where it cannot.
 */
export function discoverOnnxRuntime(): string | undefined {
  try {
    ortApi();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** The process's CPU executor (registered first by the package entry: cpu:0 is the default device). */
export const ortExecutor = new OrtExecutor();
