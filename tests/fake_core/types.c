/* types.c - API version and the enum <-> string helpers. Real core: the API
 * version the binding's table was written for (TRITONSERVER_ApiVersion), and
 * the strings of the C API's *String functions, "<invalid>" or
 * "<unknown>" for values they do not know. */
#include "fake_core.h"

#include <string.h>

/* Every function of the binding's table is defined: a missing one is an undefined reference
 * here, which the build's -Wl,--no-undefined turns into a link error. */
#define FC_ADDRESS(name) (void*)name,
__attribute__((used)) static void* const fc_every_function[] = {TRITONFFI_FUNCTIONS(FC_ADDRESS)};
#undef FC_ADDRESS

TRITONSERVER_Error*
TRITONSERVER_ApiVersion(uint32_t* major, uint32_t* minor)
{
  *major = FC_API_MAJOR;
  *minor = FC_API_MINOR;
  return NULL;
}

/* Protocol names indexed by TRITONSERVER_DataType (0 = invalid). */
static const char* const k_dtype_names[] = {
    NULL,    "BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8",  "INT16",
    "INT32", "INT64", "FP16", "FP32",   "FP64",   "BYTES",  "BF16",
};
#define K_NDTYPES (sizeof(k_dtype_names) / sizeof(k_dtype_names[0]))

const char*
TRITONSERVER_DataTypeString(TRITONSERVER_DataType datatype)
{
  unsigned d = (unsigned)datatype;
  if (d == 0 || d >= K_NDTYPES) {
    return "<invalid>";
  }
  return k_dtype_names[d];
}

TRITONSERVER_DataType
TRITONSERVER_StringToDataType(const char* dtype)
{
  if (dtype == NULL) {
    return TRITONSERVER_TYPE_INVALID;
  }
  for (unsigned d = 1; d < K_NDTYPES; ++d) {
    if (strcmp(dtype, k_dtype_names[d]) == 0) {
      return (TRITONSERVER_DataType)d;
    }
  }
  return TRITONSERVER_TYPE_INVALID;
}

uint32_t
TRITONSERVER_DataTypeByteSize(TRITONSERVER_DataType datatype)
{
  switch (datatype) {
    case TRITONSERVER_TYPE_BOOL:
    case TRITONSERVER_TYPE_UINT8:
    case TRITONSERVER_TYPE_INT8:
      return 1;
    case TRITONSERVER_TYPE_UINT16:
    case TRITONSERVER_TYPE_INT16:
    case TRITONSERVER_TYPE_FP16:
    case TRITONSERVER_TYPE_BF16:
      return 2;
    case TRITONSERVER_TYPE_UINT32:
    case TRITONSERVER_TYPE_INT32:
    case TRITONSERVER_TYPE_FP32:
      return 4;
    case TRITONSERVER_TYPE_UINT64:
    case TRITONSERVER_TYPE_INT64:
    case TRITONSERVER_TYPE_FP64:
      return 8;
    default:
      return 0; /* BYTES and invalid */
  }
}

const char*
TRITONSERVER_MemoryTypeString(TRITONSERVER_MemoryType memtype)
{
  switch (memtype) {
    case TRITONSERVER_MEMORY_CPU:
      return "CPU";
    case TRITONSERVER_MEMORY_CPU_PINNED:
      return "CPU_PINNED";
    case TRITONSERVER_MEMORY_GPU:
      return "GPU";
  }
  return "<invalid>";
}

const char*
TRITONSERVER_ParameterTypeString(TRITONSERVER_ParameterType paramtype)
{
  switch (paramtype) {
    case TRITONSERVER_PARAMETER_STRING:
      return "STRING";
    case TRITONSERVER_PARAMETER_INT:
      return "INT";
    case TRITONSERVER_PARAMETER_BOOL:
      return "BOOL";
    case TRITONSERVER_PARAMETER_DOUBLE:
      return "DOUBLE";
    case TRITONSERVER_PARAMETER_BYTES:
      return "BYTES";
  }
  return "<invalid>";
}

const char*
TRITONSERVER_InstanceGroupKindString(TRITONSERVER_InstanceGroupKind kind)
{
  switch (kind) {
    case TRITONSERVER_INSTANCEGROUPKIND_AUTO:
      return "AUTO";
    case TRITONSERVER_INSTANCEGROUPKIND_CPU:
      return "CPU";
    case TRITONSERVER_INSTANCEGROUPKIND_GPU:
      return "GPU";
    case TRITONSERVER_INSTANCEGROUPKIND_MODEL:
      return "MODEL";
  }
  return "<invalid>";
}

const char*
TRITONSERVER_InferenceTraceLevelString(TRITONSERVER_InferenceTraceLevel level)
{
  switch (level) {
    case TRITONSERVER_TRACE_LEVEL_DISABLED:
      return "DISABLED";
    case TRITONSERVER_TRACE_LEVEL_MIN:
      return "MIN";
    case TRITONSERVER_TRACE_LEVEL_MAX:
      return "MAX";
    case TRITONSERVER_TRACE_LEVEL_TIMESTAMPS:
      return "TIMESTAMPS";
    case TRITONSERVER_TRACE_LEVEL_TENSORS:
      return "TENSORS";
  }
  return "<unknown>";
}

const char*
TRITONSERVER_InferenceTraceActivityString(
    TRITONSERVER_InferenceTraceActivity activity)
{
  static const char* const names[] = {
      "REQUEST_START",        "QUEUE_START",          "COMPUTE_START",
      "COMPUTE_INPUT_END",    "COMPUTE_OUTPUT_START", "COMPUTE_END",
      "REQUEST_END",          "TENSOR_QUEUE_INPUT",   "TENSOR_BACKEND_INPUT",
      "TENSOR_BACKEND_OUTPUT", "CUSTOM_ACTIVITY",
  };
  unsigned a = (unsigned)activity;
  if (a < sizeof(names) / sizeof(names[0])) {
    return names[a];
  }
  return "<unknown>";
}

/* ---- model configuration spelling ---- */
const char*
fc_config_dtype_name(TRITONSERVER_DataType dt)
{
  static const char* const names[] = {
      "TYPE_INVALID", "TYPE_BOOL",  "TYPE_UINT8",  "TYPE_UINT16",
      "TYPE_UINT32",  "TYPE_UINT64", "TYPE_INT8",  "TYPE_INT16",
      "TYPE_INT32",   "TYPE_INT64",  "TYPE_FP16",  "TYPE_FP32",
      "TYPE_FP64",    "TYPE_STRING", "TYPE_BF16",
  };
  unsigned d = (unsigned)dt;
  return d < sizeof(names) / sizeof(names[0]) ? names[d] : "TYPE_INVALID";
}

TRITONSERVER_DataType
fc_config_dtype_parse(const char* s)
{
  for (unsigned d = 0; d < K_NDTYPES; ++d) {
    if (strcmp(s, fc_config_dtype_name((TRITONSERVER_DataType)d)) == 0) {
      return (TRITONSERVER_DataType)d;
    }
  }
  return (TRITONSERVER_DataType)-1;
}
