/* triton.h - the functions of Triton's in-process C API the reference client calls, as pointers
 * resolved with dlsym from the library the binding uses ($TRITONSERVER_LIB). Their types, and the
 * enums, come from tritonffi_c_api.h, which tools/c_api.mjs generates from ffi/symbols.ts and
 * ffi/enums.ts (bench/run.mjs writes it into .build/c_api): the client compiles against the same
 * table the binding loads, and needs no Triton headers. */
#ifndef BENCH_TRITON_H
#define BENCH_TRITON_H

#define TRITONFFI_NO_PROTOTYPES /* the names below are pointers */
#include "tritonffi_c_api.h"

/* X(name) for every function used. */
#define TRITON_FUNCTIONS(X) \
  X(TRITONSERVER_ErrorMessage) \
  X(TRITONSERVER_ErrorNew) \
  X(TRITONSERVER_BufferAttributesSetMemoryType) \
  X(TRITONSERVER_BufferAttributesSetMemoryTypeId) \
  X(TRITONSERVER_ErrorDelete) \
  X(TRITONSERVER_ServerOptionsNew) \
  X(TRITONSERVER_ServerOptionsDelete) \
  X(TRITONSERVER_ServerOptionsSetModelRepositoryPath) \
  X(TRITONSERVER_ServerOptionsSetBackendDirectory) \
  X(TRITONSERVER_ServerOptionsSetModelControlMode) \
  X(TRITONSERVER_ServerOptionsSetStartupModel) \
  X(TRITONSERVER_ServerOptionsSetLogInfo) \
  X(TRITONSERVER_ServerOptionsSetLogWarn) \
  X(TRITONSERVER_ServerOptionsSetModelLoadRetryCount) \
  X(TRITONSERVER_ServerOptionsSetEnablePeerAccess) \
  X(TRITONSERVER_ServerNew) \
  X(TRITONSERVER_ServerModelIsReady) \
  X(TRITONSERVER_ServerStop) \
  X(TRITONSERVER_ServerDelete) \
  X(TRITONSERVER_ResponseAllocatorNew) \
  X(TRITONSERVER_ResponseAllocatorDelete) \
  X(TRITONSERVER_InferenceRequestNew) \
  X(TRITONSERVER_InferenceRequestDelete) \
  X(TRITONSERVER_InferenceRequestAddInput) \
  X(TRITONSERVER_InferenceRequestRemoveInput) \
  X(TRITONSERVER_InferenceRequestAppendInputData) \
  X(TRITONSERVER_InferenceRequestRemoveAllInputData) \
  X(TRITONSERVER_InferenceRequestSetReleaseCallback) \
  X(TRITONSERVER_InferenceRequestSetResponseCallback) \
  X(TRITONSERVER_ServerInferAsync) \
  X(TRITONSERVER_InferenceResponseError) \
  X(TRITONSERVER_InferenceResponseModel) \
  X(TRITONSERVER_InferenceResponseId) \
  X(TRITONSERVER_InferenceResponseParameterCount) \
  X(TRITONSERVER_InferenceResponseParameter) \
  X(TRITONSERVER_InferenceResponseOutputCount) \
  X(TRITONSERVER_InferenceResponseOutput) \
  X(TRITONSERVER_InferenceResponseDelete)

#define DECLARE(name) extern name##_fn* name;
TRITON_FUNCTIONS(DECLARE)
#undef DECLARE

/* Resolves every function from the library at path; exits with a message on failure. */
void triton_load(const char* path);

/* Exits with Triton's message when err is not NULL. */
void triton_check(TRITONSERVER_Error* err, const char* what);

#endif
