// A device buffer of the XLA executor: a PJRT_Buffer, its readiness as a watched event, and reads
// back to the host. Buffers are freed by dispose(), or when garbage-collected if never disposed.
import type { HostArray } from "../../core/dtype.js";
import { itemSize, viewHost } from "../../core/dtype.js";
import type { DeviceBuffer } from "../../core/executor.js";
import type { AVal } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import { sizeOf } from "../../core/shape.js";
import type { WatchedEvent } from "./pjrt/events.js";
import type { XlaDevice, XlaRuntime } from "./runtime.js";

/** Frees the PJRT buffers of wrappers collected without dispose() (unless their client was closed first). */
const collected = new FinalizationRegistry<{ runtime: XlaRuntime; handle: bigint }>(({ runtime, handle }) =>
  runtime.life.releaseBuffer(handle),
);

/** A device buffer of the XLA executor (a PJRT_Buffer), freed by dispose() or when collected. */
export class XlaBuffer implements DeviceBuffer {
  disposed = false;

  constructor(
    private readonly runtime: XlaRuntime,
    readonly handle: bigint,
    readonly aval: AVal,
    readonly device: XlaDevice,
    /** Ready when the value exists; shared by the outputs of one execution on one device. */
    private readonly readiness: WatchedEvent,
  ) {
    runtime.life.buffers.add(handle);
    collected.register(this, { runtime, handle }, this);
  }

  get ready(): Promise<void> {
    return this.readiness.promise;
  }

  isReady(): boolean {
    return this.readiness.state !== "pending";
  }

  private live(what: string): void {
    if (this.disposed) throw new Error(`${what}: the buffer ${fmtAVal(this.aval)} on ${this.device.id} was disposed (or donated)`);
    if (this.runtime.life.closed)
      throw new Error(`${what}: the buffer ${fmtAVal(this.aval)} on ${this.device.id} belonged to a closed XLA executor`);
  }

  /** The plugin's address of the buffer's memory (PJRT_Buffer_UnsafePointer): shows which buffers share memory. */
  deviceAddress(): bigint {
    this.live("deviceAddress");
    return this.runtime.buffers.unsafePointer(this.handle);
  }

  /** Starts the copy to a fresh host array; `copied` is ready when the array holds the value. */
  private startCopy(): { data: HostArray; copied?: WatchedEvent } {
    const n = sizeOf(this.aval.shape);
    const dst = new ArrayBuffer(n * itemSize(this.aval.dtype));
    const data = viewHost(this.aval.dtype, dst, 0, n);
    if (n === 0) return { data };
    const event = this.runtime.buffers.toHost(this.handle, dst);
    return { data, copied: this.runtime.waiter.watch(event, `copying ${fmtAVal(this.aval)} from ${this.device.id} to the host`) };
  }

  async toHost(): Promise<HostArray> {
    this.live("toHost");
    await this.readiness.promise;
    const { data, copied } = this.startCopy();
    if (copied) await copied.promise; // `data` (and its memory) stays referenced until the copy is done
    return data;
  }

  /** Waits on this thread for the value (the caller asked for it synchronously), then copies it. */
  toHostSync(): HostArray {
    this.live("toHostSync");
    this.runtime.waiter.awaitNow(this.readiness);
    this.readiness.check();
    const { data, copied } = this.startCopy();
    if (copied) {
      this.runtime.waiter.awaitNow(copied);
      copied.check();
    }
    return data;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    collected.unregister(this);
    this.runtime.life.releaseBuffer(this.handle);
  }
}
