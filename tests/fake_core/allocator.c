/* allocator.c - TRITONSERVER_ResponseAllocator. Real core
 * (ResponseAllocator): a holder of the caller's functions, which the core
 * calls from the threads that allocate and release output buffers. */
#include "fake_core.h"

#include <stdlib.h>

TRITONSERVER_Error*
TRITONSERVER_ResponseAllocatorNew(
    TRITONSERVER_ResponseAllocator** allocator,
    TRITONSERVER_ResponseAllocatorAllocFn_t alloc_fn,
    TRITONSERVER_ResponseAllocatorReleaseFn_t release_fn,
    TRITONSERVER_ResponseAllocatorStartFn_t start_fn)
{
  TRITONSERVER_ResponseAllocator* a = fc_xcalloc(1, sizeof(*a));
  a->alloc_fn = alloc_fn;
  a->release_fn = release_fn;
  a->start_fn = start_fn;
  fc_count_inc(FC_K_ALLOCATOR);
  *allocator = a;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ResponseAllocatorSetBufferAttributesFunction(
    TRITONSERVER_ResponseAllocator* allocator,
    TRITONSERVER_ResponseAllocatorBufferAttributesFn_t buffer_attributes_fn)
{
  allocator->buffer_attributes_fn = buffer_attributes_fn;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ResponseAllocatorSetQueryFunction(
    TRITONSERVER_ResponseAllocator* allocator,
    TRITONSERVER_ResponseAllocatorQueryFn_t query_fn)
{
  allocator->query_fn = query_fn;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ResponseAllocatorDelete(TRITONSERVER_ResponseAllocator* allocator)
{
  if (allocator != NULL && !allocator->deleted) {
    /* Not freed: a response deleted later still points at it. The real core would read freed
     * memory there; the fake reports it (fc_response_destroy, FAKECORE_MisuseCount). */
    allocator->deleted = true;
    fc_count_dec(FC_K_ALLOCATOR);
  }
  return NULL;
}
