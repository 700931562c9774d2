// The PJRT C API argument structs Kiln uses, declared field by field after pjrt_c_api.h at API
// version 0.113 (every field up to the last one of each struct as of that version; see layout.ts
// for how offsets and struct_size follow). Plugins accept structs at least as large as their own and
// read only the fields they know, so one declaration serves plugins from 0.81 (XLA's CPU wheel) on.
import { defineStruct, type FieldType, type StructLayout } from "./layout.js";

/** The PJRT C API version (0.x) these declarations follow. */
export const DECLARED_API_MINOR = 113;

/** Every argument struct starts with its size and an extension chain. */
function args(name: string, ...fields: (readonly [string, FieldType])[]): StructLayout {
  return defineStruct(name, [["struct_size", "size_t"], ["extension_start", "pointer"], ...fields]);
}

export const S = {
  Error_Destroy: args("PJRT_Error_Destroy_Args", ["error", "pointer"]),
  Error_Message: args("PJRT_Error_Message_Args", ["error", "pointer"], ["message", "pointer"], ["message_size", "size_t"]),
  Error_GetCode: args("PJRT_Error_GetCode_Args", ["error", "pointer"], ["code", "int"]),

  NamedValue: args(
    "PJRT_NamedValue",
    ["name", "pointer"],
    ["name_size", "size_t"],
    ["type", "int"],
    ["value", "union8"],
    ["value_size", "size_t"],
  ),
  Plugin_Initialize: args("PJRT_Plugin_Initialize_Args"),
  Plugin_Attributes: args("PJRT_Plugin_Attributes_Args", ["attributes", "pointer"], ["num_attributes", "size_t"]),

  Event_Destroy: args("PJRT_Event_Destroy_Args", ["event", "pointer"]),
  Event_IsReady: args("PJRT_Event_IsReady_Args", ["event", "pointer"], ["is_ready", "bool"]),
  Event_Error: args("PJRT_Event_Error_Args", ["event", "pointer"]),
  Event_Await: args("PJRT_Event_Await_Args", ["event", "pointer"]),

  Client_Create: args(
    "PJRT_Client_Create_Args",
    ["create_options", "pointer"],
    ["num_options", "size_t"],
    ["kv_get_callback", "pointer"],
    ["kv_get_user_arg", "pointer"],
    ["kv_put_callback", "pointer"],
    ["kv_put_user_arg", "pointer"],
    ["client", "pointer"],
    ["kv_try_get_callback", "pointer"],
    ["kv_try_get_user_arg", "pointer"],
  ),
  // The key-value store callbacks' arguments, filled by the plugin. XLA's own caller
  // (CApiKeyValueStore in pjrt_c_api_helpers.cc) leaves struct_size unset: never read it.
  KeyValueGetCallback: args(
    "PJRT_KeyValueGetCallback_Args",
    ["key", "pointer"],
    ["key_size", "size_t"],
    ["timeout_in_ms", "int"],
    ["callback_error", "pointer"],
    ["user_arg", "pointer"],
    ["value", "pointer"],
    ["value_size", "size_t"],
    ["value_deleter_callback", "pointer"],
  ),
  KeyValueTryGetCallback: args(
    "PJRT_KeyValueTryGetCallback_Args",
    ["key", "pointer"],
    ["key_size", "size_t"],
    ["callback_error", "pointer"],
    ["user_arg", "pointer"],
    ["value", "pointer"],
    ["value_size", "size_t"],
    ["value_deleter_callback", "pointer"],
  ),
  KeyValuePutCallback: args(
    "PJRT_KeyValuePutCallback_Args",
    ["key", "pointer"],
    ["key_size", "size_t"],
    ["value", "pointer"],
    ["value_size", "size_t"],
    ["callback_error", "pointer"],
    ["user_arg", "pointer"],
  ),
  Client_Destroy: args("PJRT_Client_Destroy_Args", ["client", "pointer"]),
  Client_Devices: args("PJRT_Client_Devices_Args", ["client", "pointer"], ["devices", "pointer"], ["num_devices", "size_t"]),
  Client_ProcessIndex: args("PJRT_Client_ProcessIndex_Args", ["client", "pointer"], ["process_index", "int"]),
  Client_PlatformName: args(
    "PJRT_Client_PlatformName_Args",
    ["client", "pointer"],
    ["platform_name", "pointer"],
    ["platform_name_size", "size_t"],
  ),
  Client_PlatformVersion: args(
    "PJRT_Client_PlatformVersion_Args",
    ["client", "pointer"],
    ["platform_version", "pointer"],
    ["platform_version_size", "size_t"],
  ),
  Client_AddressableDevices: args(
    "PJRT_Client_AddressableDevices_Args",
    ["client", "pointer"],
    ["addressable_devices", "pointer"],
    ["num_addressable_devices", "size_t"],
  ),

  Device_GetDescription: args("PJRT_Device_GetDescription_Args", ["device", "pointer"], ["device_description", "pointer"]),
  DeviceDescription_Id: args("PJRT_DeviceDescription_Id_Args", ["device_description", "pointer"], ["id", "int"]),
  DeviceDescription_ProcessIndex: args(
    "PJRT_DeviceDescription_ProcessIndex_Args",
    ["device_description", "pointer"],
    ["process_index", "int"],
  ),
  DeviceDescription_Kind: args(
    "PJRT_DeviceDescription_Kind_Args",
    ["device_description", "pointer"],
    ["device_kind", "pointer"],
    ["device_kind_size", "size_t"],
  ),

  Device_MemoryStats: args(
    "PJRT_Device_MemoryStats_Args",
    ["device", "pointer"],
    ["bytes_in_use", "int64"],
    ["peak_bytes_in_use", "int64"],
    ["peak_bytes_in_use_is_set", "bool"],
    ["num_allocs", "int64"],
    ["num_allocs_is_set", "bool"],
    ["largest_alloc_size", "int64"],
    ["largest_alloc_size_is_set", "bool"],
    ["bytes_limit", "int64"],
    ["bytes_limit_is_set", "bool"],
    ["bytes_reserved", "int64"],
    ["bytes_reserved_is_set", "bool"],
    ["peak_bytes_reserved", "int64"],
    ["peak_bytes_reserved_is_set", "bool"],
    ["bytes_reservable_limit", "int64"],
    ["bytes_reservable_limit_is_set", "bool"],
    ["largest_free_block_bytes", "int64"],
    ["largest_free_block_bytes_is_set", "bool"],
    ["pool_bytes", "int64"],
    ["pool_bytes_is_set", "bool"],
    ["peak_pool_bytes", "int64"],
    ["peak_pool_bytes_is_set", "bool"],
  ),

  Program: args("PJRT_Program", ["code", "pointer"], ["code_size", "size_t"], ["format", "pointer"], ["format_size", "size_t"]),
  Client_Compile: args(
    "PJRT_Client_Compile_Args",
    ["client", "pointer"],
    ["program", "pointer"],
    ["compile_options", "pointer"],
    ["compile_options_size", "size_t"],
    ["executable", "pointer"],
  ),

  Executable_Destroy: args("PJRT_Executable_Destroy_Args", ["executable", "pointer"]),
  Executable_NumOutputs: args("PJRT_Executable_NumOutputs_Args", ["executable", "pointer"], ["num_outputs", "size_t"]),
  Executable_Serialize: args(
    "PJRT_Executable_Serialize_Args",
    ["executable", "pointer"],
    ["serialized_bytes", "pointer"],
    ["serialized_bytes_size", "size_t"],
    ["serialized_executable", "pointer"],
    ["serialized_executable_deleter", "pointer"],
  ),
  Executable_DeserializeAndLoad: args(
    "PJRT_Executable_DeserializeAndLoad_Args",
    ["client", "pointer"],
    ["serialized_executable", "pointer"],
    ["serialized_executable_size", "size_t"],
    ["loaded_executable", "pointer"],
    ["overridden_serialized_compile_options", "pointer"],
    ["overridden_serialized_compile_options_size", "size_t"],
  ),
  LoadedExecutable_Destroy: args("PJRT_LoadedExecutable_Destroy_Args", ["executable", "pointer"]),
  LoadedExecutable_GetExecutable: args(
    "PJRT_LoadedExecutable_GetExecutable_Args",
    ["loaded_executable", "pointer"],
    ["executable", "pointer"],
  ),
  LoadedExecutable_AddressableDevices: args(
    "PJRT_LoadedExecutable_AddressableDevices_Args",
    ["executable", "pointer"],
    ["addressable_devices", "pointer"],
    ["num_addressable_devices", "size_t"],
  ),
  ExecuteOptions: args(
    "PJRT_ExecuteOptions",
    ["send_callbacks", "pointer"],
    ["recv_callbacks", "pointer"],
    ["num_send_ops", "size_t"],
    ["num_recv_ops", "size_t"],
    ["launch_id", "int"],
    ["non_donatable_input_indices", "pointer"],
    ["num_non_donatable_input_indices", "size_t"],
    ["context", "pointer"],
    ["call_location", "pointer"],
    ["num_tasks", "size_t"],
    ["task_ids", "pointer"],
    ["incarnation_ids", "pointer"],
    ["multi_slice_config", "pointer"],
    // 0.110: callbacks may see device layouts unless this is set (Kiln passes no callbacks).
    ["use_major_to_minor_data_layout_for_callbacks", "bool"],
    // 0.113
    ["hlo_output_callbacks", "pointer"],
    ["num_hlo_output_callbacks", "size_t"],
  ),
  LoadedExecutable_Execute: args(
    "PJRT_LoadedExecutable_Execute_Args",
    ["executable", "pointer"],
    ["options", "pointer"],
    ["argument_lists", "pointer"],
    ["num_devices", "size_t"],
    ["num_args", "size_t"],
    ["output_lists", "pointer"],
    ["device_complete_events", "pointer"],
    ["execute_device", "pointer"],
  ),

  Client_BufferFromHostBuffer: args(
    "PJRT_Client_BufferFromHostBuffer_Args",
    ["client", "pointer"],
    ["data", "pointer"],
    ["type", "int"],
    ["dims", "pointer"],
    ["num_dims", "size_t"],
    ["byte_strides", "pointer"],
    ["num_byte_strides", "size_t"],
    ["host_buffer_semantics", "int"],
    ["device", "pointer"],
    ["memory", "pointer"],
    ["device_layout", "pointer"],
    ["done_with_host_buffer", "pointer"],
    ["buffer", "pointer"],
  ),
  Buffer_Destroy: args("PJRT_Buffer_Destroy_Args", ["buffer", "pointer"]),
  Buffer_ToHostBuffer: args(
    "PJRT_Buffer_ToHostBuffer_Args",
    ["src", "pointer"],
    ["host_layout", "pointer"],
    ["dst", "pointer"],
    ["dst_size", "size_t"],
    ["event", "pointer"],
  ),
  Buffer_UnsafePointer: args("PJRT_Buffer_UnsafePointer_Args", ["buffer", "pointer"], ["buffer_pointer", "pointer"]),
  Buffer_ReadyEvent: args("PJRT_Buffer_ReadyEvent_Args", ["buffer", "pointer"], ["event", "pointer"]),
} as const;

/** PJRT_NamedValue_Type. */
export const NamedValueType = { String: 0, Int64: 1, Int64List: 2, Float: 3, Bool: 4 } as const;

/** PJRT_HostBufferSemantics. */
export const HostBufferSemantics = { ImmutableOnlyDuringCall: 0, ImmutableUntilTransferCompletes: 1, ImmutableZeroCopy: 2 } as const;
