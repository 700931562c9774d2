// Which devices a run uses: `accelerator` picks the kind (cpu, gpu, tpu, or auto: an accelerator when a
// PJRT plugin is found, else the CPU), `devices` picks how many or which ones. CPU devices are virtual
// (cpu:0..N-1 over one ONNX Runtime), as many as asked for — like XLA's host device count.
import * as k from "../core/index.js";
import { discoverPjrtPlugin, createXlaExecutor } from "../exec/xla/index.js";

export type Accelerator = "auto" | "cpu" | "gpu" | "tpu";
export type DevicesSpec = "auto" | number | readonly number[];

let accelerator: { executor?: k.Executor; notFound?: string } | undefined;

/** Finds and registers the XLA executor once (when a GPU/TPU plugin is installed). */
export function loadAcceleratorExecutor(pluginPath?: string): { executor?: k.Executor; notFound?: string } {
  if (accelerator && !pluginPath) return accelerator;
  const found = discoverPjrtPlugin(pluginPath ? { pluginPath } : {});
  if ("notFound" in found) {
    accelerator = { notFound: found.notFound };
  } else {
    const executor = createXlaExecutor(pluginPath ? { pluginPath } : {});
    k.registerExecutor(executor);
    accelerator = { executor };
  }
  return accelerator;
}

function cpuExecutor(): k.Executor {
  const e = k.registeredExecutors().find((x) => x.platform === "cpu" && x.name !== "ref");
  if (!e) throw new Error("no CPU executor is registered: import Kiln from its package entry");
  return e;
}

/** Executors that can give themselves more virtual devices (the CPU executor). */
interface ResizableExecutor extends k.Executor {
  setDeviceCount(n: number): void;
}
const resizable = (e: k.Executor): e is ResizableExecutor => typeof (e as Partial<ResizableExecutor>).setDeviceCount === "function";

function describeAvailable(): string {
  return k
    .registeredExecutors()
    .filter((e) => e.name !== "ref")
    .map(
      (e) =>
        `${e
          .devices()
          .map((d) => d.id)
          .join(", ")} (${e.name})`,
    )
    .join("; ");
}

export interface DeviceSelection {
  accelerator?: Accelerator;
  devices?: DevicesSpec;
  /** Path of a PJRT plugin (--pjrt-plugin); otherwise KILN_PJRT_PLUGIN or discovery. */
  pjrtPlugin?: string;
  /** Where the 'auto' fallback notice goes (default stderr). */
  notice?: (line: string) => void;
}

/** The devices of a run, in replica order, with errors that say what was found. */
export function selectDevices(o: DeviceSelection = {}): k.Device[] {
  const want = o.accelerator ?? "auto";
  const spec = o.devices ?? "auto";
  let executor: k.Executor;
  if (want === "cpu") executor = cpuExecutor();
  else {
    const acc = loadAcceleratorExecutor(o.pjrtPlugin);
    const platform = acc.executor?.platform;
    if (want === "auto") {
      if (acc.executor) executor = acc.executor;
      else {
        (o.notice ?? ((l) => console.error(l)))("kiln: no GPU/TPU PJRT plugin found; using the CPU (`kiln devices` says where it looked)");
        executor = cpuExecutor();
      }
    } else if (acc.executor && platform === want) executor = acc.executor;
    else {
      throw new Error(
        `accelerator "${want}" was requested but none was found: ${acc.notFound ?? `the plugin found is for ${platform}`}.\n` +
          `Devices here: ${describeAvailable()}. Use --accelerator cpu (or auto), or point --pjrt-plugin / KILN_PJRT_PLUGIN at a ${want.toUpperCase()} PJRT plugin.`,
      );
    }
  }
  if (typeof spec === "number") {
    if (!Number.isInteger(spec) || spec < 1) throw new Error(`devices must be a positive integer, got ${spec}`);
    if (executor.devices().length < spec && resizable(executor)) executor.setDeviceCount(spec);
  }
  const all = executor.devices();
  if (spec === "auto") return [...all];
  if (typeof spec === "number") {
    if (all.length < spec)
      throw new Error(`${spec} ${executor.platform} devices were requested but ${all.length} exist: ${all.map((d) => d.id).join(", ")}`);
    return all.slice(0, spec);
  }
  return spec.map((i) => {
    const d = all[i];
    if (!d) throw new Error(`device index ${i} does not exist; ${executor.platform} devices: ${all.map((x) => x.id).join(", ")}`);
    return d;
  });
}
