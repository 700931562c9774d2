// A device buffer of the ONNX Runtime executor: native memory (an allocation, possibly shared with
// other buffers holding the same value) plus an OrtValue describing it, created once and bound
// directly as a run's input or output. Nothing is copied per run; the host sees the data only through
// toHost/toHostSync, which copy it out.
import type { HostArray } from "../../core/dtype.js";
import { allocHost, itemSize } from "../../core/dtype.js";
import type { AVal } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import type { Device, DeviceBuffer } from "../../core/executor.js";
import { sizeOf } from "../../core/shape.js";
import type { Allocation } from "./memory-pool.js";
import { nativeBytes } from "./native-memory.js";
import type { Ptr } from "./ort-api.js";
import type { RunTicket } from "./run-queue.js";
import type { OrtRuntime } from "./runtime.js";
import { ONNX_TYPE } from "../../io/onnx/proto.js";

/** What a buffer owns; released once, by dispose, donation or garbage collection. */
interface Holdings {
  readonly rt: OrtRuntime;
  readonly alloc: Allocation;
  value: Ptr | null;
  released: boolean;
}

function releaseHoldings(h: Holdings): void {
  if (h.released) return;
  h.released = true;
  const { rt, alloc, value } = h;
  rt.liveBuffers--;
  // The OrtValue may still be bound to queued runs: release it after the last of them.
  if (value) rt.queue.whenDone(alloc.block.lastUse, () => rt.api.releaseValue(value));
  rt.pool.release(alloc);
}

const collected = new FinalizationRegistry<Holdings>(releaseHoldings);

export function byteSize(aval: AVal): number {
  return sizeOf(aval.shape) * itemSize(aval.dtype);
}

export class OrtBuffer implements DeviceBuffer {
  readonly ready: Promise<void>;
  private readonly holdings: Holdings;
  private gone: string | undefined;

  /**
   * @param alloc retained by the caller for this buffer (the buffer releases it)
   * @param producer the run that computes the value; none when the value is already there
   */
  constructor(
    readonly aval: AVal,
    readonly device: Device,
    private readonly rt: OrtRuntime,
    alloc: Allocation,
    readonly producer?: RunTicket,
    value: Ptr | null = null,
  ) {
    this.ready = producer ? producer.done : Promise.resolve();
    this.holdings = { rt, alloc, value, released: false };
    rt.liveBuffers++;
    collected.register(this, this.holdings, this);
  }

  get disposed(): boolean {
    return this.gone !== undefined;
  }

  get allocation(): Allocation {
    return this.holdings.alloc;
  }

  /** The OrtValue over this buffer's memory, for binding to a run. */
  ortValue(): Ptr {
    this.check();
    const h = this.holdings;
    h.value ??= this.rt.api.createTensor(
      this.rt.memoryInfo,
      h.alloc.ptr,
      byteSize(this.aval),
      BigInt64Array.from(this.aval.shape, BigInt),
      ONNX_TYPE[this.aval.dtype],
    );
    return h.value;
  }

  isReady(): boolean {
    return !this.producer || this.rt.queue.isDone(this.producer.seq);
  }

  async toHost(): Promise<HostArray> {
    this.check();
    await this.ready;
    return this.copyOut();
  }

  toHostSync(): HostArray {
    this.check();
    if (this.producer) {
      this.rt.queue.waitFor(this.producer.seq);
      const failure = this.rt.queue.failure(this.producer.seq);
      if (failure) throw new Error(failure);
    }
    return this.copyOut();
  }

  dispose(): void {
    this.end("was disposed");
  }

  /** Gives the memory to the executor for reuse (the buffer is unusable afterwards). */
  donate(program: string): void {
    this.end(`was donated to ${program}`);
  }

  private end(reason: string): void {
    if (this.gone) return;
    this.gone = reason;
    collected.unregister(this);
    releaseHoldings(this.holdings);
  }

  private check(): void {
    if (this.gone) throw new Error(`buffer ${fmtAVal(this.aval)} on ${this.device.id} ${this.gone}`);
  }

  private copyOut(): HostArray {
    // The buffer may have been donated or disposed while the caller awaited it.
    this.check();
    const out = allocHost(this.aval.dtype, sizeOf(this.aval.shape));
    new Uint8Array(out.buffer).set(nativeBytes(this.holdings.alloc.ptr, out.byteLength));
    return out;
  }
}
