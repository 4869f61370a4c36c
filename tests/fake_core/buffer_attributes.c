/* buffer_attributes.c - TRITONSERVER_BufferAttributes (plain value holder). */
#include "fake_core.h"

#include <stdlib.h>

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesNew(TRITONSERVER_BufferAttributes** ba)
{
  TRITONSERVER_BufferAttributes* b = fc_xcalloc(1, sizeof(*b));
  b->memory_type = TRITONSERVER_MEMORY_CPU;
  *ba = b;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesDelete(TRITONSERVER_BufferAttributes* ba)
{
  free(ba);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesSetMemoryTypeId(
    TRITONSERVER_BufferAttributes* ba, int64_t memory_type_id)
{
  ba->memory_type_id = memory_type_id;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesSetMemoryType(
    TRITONSERVER_BufferAttributes* ba, TRITONSERVER_MemoryType memory_type)
{
  ba->memory_type = memory_type;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesSetCudaIpcHandle(
    TRITONSERVER_BufferAttributes* ba, void* cuda_ipc_handle)
{
  ba->cuda_ipc_handle = cuda_ipc_handle;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesSetByteSize(
    TRITONSERVER_BufferAttributes* ba, size_t byte_size)
{
  ba->byte_size = byte_size;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesMemoryTypeId(
    TRITONSERVER_BufferAttributes* ba, int64_t* memory_type_id)
{
  *memory_type_id = ba->memory_type_id;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesMemoryType(
    TRITONSERVER_BufferAttributes* ba, TRITONSERVER_MemoryType* memory_type)
{
  *memory_type = ba->memory_type;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesCudaIpcHandle(
    TRITONSERVER_BufferAttributes* ba, void** cuda_ipc_handle)
{
  *cuda_ipc_handle = ba->cuda_ipc_handle;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_BufferAttributesByteSize(
    TRITONSERVER_BufferAttributes* ba, size_t* byte_size)
{
  *byte_size = ba->byte_size;
  return NULL;
}
