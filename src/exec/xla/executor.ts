// The XLA executor: programs lowered to StableHLO, compiled and run by a PJRT plugin (CUDA GPUs,
// TPUs, and XLA's CPU). Device buffers stay on the device between executions; execute() returns at once.
import { statSync } from "node:fs";
import type { HostArray } from "../../core/dtype.js";
import type { CompileOptions, Device, DeviceBuffer, Executor, ExecutorAbilities, Platform } from "../../core/executor.js";
import type { AVal, Program } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import { sizeOf } from "../../core/shape.js";
import { OptionError } from "../../core/option-error.js";
import { XlaBuffer } from "./buffer.js";
import { discoverPjrtPlugin, type PjrtPluginFound } from "./discovery.js";
import { XlaExecutable } from "./executable.js";
import { PjrtApi } from "./pjrt/api.js";
import { PjrtBuffers, PjrtClient, type PjrtLoadedExecutable, type PjrtMemoryStats } from "./pjrt/client.js";
import { PjrtError } from "./pjrt/errors.js";
import { EventWaiter } from "./pjrt/events.js";
import { DECLARED_API_MINOR } from "./pjrt/structs.js";
import type { AttributeValue, ClientOptionValue } from "./pjrt/named-values.js";
import { compileOptionsProto } from "./proto/compile-options.js";
import { cpuCompileOptions, cpuDotLibrary, type CpuDotLibrary } from "./cpu-dot-library.js";
import { startKvStoreCallbacks, type KvStoreCallbacks } from "./distributed/kv-callbacks.js";
import { distributedCreateOptions, storeKeyPrefix, type DistributedOptions } from "./distributed/options.js";
import { ClientLife, XlaDevice, type XlaRuntime } from "./runtime.js";
import {
  CompilationCache,
  compilationCacheFromEnv,
  type CompilationCacheSettings,
  type CompilationCacheStats,
} from "./compilation-cache.js";
import { lowerToStableHlo } from "./stablehlo/lower.js";
import { hasHalfPrecisionProducts } from "./stablehlo/rules/reduce.js";
import { cpuMemoryReuse, keepFreedHostMemory, REUSING_CPU_CLIENT_OPTIONS } from "./cpu-host-memory.js";

/** Options of an XLA client: CPU device count, PJRT client options, distributed setup. */
export interface XlaClientOptions {
  /** CPU plugins only: how many devices the client makes (PJRT option cpu_device_count; XLA's default is 4). */
  readonly cpuDeviceCount?: number;
  /** PJRT_Client_Create options, over the platform's defaults (CUDA: cudaClientDefaults). */
  readonly clientOptions?: Readonly<Record<string, ClientOptionValue>>;
  /**
   * This process as one of many (GPU and TPU plugins): the client gets node_id/num_nodes (CUDA) and
   * PJRT's key-value store callbacks, answered against `coordinator`. Programs compiled with
   * `compileGlobal` then span every process's devices.
   */
  readonly distributed?: DistributedOptions;
  /**
   * A persistent compilation cache (compilation-cache.ts): executables that took long to compile are kept
   * in `dir` and loaded by later runs. Default: KILN_COMPILATION_CACHE_DIR, else none; null turns it off.
   * A client that is one of many processes keeps none.
   */
  readonly compilationCache?: CompilationCacheSettings | null;
  /**
   * CPU plugins only: the library that runs bf16/f16 products (cpu-dot-library.ts). Default:
   * KILN_XLA_CPU_DOTS, else oneDNN where the CPU has AMX, else YNNPACK.
   */
  readonly cpuDotLibrary?: CpuDotLibrary;
  /**
   * CPU plugins only: keep the memory programs free for the next run instead of handing it back to the
   * kernel, which zeroes it again (cpu-host-memory.ts); programs then run on the thread that starts them.
   * Default: KILN_XLA_CPU_REUSE_MEMORY, else true.
   */
  readonly cpuReuseMemory?: boolean;
}

/** Options of XlaExecutor: the plugin (else discovery), and whether the CPU plugin may be taken. */
export interface XlaExecutorOptions extends XlaClientOptions {
  /** The plugin to load (the --pjrt-plugin option); otherwise KILN_PJRT_PLUGIN, then discovery (see discovery.ts). */
  readonly pluginPath?: string;
  /** Let discovery take XLA's CPU plugin when no GPU/TPU plugin is found (default false). */
  readonly includeCpu?: boolean;
}

/**
 * The CUDA client's defaults: 75% of the GPU's memory taken up front, as JAX does, and JAX's variables to
 * change that: XLA_PYTHON_CLIENT_PREALLOCATE=false allocates as it goes (processes that share a GPU),
 * XLA_PYTHON_CLIENT_MEM_FRACTION=0.5 takes another share. A value that is not one of these is refused.
 */
export function cudaClientDefaults(env: NodeJS.ProcessEnv = process.env): Record<string, ClientOptionValue> {
  const defaults: Record<string, ClientOptionValue> = { platform_name: "cuda", preallocate: true, memory_fraction: 0.75 };
  const pre = env.XLA_PYTHON_CLIENT_PREALLOCATE?.trim().toLowerCase();
  if (pre) {
    if (pre === "false" || pre === "0") defaults.preallocate = false;
    else if (pre !== "true" && pre !== "1")
      throw new Error(`XLA_PYTHON_CLIENT_PREALLOCATE must be true or false, got "${env.XLA_PYTHON_CLIENT_PREALLOCATE}"`);
  }
  const fraction = env.XLA_PYTHON_CLIENT_MEM_FRACTION?.trim();
  if (fraction) {
    const f = Number(fraction);
    if (!(f > 0 && f <= 1))
      throw new Error(`XLA_PYTHON_CLIENT_MEM_FRACTION must be a number in (0, 1], got "${env.XLA_PYTHON_CLIENT_MEM_FRACTION}"`);
    defaults.memory_fraction = f;
  }
  return defaults;
}

/** The engine's device name prefix: XLA's CPU devices are not ONNX Runtime's (cpu:N). */
function devicePrefix(platform: Platform): string {
  return platform === "cpu" ? "xla-cpu" : platform;
}

/**
 * Creates the client: the platform's defaults, then the caller's options, and cpu_device_count for
 * CPU plugins. An explicit plugin's platform is known only from its client, so one that turns out not
 * to be a CPU plugin while a CPU device count was asked for is refused (and its client destroyed).
 */
/** Client options with the memory reuse settled (the option, else its variable) before any client exists. */
type SettledClientOptions = XlaClientOptions & { readonly cpuReuseMemory: boolean };

function createClient(api: PjrtApi, plugin: PjrtPluginFound, o: SettledClientOptions): { client: PjrtClient; kvStore?: KvStoreCallbacks } {
  if (!o.distributed) return { client: createLocalClient(api, plugin, o) };
  const d = o.distributed;
  if (o.cpuDeviceCount !== undefined)
    throw new Error("cpuDeviceCount applies to XLA's CPU plugin, which cannot run as one of many processes");
  const defaults = plugin.kind === "cuda" ? cudaClientDefaults() : {};
  const options = distributedCreateOptions(plugin.kind, { ...defaults, ...o.clientOptions }, d);
  const kvStore = startKvStoreCallbacks({
    host: d.coordinator.host,
    port: d.coordinator.port,
    keyPrefix: storeKeyPrefix(plugin.kind, d),
    ...(d.connectTimeoutMs !== undefined ? { connectTimeoutMs: d.connectTimeoutMs } : {}),
  });
  let client: PjrtClient;
  try {
    client = PjrtClient.create(api, options, kvStore);
  } catch (e) {
    void kvStore.close();
    if (e instanceof PjrtError && /node_id|num_nodes/.test(e.pluginMessage))
      throw new Error(`distributed: the PJRT plugin ${plugin.path} cannot run as one of many processes (${e.message})`);
    throw e;
  }
  if (platformOf(client.platformName()) === "cpu") {
    client.destroy();
    void kvStore.close();
    throw new Error(`distributed: ${plugin.path} is a CPU plugin; XLA's CPU plugins have no cross-process collectives (use MPI on CPUs)`);
  }
  return { client, kvStore };
}

function createLocalClient(api: PjrtApi, plugin: PjrtPluginFound, o: SettledClientOptions): PjrtClient {
  const n = o.cpuDeviceCount;
  if (n !== undefined && (!Number.isInteger(n) || n < 1)) throw new Error(`cpuDeviceCount must be a positive integer, got ${n}`);
  if (n !== undefined && (plugin.kind === "cuda" || plugin.kind === "tpu"))
    throw new Error(`cpuDeviceCount applies to XLA's CPU plugin; ${plugin.path} is a ${plugin.kind.toUpperCase()} plugin`);
  const reuse = o.cpuReuseMemory;
  const requested = { ...o.clientOptions, ...(n !== undefined ? { cpu_device_count: n } : {}) };
  let client =
    plugin.kind === "cpu" && reuse
      ? createReusingCpuClient(api, requested)
      : PjrtClient.create(api, { ...(plugin.kind === "cuda" ? cudaClientDefaults() : {}), ...requested });
  const platform = client.platformName();
  if (reuse && platformOf(platform) === "cpu") {
    // An explicit plugin's platform is known only from its client, and GPU plugins refuse options they
    // do not know; so a CPU one is made again, with the options that go with reusing memory.
    if (plugin.kind === "explicit") {
      client.destroy();
      client = createReusingCpuClient(api, requested);
    }
    keepFreedHostMemory();
  }
  if (n === undefined) return client;
  const count = platformOf(platform) === "cpu" ? client.devices().length : undefined;
  if (count !== n) {
    client.destroy();
    throw new Error(
      count === undefined
        ? `cpuDeviceCount applies to XLA's CPU plugin; ${plugin.path} is a ${platform} plugin`
        : `${plugin.path} made ${count} CPU devices, not the ${n} asked for with cpu_device_count`,
    );
  }
  return client;
}

/**
 * A CPU client with the options of one that reuses memory, or, from a plugin that refuses them by name
 * (one built before XLA read `asynchronous`), one without: freed memory is then still kept, but a
 * program's working block comes from another thread's arena, where it is mapped afresh each run.
 */
function createReusingCpuClient(api: PjrtApi, requested: Readonly<Record<string, ClientOptionValue>>): PjrtClient {
  try {
    return PjrtClient.create(api, { ...REUSING_CPU_CLIENT_OPTIONS, ...requested });
  } catch (e) {
    if (e instanceof PjrtError && /asynchronous/.test(e.pluginMessage)) return PjrtClient.create(api, requested);
    throw e;
  }
}

/** The engine's platform for a PJRT platform name. */
function platformOf(pjrtPlatform: string): Platform {
  if (pjrtPlatform === "tpu") return "tpu";
  if (pjrtPlatform === "cpu" || pjrtPlatform === "host") return "cpu";
  return "gpu"; // cuda, rocm, gpu
}

function formatAttribute(v: AttributeValue | undefined): string {
  if (v === undefined) return "unknown";
  return Array.isArray(v) ? v.join(".") : String(v);
}

/** The XLA executor: compiles programs to StableHLO and runs them through a PJRT plugin (GPU, TPU or CPU). */
export class XlaExecutor implements Executor {
  readonly name = "xla";
  readonly platform: Platform;
  /** Each device has its own memory (even XLA's CPU devices); loops compile to one while. */
  readonly abilities: ExecutorAbilities = { platforms: ["cpu", "gpu", "tpu"], sharesHostMemory: false, loopForm: "scan", reference: false };
  private readonly devs: XlaDevice[];
  private readonly runtime: XlaRuntime;
  private readonly attributes: Map<string, AttributeValue>;
  /** The key-value callbacks' threads, for a client that is one of many processes. */
  private readonly kvStore: KvStoreCallbacks | undefined;
  private readonly cache: CompilationCache | undefined;
  /** Who runs a CPU program's 16-bit products (GPUs and TPUs ignore it). */
  readonly dotLibrary: CpuDotLibrary;

  constructor(
    readonly plugin: PjrtPluginFound,
    options: XlaClientOptions = {},
  ) {
    // Read (and checked) first: a bad setting is refused before a client exists.
    const cacheSettings = options.compilationCache === undefined ? compilationCacheFromEnv() : options.compilationCache;
    this.dotLibrary = options.cpuDotLibrary ?? cpuDotLibrary();
    if (options.cpuReuseMemory !== undefined && typeof options.cpuReuseMemory !== "boolean")
      throw new OptionError({
        option: "cpuReuseMemory",
        value: options.cpuReuseMemory,
        why: "must be true or false",
        where: "XlaExecutor",
      });
    const cpuReuseMemory = options.cpuReuseMemory ?? cpuMemoryReuse();
    const api = PjrtApi.load(plugin.path, plugin.preload);
    api.initialize();
    this.attributes = api.attributes();
    const { client, kvStore } = createClient(api, plugin, { ...options, cpuReuseMemory });
    this.kvStore = kvStore;
    const buffers = new PjrtBuffers(api);
    this.runtime = { api, client, buffers, waiter: new EventWaiter(api), life: new ClientLife(buffers) };
    this.platform = platformOf(client.platformName());
    this.devs = client.devices().map((d, i) => new XlaDevice(`${devicePrefix(this.platform)}:${i}`, this.platform, i, this, d));
    if (cacheSettings && !options.distributed) this.cache = new CompilationCache(cacheSettings, this.cacheIdentity());
  }

  /** What besides a program decides its executable: the plugin build, its versions, the platform and the devices. */
  private cacheIdentity(): string {
    const { api, client } = this.runtime;
    const file = statSync(api.path);
    return JSON.stringify([
      api.path,
      file.size,
      file.mtimeMs,
      `${api.version.major}.${api.version.minor}`,
      formatAttribute(this.attributes.get("xla_version")),
      formatAttribute(this.attributes.get("stablehlo_current_version")),
      client.platformName(),
      client.platformVersion(),
      this.devs.map((d) => d.pjrt.kind),
    ]);
  }

  /** What the compilation cache did (undefined without one). */
  compilationCacheStats(): Readonly<CompilationCacheStats> | undefined {
    return this.cache ? { ...this.cache.stats } : undefined;
  }

  /** The plugin's compile, or the executable a persistent cache kept from an earlier one. */
  private compileLoaded(mlir: string, compileOptions: Uint8Array, cacheable = true): PjrtLoadedExecutable {
    const { client } = this.runtime;
    if (!this.cache || !cacheable) return client.compile(mlir, compileOptions);
    const file = this.cache.fileFor(mlir, compileOptions);
    const cached = this.cache.load(file, (bytes) => client.deserialize(bytes));
    if (cached) return cached;
    const t0 = performance.now();
    const loaded = client.compile(mlir, compileOptions);
    this.cache.store(file, (performance.now() - t0) / 1000, () => loaded.serialize());
    return loaded;
  }

  /** Device buffers of this executor not yet disposed, donated or collected (PJRT buffer handles held). */
  liveBuffers(): number {
    return this.runtime.life.buffers.size;
  }

  /** The PJRT C API version the plugin implements. */
  get apiVersion(): { readonly major: number; readonly minor: number } {
    return this.runtime.api.version;
  }

  /** The plugin's attributes (xla_version, stablehlo_current_version, …). */
  pluginAttributes(): ReadonlyMap<string, AttributeValue> {
    return this.attributes;
  }

  /** A device's allocator figures (bytes in use, peak, limit), or undefined where the plugin keeps none (XLA's CPU). */
  memoryStats(device?: Device): PjrtMemoryStats | undefined {
    this.open("memoryStats");
    return this.runtime.client.memoryStats(this.own(device).pjrt.handle);
  }

  devices(): readonly Device[] {
    return this.devs;
  }

  /** This process's index among the processes of the client (0 unless created with `distributed`). */
  processIndex(): number {
    return this.runtime.client.processIndex();
  }

  /** The global ids of every device of the client, every process's, ascending (what compileGlobal assigns replicas to). */
  globalDeviceIds(): number[] {
    return this.runtime.client
      .globalDevices()
      .map((d) => d.id)
      .sort((a, b) => a - b);
  }

  /**
   * The plugin (path, how it was found), the PJRT C API it implements and Kiln declares, the plugin's
   * xla_version (its XLA compatibility version) and StableHLO versions, the platform, and the devices.
   */
  describe(): string {
    const { api, client } = this.runtime;
    const v = api.version,
      a = this.attributes;
    return [
      `XLA through the PJRT plugin ${api.path} (${this.plugin.kind}; Kiln's PJRT declarations: API 0.${DECLARED_API_MINOR})`,
      `  PJRT C API ${v.major}.${v.minor}, xla_version ${formatAttribute(a.get("xla_version"))}, ` +
        `StableHLO ${formatAttribute(a.get("stablehlo_current_version"))} ` +
        `(accepts from ${formatAttribute(a.get("stablehlo_minimum_version"))})`,
      `  platform ${client.platformName()} (version ${client.platformVersion()})`,
      ...this.devs.map((d) => `  ${d.id}: ${d.pjrt.kind} (PJRT device id ${d.pjrt.id})`),
    ].join("\n");
  }

  private own(device: Device | undefined): XlaDevice {
    const d = device ?? this.devs[0];
    if (!(d instanceof XlaDevice) || d.executor !== this)
      throw new Error(
        `device ${d?.id ?? "(none)"} does not belong to this XLA executor (${this.devs.map((x) => x.id).join(", ") || "no devices"})`,
      );
    return d;
  }

  fromHost(data: HostArray, aval: AVal, device?: Device): DeviceBuffer {
    this.open("fromHost");
    const d = this.own(device);
    if (data.length !== sizeOf(aval.shape)) throw new Error(`fromHost: ${data.length} elements for ${fmtAVal(aval)}`);
    const { client, buffers, waiter } = this.runtime;
    const { buffer, doneWithHost } = client.bufferFromHost(data, aval.dtype, aval.shape, d.pjrt.handle);
    // The plugin reads `data` until the copy is done: keep it referenced until then.
    void waiter.watch(doneWithHost, `copying ${fmtAVal(aval)} to ${d.id}`).promise.then(
      () => data,
      () => data,
    );
    const readiness = waiter.watch(buffers.readyEvent(buffer), `${fmtAVal(aval)} on ${d.id}`);
    return new XlaBuffer(this.runtime, buffer, aval, d, readiness);
  }

  private open(what: string): void {
    if (this.runtime.life.closed) throw new Error(`${what}: this XLA executor (${this.plugin.path}) was closed`);
  }

  compile(program: Program, options: CompileOptions = {}): XlaExecutable {
    this.open(`compiling ${program.name}`);
    const replicas = options.replicas ?? 1;
    const devices = (options.devices ?? this.devs.slice(0, replicas)).map((d) => this.own(d));
    if (devices.length !== replicas)
      throw new Error(
        `${program.name}: ${replicas} replicas need ${replicas} devices; ` +
          `this executor has ${this.devs.length} (${this.devs.map((d) => d.id).join(", ")})`,
      );
    if (new Set(devices).size !== devices.length)
      throw new Error(`${program.name}: each replica needs its own device, got ${devices.map((d) => d.id).join(", ")}`);

    return this.build(
      program,
      options.donate,
      devices.map((d) => d.pjrt.id),
      devices,
    );
  }

  /**
   * Compiles `program` for every device of the computation (one replica per device of every process,
   * replica r on the device with the r-th smallest global id), to run on this process's devices: its
   * executable takes the arguments of this process's replicas (`localReplicas`, in that order) and the
   * all_reduce is XLA's across processes. With one process this is `compile` over all its devices.
   */
  compileGlobal(program: Program, options: { readonly donate?: readonly boolean[] } = {}): XlaExecutable {
    this.open(`compiling ${program.name}`);
    const global = this.runtime.client.globalDevices().sort((a, b) => a.id - b.id);
    const mine = new Map(this.devs.map((d) => [d.pjrt.id, d]));
    const local = global.flatMap((g) => mine.get(g.id) ?? []);
    if (local.length !== this.devs.length)
      throw new Error(`${program.name}: this process's devices are not all among the client's devices (${this.describe()})`);
    return this.build(
      program,
      options.donate,
      global.map((g) => g.id),
      local,
    );
  }

  /** Compiles for replicas on the devices `deviceIds` (global ids, replica order); `local` are this process's among them, in order. */
  private build(program: Program, donate: readonly boolean[] | undefined, deviceIds: number[], local: XlaDevice[]): XlaExecutable {
    const replicas = deviceIds.length;
    const cpu = this.platform === "cpu";
    const halfPrecisionCpu = cpu && hasHalfPrecisionProducts(program);
    const lowered = lowerToStableHlo(program, { replicas, ...(donate ? { donate } : {}), leadingSumsAsProducts: halfPrecisionCpu });
    const compileOptions = compileOptionsProto(
      replicas === 1 ? { kind: "single" } : { kind: "replicated", deviceIds },
      cpu ? cpuCompileOptions(this.dotLibrary, halfPrecisionCpu) : {},
    );
    // XLA:CPU (jaxlib 0.11) crashes the process serializing an executable that calls oneDNN: such
    // executables are compiled each run, never written to the compilation cache.
    const loaded = this.compileLoaded(lowered.text, compileOptions, !(halfPrecisionCpu && this.dotLibrary === "onednn"));
    try {
      const outputs = loaded.numOutputs();
      if (outputs !== program.outputs.length)
        throw new Error(`${program.name}: the plugin compiled ${outputs} outputs for ${program.outputs.length}`);
      let launchOrder: number[] = [0];
      if (replicas > 1) {
        const order = loaded.addressableDevices();
        launchOrder = local.map((d) => order.indexOf(d.pjrt.handle));
        if (launchOrder.some((i) => i < 0) || order.length !== local.length)
          throw new Error(`${program.name}: the plugin placed the replicas on other devices than ${local.map((d) => d.id).join(", ")}`);
      }
      const localReplicas = local.map((d) => deviceIds.indexOf(d.pjrt.id));
      return new XlaExecutable(this.runtime, program, replicas, loaded, local, lowered.aliases, launchOrder, localReplicas);
    } catch (e) {
      loaded.destroy();
      throw e;
    }
  }

  get closed(): boolean {
    return this.runtime.life.closed;
  }

  /**
   * Waits for work in flight, destroys the buffers and executables still alive (their wrappers then
   * refuse use, and finalizers skip them), then the client. Calling it again does nothing.
   */
  close(): void {
    const { life, waiter, client } = this.runtime;
    if (life.closed) return;
    waiter.awaitAll();
    life.close();
    client.destroy();
    void this.kvStore?.close(); // after the client: it may call the store until destroyed
  }
}

/**
 * An executor on the PJRT plugin found by discovery (or `pluginPath`). Throws, saying what was
 * looked for and where, when there is none.
 */
export function createXlaExecutor(opts: XlaExecutorOptions = {}): XlaExecutor {
  const found = discoverPjrtPlugin({
    ...(opts.pluginPath ? { pluginPath: opts.pluginPath } : {}),
    ...(opts.includeCpu ? { includeCpu: true } : {}),
  });
  if ("notFound" in found) throw new Error(`no PJRT plugin for the XLA executor: ${found.notFound}`);
  return new XlaExecutor(found, opts);
}
