// xla.CompileOptionsProto, the serialized options PJRT_Client_Compile takes (field numbers from
// xla/pjrt/proto/compile_options.proto and xla/xla_data.proto).
import { ProtoWriter } from "../../../io/protobuf.js";

const COMPILE_OPTIONS = { executableBuildOptions: 3, compilePortableExecutable: 4 } as const;
const BUILD_OPTIONS = { deviceOrdinal: 1, numReplicas: 4, numPartitions: 5, deviceAssignment: 9 } as const;
const DEVICE_ASSIGNMENT = { replicaCount: 1, computationCount: 2, computationDevices: 3 } as const;
const COMPUTATION_DEVICE = { replicaDeviceIds: 1 } as const;

export type CompileTarget =
  /** One replica, compiled portably: it runs on whichever device each execution names. */
  | { readonly kind: "single" }
  /** One replica per device, replica r on the device with global id deviceIds[r]. */
  | { readonly kind: "replicated"; readonly deviceIds: readonly number[] };

export function compileOptionsProto(target: CompileTarget): Uint8Array {
  const replicas = target.kind === "single" ? 1 : target.deviceIds.length;
  if (replicas < 1) throw new Error("compile options: at least one device is needed");
  const options = new ProtoWriter();
  options.nested(COMPILE_OPTIONS.executableBuildOptions, () => {
    options
      .intField(BUILD_OPTIONS.deviceOrdinal, -1) // -1: not bound to one device ordinal
      .intField(BUILD_OPTIONS.numReplicas, replicas)
      .intField(BUILD_OPTIONS.numPartitions, 1);
    if (target.kind === "replicated") {
      options.nested(BUILD_OPTIONS.deviceAssignment, () =>
        options
          .intField(DEVICE_ASSIGNMENT.replicaCount, replicas)
          .intField(DEVICE_ASSIGNMENT.computationCount, 1)
          .nested(DEVICE_ASSIGNMENT.computationDevices, () => options.packedInts(COMPUTATION_DEVICE.replicaDeviceIds, target.deviceIds)),
      );
    }
  });
  if (target.kind === "single") options.boolField(COMPILE_OPTIONS.compilePortableExecutable, true);
  return options.finish();
}
