/**
 * TypeScript constants for the enums and flag sets of the Triton Inference
 * Server in-process C API, API version 1.34. Values are the numeric values the
 * C library uses; all of these C enums are int-sized (passed as "u32").
 */

/** TRITONSERVER_API_VERSION_MAJOR / TRITONSERVER_API_VERSION_MINOR this binding was written against. */
export const API_VERSION = { major: 1, minor: 34 } as const;

/** TRITONSERVER_DataType: Tensor element data types. */
export const DataType = {
  INVALID: 0,
  BOOL: 1,
  UINT8: 2,
  UINT16: 3,
  UINT32: 4,
  UINT64: 5,
  INT8: 6,
  INT16: 7,
  INT32: 8,
  INT64: 9,
  FP16: 10,
  FP32: 11,
  FP64: 12,
  BYTES: 13,
  BF16: 14,
} as const;
/** A valid tensor data type name. */
export type DataTypeName = Exclude<keyof typeof DataType, "INVALID">;

/** TRITONSERVER_MemoryType: Kinds of memory a buffer can live in. */
export const MemoryType = {
  CPU: 0,
  CPU_PINNED: 1,
  GPU: 2,
} as const;
/** A memory type name. */
export type MemoryTypeName = keyof typeof MemoryType;

/** TRITONSERVER_Error_Code: Error categories carried by a TRITONSERVER_Error. */
export const ErrorCode = {
  UNKNOWN: 0,
  INTERNAL: 1,
  NOT_FOUND: 2,
  INVALID_ARG: 3,
  UNAVAILABLE: 4,
  UNSUPPORTED: 5,
  ALREADY_EXISTS: 6,
  CANCELLED: 7,
} as const;
/** An error code name. */
export type ErrorCodeName = keyof typeof ErrorCode;

/** TRITONSERVER_ParameterType: Value types of a TRITONSERVER_Parameter or a response parameter. */
export const ParameterType = {
  STRING: 0,
  INT: 1,
  BOOL: 2,
  DOUBLE: 3,
  BYTES: 4,
} as const;

/** TRITONSERVER_InstanceGroupKind: Kinds of model instance groups. */
export const InstanceGroupKind = {
  AUTO: 0,
  CPU: 1,
  GPU: 2,
  MODEL: 3,
} as const;

/** TRITONSERVER_LogLevel: Log message levels. */
export const LogLevel = {
  INFO: 0,
  WARN: 1,
  ERROR: 2,
  VERBOSE: 3,
} as const;

/** TRITONSERVER_LogFormat: Log line formats. */
export const LogFormat = {
  DEFAULT: 0,
  ISO8601: 1,
} as const;

/** TRITONSERVER_ModelControlMode: How the server manages the models of its repositories. */
export const ModelControlMode = {
  NONE: 0,
  POLL: 1,
  EXPLICIT: 2,
} as const;

/** TRITONSERVER_RateLimitMode: Rate limiter modes. */
export const RateLimitMode = {
  OFF: 0,
  EXEC_COUNT: 1,
} as const;

/** TRITONSERVER_ModelBatchFlag: Bit flags returned by TRITONSERVER_ServerModelBatchProperties. */
export const ModelBatchFlag = {
  UNKNOWN: 1,
  FIRST_DIM: 2,
} as const;

/** TRITONSERVER_ModelIndexFlag: Bit flags accepted by TRITONSERVER_ServerModelIndex. */
export const ModelIndexFlag = {
  READY: 1,
} as const;

/** TRITONSERVER_ModelTxnPropertyFlag: Bit flags returned by TRITONSERVER_ServerModelTransactionProperties. */
export const ModelTxnPropertyFlag = {
  ONE_TO_ONE: 1,
  DECOUPLED: 2,
} as const;

/** TRITONSERVER_RequestFlag: Bit flags of an inference request (sequence control). */
export const RequestFlag = {
  SEQUENCE_START: 1,
  SEQUENCE_END: 2,
} as const;

/** TRITONSERVER_RequestReleaseFlag: Bit flags passed to the request release callback. */
export const RequestReleaseFlag = {
  ALL: 1,
  RESCHEDULE: 2,
} as const;

/** TRITONSERVER_ResponseCompleteFlag: Bit flags passed to the response complete callback. */
export const ResponseCompleteFlag = {
  FINAL: 1,
} as const;

/** TRITONSERVER_MetricFormat: Output formats of TRITONSERVER_MetricsFormatted. */
export const MetricFormat = {
  PROMETHEUS: 0,
} as const;

/** TRITONSERVER_MetricKind: Kinds of custom metric families. */
export const MetricKind = {
  COUNTER: 0,
  GAUGE: 1,
  HISTOGRAM: 2,
} as const;

/** TRITONSERVER_InferenceTraceLevel: Trace levels; bit flags that may be OR-ed together. */
export const TraceLevel = {
  DISABLED: 0,
  MIN: 1,
  MAX: 2,
  TIMESTAMPS: 4,
  TENSORS: 8,
} as const;

/** TRITONSERVER_InferenceTraceActivity: Activities reported to trace callbacks. */
export const TraceActivity = {
  REQUEST_START: 0,
  QUEUE_START: 1,
  COMPUTE_START: 2,
  COMPUTE_INPUT_END: 3,
  COMPUTE_OUTPUT_START: 4,
  COMPUTE_END: 5,
  REQUEST_END: 6,
  TENSOR_QUEUE_INPUT: 7,
  TENSOR_BACKEND_INPUT: 8,
  TENSOR_BACKEND_OUTPUT: 9,
  CUSTOM_ACTIVITY: 10,
} as const;
