/* types.h - the Triton types of the C sources' signatures: Triton's own where the C API
 * declarations (tritonffi_c_api.h, generated from ffi/symbols.ts) were included first, as in the
 * C reference client's build, so the compiler checks the signatures against the callback types;
 * stand-ins of the same ABI where not (Bun's cc() has no Triton headers). */
#ifndef TRITONFFI_TYPES_H
#define TRITONFFI_TYPES_H

#ifdef TRITONFFI_C_API_H
#define TF_ERROR TRITONSERVER_Error
#define TF_ALLOCATOR TRITONSERVER_ResponseAllocator
#define TF_ATTRIBUTES TRITONSERVER_BufferAttributes
#define TF_MEMORY_TYPE TRITONSERVER_MemoryType
#define TF_RESPONSE TRITONSERVER_InferenceResponse
#define TF_REQUEST TRITONSERVER_InferenceRequest
#else
#define TF_ERROR void
#define TF_ALLOCATOR void
#define TF_ATTRIBUTES void
#define TF_MEMORY_TYPE int
#define TF_RESPONSE void
#define TF_REQUEST void
#endif

#endif
