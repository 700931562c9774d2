// The devices of the registered executors (executor-registry.ts), and which one eager ops and jit use by default.
import type { Device } from "./executor.js";
import { registeredExecutors } from "./executor-registry.js";

let defaultDevice: Device | undefined;

/** Every device of every executor registered in this process, the default one first. */
export function allDevices(): Device[] {
  return registeredExecutors().flatMap((e) => [...e.devices()]);
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
  defaultDevice ??= registeredExecutors()[0]?.devices()[0];
  if (!defaultDevice) throw new Error("no executor is registered: import from the package entry ('kiln'), which registers them");
  return defaultDevice;
}

/** Makes `d` (a Device or an id such as "cpu:1") the device new arrays go to. */
export function setDefaultDevice(d: Device | string): void {
  defaultDevice = typeof d === "string" ? findDevice(d) : d;
}
