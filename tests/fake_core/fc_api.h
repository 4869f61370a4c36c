/*
 * fc_api.h - the fake core's own declaration of the in-process server C ABI
 * (API version 1.34). Written from the ABI facts (names, enum values,
 * function signatures); every exported function of the real library is
 * declared here so the compiler checks each definition against it.
 */
#ifndef FC_API_H
#define FC_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FC_EXPORT __attribute__((visibility("default")))

#define FC_API_MAJOR 1
#define FC_API_MINOR 34

/* Opaque handles. */
typedef struct TRITONSERVER_BufferAttributes TRITONSERVER_BufferAttributes;
typedef struct TRITONSERVER_Error TRITONSERVER_Error;
typedef struct TRITONSERVER_InferenceRequest TRITONSERVER_InferenceRequest;
typedef struct TRITONSERVER_InferenceResponse TRITONSERVER_InferenceResponse;
typedef struct TRITONSERVER_InferenceTrace TRITONSERVER_InferenceTrace;
typedef struct TRITONSERVER_Message TRITONSERVER_Message;
typedef struct TRITONSERVER_Metrics TRITONSERVER_Metrics;
typedef struct TRITONSERVER_Parameter TRITONSERVER_Parameter;
typedef struct TRITONSERVER_ResponseAllocator TRITONSERVER_ResponseAllocator;
typedef struct TRITONSERVER_Server TRITONSERVER_Server;
typedef struct TRITONSERVER_ServerOptions TRITONSERVER_ServerOptions;
typedef struct TRITONSERVER_Metric TRITONSERVER_Metric;
typedef struct TRITONSERVER_MetricFamily TRITONSERVER_MetricFamily;
typedef struct TRITONSERVER_MetricArgs TRITONSERVER_MetricArgs;

/* ---- enums (values are ABI) ---- */
typedef enum TRITONSERVER_datatype_enum {
  TRITONSERVER_TYPE_INVALID = 0,
  TRITONSERVER_TYPE_BOOL = 1,
  TRITONSERVER_TYPE_UINT8 = 2,
  TRITONSERVER_TYPE_UINT16 = 3,
  TRITONSERVER_TYPE_UINT32 = 4,
  TRITONSERVER_TYPE_UINT64 = 5,
  TRITONSERVER_TYPE_INT8 = 6,
  TRITONSERVER_TYPE_INT16 = 7,
  TRITONSERVER_TYPE_INT32 = 8,
  TRITONSERVER_TYPE_INT64 = 9,
  TRITONSERVER_TYPE_FP16 = 10,
  TRITONSERVER_TYPE_FP32 = 11,
  TRITONSERVER_TYPE_FP64 = 12,
  TRITONSERVER_TYPE_BYTES = 13,
  TRITONSERVER_TYPE_BF16 = 14
} TRITONSERVER_DataType;

typedef enum TRITONSERVER_memorytype_enum {
  TRITONSERVER_MEMORY_CPU = 0,
  TRITONSERVER_MEMORY_CPU_PINNED = 1,
  TRITONSERVER_MEMORY_GPU = 2
} TRITONSERVER_MemoryType;

typedef enum TRITONSERVER_parametertype_enum {
  TRITONSERVER_PARAMETER_STRING = 0,
  TRITONSERVER_PARAMETER_INT = 1,
  TRITONSERVER_PARAMETER_BOOL = 2,
  TRITONSERVER_PARAMETER_DOUBLE = 3,
  TRITONSERVER_PARAMETER_BYTES = 4
} TRITONSERVER_ParameterType;

typedef enum TRITONSERVER_instancegroupkind_enum {
  TRITONSERVER_INSTANCEGROUPKIND_AUTO = 0,
  TRITONSERVER_INSTANCEGROUPKIND_CPU = 1,
  TRITONSERVER_INSTANCEGROUPKIND_GPU = 2,
  TRITONSERVER_INSTANCEGROUPKIND_MODEL = 3
} TRITONSERVER_InstanceGroupKind;

typedef enum TRITONSERVER_loglevel_enum {
  TRITONSERVER_LOG_INFO = 0,
  TRITONSERVER_LOG_WARN = 1,
  TRITONSERVER_LOG_ERROR = 2,
  TRITONSERVER_LOG_VERBOSE = 3
} TRITONSERVER_LogLevel;

typedef enum TRITONSERVER_logformat_enum {
  TRITONSERVER_LOG_DEFAULT = 0,
  TRITONSERVER_LOG_ISO8601 = 1
} TRITONSERVER_LogFormat;

typedef enum TRITONSERVER_errorcode_enum {
  TRITONSERVER_ERROR_UNKNOWN = 0,
  TRITONSERVER_ERROR_INTERNAL = 1,
  TRITONSERVER_ERROR_NOT_FOUND = 2,
  TRITONSERVER_ERROR_INVALID_ARG = 3,
  TRITONSERVER_ERROR_UNAVAILABLE = 4,
  TRITONSERVER_ERROR_UNSUPPORTED = 5,
  TRITONSERVER_ERROR_ALREADY_EXISTS = 6,
  TRITONSERVER_ERROR_CANCELLED = 7
} TRITONSERVER_Error_Code;

typedef enum tritonserver_metricformat_enum {
  TRITONSERVER_METRIC_PROMETHEUS = 0
} TRITONSERVER_MetricFormat;

typedef enum tritonserver_tracelevel_enum {
  TRITONSERVER_TRACE_LEVEL_DISABLED = 0,
  TRITONSERVER_TRACE_LEVEL_MIN = 1,
  TRITONSERVER_TRACE_LEVEL_MAX = 2,
  TRITONSERVER_TRACE_LEVEL_TIMESTAMPS = 4,
  TRITONSERVER_TRACE_LEVEL_TENSORS = 8
} TRITONSERVER_InferenceTraceLevel;

typedef enum tritonserver_traceactivity_enum {
  TRITONSERVER_TRACE_REQUEST_START = 0,
  TRITONSERVER_TRACE_QUEUE_START = 1,
  TRITONSERVER_TRACE_COMPUTE_START = 2,
  TRITONSERVER_TRACE_COMPUTE_INPUT_END = 3,
  TRITONSERVER_TRACE_COMPUTE_OUTPUT_START = 4,
  TRITONSERVER_TRACE_COMPUTE_END = 5,
  TRITONSERVER_TRACE_REQUEST_END = 6,
  TRITONSERVER_TRACE_TENSOR_QUEUE_INPUT = 7,
  TRITONSERVER_TRACE_TENSOR_BACKEND_INPUT = 8,
  TRITONSERVER_TRACE_TENSOR_BACKEND_OUTPUT = 9,
  TRITONSERVER_TRACE_CUSTOM_ACTIVITY = 10
} TRITONSERVER_InferenceTraceActivity;

typedef enum tritonserver_requestflag_enum {
  TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1,
  TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2
} TRITONSERVER_RequestFlag;

typedef enum tritonserver_requestreleaseflag_enum {
  TRITONSERVER_REQUEST_RELEASE_ALL = 1,
  TRITONSERVER_REQUEST_RELEASE_RESCHEDULE = 2
} TRITONSERVER_RequestReleaseFlag;

typedef enum tritonserver_responsecompleteflag_enum {
  TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1
} TRITONSERVER_ResponseCompleteFlag;

typedef enum tritonserver_modelcontrolmode_enum {
  TRITONSERVER_MODEL_CONTROL_NONE = 0,
  TRITONSERVER_MODEL_CONTROL_POLL = 1,
  TRITONSERVER_MODEL_CONTROL_EXPLICIT = 2
} TRITONSERVER_ModelControlMode;

typedef enum tritonserver_ratelimitmode_enum {
  TRITONSERVER_RATE_LIMIT_OFF = 0,
  TRITONSERVER_RATE_LIMIT_EXEC_COUNT = 1
} TRITONSERVER_RateLimitMode;

typedef enum tritonserver_batchflag_enum {
  TRITONSERVER_BATCH_UNKNOWN = 1,
  TRITONSERVER_BATCH_FIRST_DIM = 2
} TRITONSERVER_ModelBatchFlag;

typedef enum tritonserver_modelindexflag_enum {
  TRITONSERVER_INDEX_FLAG_READY = 1
} TRITONSERVER_ModelIndexFlag;

typedef enum tritonserver_txn_property_flag_enum {
  TRITONSERVER_TXN_ONE_TO_ONE = 1,
  TRITONSERVER_TXN_DECOUPLED = 2
} TRITONSERVER_ModelTxnPropertyFlag;

typedef enum TRITONSERVER_metrickind_enum {
  TRITONSERVER_METRIC_KIND_COUNTER = 0,
  TRITONSERVER_METRIC_KIND_GAUGE = 1,
  TRITONSERVER_METRIC_KIND_HISTOGRAM = 2
} TRITONSERVER_MetricKind;

/* ---- callback types ---- */
typedef TRITONSERVER_Error* (*TRITONSERVER_ResponseAllocatorAllocFn_t)(
    TRITONSERVER_ResponseAllocator* allocator, const char* tensor_name,
    size_t byte_size, TRITONSERVER_MemoryType memory_type,
    int64_t memory_type_id, void* userp, void** buffer, void** buffer_userp,
    TRITONSERVER_MemoryType* actual_memory_type,
    int64_t* actual_memory_type_id);
typedef TRITONSERVER_Error* (*TRITONSERVER_ResponseAllocatorBufferAttributesFn_t)(
    TRITONSERVER_ResponseAllocator* allocator, const char* tensor_name,
    TRITONSERVER_BufferAttributes* buffer_attributes, void* userp,
    void* buffer_userp);
typedef TRITONSERVER_Error* (*TRITONSERVER_ResponseAllocatorQueryFn_t)(
    TRITONSERVER_ResponseAllocator* allocator, void* userp,
    const char* tensor_name, size_t* byte_size,
    TRITONSERVER_MemoryType* memory_type, int64_t* memory_type_id);
typedef TRITONSERVER_Error* (*TRITONSERVER_ResponseAllocatorReleaseFn_t)(
    TRITONSERVER_ResponseAllocator* allocator, void* buffer,
    void* buffer_userp, size_t byte_size, TRITONSERVER_MemoryType memory_type,
    int64_t memory_type_id);
typedef TRITONSERVER_Error* (*TRITONSERVER_ResponseAllocatorStartFn_t)(
    TRITONSERVER_ResponseAllocator* allocator, void* userp);

typedef void (*TRITONSERVER_InferenceTraceActivityFn_t)(
    TRITONSERVER_InferenceTrace* trace,
    TRITONSERVER_InferenceTraceActivity activity, uint64_t timestamp_ns,
    void* userp);
typedef void (*TRITONSERVER_InferenceTraceTensorActivityFn_t)(
    TRITONSERVER_InferenceTrace* trace,
    TRITONSERVER_InferenceTraceActivity activity, const char* name,
    TRITONSERVER_DataType datatype, const void* base, size_t byte_size,
    const int64_t* shape, uint64_t dim_count,
    TRITONSERVER_MemoryType memory_type, int64_t memory_type_id, void* userp);
typedef void (*TRITONSERVER_InferenceTraceReleaseFn_t)(
    TRITONSERVER_InferenceTrace* trace, void* userp);

typedef void (*TRITONSERVER_InferenceRequestReleaseFn_t)(
    TRITONSERVER_InferenceRequest* request, const uint32_t flags, void* userp);
typedef void (*TRITONSERVER_InferenceResponseCompleteFn_t)(
    TRITONSERVER_InferenceResponse* response, const uint32_t flags,
    void* userp);

/* ---- functions ---- */
#define FC_FN FC_EXPORT TRITONSERVER_Error*

FC_FN TRITONSERVER_ApiVersion(uint32_t* major, uint32_t* minor);

FC_EXPORT const char* TRITONSERVER_DataTypeString(TRITONSERVER_DataType datatype);
FC_EXPORT TRITONSERVER_DataType TRITONSERVER_StringToDataType(const char* dtype);
FC_EXPORT uint32_t TRITONSERVER_DataTypeByteSize(TRITONSERVER_DataType datatype);
FC_EXPORT const char* TRITONSERVER_MemoryTypeString(TRITONSERVER_MemoryType memtype);
FC_EXPORT const char* TRITONSERVER_ParameterTypeString(
    TRITONSERVER_ParameterType paramtype);
FC_EXPORT TRITONSERVER_Parameter* TRITONSERVER_ParameterNew(
    const char* name, const TRITONSERVER_ParameterType type, const void* value);
FC_EXPORT TRITONSERVER_Parameter* TRITONSERVER_ParameterBytesNew(
    const char* name, const void* byte_ptr, const uint64_t size);
FC_EXPORT void TRITONSERVER_ParameterDelete(TRITONSERVER_Parameter* parameter);
FC_EXPORT const char* TRITONSERVER_InstanceGroupKindString(
    TRITONSERVER_InstanceGroupKind kind);

FC_EXPORT bool TRITONSERVER_LogIsEnabled(TRITONSERVER_LogLevel level);
FC_FN TRITONSERVER_LogMessage(
    TRITONSERVER_LogLevel level, const char* filename, const int line,
    const char* msg);

FC_FN TRITONSERVER_ErrorNew(TRITONSERVER_Error_Code code, const char* msg);
FC_EXPORT void TRITONSERVER_ErrorDelete(TRITONSERVER_Error* error);
FC_EXPORT TRITONSERVER_Error_Code TRITONSERVER_ErrorCode(TRITONSERVER_Error* error);
FC_EXPORT const char* TRITONSERVER_ErrorCodeString(TRITONSERVER_Error* error);
FC_EXPORT const char* TRITONSERVER_ErrorMessage(TRITONSERVER_Error* error);

FC_FN TRITONSERVER_ResponseAllocatorNew(
    TRITONSERVER_ResponseAllocator** allocator,
    TRITONSERVER_ResponseAllocatorAllocFn_t alloc_fn,
    TRITONSERVER_ResponseAllocatorReleaseFn_t release_fn,
    TRITONSERVER_ResponseAllocatorStartFn_t start_fn);
FC_FN TRITONSERVER_ResponseAllocatorSetBufferAttributesFunction(
    TRITONSERVER_ResponseAllocator* allocator,
    TRITONSERVER_ResponseAllocatorBufferAttributesFn_t buffer_attributes_fn);
FC_FN TRITONSERVER_ResponseAllocatorSetQueryFunction(
    TRITONSERVER_ResponseAllocator* allocator,
    TRITONSERVER_ResponseAllocatorQueryFn_t query_fn);
FC_FN TRITONSERVER_ResponseAllocatorDelete(TRITONSERVER_ResponseAllocator* allocator);

FC_FN TRITONSERVER_MessageNewFromSerializedJson(
    TRITONSERVER_Message** message, const char* base, size_t byte_size);
FC_FN TRITONSERVER_MessageDelete(TRITONSERVER_Message* message);
FC_FN TRITONSERVER_MessageSerializeToJson(
    TRITONSERVER_Message* message, const char** base, size_t* byte_size);

FC_FN TRITONSERVER_MetricsDelete(TRITONSERVER_Metrics* metrics);
FC_FN TRITONSERVER_MetricsFormatted(
    TRITONSERVER_Metrics* metrics, TRITONSERVER_MetricFormat format,
    const char** base, size_t* byte_size);

FC_EXPORT const char* TRITONSERVER_InferenceTraceLevelString(
    TRITONSERVER_InferenceTraceLevel level);
FC_EXPORT const char* TRITONSERVER_InferenceTraceActivityString(
    TRITONSERVER_InferenceTraceActivity activity);
FC_FN TRITONSERVER_InferenceTraceNew(
    TRITONSERVER_InferenceTrace** trace, TRITONSERVER_InferenceTraceLevel level,
    uint64_t parent_id, TRITONSERVER_InferenceTraceActivityFn_t activity_fn,
    TRITONSERVER_InferenceTraceReleaseFn_t release_fn, void* trace_userp);
FC_FN TRITONSERVER_InferenceTraceTensorNew(
    TRITONSERVER_InferenceTrace** trace, TRITONSERVER_InferenceTraceLevel level,
    uint64_t parent_id, TRITONSERVER_InferenceTraceActivityFn_t activity_fn,
    TRITONSERVER_InferenceTraceTensorActivityFn_t tensor_activity_fn,
    TRITONSERVER_InferenceTraceReleaseFn_t release_fn, void* trace_userp);
FC_FN TRITONSERVER_InferenceTraceReportActivity(
    TRITONSERVER_InferenceTrace* trace, uint64_t timestamp,
    const char* activity_name);
FC_FN TRITONSERVER_InferenceTraceDelete(TRITONSERVER_InferenceTrace* trace);
FC_FN TRITONSERVER_InferenceTraceId(TRITONSERVER_InferenceTrace* trace, uint64_t* id);
FC_FN TRITONSERVER_InferenceTraceParentId(
    TRITONSERVER_InferenceTrace* trace, uint64_t* parent_id);
FC_FN TRITONSERVER_InferenceTraceModelName(
    TRITONSERVER_InferenceTrace* trace, const char** model_name);
FC_FN TRITONSERVER_InferenceTraceModelVersion(
    TRITONSERVER_InferenceTrace* trace, int64_t* model_version);
FC_FN TRITONSERVER_InferenceTraceRequestId(
    TRITONSERVER_InferenceTrace* trace, const char** request_id);
FC_FN TRITONSERVER_InferenceTraceSpawnChildTrace(
    TRITONSERVER_InferenceTrace* trace, TRITONSERVER_InferenceTrace** child_trace);
FC_FN TRITONSERVER_InferenceTraceSetContext(
    TRITONSERVER_InferenceTrace* trace, const char* trace_context);
FC_FN TRITONSERVER_InferenceTraceContext(
    TRITONSERVER_InferenceTrace* trace, const char** trace_context);

FC_FN TRITONSERVER_InferenceRequestNew(
    TRITONSERVER_InferenceRequest** inference_request,
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version);
FC_FN TRITONSERVER_InferenceRequestDelete(
    TRITONSERVER_InferenceRequest* inference_request);
FC_FN TRITONSERVER_InferenceRequestId(
    TRITONSERVER_InferenceRequest* inference_request, const char** id);
FC_FN TRITONSERVER_InferenceRequestSetId(
    TRITONSERVER_InferenceRequest* inference_request, const char* id);
FC_FN TRITONSERVER_InferenceRequestFlags(
    TRITONSERVER_InferenceRequest* inference_request, uint32_t* flags);
FC_FN TRITONSERVER_InferenceRequestSetFlags(
    TRITONSERVER_InferenceRequest* inference_request, uint32_t flags);
FC_FN TRITONSERVER_InferenceRequestCorrelationId(
    TRITONSERVER_InferenceRequest* inference_request, uint64_t* correlation_id);
FC_FN TRITONSERVER_InferenceRequestCorrelationIdString(
    TRITONSERVER_InferenceRequest* inference_request,
    const char** correlation_id);
FC_FN TRITONSERVER_InferenceRequestSetCorrelationId(
    TRITONSERVER_InferenceRequest* inference_request, uint64_t correlation_id);
FC_FN TRITONSERVER_InferenceRequestSetCorrelationIdString(
    TRITONSERVER_InferenceRequest* inference_request,
    const char* correlation_id);
FC_FN TRITONSERVER_InferenceRequestCancel(
    TRITONSERVER_InferenceRequest* inference_request);
FC_FN TRITONSERVER_InferenceRequestIsCancelled(
    TRITONSERVER_InferenceRequest* inference_request, bool* is_cancelled);
FC_FN TRITONSERVER_InferenceRequestPriority(
    TRITONSERVER_InferenceRequest* inference_request, uint32_t* priority);
FC_FN TRITONSERVER_InferenceRequestPriorityUInt64(
    TRITONSERVER_InferenceRequest* inference_request, uint64_t* priority);
FC_FN TRITONSERVER_InferenceRequestSetPriority(
    TRITONSERVER_InferenceRequest* inference_request, uint32_t priority);
FC_FN TRITONSERVER_InferenceRequestSetPriorityUInt64(
    TRITONSERVER_InferenceRequest* inference_request, uint64_t priority);
FC_FN TRITONSERVER_InferenceRequestTimeoutMicroseconds(
    TRITONSERVER_InferenceRequest* inference_request, uint64_t* timeout_us);
FC_FN TRITONSERVER_InferenceRequestSetTimeoutMicroseconds(
    TRITONSERVER_InferenceRequest* inference_request, uint64_t timeout_us);
FC_FN TRITONSERVER_InferenceRequestAddInput(
    TRITONSERVER_InferenceRequest* inference_request, const char* name,
    const TRITONSERVER_DataType datatype, const int64_t* shape,
    uint64_t dim_count);
FC_FN TRITONSERVER_InferenceRequestAddRawInput(
    TRITONSERVER_InferenceRequest* inference_request, const char* name);
FC_FN TRITONSERVER_InferenceRequestRemoveInput(
    TRITONSERVER_InferenceRequest* inference_request, const char* name);
FC_FN TRITONSERVER_InferenceRequestRemoveAllInputs(
    TRITONSERVER_InferenceRequest* inference_request);
FC_FN TRITONSERVER_InferenceRequestAppendInputData(
    TRITONSERVER_InferenceRequest* inference_request, const char* name,
    const void* base, size_t byte_size, TRITONSERVER_MemoryType memory_type,
    int64_t memory_type_id);
FC_FN TRITONSERVER_InferenceRequestAppendInputDataWithHostPolicy(
    TRITONSERVER_InferenceRequest* inference_request, const char* name,
    const void* base, size_t byte_size, TRITONSERVER_MemoryType memory_type,
    int64_t memory_type_id, const char* host_policy_name);
FC_FN TRITONSERVER_InferenceRequestAppendInputDataWithBufferAttributes(
    TRITONSERVER_InferenceRequest* inference_request, const char* name,
    const void* base, TRITONSERVER_BufferAttributes* buffer_attributes);
FC_FN TRITONSERVER_InferenceRequestRemoveAllInputData(
    TRITONSERVER_InferenceRequest* inference_request, const char* name);
FC_FN TRITONSERVER_InferenceRequestAddRequestedOutput(
    TRITONSERVER_InferenceRequest* inference_request, const char* name);
FC_FN TRITONSERVER_InferenceRequestRemoveRequestedOutput(
    TRITONSERVER_InferenceRequest* inference_request, const char* name);
FC_FN TRITONSERVER_InferenceRequestRemoveAllRequestedOutputs(
    TRITONSERVER_InferenceRequest* inference_request);
FC_FN TRITONSERVER_InferenceRequestSetReleaseCallback(
    TRITONSERVER_InferenceRequest* inference_request,
    TRITONSERVER_InferenceRequestReleaseFn_t request_release_fn,
    void* request_release_userp);
FC_FN TRITONSERVER_InferenceRequestSetResponseCallback(
    TRITONSERVER_InferenceRequest* inference_request,
    TRITONSERVER_ResponseAllocator* response_allocator,
    void* response_allocator_userp,
    TRITONSERVER_InferenceResponseCompleteFn_t response_fn,
    void* response_userp);
FC_FN TRITONSERVER_InferenceRequestSetStringParameter(
    TRITONSERVER_InferenceRequest* request, const char* key, const char* value);
FC_FN TRITONSERVER_InferenceRequestSetIntParameter(
    TRITONSERVER_InferenceRequest* request, const char* key, const int64_t value);
FC_FN TRITONSERVER_InferenceRequestSetBoolParameter(
    TRITONSERVER_InferenceRequest* request, const char* key, const bool value);
FC_FN TRITONSERVER_InferenceRequestSetDoubleParameter(
    TRITONSERVER_InferenceRequest* request, const char* key, const double value);

FC_FN TRITONSERVER_InferenceResponseDelete(
    TRITONSERVER_InferenceResponse* inference_response);
FC_FN TRITONSERVER_InferenceResponseError(
    TRITONSERVER_InferenceResponse* inference_response);
FC_FN TRITONSERVER_InferenceResponseModel(
    TRITONSERVER_InferenceResponse* inference_response, const char** model_name,
    int64_t* model_version);
FC_FN TRITONSERVER_InferenceResponseId(
    TRITONSERVER_InferenceResponse* inference_response, const char** request_id);
FC_FN TRITONSERVER_InferenceResponseParameterCount(
    TRITONSERVER_InferenceResponse* inference_response, uint32_t* count);
FC_FN TRITONSERVER_InferenceResponseParameter(
    TRITONSERVER_InferenceResponse* inference_response, const uint32_t index,
    const char** name, TRITONSERVER_ParameterType* type, const void** vvalue);
FC_FN TRITONSERVER_InferenceResponseOutputCount(
    TRITONSERVER_InferenceResponse* inference_response, uint32_t* count);
FC_FN TRITONSERVER_InferenceResponseOutput(
    TRITONSERVER_InferenceResponse* inference_response, const uint32_t index,
    const char** name, TRITONSERVER_DataType* datatype, const int64_t** shape,
    uint64_t* dim_count, const void** base, size_t* byte_size,
    TRITONSERVER_MemoryType* memory_type, int64_t* memory_type_id, void** userp);
FC_FN TRITONSERVER_InferenceResponseOutputClassificationLabel(
    TRITONSERVER_InferenceResponse* inference_response, const uint32_t index,
    const size_t class_index, const char** label);

FC_FN TRITONSERVER_BufferAttributesNew(
    TRITONSERVER_BufferAttributes** buffer_attributes);
FC_FN TRITONSERVER_BufferAttributesDelete(
    TRITONSERVER_BufferAttributes* buffer_attributes);
FC_FN TRITONSERVER_BufferAttributesSetMemoryTypeId(
    TRITONSERVER_BufferAttributes* buffer_attributes, int64_t memory_type_id);
FC_FN TRITONSERVER_BufferAttributesSetMemoryType(
    TRITONSERVER_BufferAttributes* buffer_attributes,
    TRITONSERVER_MemoryType memory_type);
FC_FN TRITONSERVER_BufferAttributesSetCudaIpcHandle(
    TRITONSERVER_BufferAttributes* buffer_attributes, void* cuda_ipc_handle);
FC_FN TRITONSERVER_BufferAttributesSetByteSize(
    TRITONSERVER_BufferAttributes* buffer_attributes, size_t byte_size);
FC_FN TRITONSERVER_BufferAttributesMemoryTypeId(
    TRITONSERVER_BufferAttributes* buffer_attributes, int64_t* memory_type_id);
FC_FN TRITONSERVER_BufferAttributesMemoryType(
    TRITONSERVER_BufferAttributes* buffer_attributes,
    TRITONSERVER_MemoryType* memory_type);
FC_FN TRITONSERVER_BufferAttributesCudaIpcHandle(
    TRITONSERVER_BufferAttributes* buffer_attributes, void** cuda_ipc_handle);
FC_FN TRITONSERVER_BufferAttributesByteSize(
    TRITONSERVER_BufferAttributes* buffer_attributes, size_t* byte_size);

FC_FN TRITONSERVER_ServerOptionsNew(TRITONSERVER_ServerOptions** options);
FC_FN TRITONSERVER_ServerOptionsDelete(TRITONSERVER_ServerOptions* options);
FC_FN TRITONSERVER_ServerOptionsSetServerId(
    TRITONSERVER_ServerOptions* options, const char* server_id);
FC_FN TRITONSERVER_ServerOptionsSetModelRepositoryPath(
    TRITONSERVER_ServerOptions* options, const char* model_repository_path);
FC_FN TRITONSERVER_ServerOptionsSetModelControlMode(
    TRITONSERVER_ServerOptions* options, TRITONSERVER_ModelControlMode mode);
FC_FN TRITONSERVER_ServerOptionsSetStartupModel(
    TRITONSERVER_ServerOptions* options, const char* model_name);
FC_FN TRITONSERVER_ServerOptionsSetStrictModelConfig(
    TRITONSERVER_ServerOptions* options, bool strict);
FC_FN TRITONSERVER_ServerOptionsSetModelConfigName(
    TRITONSERVER_ServerOptions* options, const char* model_config_name);
FC_FN TRITONSERVER_ServerOptionsSetRateLimiterMode(
    TRITONSERVER_ServerOptions* options, TRITONSERVER_RateLimitMode mode);
FC_FN TRITONSERVER_ServerOptionsAddRateLimiterResource(
    TRITONSERVER_ServerOptions* options, const char* resource_name,
    const size_t resource_count, const int device);
FC_FN TRITONSERVER_ServerOptionsSetPinnedMemoryPoolByteSize(
    TRITONSERVER_ServerOptions* options, uint64_t size);
FC_FN TRITONSERVER_ServerOptionsSetCudaMemoryPoolByteSize(
    TRITONSERVER_ServerOptions* options, int gpu_device, uint64_t size);
FC_FN TRITONSERVER_ServerOptionsSetCudaVirtualAddressSize(
    TRITONSERVER_ServerOptions* options, int gpu_device,
    size_t cuda_virtual_address_size);
FC_FN TRITONSERVER_ServerOptionsSetResponseCacheByteSize(
    TRITONSERVER_ServerOptions* options, uint64_t size);
FC_FN TRITONSERVER_ServerOptionsSetCacheConfig(
    TRITONSERVER_ServerOptions* options, const char* cache_name,
    const char* config_json);
FC_FN TRITONSERVER_ServerOptionsSetCacheDirectory(
    TRITONSERVER_ServerOptions* options, const char* cache_dir);
FC_FN TRITONSERVER_ServerOptionsSetMinSupportedComputeCapability(
    TRITONSERVER_ServerOptions* options, double cc);
FC_FN TRITONSERVER_ServerOptionsSetExitOnError(
    TRITONSERVER_ServerOptions* options, bool exit);
FC_FN TRITONSERVER_ServerOptionsSetStrictReadiness(
    TRITONSERVER_ServerOptions* options, bool strict);
FC_FN TRITONSERVER_ServerOptionsSetExitTimeout(
    TRITONSERVER_ServerOptions* options, unsigned int timeout);
FC_FN TRITONSERVER_ServerOptionsSetBufferManagerThreadCount(
    TRITONSERVER_ServerOptions* options, unsigned int thread_count);
FC_FN TRITONSERVER_ServerOptionsSetModelLoadThreadCount(
    TRITONSERVER_ServerOptions* options, unsigned int thread_count);
FC_FN TRITONSERVER_ServerOptionsSetModelLoadRetryCount(
    TRITONSERVER_ServerOptions* options, unsigned int retry_count);
FC_FN TRITONSERVER_ServerOptionsSetModelNamespacing(
    TRITONSERVER_ServerOptions* options, bool enable_namespace);
FC_FN TRITONSERVER_ServerOptionsSetEnablePeerAccess(
    TRITONSERVER_ServerOptions* options, bool enable_peer_access);
FC_FN TRITONSERVER_ServerOptionsSetLogFile(
    TRITONSERVER_ServerOptions* options, const char* file);
FC_FN TRITONSERVER_ServerOptionsSetLogInfo(
    TRITONSERVER_ServerOptions* options, bool log);
FC_FN TRITONSERVER_ServerOptionsSetLogWarn(
    TRITONSERVER_ServerOptions* options, bool log);
FC_FN TRITONSERVER_ServerOptionsSetLogError(
    TRITONSERVER_ServerOptions* options, bool log);
FC_FN TRITONSERVER_ServerOptionsSetLogFormat(
    TRITONSERVER_ServerOptions* options, const TRITONSERVER_LogFormat format);
FC_FN TRITONSERVER_ServerOptionsSetLogVerbose(
    TRITONSERVER_ServerOptions* options, int level);
FC_FN TRITONSERVER_ServerOptionsSetMetrics(
    TRITONSERVER_ServerOptions* options, bool metrics);
FC_FN TRITONSERVER_ServerOptionsSetGpuMetrics(
    TRITONSERVER_ServerOptions* options, bool gpu_metrics);
FC_FN TRITONSERVER_ServerOptionsSetCpuMetrics(
    TRITONSERVER_ServerOptions* options, bool cpu_metrics);
FC_FN TRITONSERVER_ServerOptionsSetMetricsInterval(
    TRITONSERVER_ServerOptions* options, uint64_t metrics_interval_ms);
FC_FN TRITONSERVER_ServerOptionsSetBackendDirectory(
    TRITONSERVER_ServerOptions* options, const char* backend_dir);
FC_FN TRITONSERVER_ServerOptionsSetRepoAgentDirectory(
    TRITONSERVER_ServerOptions* options, const char* repoagent_dir);
FC_FN TRITONSERVER_ServerOptionsSetModelLoadDeviceLimit(
    TRITONSERVER_ServerOptions* options,
    const TRITONSERVER_InstanceGroupKind kind, const int device_id,
    const double fraction);
FC_FN TRITONSERVER_ServerOptionsSetBackendConfig(
    TRITONSERVER_ServerOptions* options, const char* backend_name,
    const char* setting, const char* value);
FC_FN TRITONSERVER_ServerOptionsSetHostPolicy(
    TRITONSERVER_ServerOptions* options, const char* policy_name,
    const char* setting, const char* value);
FC_FN TRITONSERVER_ServerOptionsSetMetricsConfig(
    TRITONSERVER_ServerOptions* options, const char* name, const char* setting,
    const char* value);

FC_FN TRITONSERVER_ServerNew(
    TRITONSERVER_Server** server, TRITONSERVER_ServerOptions* options);
FC_FN TRITONSERVER_ServerDelete(TRITONSERVER_Server* server);
FC_FN TRITONSERVER_ServerStop(TRITONSERVER_Server* server);
FC_FN TRITONSERVER_ServerSetExitTimeout(
    TRITONSERVER_Server* server, unsigned int timeout);
FC_FN TRITONSERVER_ServerRegisterModelRepository(
    TRITONSERVER_Server* server, const char* repository_path,
    const TRITONSERVER_Parameter** name_mapping, const uint32_t mapping_count);
FC_FN TRITONSERVER_ServerUnregisterModelRepository(
    TRITONSERVER_Server* server, const char* repository_path);
FC_FN TRITONSERVER_ServerPollModelRepository(TRITONSERVER_Server* server);
FC_FN TRITONSERVER_ServerIsLive(TRITONSERVER_Server* server, bool* live);
FC_FN TRITONSERVER_ServerIsReady(TRITONSERVER_Server* server, bool* ready);
FC_FN TRITONSERVER_ServerModelIsReady(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, bool* ready);
FC_FN TRITONSERVER_ServerModelBatchProperties(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, uint32_t* flags, void** voidp);
FC_FN TRITONSERVER_ServerModelTransactionProperties(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, uint32_t* txn_flags, void** voidp);
FC_FN TRITONSERVER_ServerMetadata(
    TRITONSERVER_Server* server, TRITONSERVER_Message** server_metadata);
FC_FN TRITONSERVER_ServerModelMetadata(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, TRITONSERVER_Message** model_metadata);
FC_FN TRITONSERVER_ServerModelStatistics(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, TRITONSERVER_Message** model_stats);
FC_FN TRITONSERVER_ServerModelConfig(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, const uint32_t config_version,
    TRITONSERVER_Message** model_config);
FC_FN TRITONSERVER_ServerModelIndex(
    TRITONSERVER_Server* server, uint32_t flags,
    TRITONSERVER_Message** model_index);
FC_FN TRITONSERVER_ServerLoadModel(
    TRITONSERVER_Server* server, const char* model_name);
FC_FN TRITONSERVER_ServerLoadModelWithParameters(
    TRITONSERVER_Server* server, const char* model_name,
    const TRITONSERVER_Parameter** parameters, const uint64_t parameter_count);
FC_FN TRITONSERVER_ServerUnloadModel(
    TRITONSERVER_Server* server, const char* model_name);
FC_FN TRITONSERVER_ServerUnloadModelAndDependents(
    TRITONSERVER_Server* server, const char* model_name);
FC_FN TRITONSERVER_ServerMetrics(
    TRITONSERVER_Server* server, TRITONSERVER_Metrics** metrics);
FC_FN TRITONSERVER_ServerInferAsync(
    TRITONSERVER_Server* server, TRITONSERVER_InferenceRequest* inference_request,
    TRITONSERVER_InferenceTrace* trace);

FC_FN TRITONSERVER_MetricFamilyNew(
    TRITONSERVER_MetricFamily** family, const TRITONSERVER_MetricKind kind,
    const char* name, const char* description);
FC_FN TRITONSERVER_MetricFamilyDelete(TRITONSERVER_MetricFamily* family);
FC_FN TRITONSERVER_GetMetricFamilyKind(
    TRITONSERVER_MetricFamily* family, TRITONSERVER_MetricKind* kind);
FC_FN TRITONSERVER_MetricArgsNew(TRITONSERVER_MetricArgs** args);
FC_FN TRITONSERVER_MetricArgsSetHistogram(
    TRITONSERVER_MetricArgs* args, const double* buckets,
    const uint64_t buckets_count);
FC_FN TRITONSERVER_MetricArgsDelete(TRITONSERVER_MetricArgs* args);
FC_FN TRITONSERVER_MetricNew(
    TRITONSERVER_Metric** metric, TRITONSERVER_MetricFamily* family,
    const TRITONSERVER_Parameter** labels, const uint64_t label_count);
FC_FN TRITONSERVER_MetricNewWithArgs(
    TRITONSERVER_Metric** metric, TRITONSERVER_MetricFamily* family,
    const TRITONSERVER_Parameter** labels, const uint64_t label_count,
    const TRITONSERVER_MetricArgs* args);
FC_FN TRITONSERVER_MetricDelete(TRITONSERVER_Metric* metric);
FC_FN TRITONSERVER_MetricValue(TRITONSERVER_Metric* metric, double* value);
FC_FN TRITONSERVER_MetricIncrement(TRITONSERVER_Metric* metric, double value);
FC_FN TRITONSERVER_MetricSet(TRITONSERVER_Metric* metric, double value);
FC_FN TRITONSERVER_MetricObserve(TRITONSERVER_Metric* metric, double value);
FC_FN TRITONSERVER_GetMetricKind(
    TRITONSERVER_Metric* metric, TRITONSERVER_MetricKind* kind);

/* ---- test-only extras ---- */
FC_EXPORT int64_t FAKECORE_LiveCount(const char* kind);

#endif /* FC_API_H */
