// Which executors exist in this process, and which device eager ops and jit use by default.
import type { Device, Executor } from "./executor.js";

const executors: Executor[] = [];
let defaultDevice: Device | undefined;

/**
 * Registers an executor; the first registered one's first device is the default until changed. Its
 * devices are not asked for here (registration happens at import, and listing them may read the
 * environment, whose errors belong to the first use).
 */
export function registerExecutor(e: Executor): void {
  if (executors.some((x) => x.name === e.name)) return;
  executors.push(e);
}

/** The executors registered in this process, in registration order (the first one's first device is the default). */
export function registeredExecutors(): readonly Executor[] {
  return executors;
}

/** Every device of every registered executor. */
export function allDevices(): Device[] {
  return executors.flatMap((e) => [...e.devices()]);
}

/** Looks a device up by id ("cpu:0", "ref:0") with an error listing what exists. */
export function findDevice(id: string): Device {
  const d = allDevices().find((x) => x.id === id || `${x.executor.name}:${x.id}` === id);
  if (!d)
    throw new Error(
      `no device "${id}"; devices here: ${
        allDevices()
          .map((x) => `${x.executor.name}:${x.id}`)
          .join(", ") || "none (import 'kiln' to register the executors)"
      }`,
    );
  return d;
}

/** The device that new arrays go to when none is given: the first executor's first device, or setDefaultDevice's. */
export function getDefaultDevice(): Device {
  defaultDevice ??= executors[0]?.devices()[0];
  if (!defaultDevice) throw new Error("no executor is registered: import from the package entry ('kiln'), which registers them");
  return defaultDevice;
}

/** Makes `d` (a Device or an id such as "cpu:1") the device new arrays go to. */
export function setDefaultDevice(d: Device | string): void {
  defaultDevice = typeof d === "string" ? findDevice(d) : d;
}
