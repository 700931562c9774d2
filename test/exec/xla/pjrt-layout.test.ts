// Struct layouts computed from the binding's declarations, against offsets read off pjrt_c_api.h
// (LP64: pointers and size_t are 8 bytes, int 4, bool 1; struct_size excludes tail padding).
import test from "node:test";
import assert from "node:assert/strict";
import { defineStruct } from "../../../src/exec/xla/pjrt/layout.js";
import { S } from "../../../src/exec/xla/pjrt/structs.js";
import { functionOffset } from "../../../src/exec/xla/pjrt/api-table.js";
import type { StructLayout } from "../../../src/exec/xla/pjrt/layout.js";

const offsets = (l: StructLayout) => Object.fromEntries([...l.fields.values()].map((f) => [f.name, f.offset]));

test("padding: an int after a bool, a pointer after an int", () => {
  const l = defineStruct("T", [
    ["a", "bool"],
    ["b", "int"],
    ["c", "pointer"],
    ["d", "bool"],
  ]);
  assert.deepEqual(offsets(l), { a: 0, b: 4, c: 8, d: 16 });
  assert.equal(l.structSize, 17);
  assert.equal(l.byteLength, 24);
});

test("PJRT_Client_BufferFromHostBuffer_Args", () => {
  const l = S.Client_BufferFromHostBuffer;
  assert.deepEqual(offsets(l), {
    struct_size: 0,
    extension_start: 8,
    client: 16,
    data: 24,
    type: 32,
    dims: 40,
    num_dims: 48,
    byte_strides: 56,
    num_byte_strides: 64,
    host_buffer_semantics: 72,
    device: 80,
    memory: 88,
    device_layout: 96,
    done_with_host_buffer: 104,
    buffer: 112,
  });
  assert.equal(l.structSize, 120);
});

test("PJRT_NamedValue: the value union after the enum", () => {
  assert.deepEqual(offsets(S.NamedValue), {
    struct_size: 0,
    extension_start: 8,
    name: 16,
    name_size: 24,
    type: 32,
    value: 40,
    value_size: 48,
  });
  assert.equal(S.NamedValue.structSize, 56);
});

test("PJRT_ExecuteOptions and PJRT_LoadedExecutable_Execute_Args", () => {
  const o = offsets(S.ExecuteOptions);
  assert.equal(o.launch_id, 48);
  assert.equal(o.non_donatable_input_indices, 56);
  assert.equal(o.multi_slice_config, 112);
  // 0.110 added a bool (struct_size 121); 0.113 two fields after it, the pointer aligned to 128.
  assert.equal(o.use_major_to_minor_data_layout_for_callbacks, 120);
  assert.equal(o.hlo_output_callbacks, 128);
  assert.equal(o.num_hlo_output_callbacks, 136);
  assert.equal(S.ExecuteOptions.structSize, 144);
  assert.deepEqual(offsets(S.LoadedExecutable_Execute), {
    struct_size: 0,
    extension_start: 8,
    executable: 16,
    options: 24,
    argument_lists: 32,
    num_devices: 40,
    num_args: 48,
    output_lists: 56,
    device_complete_events: 64,
    execute_device: 72,
  });
  assert.equal(S.LoadedExecutable_Execute.structSize, 80);
});

test("small structs end without tail padding in struct_size", () => {
  assert.equal(S.Event_IsReady.structSize, 25, "bool is_ready at 24");
  assert.equal(S.Error_GetCode.structSize, 28, "int code at 24");
  assert.equal(S.Plugin_Initialize.structSize, 16);
  assert.equal(S.Client_Create.structSize, 88, "kv_try_get_user_arg at 80");
  assert.equal(S.Client_Compile.structSize, 56);
  assert.equal(S.Buffer_ToHostBuffer.structSize, 56);
});

test("PJRT_Api function pointers: from byte 40, in header order", () => {
  assert.equal(functionOffset("PJRT_Error_Destroy"), 40);
  assert.equal(functionOffset("PJRT_Plugin_Initialize"), 64);
  assert.equal(functionOffset("PJRT_Client_Create"), 120);
  assert.equal(functionOffset("PJRT_Client_Compile"), 200);
  assert.equal(functionOffset("PJRT_LoadedExecutable_Execute"), 480);
  assert.equal(functionOffset("PJRT_Buffer_ReadyEvent"), 40 + 8 * 72);
  assert.equal(functionOffset("PJRT_Device_GetAttributes"), 40 + 8 * 128, "the last function of API 0.94");
});

test("the key-value callbacks' argument structs (pjrt_c_api.h, unchanged from 0.81 to 0.90)", () => {
  assert.deepEqual(offsets(S.KeyValueGetCallback), {
    struct_size: 0,
    extension_start: 8,
    key: 16,
    key_size: 24,
    timeout_in_ms: 32,
    callback_error: 40,
    user_arg: 48,
    value: 56,
    value_size: 64,
    value_deleter_callback: 72,
  });
  assert.equal(S.KeyValueGetCallback.structSize, 80);
  assert.deepEqual(offsets(S.KeyValueTryGetCallback), {
    struct_size: 0,
    extension_start: 8,
    key: 16,
    key_size: 24,
    callback_error: 32,
    user_arg: 40,
    value: 48,
    value_size: 56,
    value_deleter_callback: 64,
  });
  assert.equal(S.KeyValueTryGetCallback.structSize, 72);
  assert.deepEqual(offsets(S.KeyValuePutCallback), {
    struct_size: 0,
    extension_start: 8,
    key: 16,
    key_size: 24,
    value: 32,
    value_size: 40,
    callback_error: 48,
    user_arg: 56,
  });
  assert.equal(S.KeyValuePutCallback.structSize, 64);
  assert.deepEqual(offsets(S.Client_Create), {
    struct_size: 0,
    extension_start: 8,
    create_options: 16,
    num_options: 24,
    kv_get_callback: 32,
    kv_get_user_arg: 40,
    kv_put_callback: 48,
    kv_put_user_arg: 56,
    client: 64,
    kv_try_get_callback: 72,
    kv_try_get_user_arg: 80,
  });
  assert.equal(S.DeviceDescription_ProcessIndex.structSize, 28, "int process_index at 24");
  assert.equal(S.Client_Devices.structSize, 40);
});

test("PJRT_Device_MemoryStats_Args: int64 figures each followed by its is_set bool", () => {
  const l = S.Device_MemoryStats;
  const o = offsets(l);
  assert.equal(o.device, 16);
  assert.equal(o.bytes_in_use, 24);
  assert.equal(o.peak_bytes_in_use, 32);
  assert.equal(o.peak_bytes_in_use_is_set, 40);
  assert.equal(o.num_allocs, 48);
  assert.equal(o.bytes_limit, 80);
  assert.equal(o.bytes_limit_is_set, 88);
  assert.equal(o.peak_pool_bytes_is_set, 184);
  assert.equal(l.structSize, 185);
});
