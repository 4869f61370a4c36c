/**
 * Runtime-neutral FFI table of the Triton Inference Server in-process C API
 * (libtritonserver.so), API version 1.34.
 *
 * Every `TRITONSERVER_*` function is listed with neutral parameter/result type
 * names; the Deno, Bun and Node (koffi) adapters translate these names into
 * their own FFI descriptors. Each parameter line carries the C declaration it
 * stands for.
 *
 * Mapping conventions:
 * - C enums are int-sized and passed as "u32".
 * - Handles (`TRITONSERVER_Foo*`), plain `void*` and function pointers are "ptr".
 * - Out-parameters (`T**`, `uint64_t*`, `bool*`, `const char**`, ...) and input
 *   arrays (`const int64_t* shape`, `const double* buckets`,
 *   `const TRITONSERVER_Parameter** labels`) are "buf" (a JS TypedArray).
 * - `const char*` strings are "cstr"; a `const char*` that is really a byte
 *   buffer with a separate length is "buf".
 */

/** Neutral FFI type names. */
export type FfiType =
  | "void"
  | "bool"
  | "i32"
  | "u32"
  | "i64"
  | "u64"
  | "usize"
  | "f64"
  | "ptr" // an opaque pointer/handle or address (TRITONSERVER_Foo*, void*, function pointers)
  | "buf" // a pointer the caller passes as a JS TypedArray: out-parameters and input arrays
  | "cstr"; // const char* input string (parameter), or a returned const char* read as a JS string (result)

export interface SymbolDef {
  readonly parameters: readonly FfiType[];
  readonly result: FfiType;
  /** May wait on Triton's own threads (which may be waiting to run a JS callback): must be called without blocking the JS thread. */
  readonly mayBlock?: true;
  /** API minor version that added the function; 0 = present in every 1.x we support. */
  readonly since: number;
}

export const symbols = {
  // --- API version ---
  TRITONSERVER_ApiVersion: {
    parameters: [
      "buf", // uint32_t* major
      "buf", // uint32_t* minor
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Errors ---
  TRITONSERVER_ErrorNew: {
    parameters: [
      "u32", // TRITONSERVER_Error_Code code
      "cstr", // const char* msg
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ErrorDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_Error* error
    ],
    result: "void",
    since: 0,
  },
  TRITONSERVER_ErrorCode: {
    parameters: [
      "ptr", // struct TRITONSERVER_Error* error
    ],
    result: "u32", // TRITONSERVER_Error_Code
    since: 0,
  },
  TRITONSERVER_ErrorCodeString: {
    parameters: [
      "ptr", // struct TRITONSERVER_Error* error
    ],
    result: "cstr", // const char*
    since: 0,
  },
  TRITONSERVER_ErrorMessage: {
    parameters: [
      "ptr", // struct TRITONSERVER_Error* error
    ],
    result: "cstr", // const char*
    since: 0,
  },

  // --- Data types and memory types ---
  TRITONSERVER_DataTypeString: {
    parameters: [
      "u32", // TRITONSERVER_DataType datatype
    ],
    result: "cstr", // const char*
    since: 0,
  },
  TRITONSERVER_StringToDataType: {
    parameters: [
      "cstr", // const char* dtype
    ],
    result: "u32", // TRITONSERVER_DataType
    since: 0,
  },
  TRITONSERVER_DataTypeByteSize: {
    parameters: [
      "u32", // TRITONSERVER_DataType datatype
    ],
    result: "u32", // uint32_t
    since: 0,
  },
  TRITONSERVER_MemoryTypeString: {
    parameters: [
      "u32", // TRITONSERVER_MemoryType memtype
    ],
    result: "cstr", // const char*
    since: 0,
  },

  // --- Parameters ---
  TRITONSERVER_ParameterTypeString: {
    parameters: [
      "u32", // TRITONSERVER_ParameterType paramtype
    ],
    result: "cstr", // const char*
    since: 0,
  },
  TRITONSERVER_ParameterNew: {
    parameters: [
      "cstr", // const char* name
      "u32", // const TRITONSERVER_ParameterType type
      "ptr", // const void* value
    ],
    result: "ptr", // TRITONSERVER_Parameter*
    since: 0,
  },
  TRITONSERVER_ParameterBytesNew: {
    parameters: [
      "cstr", // const char* name
      "ptr", // const void* byte_ptr
      "u64", // const uint64_t size
    ],
    result: "ptr", // TRITONSERVER_Parameter*
    since: 0,
  },
  TRITONSERVER_ParameterDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_Parameter* parameter
    ],
    result: "void",
    since: 0,
  },

  // --- Instance groups ---
  TRITONSERVER_InstanceGroupKindString: {
    parameters: [
      "u32", // TRITONSERVER_InstanceGroupKind kind
    ],
    result: "cstr", // const char*
    since: 0,
  },

  // --- Logging ---
  TRITONSERVER_LogIsEnabled: {
    parameters: [
      "u32", // TRITONSERVER_LogLevel level
    ],
    result: "bool", // bool
    since: 0,
  },
  TRITONSERVER_LogMessage: {
    parameters: [
      "u32", // TRITONSERVER_LogLevel level
      "cstr", // const char* filename
      "i32", // const int line
      "cstr", // const char* msg
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Response allocator ---
  TRITONSERVER_ResponseAllocatorNew: {
    parameters: [
      "buf", // struct TRITONSERVER_ResponseAllocator** allocator
      "ptr", // TRITONSERVER_ResponseAllocatorAllocFn_t alloc_fn
      "ptr", // TRITONSERVER_ResponseAllocatorReleaseFn_t release_fn
      "ptr", // TRITONSERVER_ResponseAllocatorStartFn_t start_fn
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ResponseAllocatorSetBufferAttributesFunction: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
      "ptr", // TRITONSERVER_ResponseAllocatorBufferAttributesFn_t buffer_attributes_fn
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ResponseAllocatorSetQueryFunction: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
      "ptr", // TRITONSERVER_ResponseAllocatorQueryFn_t query_fn
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ResponseAllocatorDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Messages ---
  TRITONSERVER_MessageNewFromSerializedJson: {
    parameters: [
      "buf", // struct TRITONSERVER_Message** message
      "buf", // const char* base
      "usize", // size_t byte_size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MessageDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_Message* message
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MessageSerializeToJson: {
    parameters: [
      "ptr", // struct TRITONSERVER_Message* message
      "buf", // const char** base
      "buf", // size_t* byte_size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Server metrics text ---
  TRITONSERVER_MetricsDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metrics* metrics
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MetricsFormatted: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metrics* metrics
      "u32", // TRITONSERVER_MetricFormat format
      "buf", // const char** base
      "buf", // size_t* byte_size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Tracing ---
  TRITONSERVER_InferenceTraceLevelString: {
    parameters: [
      "u32", // TRITONSERVER_InferenceTraceLevel level
    ],
    result: "cstr", // const char*
    since: 0,
  },
  TRITONSERVER_InferenceTraceActivityString: {
    parameters: [
      "u32", // TRITONSERVER_InferenceTraceActivity activity
    ],
    result: "cstr", // const char*
    since: 0,
  },
  TRITONSERVER_InferenceTraceNew: {
    parameters: [
      "buf", // struct TRITONSERVER_InferenceTrace** trace
      "u32", // TRITONSERVER_InferenceTraceLevel level
      "u64", // uint64_t parent_id
      "ptr", // TRITONSERVER_InferenceTraceActivityFn_t activity_fn
      "ptr", // TRITONSERVER_InferenceTraceReleaseFn_t release_fn
      "ptr", // void* trace_userp
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceTraceTensorNew: {
    parameters: [
      "buf", // struct TRITONSERVER_InferenceTrace** trace
      "u32", // TRITONSERVER_InferenceTraceLevel level
      "u64", // uint64_t parent_id
      "ptr", // TRITONSERVER_InferenceTraceActivityFn_t activity_fn
      "ptr", // TRITONSERVER_InferenceTraceTensorActivityFn_t tensor_activity_fn
      "ptr", // TRITONSERVER_InferenceTraceReleaseFn_t release_fn
      "ptr", // void* trace_userp
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceTraceReportActivity: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "u64", // uint64_t timestamp
      "cstr", // const char* activity_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 33,
  },
  TRITONSERVER_InferenceTraceDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceTraceId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "buf", // uint64_t* id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceTraceParentId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "buf", // uint64_t* parent_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceTraceModelName: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "buf", // const char** model_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceTraceModelVersion: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "buf", // int64_t* model_version
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceTraceRequestId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "buf", // const char** request_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 19,
  },
  TRITONSERVER_InferenceTraceSpawnChildTrace: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "buf", // struct TRITONSERVER_InferenceTrace** child_trace
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 24,
  },
  TRITONSERVER_InferenceTraceSetContext: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "cstr", // const char* trace_context
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 29,
  },
  TRITONSERVER_InferenceTraceContext: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "buf", // const char** trace_context
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 29,
  },

  // --- Inference request ---
  TRITONSERVER_InferenceRequestNew: {
    parameters: [
      "buf", // struct TRITONSERVER_InferenceRequest** inference_request
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "i64", // const int64_t model_version
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // const char** id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestFlags: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // uint32_t* flags
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetFlags: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "u32", // uint32_t flags
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestCorrelationId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // uint64_t* correlation_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestCorrelationIdString: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // const char** correlation_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetCorrelationId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "u64", // uint64_t correlation_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetCorrelationIdString: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* correlation_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestCancel: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 25,
  },
  TRITONSERVER_InferenceRequestIsCancelled: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // bool* is_cancelled
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 25,
  },
  TRITONSERVER_InferenceRequestPriority: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // uint32_t* priority
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestPriorityUInt64: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // uint64_t* priority
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 23,
  },
  TRITONSERVER_InferenceRequestSetPriority: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "u32", // uint32_t priority
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetPriorityUInt64: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "u64", // uint64_t priority
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 23,
  },
  TRITONSERVER_InferenceRequestTimeoutMicroseconds: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "buf", // uint64_t* timeout_us
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetTimeoutMicroseconds: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "u64", // uint64_t timeout_us
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestAddInput: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
      "u32", // const TRITONSERVER_DataType datatype
      "buf", // const int64_t* shape
      "u64", // uint64_t dim_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestAddRawInput: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestRemoveInput: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestRemoveAllInputs: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestAppendInputData: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
      "ptr", // const void* base
      "usize", // size_t byte_size
      "u32", // TRITONSERVER_MemoryType memory_type
      "i64", // int64_t memory_type_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestAppendInputDataWithHostPolicy: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
      "ptr", // const void* base
      "usize", // size_t byte_size
      "u32", // TRITONSERVER_MemoryType memory_type
      "i64", // int64_t memory_type_id
      "cstr", // const char* host_policy_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestAppendInputDataWithBufferAttributes: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
      "ptr", // const void* base
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestRemoveAllInputData: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestAddRequestedOutput: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestRemoveRequestedOutput: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "cstr", // const char* name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestRemoveAllRequestedOutputs: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetReleaseCallback: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "ptr", // TRITONSERVER_InferenceRequestReleaseFn_t request_release_fn
      "ptr", // void* request_release_userp
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetResponseCallback: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "ptr", // struct TRITONSERVER_ResponseAllocator* response_allocator
      "ptr", // void* response_allocator_userp
      "ptr", // TRITONSERVER_InferenceResponseCompleteFn_t response_fn
      "ptr", // void* response_userp
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceRequestSetStringParameter: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* request
      "cstr", // const char* key
      "cstr", // const char* value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 21,
  },
  TRITONSERVER_InferenceRequestSetIntParameter: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* request
      "cstr", // const char* key
      "i64", // const int64_t value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 21,
  },
  TRITONSERVER_InferenceRequestSetBoolParameter: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* request
      "cstr", // const char* key
      "bool", // const bool value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 21,
  },
  TRITONSERVER_InferenceRequestSetDoubleParameter: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* request
      "cstr", // const char* key
      "f64", // const double value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 29,
  },

  // --- Inference response ---
  TRITONSERVER_InferenceResponseDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseError: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseModel: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
      "buf", // const char** model_name
      "buf", // int64_t* model_version
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseId: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
      "buf", // const char** request_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseParameterCount: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
      "buf", // uint32_t* count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseParameter: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
      "u32", // const uint32_t index
      "buf", // const char** name
      "buf", // TRITONSERVER_ParameterType* type
      "buf", // const void** vvalue
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseOutputCount: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
      "buf", // uint32_t* count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseOutput: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
      "u32", // const uint32_t index
      "buf", // const char** name
      "buf", // TRITONSERVER_DataType* datatype
      "buf", // const int64_t** shape
      "buf", // uint64_t* dim_count
      "buf", // const void** base
      "buf", // size_t* byte_size
      "buf", // TRITONSERVER_MemoryType* memory_type
      "buf", // int64_t* memory_type_id
      "buf", // void** userp
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_InferenceResponseOutputClassificationLabel: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* inference_response
      "u32", // const uint32_t index
      "usize", // const size_t class_index
      "buf", // const char** label
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Buffer attributes ---
  TRITONSERVER_BufferAttributesNew: {
    parameters: [
      "buf", // struct TRITONSERVER_BufferAttributes** buffer_attributes
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesSetMemoryTypeId: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "i64", // int64_t memory_type_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesSetMemoryType: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "u32", // TRITONSERVER_MemoryType memory_type
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesSetCudaIpcHandle: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "ptr", // void* cuda_ipc_handle
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesSetByteSize: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "usize", // size_t byte_size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesMemoryTypeId: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "buf", // int64_t* memory_type_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesMemoryType: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "buf", // TRITONSERVER_MemoryType* memory_type
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesCudaIpcHandle: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "buf", // void** cuda_ipc_handle
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_BufferAttributesByteSize: {
    parameters: [
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "buf", // size_t* byte_size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Server options ---
  TRITONSERVER_ServerOptionsNew: {
    parameters: [
      "buf", // struct TRITONSERVER_ServerOptions** options
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetServerId: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* server_id
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetModelRepositoryPath: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* model_repository_path
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetModelControlMode: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // TRITONSERVER_ModelControlMode mode
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetStartupModel: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* model_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetStrictModelConfig: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool strict
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetModelConfigName: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* model_config_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 31,
  },
  TRITONSERVER_ServerOptionsSetRateLimiterMode: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // TRITONSERVER_RateLimitMode mode
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsAddRateLimiterResource: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* resource_name
      "usize", // const size_t resource_count
      "i32", // const int device
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetPinnedMemoryPoolByteSize: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u64", // uint64_t size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetCudaMemoryPoolByteSize: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "i32", // int gpu_device
      "u64", // uint64_t size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetCudaVirtualAddressSize: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "i32", // int gpu_device
      "usize", // size_t cuda_virtual_address_size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 27,
  },
  TRITONSERVER_ServerOptionsSetResponseCacheByteSize: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u64", // uint64_t size
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetCacheConfig: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* cache_name
      "cstr", // const char* config_json
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 20,
  },
  TRITONSERVER_ServerOptionsSetCacheDirectory: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* cache_dir
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 20,
  },
  TRITONSERVER_ServerOptionsSetMinSupportedComputeCapability: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "f64", // double cc
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetExitOnError: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool exit
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetStrictReadiness: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool strict
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetExitTimeout: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // unsigned int timeout
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetBufferManagerThreadCount: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // unsigned int thread_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetModelLoadThreadCount: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // unsigned int thread_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetModelLoadRetryCount: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // unsigned int retry_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 28,
  },
  TRITONSERVER_ServerOptionsSetModelNamespacing: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool enable_namespace
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 18,
  },
  TRITONSERVER_ServerOptionsSetEnablePeerAccess: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool enable_peer_access
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 32,
  },
  TRITONSERVER_ServerOptionsSetLogFile: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* file
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 17,
  },
  TRITONSERVER_ServerOptionsSetLogInfo: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool log
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetLogWarn: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool log
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetLogError: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool log
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetLogFormat: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // const TRITONSERVER_LogFormat format
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetLogVerbose: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "i32", // int level
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetMetrics: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool metrics
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetGpuMetrics: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool gpu_metrics
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetCpuMetrics: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "bool", // bool cpu_metrics
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 17,
  },
  TRITONSERVER_ServerOptionsSetMetricsInterval: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u64", // uint64_t metrics_interval_ms
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetBackendDirectory: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* backend_dir
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetRepoAgentDirectory: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* repoagent_dir
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetModelLoadDeviceLimit: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "u32", // const TRITONSERVER_InstanceGroupKind kind
      "i32", // const int device_id
      "f64", // const double fraction
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetBackendConfig: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* backend_name
      "cstr", // const char* setting
      "cstr", // const char* value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetHostPolicy: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* policy_name
      "cstr", // const char* setting
      "cstr", // const char* value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerOptionsSetMetricsConfig: {
    parameters: [
      "ptr", // struct TRITONSERVER_ServerOptions* options
      "cstr", // const char* name
      "cstr", // const char* setting
      "cstr", // const char* value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 22,
  },

  // --- Server lifecycle ---
  TRITONSERVER_ServerNew: {
    parameters: [
      "buf", // struct TRITONSERVER_Server** server
      "ptr", // struct TRITONSERVER_ServerOptions* options
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerStop: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerSetExitTimeout: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "u32", // unsigned int timeout
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 30,
  },

  // --- Model repository control ---
  TRITONSERVER_ServerRegisterModelRepository: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* repository_path
      "buf", // const struct TRITONSERVER_Parameter** name_mapping
      "u32", // const uint32_t mapping_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerUnregisterModelRepository: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* repository_path
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerPollModelRepository: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerLoadModel: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerLoadModelWithParameters: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "buf", // const struct TRITONSERVER_Parameter** parameters
      "u64", // const uint64_t parameter_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerUnloadModel: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },
  TRITONSERVER_ServerUnloadModelAndDependents: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
    ],
    result: "ptr", // TRITONSERVER_Error*
    mayBlock: true,
    since: 0,
  },

  // --- Server and model health ---
  TRITONSERVER_ServerIsLive: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "buf", // bool* live
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerIsReady: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "buf", // bool* ready
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerModelIsReady: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "i64", // const int64_t model_version
      "buf", // bool* ready
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Metadata, configuration and statistics ---
  TRITONSERVER_ServerMetadata: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "buf", // struct TRITONSERVER_Message** server_metadata
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerModelMetadata: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "i64", // const int64_t model_version
      "buf", // struct TRITONSERVER_Message** model_metadata
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerModelConfig: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "i64", // const int64_t model_version
      "u32", // const uint32_t config_version
      "buf", // struct TRITONSERVER_Message** model_config
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerModelStatistics: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "i64", // const int64_t model_version
      "buf", // struct TRITONSERVER_Message** model_stats
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerModelIndex: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "u32", // uint32_t flags
      "buf", // struct TRITONSERVER_Message** model_index
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerModelBatchProperties: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "i64", // const int64_t model_version
      "buf", // uint32_t* flags
      "buf", // void** voidp
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerModelTransactionProperties: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "cstr", // const char* model_name
      "i64", // const int64_t model_version
      "buf", // uint32_t* txn_flags
      "buf", // void** voidp
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_ServerMetrics: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "buf", // struct TRITONSERVER_Metrics** metrics
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Inference ---
  TRITONSERVER_ServerInferAsync: {
    parameters: [
      "ptr", // struct TRITONSERVER_Server* server
      "ptr", // struct TRITONSERVER_InferenceRequest* inference_request
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },

  // --- Custom metrics ---
  TRITONSERVER_MetricFamilyNew: {
    parameters: [
      "buf", // struct TRITONSERVER_MetricFamily** family
      "u32", // const TRITONSERVER_MetricKind kind
      "cstr", // const char* name
      "cstr", // const char* description
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MetricFamilyDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_MetricFamily* family
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_GetMetricFamilyKind: {
    parameters: [
      "ptr", // struct TRITONSERVER_MetricFamily* family
      "buf", // TRITONSERVER_MetricKind* kind
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 34,
  },
  TRITONSERVER_MetricArgsNew: {
    parameters: [
      "buf", // struct TRITONSERVER_MetricArgs** args
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 34,
  },
  TRITONSERVER_MetricArgsSetHistogram: {
    parameters: [
      "ptr", // struct TRITONSERVER_MetricArgs* args
      "buf", // const double* buckets
      "u64", // const uint64_t buckets_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 34,
  },
  TRITONSERVER_MetricArgsDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_MetricArgs* args
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 34,
  },
  TRITONSERVER_MetricNew: {
    parameters: [
      "buf", // struct TRITONSERVER_Metric** metric
      "ptr", // struct TRITONSERVER_MetricFamily* family
      "buf", // const struct TRITONSERVER_Parameter** labels
      "u64", // const uint64_t label_count
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MetricNewWithArgs: {
    parameters: [
      "buf", // struct TRITONSERVER_Metric** metric
      "ptr", // struct TRITONSERVER_MetricFamily* family
      "buf", // const struct TRITONSERVER_Parameter** labels
      "u64", // const uint64_t label_count
      "ptr", // const struct TRITONSERVER_MetricArgs* args
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 34,
  },
  TRITONSERVER_MetricDelete: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metric* metric
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MetricValue: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metric* metric
      "buf", // double* value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MetricIncrement: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metric* metric
      "f64", // double value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MetricSet: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metric* metric
      "f64", // double value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
  TRITONSERVER_MetricObserve: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metric* metric
      "f64", // double value
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 34,
  },
  TRITONSERVER_GetMetricKind: {
    parameters: [
      "ptr", // struct TRITONSERVER_Metric* metric
      "buf", // TRITONSERVER_MetricKind* kind
    ],
    result: "ptr", // TRITONSERVER_Error*
    since: 0,
  },
} as const satisfies Record<string, SymbolDef>;

/** Name of a function in the table. */
export type SymbolName = keyof typeof symbols;

/** Signature of a C callback the binding registers with Triton. */
interface CallbackSignature {
  readonly parameters: readonly FfiType[];
  readonly result: FfiType;
}

/**
 * C callback signatures. Callbacks receive raw addresses, so every pointer
 * parameter (including out-parameters such as `void** buffer` and
 * `const char*` names) is "ptr".
 */
export const callbacks = {
  /** TRITONSERVER_InferenceResponseCompleteFn_t: Called with each response of a request; flags may carry FINAL. */
  responseComplete: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceResponse* response
      "u32", // const uint32_t flags
      "ptr", // void* userp
    ],
    result: "void",
  },
  /** TRITONSERVER_InferenceRequestReleaseFn_t: Called when Triton is done with a request object. */
  requestRelease: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceRequest* request
      "u32", // const uint32_t flags
      "ptr", // void* userp
    ],
    result: "void",
  },
  /** TRITONSERVER_ResponseAllocatorAllocFn_t: Allocates a buffer for an output tensor. */
  allocatorAlloc: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
      "ptr", // const char* tensor_name
      "usize", // size_t byte_size
      "u32", // TRITONSERVER_MemoryType memory_type
      "i64", // int64_t memory_type_id
      "ptr", // void* userp
      "ptr", // void** buffer
      "ptr", // void** buffer_userp
      "ptr", // TRITONSERVER_MemoryType* actual_memory_type
      "ptr", // int64_t* actual_memory_type_id
    ],
    result: "ptr", // TRITONSERVER_Error*
  },
  /** TRITONSERVER_ResponseAllocatorReleaseFn_t: Frees a buffer obtained from allocatorAlloc. */
  allocatorRelease: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
      "ptr", // void* buffer
      "ptr", // void* buffer_userp
      "usize", // size_t byte_size
      "u32", // TRITONSERVER_MemoryType memory_type
      "i64", // int64_t memory_type_id
    ],
    result: "ptr", // TRITONSERVER_Error*
  },
  /** TRITONSERVER_ResponseAllocatorStartFn_t: Called before the allocations of each response (optional). */
  allocatorStart: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
      "ptr", // void* userp
    ],
    result: "ptr", // TRITONSERVER_Error*
  },
  /** TRITONSERVER_ResponseAllocatorQueryFn_t: Asks the preferred memory type/id for an output (optional). */
  allocatorQuery: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
      "ptr", // void* userp
      "ptr", // const char* tensor_name
      "ptr", // size_t* byte_size
      "ptr", // TRITONSERVER_MemoryType* memory_type
      "ptr", // int64_t* memory_type_id
    ],
    result: "ptr", // TRITONSERVER_Error*
  },
  /** TRITONSERVER_ResponseAllocatorBufferAttributesFn_t: Fills buffer attributes for an allocated buffer (optional). */
  allocatorBufferAttributes: {
    parameters: [
      "ptr", // struct TRITONSERVER_ResponseAllocator* allocator
      "ptr", // const char* tensor_name
      "ptr", // struct TRITONSERVER_BufferAttributes* buffer_attributes
      "ptr", // void* userp
      "ptr", // void* buffer_userp
    ],
    result: "ptr", // TRITONSERVER_Error*
  },
  /** TRITONSERVER_InferenceTraceActivityFn_t: Reports a timeline activity of a trace. */
  traceActivity: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "u32", // TRITONSERVER_InferenceTraceActivity activity
      "u64", // uint64_t timestamp_ns
      "ptr", // void* userp
    ],
    result: "void",
  },
  /** TRITONSERVER_InferenceTraceTensorActivityFn_t: Reports a tensor seen by a trace. */
  traceTensorActivity: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "u32", // TRITONSERVER_InferenceTraceActivity activity
      "ptr", // const char* name
      "u32", // TRITONSERVER_DataType datatype
      "ptr", // const void* base
      "usize", // size_t byte_size
      "ptr", // const int64_t* shape
      "u64", // uint64_t dim_count
      "u32", // TRITONSERVER_MemoryType memory_type
      "i64", // int64_t memory_type_id
      "ptr", // void* userp
    ],
    result: "void",
  },
  /** TRITONSERVER_InferenceTraceReleaseFn_t: Called when a trace object may be deleted. */
  traceRelease: {
    parameters: [
      "ptr", // struct TRITONSERVER_InferenceTrace* trace
      "ptr", // void* userp
    ],
    result: "void",
  },
} as const satisfies Record<string, CallbackSignature>;

/** Name of a callback signature. */
export type CallbackName = keyof typeof callbacks;
