// A PJRT client and the objects it owns (devices, loaded executables, buffers) as typed calls.
// Handles are the plugin's pointers; whoever receives one destroys it (buffers, executables, events).
import type { DType, HostArray } from "../../../core/dtype.js";
import type { Shape } from "../../../core/shape.js";
import type { PjrtApi } from "./api.js";
import { namedValues, type ClientOptionValue } from "./named-values.js";
import { addressOf, copyBytes, NativeBlock, NativeStruct, readString, readWords } from "./native.js";
import { PjrtError } from "./errors.js";
import { HostBufferSemantics, S } from "./structs.js";

/** PJRT_Buffer_Type of each dtype. */
const BUFFER_TYPE: Record<DType, number> = { bool: 1, i32: 4, i64: 5, u32: 8, f16: 10, f32: 11, f64: 12, bf16: 13 };

/** A device's allocator figures (PJRT_Device_MemoryStats); the optional ones only where the plugin sets them. */
export interface PjrtMemoryStats {
  readonly bytesInUse: number;
  readonly peakBytesInUse?: number;
  readonly bytesLimit?: number;
}

export interface PjrtDeviceInfo {
  readonly handle: bigint;
  /** The global device id (PJRT_DeviceDescription_Id): what device assignments name. */
  readonly id: number;
  /** The vendor's name for the device, e.g. "NVIDIA H100 80GB HBM3". */
  readonly kind: string;
}

export class PjrtClient {
  private constructor(
    private readonly api: PjrtApi,
    readonly handle: bigint,
  ) {}

  /**
   * `kvStore`: the key-value callbacks' addresses (all three, or the plugin runs as one process without
   * saying so: XLA's ToCppKeyValueStore makes no store when one is missing). Their user args stay 0.
   */
  static create(
    api: PjrtApi,
    options: Readonly<Record<string, ClientOptionValue>>,
    kvStore?: { readonly get: bigint; readonly tryGet: bigint; readonly put: bigint },
  ): PjrtClient {
    const { array, keep, count } = namedValues(options);
    try {
      const args = api.call("PJRT_Client_Create", S.Client_Create, (a) => {
        a.set("create_options", array.address).set("num_options", count);
        if (kvStore) a.set("kv_get_callback", kvStore.get).set("kv_try_get_callback", kvStore.tryGet).set("kv_put_callback", kvStore.put);
      });
      const handle = args.pointer("client");
      args.free();
      return new PjrtClient(api, handle);
    } finally {
      array.free();
      keep.forEach((b) => b.free());
    }
  }

  destroy(): void {
    this.api.run("PJRT_Client_Destroy", S.Client_Destroy, (a) => a.set("client", this.handle));
  }

  private string(fn: "PJRT_Client_PlatformName" | "PJRT_Client_PlatformVersion"): string {
    const layout = fn === "PJRT_Client_PlatformName" ? S.Client_PlatformName : S.Client_PlatformVersion;
    const field = fn === "PJRT_Client_PlatformName" ? "platform_name" : "platform_version";
    const args = this.api.call(fn, layout, (a) => a.set("client", this.handle));
    const s = readString(args.pointer(field), args.size(`${field}_size`));
    args.free();
    return s;
  }

  /** "cuda", "rocm", "tpu", "cpu", … */
  platformName(): string {
    return this.string("PJRT_Client_PlatformName");
  }

  /** e.g. the CUDA or libtpu version. */
  platformVersion(): string {
    return this.string("PJRT_Client_PlatformVersion");
  }

  /** This process's index among the client's processes (0 for a client of one process). */
  processIndex(): number {
    const args = this.api.call("PJRT_Client_ProcessIndex", S.Client_ProcessIndex, (a) => a.set("client", this.handle));
    const index = args.int("process_index");
    args.free();
    return index;
  }

  /** The devices this process runs on. */
  devices(): PjrtDeviceInfo[] {
    const args = this.api.call("PJRT_Client_AddressableDevices", S.Client_AddressableDevices, (a) => a.set("client", this.handle));
    const handles = readWords(args.pointer("addressable_devices"), args.size("num_addressable_devices"));
    args.free();
    return handles.map((h) => this.describe(h));
  }

  /** Every device of the computation, this process's and the other processes' (PJRT_Client_Devices). */
  globalDevices(): (PjrtDeviceInfo & { readonly processIndex: number })[] {
    const args = this.api.call("PJRT_Client_Devices", S.Client_Devices, (a) => a.set("client", this.handle));
    const handles = readWords(args.pointer("devices"), args.size("num_devices"));
    args.free();
    return handles.map((h) => {
      const info = this.describe(h);
      const p = this.api.call("PJRT_DeviceDescription_ProcessIndex", S.DeviceDescription_ProcessIndex, (a) =>
        a.set("device_description", info.description),
      );
      const processIndex = p.int("process_index");
      p.free();
      return { ...info, processIndex };
    });
  }

  private describe(handle: bigint): PjrtDeviceInfo & { readonly description: bigint } {
    const d = this.api.call("PJRT_Device_GetDescription", S.Device_GetDescription, (a) => a.set("device", handle));
    const description = d.pointer("device_description");
    d.free();
    const idArgs = this.api.call("PJRT_DeviceDescription_Id", S.DeviceDescription_Id, (a) => a.set("device_description", description));
    const id = idArgs.int("id");
    idArgs.free();
    const kindArgs = this.api.call("PJRT_DeviceDescription_Kind", S.DeviceDescription_Kind, (a) =>
      a.set("device_description", description),
    );
    const kind = readString(kindArgs.pointer("device_kind"), kindArgs.size("device_kind_size"));
    kindArgs.free();
    return { handle, id, kind, description };
  }

  /**
   * PJRT_Device_MemoryStats: the allocator's bytes in use, and (where the plugin tracks them) the peak in
   * use and the limit. Undefined where the plugin does not implement it (XLA's CPU plugins).
   */
  memoryStats(device: bigint): PjrtMemoryStats | undefined {
    if (!this.api.has("PJRT_Device_MemoryStats")) return undefined;
    let args;
    try {
      args = this.api.call("PJRT_Device_MemoryStats", S.Device_MemoryStats, (a) => a.set("device", device));
    } catch (e) {
      if (e instanceof PjrtError && e.codeName === "UNIMPLEMENTED") return undefined;
      throw e;
    }
    const optional = (field: string) => (args.bool(`${field}_is_set`) ? Number(args.pointer(field)) : undefined);
    try {
      const peak = optional("peak_bytes_in_use"),
        limit = optional("bytes_limit");
      return {
        bytesInUse: Number(args.pointer("bytes_in_use")),
        ...(peak !== undefined ? { peakBytesInUse: peak } : {}),
        ...(limit !== undefined ? { bytesLimit: limit } : {}),
      };
    } finally {
      args.free();
    }
  }

  /** Compiles MLIR text with serialized CompileOptionsProto bytes. */
  compile(mlir: string, compileOptions: Uint8Array): PjrtLoadedExecutable {
    const code = NativeBlock.utf8(mlir),
      format = NativeBlock.utf8("mlir"),
      options = NativeBlock.bytes(compileOptions);
    const program = new NativeStruct(S.Program)
      .set("code", code.address)
      .set("code_size", Buffer.byteLength(mlir))
      .set("format", format.address)
      .set("format_size", 4);
    try {
      const args = this.api.call("PJRT_Client_Compile", S.Client_Compile, (a) =>
        a
          .set("client", this.handle)
          .set("program", program.address)
          .set("compile_options", options.address)
          .set("compile_options_size", compileOptions.length),
      );
      const handle = args.pointer("executable");
      args.free();
      return new PjrtLoadedExecutable(this.api, handle);
    } finally {
      program.free();
      code.free();
      format.free();
      options.free();
    }
  }

  /**
   * Loads an executable that PjrtLoadedExecutable.serialize wrote. Only the same plugin build, on the
   * same kind of devices, can read it (the serialization is not stable across versions).
   */
  deserialize(bytes: Uint8Array): PjrtLoadedExecutable {
    const data = NativeBlock.bytes(bytes);
    try {
      const args = this.api.call("PJRT_Executable_DeserializeAndLoad", S.Executable_DeserializeAndLoad, (a) =>
        a.set("client", this.handle).set("serialized_executable", data.address).set("serialized_executable_size", bytes.length),
      );
      const handle = args.pointer("loaded_executable");
      args.free();
      return new PjrtLoadedExecutable(this.api, handle);
    } finally {
      data.free();
    }
  }

  /**
   * Starts a host-to-device copy. `data` must stay alive and unchanged until `doneWithHost` is ready;
   * `buffer` is usable at once (executions wait for its data).
   */
  bufferFromHost(data: HostArray, dtype: DType, shape: Shape, device: bigint): { buffer: bigint; doneWithHost: bigint } {
    const dims = NativeBlock.words(shape.map((d) => BigInt(d)));
    try {
      const args = this.api.call("PJRT_Client_BufferFromHostBuffer", S.Client_BufferFromHostBuffer, (a) =>
        a
          .set("client", this.handle)
          .set("data", addressOf(data))
          .set("type", BUFFER_TYPE[dtype])
          .set("dims", dims.address)
          .set("num_dims", shape.length)
          .set("host_buffer_semantics", HostBufferSemantics.ImmutableUntilTransferCompletes)
          .set("device", device),
      );
      const result = { buffer: args.pointer("buffer"), doneWithHost: args.pointer("done_with_host_buffer") };
      args.free();
      return result;
    } finally {
      dims.free();
    }
  }
}

export class PjrtLoadedExecutable {
  constructor(
    private readonly api: PjrtApi,
    readonly handle: bigint,
  ) {}

  /** Runs `use` on the PJRT_Executable behind this loaded one, destroyed afterwards. */
  private withExecutable<T>(use: (executable: bigint) => T): T {
    const get = this.api.call("PJRT_LoadedExecutable_GetExecutable", S.LoadedExecutable_GetExecutable, (a) =>
      a.set("loaded_executable", this.handle),
    );
    const executable = get.pointer("executable");
    get.free();
    try {
      return use(executable);
    } finally {
      this.api.run("PJRT_Executable_Destroy", S.Executable_Destroy, (a) => a.set("executable", executable));
    }
  }

  numOutputs(): number {
    return this.withExecutable((executable) => {
      const args = this.api.call("PJRT_Executable_NumOutputs", S.Executable_NumOutputs, (a) => a.set("executable", executable));
      const n = args.size("num_outputs");
      args.free();
      return n;
    });
  }

  /** The plugin's serialization of the compiled executable (PjrtClient.deserialize loads it back). */
  serialize(): Uint8Array {
    return this.withExecutable((executable) => {
      const args = this.api.call("PJRT_Executable_Serialize", S.Executable_Serialize, (a) => a.set("executable", executable));
      try {
        const size = args.size("serialized_bytes_size");
        // A copy: the bytes live only as long as the plugin's serialized_executable.
        return copyBytes(args.pointer("serialized_bytes"), size);
      } finally {
        const deleter = args.pointer("serialized_executable_deleter");
        if (deleter) this.api.callDeleter(deleter, args.pointer("serialized_executable"));
        args.free();
      }
    });
  }

  /** The devices the executable runs on, in the order of Execute's argument and output lists. */
  addressableDevices(): bigint[] {
    const args = this.api.call("PJRT_LoadedExecutable_AddressableDevices", S.LoadedExecutable_AddressableDevices, (a) =>
      a.set("executable", this.handle),
    );
    const devices = readWords(args.pointer("addressable_devices"), args.size("num_addressable_devices"));
    args.free();
    return devices;
  }

  /**
   * Launches one execution: `argLists[d]` are the buffers for the d-th device (in addressableDevices
   * order, or the single `executeDevice`). Returns the output buffers per device and, per device, an
   * event for its completion (0n where the plugin gives none).
   */
  execute(
    argLists: readonly (readonly bigint[])[],
    numOutputs: number,
    executeDevice: bigint | null,
  ): { outputs: bigint[][]; done: bigint[] } {
    const n = argLists.length;
    const lists = argLists.map((l) => NativeBlock.words(l));
    const argumentLists = NativeBlock.words(lists.map((l) => l.address));
    const outs = argLists.map(() => new NativeBlock(8 * numOutputs));
    const outputLists = NativeBlock.words(outs.map((o) => o.address));
    const events = new NativeBlock(8 * n);
    const options = new NativeStruct(S.ExecuteOptions);
    try {
      this.api.run("PJRT_LoadedExecutable_Execute", S.LoadedExecutable_Execute, (a) => {
        a.set("executable", this.handle)
          .set("options", options.address)
          .set("argument_lists", argumentLists.address)
          .set("num_devices", n)
          .set("num_args", argLists[0]?.length ?? 0)
          .set("output_lists", outputLists.address)
          .set("device_complete_events", events.address);
        if (executeDevice) a.set("execute_device", executeDevice);
      });
      return {
        outputs: outs.map((o) => Array.from({ length: numOutputs }, (_, j) => o.word(j))),
        done: Array.from({ length: n }, (_, d) => events.word(d)),
      };
    } finally {
      [...lists, argumentLists, ...outs, outputLists, events].forEach((b) => b.free());
      options.free();
    }
  }

  destroy(): void {
    this.api.run("PJRT_LoadedExecutable_Destroy", S.LoadedExecutable_Destroy, (a) => a.set("executable", this.handle));
  }
}

/** Buffer calls that need no client. */
export class PjrtBuffers {
  constructor(private readonly api: PjrtApi) {}

  /** An event that is ready when the buffer's value exists (or failed to be computed). */
  readyEvent(buffer: bigint): bigint {
    const args = this.api.call("PJRT_Buffer_ReadyEvent", S.Buffer_ReadyEvent, (a) => a.set("buffer", buffer));
    const event = args.pointer("event");
    args.free();
    return event;
  }

  /** Starts copying the buffer into `dst` (which must stay alive until the returned event is ready). */
  toHost(buffer: bigint, dst: ArrayBuffer): bigint {
    const args = this.api.call("PJRT_Buffer_ToHostBuffer", S.Buffer_ToHostBuffer, (a) =>
      a.set("src", buffer).set("dst", addressOf(dst)).set("dst_size", dst.byteLength),
    );
    const event = args.pointer("event");
    args.free();
    return event;
  }

  destroy(buffer: bigint): void {
    this.api.run("PJRT_Buffer_Destroy", S.Buffer_Destroy, (a) => a.set("buffer", buffer));
  }

  /** The platform-dependent address of the buffer's memory (the host address on CPU plugins). */
  unsafePointer(buffer: bigint): bigint {
    const args = this.api.call("PJRT_Buffer_UnsafePointer", S.Buffer_UnsafePointer, (a) => a.set("buffer", buffer));
    const address = args.pointer("buffer_pointer");
    args.free();
    return address;
  }
}
