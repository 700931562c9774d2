// The XLA executor: programs lowered to StableHLO, compiled and run by a PJRT plugin (CUDA GPUs,
// TPUs). Device buffers stay on the device between executions; execute() returns at once.
import type { HostArray } from "../../core/dtype.js";
import type { CompileOptions, Device, DeviceBuffer, Executable, Executor, Platform } from "../../core/executor.js";
import type { AVal, Program } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import { sizeOf } from "../../core/shape.js";
import { XlaBuffer } from "./buffer.js";
import { discoverPjrtPlugin, type PjrtPluginFound } from "./discovery.js";
import { XlaExecutable } from "./executable.js";
import { PjrtApi } from "./pjrt/api.js";
import { PjrtBuffers, PjrtClient } from "./pjrt/client.js";
import { EventWaiter } from "./pjrt/events.js";
import { DECLARED_API_MINOR } from "./pjrt/structs.js";
import type { AttributeValue, ClientOptionValue } from "./pjrt/named-values.js";
import { compileOptionsProto } from "./proto/compile-options.js";
import { XlaDevice, type XlaRuntime } from "./runtime.js";
import { lowerToStableHlo } from "./stablehlo/lower.js";

export interface XlaExecutorOptions {
  /** The plugin to load (the --pjrt-plugin option); otherwise discovered (see discovery.ts). */
  readonly pluginPath?: string;
  /** PJRT_Client_Create options, over the platform's defaults (CUDA: preallocate 75% of memory, as JAX). */
  readonly clientOptions?: Readonly<Record<string, ClientOptionValue>>;
}

const CUDA_CLIENT_DEFAULTS: Readonly<Record<string, ClientOptionValue>> = {
  platform_name: "cuda",
  preallocate: true,
  memory_fraction: 0.75,
};

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

export class XlaExecutor implements Executor {
  readonly name = "xla";
  readonly platform: Platform;
  private readonly devs: XlaDevice[];
  private readonly runtime: XlaRuntime;
  private readonly attributes: Map<string, AttributeValue>;

  constructor(
    readonly plugin: PjrtPluginFound,
    clientOptions: Readonly<Record<string, ClientOptionValue>> = {},
  ) {
    const api = PjrtApi.load(plugin.path, plugin.preload);
    api.initialize();
    this.attributes = api.attributes();
    const defaults = plugin.kind === "cuda" ? CUDA_CLIENT_DEFAULTS : {};
    const client = PjrtClient.create(api, { ...defaults, ...clientOptions });
    this.runtime = { api, client, buffers: new PjrtBuffers(api), waiter: new EventWaiter(api) };
    this.platform = platformOf(client.platformName());
    this.devs = client.devices().map((d, i) => new XlaDevice(`${this.platform}:${i}`, this.platform, i, this, d));
  }

  devices(): readonly Device[] {
    return this.devs;
  }

  describe(): string {
    const { api, client } = this.runtime;
    const v = api.version,
      a = this.attributes;
    return [
      `XLA through the PJRT plugin ${api.path} (${this.plugin.kind}; Kiln's PJRT declarations: API 0.${DECLARED_API_MINOR})`,
      `  PJRT C API ${v.major}.${v.minor}, XLA ${formatAttribute(a.get("xla_version"))}, StableHLO ${formatAttribute(a.get("stablehlo_current_version"))} (accepts from ${formatAttribute(a.get("stablehlo_minimum_version"))})`,
      `  platform ${client.platformName()} ${client.platformVersion()}`,
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

  compile(program: Program, options: CompileOptions = {}): Executable {
    const replicas = options.replicas ?? 1;
    const devices = (options.devices ?? this.devs.slice(0, replicas)).map((d) => this.own(d));
    if (devices.length !== replicas)
      throw new Error(
        `${program.name}: ${replicas} replicas need ${replicas} devices; this executor has ${this.devs.length} (${this.devs.map((d) => d.id).join(", ")})`,
      );
    if (new Set(devices).size !== devices.length)
      throw new Error(`${program.name}: each replica needs its own device, got ${devices.map((d) => d.id).join(", ")}`);

    const lowered = lowerToStableHlo(program, { replicas, ...(options.donate ? { donate: options.donate } : {}) });
    const compileOptions = compileOptionsProto(
      replicas === 1 ? { kind: "single" } : { kind: "replicated", deviceIds: devices.map((d) => d.pjrt.id) },
    );
    const loaded = this.runtime.client.compile(lowered.text, compileOptions);
    try {
      const outputs = loaded.numOutputs();
      if (outputs !== program.outputs.length)
        throw new Error(`${program.name}: the plugin compiled ${outputs} outputs for ${program.outputs.length}`);
      let launchOrder: number[] = [0];
      if (replicas > 1) {
        const order = loaded.addressableDevices();
        launchOrder = devices.map((d) => order.indexOf(d.pjrt.handle));
        if (launchOrder.some((i) => i < 0))
          throw new Error(`${program.name}: the plugin placed the replicas on other devices than ${devices.map((d) => d.id).join(", ")}`);
      }
      return new XlaExecutable(this.runtime, program, replicas, loaded, devices, lowered.aliases, launchOrder);
    } catch (e) {
      loaded.destroy();
      throw e;
    }
  }

  /** Frees the client (every buffer and executable of this executor must be disposed first). */
  close(): void {
    this.runtime.client.destroy();
  }
}

/**
 * An executor on the PJRT plugin found by discovery (or `pluginPath`). Throws, saying what was
 * looked for and where, when there is none.
 */
export function createXlaExecutor(opts: XlaExecutorOptions = {}): XlaExecutor {
  const found = discoverPjrtPlugin(opts.pluginPath ? { pluginPath: opts.pluginPath } : {});
  if ("notFound" in found) throw new Error(`no PJRT plugin for the XLA executor: ${found.notFound}`);
  return new XlaExecutor(found, opts.clientOptions);
}
