// A compiled program: one ONNX Runtime session over the whole (replicated) program. Executing binds the
// input buffers' OrtValues and freshly acquired output buffers and queues one run on the worker; the
// outputs are returned at once and become ready when the run finishes.
import type { DeviceBuffer, Device, Executable } from "../../core/executor.js";
import type { Program } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import { shapesEqual } from "../../core/shape.js";
import type { Allocation } from "./memory-pool.js";
import { nativeBytes, nativeFree, nativeStrings } from "./native-memory.js";
import type { Ptr } from "./ort-api.js";
import type { OrtRuntime } from "./runtime.js";
import type { LoweredProgram } from "./lower-program.js";
import { OrtBuffer, byteSize } from "./buffer.js";
import { ONNX_TYPE } from "../../io/onnx/proto.js";

export class OrtExecutable implements Executable {
  private readonly inputNames: { block: Ptr; pointers: BigUint64Array };
  private readonly outputNames: { block: Ptr; pointers: BigUint64Array };
  /** Memory of outputs that are compile-time constants, written once. */
  private readonly constants = new Map<number, Allocation>();
  private disposed = false;

  constructor(
    readonly program: Program,
    readonly replicas: number,
    private readonly devices: readonly Device[],
    private readonly lowered: Omit<LoweredProgram, "model">,
    /** Absent when every output is an input or a constant (nothing to run). */
    private readonly session: Ptr | undefined,
    private readonly donate: readonly boolean[],
    private readonly rt: OrtRuntime,
    private readonly owns: (b: DeviceBuffer) => b is OrtBuffer,
  ) {
    this.inputNames = nativeStrings(lowered.inputNames);
    this.outputNames = nativeStrings(lowered.outputNames);
  }

  execute(args: readonly (readonly DeviceBuffer[])[]): DeviceBuffer[][] {
    if (this.disposed) throw new Error(`${this.program.name}: the executable was disposed`);
    const bufs = this.checkArgs(args);
    const { api, memoryInfo, pool, queue } = this.rt;
    const lo = this.lowered;

    // Outputs go to recycled memory (a donated input of an earlier step, typically), or over a donated
    // input that nothing else holds where the graph allows it (in-place.ts).
    const outAllocs = lo.outputAvals.map((aval, k) => {
      const i = lo.inPlace[k]!;
      const over = i >= 0 && this.donate[i] ? bufs[0]![i]! : undefined;
      // Held by this argument alone (not another buffer, not a second argument of the same call).
      const alone = over && over.allocation.refs === 1 && bufs[0]!.filter((b) => b.allocation === over.allocation).length === 1;
      return alone ? pool.retain(over.allocation) : pool.acquire(byteSize(aval), false);
    });
    const outValues = lo.outputAvals.map((aval, k) =>
      api.createTensor(memoryInfo, outAllocs[k]!.ptr, byteSize(aval), BigInt64Array.from(aval.shape, BigInt), ONNX_TYPE[aval.dtype]),
    );
    const inputs = bufs.flat();
    const ticket =
      this.session === undefined
        ? undefined
        : queue.submit({
            label: this.program.name,
            session: this.session,
            inputNames: this.inputNames.pointers,
            inputs: BigUint64Array.from(inputs, (b) => b.ortValue()),
            outputNames: this.outputNames.pointers,
            outputs: BigUint64Array.from(outValues),
            inputAllocs: inputs.map((b) => b.allocation.id),
            outputAllocs: outAllocs.map((a) => a.id),
          });
    const seq = ticket?.seq ?? queue.tail;
    for (const b of inputs) b.allocation.use(seq);
    for (const a of outAllocs) a.use(seq);

    const claimed = new Set<number>();
    const outs = bufs.map((ins, r) =>
      this.lowered.sources[r]!.map((src, j) => {
        const aval = this.program.outputs[j]!.aval;
        const device = this.devices[r]!;
        switch (src.kind) {
          case "graph": {
            // The first buffer of a graph output takes over the run's OrtValue; later ones make their own.
            const first = !claimed.has(src.index);
            claimed.add(src.index);
            return new OrtBuffer(aval, device, this.rt, pool.retain(outAllocs[src.index]!), ticket, first ? outValues[src.index]! : null);
          }
          case "input": {
            const x = ins[src.index]!;
            return new OrtBuffer(aval, device, this.rt, pool.retain(x.allocation), x.producer);
          }
          case "constant":
            return new OrtBuffer(aval, device, this.rt, pool.retain(this.constant(j, src.data)));
        }
      }),
    );
    outValues.forEach((v, k) => {
      if (!claimed.has(k)) queue.whenDone(seq, () => api.releaseValue(v));
    });
    for (const a of outAllocs) pool.release(a);

    // Donated inputs: their memory may be reused by any run submitted from now on.
    bufs.forEach((ins) =>
      ins.forEach((b, i) => {
        if (this.donate[i]) b.donate(this.program.name);
      }),
    );
    return outs;
  }

  /** Ends the profile of an executor made with `profile` (OrtExecutorOptions), and returns the file it wrote. */
  endProfiling(): string {
    if (this.session === undefined) throw new Error(`${this.program.name}: nothing runs, so nothing was profiled`);
    return this.rt.api.endProfiling(this.session);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const { api, pool, queue } = this.rt;
    const session = this.session,
      names = [this.inputNames.block, this.outputNames.block];
    queue.whenDone(queue.tail, () => {
      if (session !== undefined) api.releaseSession(session);
      names.forEach(nativeFree);
    });
    for (const a of this.constants.values()) pool.release(a);
  }

  private constant(j: number, data: ArrayBufferView): Allocation {
    let a = this.constants.get(j);
    if (!a) {
      a = this.rt.pool.acquire(data.byteLength, true);
      nativeBytes(a.ptr, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      this.constants.set(j, a);
    }
    return a;
  }

  private checkArgs(args: readonly (readonly DeviceBuffer[])[]): OrtBuffer[][] {
    const p = this.program;
    if (args.length !== this.replicas)
      throw new Error(`${p.name}: compiled for ${this.replicas} replica(s), got arguments for ${args.length}`);
    return args.map((ins, r) => {
      if (ins.length !== p.inputs.length) throw new Error(`${p.name}: expected ${p.inputs.length} inputs, got ${ins.length}`);
      return ins.map((b, i) => {
        const want = p.inputs[i]!.aval;
        if (!this.owns(b))
          throw new Error(
            `${p.name}: input ${i} of replica ${r} lives on ${b.device.id} (${b.device.executor.name}), not on this executor's devices`,
          );
        if (b.disposed) throw new Error(`${p.name}: input ${i} (${fmtAVal(b.aval)}) was disposed or donated`);
        if (b.aval.dtype !== want.dtype || !shapesEqual(b.aval.shape, want.shape))
          throw new Error(`${p.name}: input ${i} is ${fmtAVal(b.aval)}, the program takes ${fmtAVal(want)}`);
        return b;
      });
    });
  }
}
