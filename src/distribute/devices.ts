// Which devices a run uses: `accelerator` picks the kind (cpu, gpu, tpu, or auto: a GPU/TPU when a
// PJRT plugin for one is found, else the CPU), `executor` picks who runs the CPU (ONNX Runtime, the
// default, or XLA's CPU plugin; GPUs and TPUs always run on XLA), `devices` picks how many or which
// ones. CPU devices are as many as asked for: ONNX Runtime's virtual cpu:0..N-1, or an XLA CPU client
// made with cpu_device_count = N (xla-cpu:0..N-1) — like XLA's host device count.
import * as k from "../core/index.js";
import { OptionError } from "../core/option-error.js";
import { discoverCpuPlugin, discoverPjrtPlugin, createXlaExecutor } from "../exec/xla/index.js";
import { localGpuOrdinals } from "./local-gpus.js";
import { acceleratorProcessPlace, processPlace, type ProcessPlace } from "./multi-process.js";

/** Which kind of device to train on: "cpu", "gpu", "tpu", or "auto" (an accelerator when one is found). */
export type Accelerator = "auto" | "cpu" | "gpu" | "tpu";
/** How many devices (or which): "auto", a count, or a list of indices. */
export type DevicesSpec = "auto" | number | readonly number[];
/** Who runs the CPU: "ort" (ONNX Runtime, the default) or "xla" (XLA's CPU PJRT plugin). */
export type CpuExecutorName = "ort" | "xla";
/** Every CpuExecutorName. */
export const CPU_EXECUTORS: readonly CpuExecutorName[] = ["ort", "xla"];

let accelerator: { executor?: k.Executor; notFound?: string } | undefined;

/** Finds and registers the XLA executor once (when a GPU/TPU plugin is installed). */
export function loadAcceleratorExecutor(pluginPath?: string): { executor?: k.Executor; notFound?: string } {
  if (accelerator && !pluginPath) return accelerator;
  const found = discoverPjrtPlugin(pluginPath ? { pluginPath } : {});
  if ("notFound" in found) {
    accelerator = { notFound: found.notFound };
  } else {
    const executor = createXlaExecutor(pluginPath ? { pluginPath } : {});
    // A named CPU plugin is not an accelerator: loadXlaCpuExecutor registers its own client (device count as asked).
    if (executor.platform !== "cpu") k.registerExecutor(executor);
    accelerator = { executor };
  }
  return accelerator;
}

/** The executor of a process that trains on GPUs/TPUs as one of several, made once per process. */
let distributedAccelerator: { key: string; executor: k.Executor } | undefined;

/**
 * The XLA executor of one of several processes (JAX's multi-controller model): its client made with
 * node_id = rank and num_nodes = the process count, meeting the others through the coordination store;
 * its programs compiled with compileGlobal span every process's devices.
 */
function loadDistributedExecutor(
  want: "gpu" | "tpu",
  place: ProcessPlace & { coordinator: { host: string; port: number } },
  env: NodeJS.ProcessEnv,
  pluginPath: string | undefined,
  gpus: number[] | undefined,
): k.Executor {
  const { rank, size, coordinator } = place;
  const key = `${pluginPath ?? ""}|${rank}|${size}|${coordinator.host}:${coordinator.port}|${gpus?.join(",") ?? "all"}`;
  if (distributedAccelerator?.key === key) return distributedAccelerator.executor;
  const distributed = { nodeId: rank, numNodes: size, coordinator };
  // What the client was asked for, as given to it (errors show it).
  const at = `${distributed.coordinator.host}:${distributed.coordinator.port}`;
  const where = `nodeId ${distributed.nodeId}, numNodes ${distributed.numNodes}, coordinator ${at}`;
  // Processes that share this machine's GPUs do not each take 75% of their memory up front.
  const shared = want === "gpu" && Number(env.KILN_LOCAL_WORLD_SIZE ?? "1") > 1;
  let executor: k.Executor;
  try {
    executor = createXlaExecutor({
      ...(pluginPath ? { pluginPath } : {}),
      distributed,
      ...(shared ? { clientOptions: { preallocate: false, ...(gpus ? { visible_devices: gpus } : {}) } } : {}),
    });
  } catch (e) {
    const taking = gpus
      ? `; as local rank ${env.KILN_LOCAL_RANK ?? 0} of ${env.KILN_LOCAL_WORLD_SIZE} on this host it takes GPU ${gpus.join(", ")} ` +
        "(one GPU per process, or `devices` each): with fewer GPUs than that, set CUDA_VISIBLE_DEVICES to the GPUs the processes share"
      : "";
    throw new Error(
      `rank ${rank} of ${size} could not create its XLA client as one of ${size} processes (${where}): ${(e as Error).message}${taking}`,
    );
  }
  if (executor.platform !== want)
    throw new Error(`accelerator "${want}" was requested, but the PJRT plugin of rank ${rank} (${where}) is for ${executor.platform}`);
  k.registerExecutor(executor);
  distributedAccelerator = { key, executor };
  return executor;
}

/** The executor registered to run the CPU under the name a run gives (`executor`: "ort", from the package entry). */
function registeredCpuExecutor(name: CpuExecutorName): k.Executor {
  const e = k.registeredExecutors().find((x) => x.name === name && x.platform === "cpu");
  if (!e) throw new Error(`no ${name} executor for the CPU is registered: import Kiln from its package entry`);
  return e;
}

/** XLA CPU executors by plugin and device count: a client's device count is fixed when it is made. */
const xlaCpuExecutors = new Map<string, k.Executor>();

/**
 * The file of the CPU plugin executor "xla" would load (`pluginPath`, else KILN_PJRT_PLUGIN, else the
 * xla-cpu-pjrt wheel's), found without loading it; undefined where there is none.
 */
export function xlaCpuPluginFile(pluginPath?: string): string | undefined {
  return pluginPath ?? process.env.KILN_PJRT_PLUGIN ?? discoverCpuPlugin()?.path;
}

/**
 * An XLA executor on XLA's CPU plugin (--pjrt-plugin / KILN_PJRT_PLUGIN when given, else the
 * xla-cpu-pjrt wheel), its client made with cpu_device_count = `count` when given.
 */
function loadXlaCpuExecutor(pluginPath?: string, count?: number): k.Executor {
  const path = xlaCpuPluginFile(pluginPath);
  if (!path)
    throw new OptionError({
      option: "executor",
      value: "xla",
      why: "on the CPU needs XLA's CPU PJRT plugin, and none was found",
      fix: "Install the xla-cpu-pjrt wheel (site-packages/xla_plugins/), or name a CPU plugin with pjrtPlugin / KILN_PJRT_PLUGIN",
      where: "selectDevices",
    });
  const key = `${path}|${count ?? "default"}`;
  let e = xlaCpuExecutors.get(key);
  if (!e) {
    e = createXlaExecutor({ pluginPath: path, ...(count !== undefined ? { cpuDeviceCount: count } : {}) });
    if (e.platform !== "cpu")
      throw new OptionError({
        option: "pjrtPlugin",
        value: path,
        why: `is a ${e.platform} plugin, not XLA's CPU plugin (executor "xla" on the CPU needs that one)`,
        where: "selectDevices",
      });
    xlaCpuExecutors.set(key, e);
    k.registerExecutor(e);
  }
  return e;
}

/** The CPU device count a client is made with for `spec`: "auto" is one device, as on ONNX Runtime (XLA's default of 4 is arbitrary). */
function cpuCountFor(spec: DevicesSpec): number {
  if (typeof spec === "number") return spec;
  if (spec === "auto") return 1;
  return Math.max(...spec) + 1;
}

function cpuExecutor(name: CpuExecutorName, spec: DevicesSpec, pluginPath?: string): k.Executor {
  return name === "xla" ? loadXlaCpuExecutor(pluginPath, cpuCountFor(spec)) : registeredCpuExecutor(name);
}

/** The devices a run could use: the executors that can run here, less the reference interpreter. */
function describeAvailable(): string {
  return k
    .availableExecutors()
    .filter((e) => !e.abilities.reference)
    .map(
      (e) =>
        `${e
          .devices()
          .map((d) => d.id)
          .join(", ")} (${e.name})`,
    )
    .join("; ");
}

/** Options of selectDevices: the accelerator, how many devices, who runs the CPU, the PJRT plugin. */
export interface DeviceSelection {
  accelerator?: Accelerator;
  devices?: DevicesSpec;
  /** Who runs the CPU (default "ort"); GPUs and TPUs always run on XLA. */
  executor?: CpuExecutorName;
  /** Path of a PJRT plugin (--pjrt-plugin); otherwise KILN_PJRT_PLUGIN or discovery. */
  pjrtPlugin?: string;
  /** Where the 'auto' fallback notice goes (default stderr). */
  notice?: (line: string) => void;
  /**
   * The launcher's variables (default process.env): a GPU/TPU process started as one of several
   * (KILN_RANK, KILN_WORLD_SIZE, KILN_COORDINATOR) gets an XLA client for all of them.
   */
  env?: NodeJS.ProcessEnv;
}

/**
 * Where a launched process trains on GPUs/TPUs as one of several (its XLA client made for all of them):
 * with accelerator "gpu"/"tpu", or "auto" where discovery finds a CUDA or TPU plugin; undefined for a
 * process started alone, or one that trains on CPUs (with MPI). Refuses a launched process with no
 * coordinator (KILN_COORDINATOR).
 */
export function launchedAcceleratorPlace(
  o: Pick<DeviceSelection, "accelerator" | "pjrtPlugin" | "env">,
): { place: ProcessPlace & { coordinator: { host: string; port: number } }; platform: "gpu" | "tpu" } | undefined {
  const env = o.env ?? process.env;
  const want = o.accelerator ?? "auto";
  if (want === "cpu" || !processPlace(env)) return undefined;
  let platform: "gpu" | "tpu";
  if (want === "auto") {
    const found = discoverPjrtPlugin({ ...(o.pjrtPlugin ? { pluginPath: o.pjrtPlugin } : {}), env });
    if ("notFound" in found || (found.kind !== "cuda" && found.kind !== "tpu")) return undefined;
    platform = found.kind === "cuda" ? "gpu" : "tpu";
  } else platform = want;
  const place = acceleratorProcessPlace(platform, undefined, env);
  return place && { place, platform };
}

/** The devices of a run, in replica order, with errors that say what was found. */
export function selectDevices(o: DeviceSelection = {}): k.Device[] {
  const want = o.accelerator ?? "auto";
  const spec = o.devices ?? "auto";
  const cpuName = o.executor ?? "ort";
  if (!CPU_EXECUTORS.includes(cpuName))
    throw new OptionError({ option: "executor", value: cpuName, why: `must be ${CPU_EXECUTORS.join(" or ")}`, where: "selectDevices" });
  if (o.executor && (want === "gpu" || want === "tpu")) {
    // XLA's executors run on every platform (and are made when asked for); one registered for fewer is refused here.
    const named = k.registeredExecutors().find((x) => x.name === o.executor);
    if (named && !named.abilities.platforms.includes(want))
      throw new OptionError({
        option: "executor",
        value: cpuName,
        why:
          `runs only on the ${named.abilities.platforms.map((p) => p.toUpperCase()).join(" or ")}; ` +
          `accelerator "${want}" always runs on XLA`,
        fix: 'Leave executor out, or use accelerator "cpu"',
        where: "selectDevices",
      });
  }
  let executor: k.Executor;
  const env = o.env ?? process.env;
  const launched = launchedAcceleratorPlace(o);
  if (want === "cpu") executor = cpuExecutor(cpuName, spec, o.pjrtPlugin);
  else if (launched) {
    const { place, platform } = launched;
    const gpus = platform === "gpu" ? localGpuOrdinals(env, spec) : undefined;
    executor = loadDistributedExecutor(platform, place, env, o.pjrtPlugin ?? env.KILN_PJRT_PLUGIN, gpus);
    // compileGlobal runs a replica on every device of this process: the run uses them all.
    if (spec !== "auto" && (typeof spec === "number" ? spec : spec.length) !== executor.devices().length)
      throw new Error(
        `devices ${JSON.stringify(spec)}: rank ${place.rank} of ${place.size} trains on every ${platform} device its client has ` +
          `(${executor.devices().length}: ${executor
            .devices()
            .map((d) => d.id)
            .join(", ")}); give devices: "auto" or ${executor.devices().length}, ` +
          `or choose each process's devices with CUDA_VISIBLE_DEVICES`,
      );
    return [...executor.devices()];
  } else {
    const acc = loadAcceleratorExecutor(o.pjrtPlugin);
    const platform = acc.executor?.platform;
    if (want === "auto") {
      // A CPU plugin (named by --pjrt-plugin or KILN_PJRT_PLUGIN) is never an accelerator.
      if (acc.executor && platform !== "cpu") executor = acc.executor;
      else {
        (o.notice ?? ((l) => console.error(l)))("kiln: no GPU/TPU PJRT plugin found; using the CPU (`kiln devices` says where it looked)");
        executor = cpuExecutor(cpuName, spec, o.pjrtPlugin);
      }
    } else if (acc.executor && platform === want) executor = acc.executor;
    else {
      throw new OptionError({
        option: "accelerator",
        value: want,
        why: `was requested but none was found: ${acc.notFound ?? `the plugin found is for ${platform}`}`,
        fix:
          `Devices here: ${describeAvailable()}. Use accelerator "cpu" (or "auto"), ` +
          `or point pjrtPlugin / KILN_PJRT_PLUGIN at a ${want.toUpperCase()} PJRT plugin`,
        where: "selectDevices",
      });
    }
  }
  if (typeof spec === "number") {
    if (!Number.isInteger(spec) || spec < 1) throw new Error(`devices must be a positive integer, got ${spec}`);
    if (executor.devices().length < spec) executor.setDeviceCount?.(spec);
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
