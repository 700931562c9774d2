// The reference executor: host buffers, programs run by the interpreter. It runs every program the
// engine can produce, and every other executor is tested against it.
import type { HostArray } from "../../core/dtype.js";
import type { AVal, Program } from "../../core/ir.js";
import { fmtAVal } from "../../core/ir.js";
import type { CompileOptions, Device, DeviceBuffer, Executable, Executor, ExecutorAbilities } from "../../core/executor.js";
import { sizeOf } from "../../core/shape.js";
import { interpret } from "./interpreter.js";

class HostBuffer implements DeviceBuffer {
  readonly ready = Promise.resolve();
  disposed = false;
  constructor(
    readonly aval: AVal,
    readonly device: Device,
    private data: HostArray,
  ) {}
  isReady() {
    return true;
  }
  async toHost() {
    return this.toHostSync();
  }
  toHostSync(): HostArray {
    if (this.disposed) throw new Error(`buffer ${fmtAVal(this.aval)} on ${this.device.id} was disposed`);
    return this.data;
  }
  dispose() {
    this.disposed = true;
    this.data = new Float32Array(0);
  }
}

/** The reference executor: interprets programs in plain TypeScript (slow; the ground truth in tests). */
export class RefExecutor implements Executor {
  readonly name: string = "ref";
  readonly platform = "cpu" as const;
  readonly abilities: ExecutorAbilities = { platforms: ["cpu"], sharesHostMemory: false, loopForm: "scan", reference: true };
  private readonly devs: Device[];

  /** `deviceCount` virtual devices, so replicated programs can be interpreted too. */
  constructor(deviceCount = 8) {
    this.devs = Array.from({ length: deviceCount }, (_, index) => ({
      id: `ref:${index}`,
      platform: "cpu" as const,
      index,
      executor: this,
    }));
  }

  devices(): readonly Device[] {
    return this.devs;
  }

  describe(): string {
    return `reference interpreter (TypeScript, f64 arithmetic rounded per op), ${this.devs.length} virtual devices`;
  }

  fromHost(data: HostArray, aval: AVal, device: Device = this.devs[0]!): DeviceBuffer {
    if (data.length !== sizeOf(aval.shape)) throw new Error(`fromHost: ${data.length} elements for ${fmtAVal(aval)}`);
    return new HostBuffer(aval, device, data);
  }

  compile(program: Program, options: CompileOptions = {}): Executable {
    const replicas = options.replicas ?? 1;
    const devices = options.devices ?? this.devs.slice(0, replicas);
    return {
      program,
      replicas,
      execute: (args) => {
        if (args.length !== replicas)
          throw new Error(`${program.name}: compiled for ${replicas} replicas, got arguments for ${args.length}`);
        const outs = interpret(
          program,
          args.map((r) => r.map((b) => ({ aval: b.aval, data: b.toHostSync() }))),
        );
        return outs.map((r, i) => r.map((t) => new HostBuffer(t.aval, devices[i] ?? this.devs[0]!, t.data)));
      },
      dispose() {},
    };
  }
}

/** The reference executor's one instance. */
export const refExecutor = new RefExecutor();
