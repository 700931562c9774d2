// xla.CompileOptionsProto, the serialized options PJRT_Client_Compile takes (field numbers from
// xla/pjrt/proto/compile_options.proto and xla/xla_data.proto).
import { ProtoWriter } from "../../../io/protobuf.js";

const COMPILE_OPTIONS = { executableBuildOptions: 3, compilePortableExecutable: 4, envOptionOverrides: 7 } as const;
/** A map<string, OptionOverrideProto> entry, and the override's value (a string, or a bool for a boolean field). */
const MAP_ENTRY = { key: 1, value: 2 } as const;
const OPTION_OVERRIDE = { stringField: 1, boolField: 2 } as const;
const BUILD_OPTIONS = { deviceOrdinal: 1, numReplicas: 4, numPartitions: 5, deviceAssignment: 9 } as const;
const DEVICE_ASSIGNMENT = { replicaCount: 1, computationCount: 2, computationDevices: 3 } as const;
const COMPUTATION_DEVICE = { replicaDeviceIds: 1 } as const;

/** What an XLA executable is compiled for: one portable replica, or one replica per listed device. */
export type CompileTarget =
  /** One replica, compiled portably: it runs on whichever device each execution names. */
  | { readonly kind: "single" }
  /** One replica per device, replica r on the device with global id deviceIds[r]. */
  | { readonly kind: "replicated"; readonly deviceIds: readonly number[] };

/**
 * `overrides` set xla.DebugOptions fields by name (`env_option_overrides`, applied by PJRT over the
 * plugin's own defaults, as `jax.jit(...).lower().compile(compiler_options)` passes them). Setting
 * `executable_build_options.debug_options` instead would replace every default with proto3 zeros.
 * A boolean field takes a boolean: PJRT refuses the string "true" for one.
 */
export function compileOptionsProto(target: CompileTarget, overrides: Readonly<Record<string, string | boolean>> = {}): Uint8Array {
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
  for (const [key, value] of Object.entries(overrides))
    options.nested(COMPILE_OPTIONS.envOptionOverrides, () =>
      options
        .stringField(MAP_ENTRY.key, key)
        .nested(MAP_ENTRY.value, () =>
          typeof value === "boolean"
            ? options.boolField(OPTION_OVERRIDE.boolField, value)
            : options.stringField(OPTION_OVERRIDE.stringField, value),
        ),
    );
  return options.finish();
}
