// A compiled program on the XLA executor. One replica: a portable executable that runs on the device
// of its arguments. N replicas: one executable over N devices, launched on all of them at once.
import type { DeviceBuffer, Executable } from "../../core/executor.js";
import type { Program } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import { XlaBuffer } from "./buffer.js";
import type { PjrtLoadedExecutable } from "./pjrt/client.js";
import type { XlaDevice, XlaRuntime } from "./runtime.js";

/** A program compiled by XLA (a PJRT_LoadedExecutable), run on device buffers. */
export class XlaExecutable implements Executable {
  private disposed = false;

  constructor(
    private readonly runtime: XlaRuntime,
    readonly program: Program,
    readonly replicas: number,
    private readonly loaded: PjrtLoadedExecutable,
    /** Replica r runs on devices[r]; a one-replica executable runs where its arguments are (else devices[0]). */
    private readonly devices: readonly XlaDevice[],
    /** Per input: the output it was compiled to alias (its buffer is donated), or -1. */
    private readonly aliases: readonly number[],
    /** For replicated executables: local replica r's position in PJRT's argument and output lists. */
    private readonly launchOrder: readonly number[],
    /**
     * The replicas this process runs (global replica indices), in the order execute() takes their
     * arguments: all of them in one process; for a program compiled across processes, those on its devices.
     */
    readonly localReplicas: readonly number[] = devices.map((_, r) => r),
  ) {
    runtime.life.executables.add(loaded);
  }

  private checkArgs(args: readonly (readonly DeviceBuffer[])[]): XlaBuffer[][] {
    const name = this.program.name;
    if (this.disposed) throw new Error(`${name}: the executable was disposed`);
    if (this.runtime.life.closed) throw new Error(`${name}: its XLA executor was closed`);
    const local = this.replicas === 1 ? 1 : this.devices.length;
    if (args.length !== local)
      throw new Error(
        local === this.replicas
          ? `${name}: compiled for ${this.replicas} replicas, got arguments for ${args.length}`
          : `${name}: compiled for ${this.replicas} replicas across processes, ${local} of them here ` +
              `(replicas ${this.localReplicas.join(", ")}); got arguments for ${args.length}`,
      );
    return args.map((replicaArgs, r) => {
      if (replicaArgs.length !== this.program.inputs.length)
        throw new Error(`${name}: expected ${this.program.inputs.length} inputs, got ${replicaArgs.length}`);
      return replicaArgs.map((b, i) => {
        const want = this.program.inputs[i]!.aval;
        if (!(b instanceof XlaBuffer) || b.device.executor !== this.devices[0]!.executor)
          throw new Error(`${name}: input ${i} is on ${b.device.id} of executor ${b.device.executor.name}, not on this XLA executor`);
        if (b.disposed) throw new Error(`${name}: input ${i} (${fmtAVal(b.aval)}) was disposed or donated`);
        if (fmtAVal(b.aval) !== fmtAVal(want))
          throw new Error(`${name}: input ${i} is ${fmtAVal(b.aval)}, the program takes ${fmtAVal(want)}`);
        if (this.replicas > 1 && b.device !== this.devices[r])
          throw new Error(`${name}: replica ${r} runs on ${this.devices[r]!.id}, but its input ${i} is on ${b.device.id}`);
        return b;
      });
    });
  }

  execute(args: readonly (readonly DeviceBuffer[])[]): DeviceBuffer[][] {
    const buffers = this.checkArgs(args);
    const numOutputs = this.program.outputs.length;
    let devices: XlaDevice[], launch: bigint[][], executeDevice: bigint | null;
    if (this.replicas === 1) {
      const device = buffers[0]![0]?.device ?? this.devices[0]!;
      for (const [i, b] of buffers[0]!.entries()) {
        if (b.device !== device)
          throw new Error(`${this.program.name}: inputs are on ${device.id} and ${b.device.id} (input ${i}); move them to one device`);
      }
      devices = [device];
      launch = [buffers[0]!.map((b) => b.handle)];
      executeDevice = device.pjrt.handle;
    } else {
      devices = [...this.devices];
      launch = new Array<bigint[]>(this.devices.length);
      buffers.forEach((replicaArgs, r) => {
        launch[this.launchOrder[r]!] = replicaArgs.map((b) => b.handle);
      });
      executeDevice = null;
    }

    const { outputs, done } = this.loaded.execute(launch, numOutputs, executeDevice);
    const results = devices.map((device, r) => {
      const slot = this.replicas === 1 ? 0 : this.launchOrder[r]!;
      const handles = outputs[slot]!;
      // Completion of the device's execution, or (where the plugin gives no such event) of its first output.
      const event = done[slot] || (handles.length ? this.runtime.buffers.readyEvent(handles[0]!) : 0n);
      const readiness = this.runtime.waiter.watch(event, `${this.program.name} on ${device.id}`);
      return handles.map((h, j) => new XlaBuffer(this.runtime, h, this.program.outputs[j]!.aval, device, readiness));
    });
    // Donated inputs now belong to the outputs they alias; their handles are only freed.
    buffers.forEach((replicaArgs) =>
      replicaArgs.forEach((b, i) => {
        if (this.aliases[i]! >= 0) b.dispose();
      }),
    );
    return results;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.runtime.life.releaseExecutable(this.loaded);
  }
}
