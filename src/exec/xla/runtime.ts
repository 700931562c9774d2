// What the XLA executor's buffers and executables share: the plugin, its client, the event waiter, and
// the record of what is still alive on the client, so that nothing calls into a destroyed client.
import type { Device, Executor, Platform } from "../../core/executor.js";
import type { PjrtApi } from "./pjrt/api.js";
import type { PjrtClient, PjrtBuffers, PjrtDeviceInfo, PjrtLoadedExecutable } from "./pjrt/client.js";
import type { EventWaiter } from "./pjrt/events.js";

/**
 * The client's live objects. Buffers are kept as raw handles (a wrapper may be garbage-collected, and
 * its finalizer frees the handle only while the client lives); close() destroys whatever is left.
 */
export class ClientLife {
  closed = false;
  readonly buffers = new Set<bigint>();
  readonly executables = new Set<PjrtLoadedExecutable>();

  constructor(private readonly pjrtBuffers: PjrtBuffers) {}

  /** Frees a buffer handle once, and only while the client lives (after close() it is already gone). */
  releaseBuffer(handle: bigint): void {
    if (this.closed || !this.buffers.delete(handle)) return;
    this.pjrtBuffers.destroy(handle);
  }

  releaseExecutable(loaded: PjrtLoadedExecutable): void {
    if (this.closed || !this.executables.delete(loaded)) return;
    loaded.destroy();
  }

  /** Destroys every buffer and executable still alive; afterwards every release is a no-op. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.buffers) this.pjrtBuffers.destroy(h);
    for (const e of this.executables) e.destroy();
    this.buffers.clear();
    this.executables.clear();
  }
}

export interface XlaRuntime {
  readonly api: PjrtApi;
  readonly client: PjrtClient;
  readonly buffers: PjrtBuffers;
  readonly waiter: EventWaiter;
  readonly life: ClientLife;
}

/** A device of the plugin, as the engine names it ("gpu:0", "tpu:3", "xla-cpu:1"). */
export class XlaDevice implements Device {
  constructor(
    readonly id: string,
    readonly platform: Platform,
    readonly index: number,
    readonly executor: Executor,
    readonly pjrt: PjrtDeviceInfo,
  ) {}
}
