/* allocator.h - the response allocator's functions (allocator.c), in the types of types.h. */
#ifndef TRITONFFI_ALLOCATOR_H
#define TRITONFFI_ALLOCATOR_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

/* Triton's functions the allocator calls: TRITONSERVER_ErrorNew,
 * TRITONSERVER_BufferAttributesSetMemoryType and ...SetMemoryTypeId (their addresses). */
void tritonffi_configure(void* error_new, void* set_memory_type, void* set_memory_type_id);
/* libcudart's cudaMalloc, cudaHostAlloc, cudaFree, cudaFreeHost and cudaSetDevice, once loaded. */
void tritonffi_use_cuda(void* malloc_fn, void* host_alloc, void* free_fn, void* free_host,
                        void* set_device);
/* TRITONSERVER_ResponseAllocatorAllocFn_t, ...ReleaseFn_t, ...QueryFn_t, ...BufferAttributesFn_t;
 * the allocator's userp is the policy (0: CPU memory). */
TF_ERROR* tritonffi_alloc(TF_ALLOCATOR* allocator, const char* name, size_t byte_size,
                          TF_MEMORY_TYPE req_type, int64_t req_id, void* userp, void** buffer,
                          void** buffer_userp, TF_MEMORY_TYPE* actual_type, int64_t* actual_id);
TF_ERROR* tritonffi_release(TF_ALLOCATOR* allocator, void* buffer, void* buffer_userp,
                            size_t byte_size, TF_MEMORY_TYPE type, int64_t id);
TF_ERROR* tritonffi_query(TF_ALLOCATOR* allocator, void* userp, const char* name,
                          size_t* byte_size, TF_MEMORY_TYPE* memory_type,
                          int64_t* memory_type_id);
TF_ERROR* tritonffi_buffer_attributes(TF_ALLOCATOR* allocator, const char* name,
                                      TF_ATTRIBUTES* attributes, void* userp, void* buffer_userp);
/* Alloc, release and query for a request that places outputs: userp is its output placement
 * table (ffi/output_placement.ts); the outputs it names go to their addresses, the others as
 * above. */
TF_ERROR* tritonffi_placed_alloc(TF_ALLOCATOR* allocator, const char* name, size_t byte_size,
                                 TF_MEMORY_TYPE req_type, int64_t req_id, void* userp,
                                 void** buffer, void** buffer_userp, TF_MEMORY_TYPE* actual_type,
                                 int64_t* actual_id);
TF_ERROR* tritonffi_placed_release(TF_ALLOCATOR* allocator, void* buffer, void* buffer_userp,
                                   size_t byte_size, TF_MEMORY_TYPE type, int64_t id);
TF_ERROR* tritonffi_placed_query(TF_ALLOCATOR* allocator, void* userp, const char* name,
                                 size_t* byte_size, TF_MEMORY_TYPE* memory_type,
                                 int64_t* memory_type_id);

#endif
