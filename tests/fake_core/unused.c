/* unused.c - the functions of the C API that the binding never calls. The binding binds every
 * function of its table (ffi/symbols.ts), so the fake core defines them all, but only what the
 * binding uses is implemented: each of these fails UNSUPPORTED naming itself (the real core
 * implements them). A binding change that starts calling one moves it, implemented, to the file
 * of its object, with a test. */
#include "fake_core.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesNew(TRITONSERVER_BufferAttributes** buffer_attributes)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesDelete(TRITONSERVER_BufferAttributes* buffer_attributes)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesSetCudaIpcHandle(TRITONSERVER_BufferAttributes* buffer_attributes, void* cuda_ipc_handle)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesSetByteSize(TRITONSERVER_BufferAttributes* buffer_attributes, size_t byte_size)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesMemoryTypeId(TRITONSERVER_BufferAttributes* buffer_attributes, int64_t* memory_type_id)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesMemoryType(TRITONSERVER_BufferAttributes* buffer_attributes, TRITONSERVER_MemoryType* memory_type)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesCudaIpcHandle(TRITONSERVER_BufferAttributes* buffer_attributes, void** cuda_ipc_handle)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesByteSize(TRITONSERVER_BufferAttributes* buffer_attributes, size_t* byte_size)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestId(TRITONSERVER_InferenceRequest* inference_request, const char** id)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestFlags(TRITONSERVER_InferenceRequest* inference_request, uint32_t* flags)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestCorrelationId(TRITONSERVER_InferenceRequest* inference_request, uint64_t* correlation_id)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestCorrelationIdString(TRITONSERVER_InferenceRequest* inference_request, const char** correlation_id)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestIsCancelled(TRITONSERVER_InferenceRequest* inference_request, bool* is_cancelled)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestPriority(TRITONSERVER_InferenceRequest* inference_request, uint32_t* priority)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestPriorityUInt64(TRITONSERVER_InferenceRequest* inference_request, uint64_t* priority)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestTimeoutMicroseconds(TRITONSERVER_InferenceRequest* inference_request, uint64_t* timeout_us)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestAddRawInput(TRITONSERVER_InferenceRequest* inference_request, const char* name)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestRemoveAllInputs(TRITONSERVER_InferenceRequest* inference_request)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestAppendInputDataWithHostPolicy(TRITONSERVER_InferenceRequest* inference_request, const char* name, const void* base, size_t byte_size, TRITONSERVER_MemoryType memory_type, int64_t memory_type_id, const char* host_policy_name)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestAppendInputDataWithBufferAttributes(TRITONSERVER_InferenceRequest* inference_request, const char* name, const void* base, TRITONSERVER_BufferAttributes* buffer_attributes)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestRemoveRequestedOutput(TRITONSERVER_InferenceRequest* inference_request, const char* name)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestRemoveAllRequestedOutputs(TRITONSERVER_InferenceRequest* inference_request)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceSpawnChildTrace(TRITONSERVER_InferenceTrace* trace, TRITONSERVER_InferenceTrace** child_trace)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceSetContext(TRITONSERVER_InferenceTrace* trace, const char* trace_context)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceContext(TRITONSERVER_InferenceTrace* trace, const char** trace_context)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceReportActivity(TRITONSERVER_InferenceTrace* trace, uint64_t timestamp, const char* activity_name)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_MessageNewFromSerializedJson(TRITONSERVER_Message** message, const char* base, size_t byte_size)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_GetMetricFamilyKind(TRITONSERVER_MetricFamily* family, TRITONSERVER_MetricKind* kind)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_GetMetricKind(TRITONSERVER_Metric* metric, TRITONSERVER_MetricKind* kind)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_ServerLoadModel(TRITONSERVER_Server* server, const char* model_name)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_ServerSetExitTimeout(TRITONSERVER_Server* server, unsigned int timeout)
{
  return fc_unsupported(__func__);
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetResponseCacheByteSize(TRITONSERVER_ServerOptions* options, uint64_t size)
{
  return fc_unsupported(__func__);
}

