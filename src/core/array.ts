// Array: the one value type of Kiln. An array is either concrete (its data lives in a device buffer
// owned by an executor) or traced (an abstract shape and dtype standing for a value of a program being
// built). This file holds what an array is; its math methods (x.add(y), x.sum(), …) are attached in
// array-methods.ts once the ops they call are defined, so that ops/ can import Array without a cycle.
import type { DType, HostArray } from "./dtype.js";
import { readElem } from "./dtype.js";
import type { AVal, Var } from "./ir.js";
import { fmtAVal } from "./ir.js";
import type { Device, DeviceBuffer } from "./executor.js";
import type { Shape } from "./shape.js";
import { sizeOf } from "./shape.js";
import type { Trace } from "./trace.js";
import { EscapedTracerError, TracerReadError } from "./diagnostics.js";
import { countTransfer } from "./metrics.js";

/** What the ops accept where an array is expected: an Array, or a JS number/boolean (a weak scalar). */
export type ArrayOrScalar = Array | number | boolean;

/** An n-dimensional array on a device (or a tracer inside jit/grad): its shape, dtype, and data. */
export class Array {
  readonly aval: AVal;
  /** Made from a JS scalar: in mixed arithmetic it takes the other operand's dtype (JAX's weak types). */
  readonly weak: boolean;
  readonly trace: Trace | undefined;
  readonly v: Var | undefined;
  #buffer: DeviceBuffer | undefined;
  #gone: string | undefined;

  private constructor(aval: AVal, weak: boolean, buffer?: DeviceBuffer, trace?: Trace, v?: Var) {
    this.aval = aval;
    this.weak = weak;
    this.#buffer = buffer;
    this.trace = trace;
    this.v = v;
  }

  static fromBuffer(buffer: DeviceBuffer, weak = false): Array {
    return new Array(buffer.aval, weak, buffer);
  }

  static traced(trace: Trace, v: Var, weak = false): Array {
    return new Array(v.aval, weak, undefined, trace, v);
  }

  get shape(): Shape {
    return this.aval.shape;
  }
  get dtype(): DType {
    return this.aval.dtype;
  }
  get ndim(): number {
    return this.aval.shape.length;
  }
  get size(): number {
    return sizeOf(this.aval.shape);
  }
  get isTraced(): boolean {
    return this.trace !== undefined;
  }

  /** The device buffer of a concrete array (throws for traced, donated or disposed arrays). */
  buffer(): DeviceBuffer {
    if (this.trace) {
      if (!this.trace.active) throw new EscapedTracerError(fmtAVal(this.aval));
      throw new TracerReadError("using it as a concrete array", fmtAVal(this.aval));
    }
    if (this.#gone) throw new Error(`this array (${fmtAVal(this.aval)}) ${this.#gone}`);
    return this.#buffer!;
  }

  get device(): Device {
    return this.buffer().device;
  }

  /** Marks the array unusable (its buffer was donated to a call or disposed). */
  invalidate(reason: string): void {
    this.#gone = reason;
  }

  private readGuard(what: string): DeviceBuffer {
    if (this.trace) {
      if (!this.trace.active) throw new EscapedTracerError(fmtAVal(this.aval));
      throw new TracerReadError(what, fmtAVal(this.aval));
    }
    return this.buffer();
  }

  /** Resolves when the value has been computed (rejects with the execution's error). */
  async ready(): Promise<this> {
    await this.readGuard("ready()").ready;
    return this;
  }

  /** The values as a flat host typed array (bf16/f16 as raw 16-bit patterns). */
  async data(): Promise<HostArray> {
    const h = await this.readGuard(".data()").toHost();
    countTransfer("toHost", h.byteLength);
    return h;
  }

  /** Like data(), but synchronous: the value must be ready (after `await x.ready()`) or on a host executor. */
  dataSync(): HostArray {
    const h = this.readGuard(".dataSync()").toHostSync();
    countTransfer("toHost", h.byteLength);
    return h;
  }

  /** Constants captured while tracing: their data becomes part of the program. */
  hostDataForTracing(): HostArray {
    return this.buffer().toHostSync();
  }

  /** The single element as a JS number (synchronous; see dataSync). */
  item(): number {
    const buf = this.readGuard(".item()");
    if (this.size !== 1) throw new Error(`.item() needs an array with one element, got ${fmtAVal(this.aval)}`);
    const h = buf.toHostSync();
    countTransfer("toHost", h.byteLength);
    return readElem(this.dtype, h, 0);
  }

  /** Nested JS arrays of numbers (synchronous; see dataSync). */
  toArray(): unknown {
    const buf = this.readGuard(".toArray()");
    const h = buf.toHostSync();
    countTransfer("toHost", h.byteLength);
    const d = this.dtype,
      shape = this.shape;
    const nest = (dim: number, off: number): unknown => {
      if (dim === shape.length) return readElem(d, h, off);
      const stride = sizeOf(shape.slice(dim + 1));
      return globalThis.Array.from({ length: shape[dim]! }, (_, i) => nest(dim + 1, off + i * stride));
    };
    return nest(0, 0);
  }

  valueOf(): number {
    if (this.trace) throw new TracerReadError("converting it to a number (valueOf: comparison, arithmetic or if)", fmtAVal(this.aval));
    return this.item();
  }
  [Symbol.toPrimitive](hint: string): number | string {
    if (this.trace)
      throw new TracerReadError(
        `converting it to a ${hint === "string" ? "string (template literal)" : "number (comparison, arithmetic or if)"}`,
        fmtAVal(this.aval),
      );
    return hint === "string" ? this.toString() : this.item();
  }
  toString(): string {
    if (this.trace) return `Array(traced ${fmtAVal(this.aval)})`;
    if (this.#gone) return `Array(${fmtAVal(this.aval)}, ${this.#gone})`;
    const buf = this.#buffer!;
    if (!buf.isReady()) return `Array(${fmtAVal(this.aval)}, pending)`;
    return `Array(${fmtAVal(this.aval)}, ${JSON.stringify(this.toArray())})`;
  }

  /** Frees the device memory now instead of waiting for garbage collection. */
  dispose(): void {
    if (this.trace || this.#gone) return;
    this.#buffer!.dispose();
    this.#gone = "was disposed";
  }
}
