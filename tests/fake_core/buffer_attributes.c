/* buffer_attributes.c - TRITONSERVER_BufferAttributes: the object the core hands to the
 * allocator's buffer-attributes function, which sets the buffer's memory type and id (the other
 * functions of the object are in unused.c). */
#include "fake_core.h"

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
