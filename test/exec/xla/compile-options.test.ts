// CompileOptionsProto bytes against vectors worked out by hand from the .proto field numbers.
import test from "node:test";
import assert from "node:assert/strict";
import { compileOptionsProto } from "../../../src/exec/xla/proto/compile-options.js";
import { ProtoWriter } from "../../../src/io/protobuf.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").replace(/(..)/g, "$1 ").trim();

test("varints: small, multi-byte, and negative int64 as ten bytes", () => {
  assert.equal(hex(new ProtoWriter().intField(1, 1).finish()), "08 01");
  assert.equal(hex(new ProtoWriter().intField(1, 300).finish()), "08 ac 02");
  assert.equal(hex(new ProtoWriter().intField(1, -1).finish()), "08 ff ff ff ff ff ff ff ff ff 01");
  assert.equal(hex(new ProtoWriter().intField(16, 2).finish()), "80 01 02", "field 16 needs a two-byte tag");
  assert.equal(hex(new ProtoWriter().packedInts(1, [0, 1, 300]).finish()), "0a 04 00 01 ac 02");
});

test("one device: device_ordinal -1, one replica, one partition, portable", () => {
  // executable_build_options (3, 15 bytes) {device_ordinal (1) = -1; num_replicas (4) = 1; num_partitions (5) = 1}
  // compile_portable_executable (4) = true
  assert.equal(hex(compileOptionsProto({ kind: "single" })), "1a 0f 08 ff ff ff ff ff ff ff ff ff 01 20 01 28 01 20 01");
});

test("two replicas on devices 0 and 1 carry a device assignment", () => {
  // device_assignment (9, 10 bytes) {replica_count (1) = 2; computation_count (2) = 1;
  //   computation_devices (3, 4 bytes) {replica_device_ids (1, packed) = [0, 1]}}
  assert.equal(
    hex(compileOptionsProto({ kind: "replicated", deviceIds: [0, 1] })),
    "1a 1b 08 ff ff ff ff ff ff ff ff ff 01 20 02 28 01 4a 0a 08 02 10 01 1a 04 0a 02 00 01",
  );
});

test("replicas follow the given device ids, in order", () => {
  const bytes = hex(compileOptionsProto({ kind: "replicated", deviceIds: [3, 1, 2, 0] }));
  assert.match(bytes, / 20 04 28 01 4a 0c 08 04 10 01 1a 06 0a 04 03 01 02 00$/);
});

test("debug option overrides ride in env_option_overrides, one map entry each", () => {
  // env_option_overrides (7, 45 bytes) {key (1) = "xla_disable_hlo_passes"; value (2, 19 bytes) {string_field (1) = "transpose-folding"}}
  const bytes = hex(compileOptionsProto({ kind: "single" }, { xla_disable_hlo_passes: "transpose-folding" }));
  const entry = (s: string) => hex(new TextEncoder().encode(s));
  assert.equal(
    bytes,
    `1a 0f 08 ff ff ff ff ff ff ff ff ff 01 20 01 28 01 20 01 ` +
      `3a 2d 0a 16 ${entry("xla_disable_hlo_passes")} 12 13 0a 11 ${entry("transpose-folding")}`,
  );
});

test("a boolean debug option rides as OptionOverrideProto's bool_field", () => {
  // env_option_overrides (7, 24 bytes) {key (1) = "xla_cpu_use_onednn"; value (2, 2 bytes) {bool_field (2) = true}}
  const bytes = hex(compileOptionsProto({ kind: "single" }, { xla_cpu_use_onednn: true }));
  const key = hex(new TextEncoder().encode("xla_cpu_use_onednn"));
  assert.equal(bytes, `1a 0f 08 ff ff ff ff ff ff ff ff ff 01 20 01 28 01 20 01 3a 18 0a 12 ${key} 12 02 10 01`);
});
