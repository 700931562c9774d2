// What the XLA executor's buffers and executables share: the plugin, its client, and the event waiter.
import type { Device, Executor, Platform } from "../../core/executor.js";
import type { PjrtApi } from "./pjrt/api.js";
import type { PjrtClient, PjrtBuffers, PjrtDeviceInfo } from "./pjrt/client.js";
import type { EventWaiter } from "./pjrt/events.js";

export interface XlaRuntime {
  readonly api: PjrtApi;
  readonly client: PjrtClient;
  readonly buffers: PjrtBuffers;
  readonly waiter: EventWaiter;
}

/** A device of the plugin, as the engine names it ("gpu:0", "tpu:3"). */
export class XlaDevice implements Device {
  constructor(
    readonly id: string,
    readonly platform: Platform,
    readonly index: number,
    readonly executor: Executor,
    readonly pjrt: PjrtDeviceInfo,
  ) {}
}
