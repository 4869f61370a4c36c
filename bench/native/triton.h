/* triton.h - the part of Triton's in-process C API (tritonserver.h, API 1.34) the reference
 * client calls, declared here as function pointers resolved with dlsym from the library the
 * binding uses ($TRITONSERVER_LIB), so the client needs no Triton headers to build. */
#ifndef BENCH_TRITON_H
#define BENCH_TRITON_H

#include <stddef.h>
#include <stdint.h>

typedef struct TRITONSERVER_Error TRITONSERVER_Error;
typedef struct TRITONSERVER_Server TRITONSERVER_Server;
typedef struct TRITONSERVER_ServerOptions TRITONSERVER_ServerOptions;
typedef struct TRITONSERVER_ResponseAllocator TRITONSERVER_ResponseAllocator;
typedef struct TRITONSERVER_InferenceRequest TRITONSERVER_InferenceRequest;
typedef struct TRITONSERVER_InferenceResponse TRITONSERVER_InferenceResponse;

enum { MEM_CPU = 0 };
enum { TYPE_UINT32 = 4, TYPE_INT32 = 8, TYPE_FP32 = 11 };
enum { MODEL_CONTROL_EXPLICIT = 2 };
enum { RESPONSE_COMPLETE_FINAL = 1 };
enum { PARAMETER_STRING = 0, PARAMETER_INT = 1, PARAMETER_BOOL = 2, PARAMETER_DOUBLE = 3 };

typedef TRITONSERVER_Error* (*alloc_fn_t)(TRITONSERVER_ResponseAllocator*, const char*, size_t,
                                          int, int64_t, void*, void**, void**, int*, int64_t*);
typedef TRITONSERVER_Error* (*release_fn_t)(TRITONSERVER_ResponseAllocator*, void*, void*,
                                            size_t, int, int64_t);
typedef void (*response_fn_t)(TRITONSERVER_InferenceResponse*, uint32_t, void*);
typedef void (*request_release_fn_t)(TRITONSERVER_InferenceRequest*, uint32_t, void*);

/* X(name, return type, parameter list) for every function used. */
#define TRITON_FUNCTIONS(X)                                                                      \
  X(TRITONSERVER_ErrorMessage, const char*, (TRITONSERVER_Error*))                              \
  X(TRITONSERVER_ErrorDelete, void, (TRITONSERVER_Error*))                                      \
  X(TRITONSERVER_ServerOptionsNew, TRITONSERVER_Error*, (TRITONSERVER_ServerOptions**))         \
  X(TRITONSERVER_ServerOptionsDelete, TRITONSERVER_Error*, (TRITONSERVER_ServerOptions*))       \
  X(TRITONSERVER_ServerOptionsSetModelRepositoryPath, TRITONSERVER_Error*,                      \
    (TRITONSERVER_ServerOptions*, const char*))                                                 \
  X(TRITONSERVER_ServerOptionsSetBackendDirectory, TRITONSERVER_Error*,                         \
    (TRITONSERVER_ServerOptions*, const char*))                                                 \
  X(TRITONSERVER_ServerOptionsSetModelControlMode, TRITONSERVER_Error*,                         \
    (TRITONSERVER_ServerOptions*, int))                                                         \
  X(TRITONSERVER_ServerOptionsSetStartupModel, TRITONSERVER_Error*,                             \
    (TRITONSERVER_ServerOptions*, const char*))                                                 \
  X(TRITONSERVER_ServerOptionsSetLogInfo, TRITONSERVER_Error*, (TRITONSERVER_ServerOptions*, int)) \
  X(TRITONSERVER_ServerOptionsSetLogWarn, TRITONSERVER_Error*, (TRITONSERVER_ServerOptions*, int)) \
  X(TRITONSERVER_ServerNew, TRITONSERVER_Error*,                                                \
    (TRITONSERVER_Server**, TRITONSERVER_ServerOptions*))                                       \
  X(TRITONSERVER_ServerModelIsReady, TRITONSERVER_Error*,                                       \
    (TRITONSERVER_Server*, const char*, int64_t, int*))                                         \
  X(TRITONSERVER_ServerStop, TRITONSERVER_Error*, (TRITONSERVER_Server*))                       \
  X(TRITONSERVER_ServerDelete, TRITONSERVER_Error*, (TRITONSERVER_Server*))                     \
  X(TRITONSERVER_ResponseAllocatorNew, TRITONSERVER_Error*,                                     \
    (TRITONSERVER_ResponseAllocator**, alloc_fn_t, release_fn_t, void*))                        \
  X(TRITONSERVER_ResponseAllocatorDelete, TRITONSERVER_Error*, (TRITONSERVER_ResponseAllocator*)) \
  X(TRITONSERVER_InferenceRequestNew, TRITONSERVER_Error*,                                      \
    (TRITONSERVER_InferenceRequest**, TRITONSERVER_Server*, const char*, int64_t))              \
  X(TRITONSERVER_InferenceRequestDelete, TRITONSERVER_Error*, (TRITONSERVER_InferenceRequest*)) \
  X(TRITONSERVER_InferenceRequestAddInput, TRITONSERVER_Error*,                                 \
    (TRITONSERVER_InferenceRequest*, const char*, int, const int64_t*, uint64_t))               \
  X(TRITONSERVER_InferenceRequestRemoveInput, TRITONSERVER_Error*,                              \
    (TRITONSERVER_InferenceRequest*, const char*))                                              \
  X(TRITONSERVER_InferenceRequestAppendInputData, TRITONSERVER_Error*,                          \
    (TRITONSERVER_InferenceRequest*, const char*, const void*, size_t, int, int64_t))           \
  X(TRITONSERVER_InferenceRequestRemoveAllInputData, TRITONSERVER_Error*,                       \
    (TRITONSERVER_InferenceRequest*, const char*))                                              \
  X(TRITONSERVER_InferenceRequestSetReleaseCallback, TRITONSERVER_Error*,                       \
    (TRITONSERVER_InferenceRequest*, request_release_fn_t, void*))                              \
  X(TRITONSERVER_InferenceRequestSetResponseCallback, TRITONSERVER_Error*,                      \
    (TRITONSERVER_InferenceRequest*, TRITONSERVER_ResponseAllocator*, void*, response_fn_t,     \
     void*))                                                                                    \
  X(TRITONSERVER_ServerInferAsync, TRITONSERVER_Error*,                                         \
    (TRITONSERVER_Server*, TRITONSERVER_InferenceRequest*, void*))                              \
  X(TRITONSERVER_InferenceResponseError, TRITONSERVER_Error*, (TRITONSERVER_InferenceResponse*)) \
  X(TRITONSERVER_InferenceResponseModel, TRITONSERVER_Error*,                                   \
    (TRITONSERVER_InferenceResponse*, const char**, int64_t*))                                  \
  X(TRITONSERVER_InferenceResponseId, TRITONSERVER_Error*,                                      \
    (TRITONSERVER_InferenceResponse*, const char**))                                            \
  X(TRITONSERVER_InferenceResponseParameterCount, TRITONSERVER_Error*,                          \
    (TRITONSERVER_InferenceResponse*, uint32_t*))                                               \
  X(TRITONSERVER_InferenceResponseParameter, TRITONSERVER_Error*,                               \
    (TRITONSERVER_InferenceResponse*, uint32_t, const char**, int*, const void**))              \
  X(TRITONSERVER_InferenceResponseOutputCount, TRITONSERVER_Error*,                             \
    (TRITONSERVER_InferenceResponse*, uint32_t*))                                               \
  X(TRITONSERVER_InferenceResponseOutput, TRITONSERVER_Error*,                                  \
    (TRITONSERVER_InferenceResponse*, uint32_t, const char**, int*, const int64_t**, uint64_t*, \
     const void**, size_t*, int*, int64_t*, void**))                                            \
  X(TRITONSERVER_InferenceResponseDelete, TRITONSERVER_Error*, (TRITONSERVER_InferenceResponse*))

#define DECLARE(name, ret, params) extern ret(*name) params;
TRITON_FUNCTIONS(DECLARE)
#undef DECLARE

/* Resolves every function from the library at path; exits with a message on failure. */
void triton_load(const char* path);

/* Exits with Triton's message when err is not NULL. */
void triton_check(TRITONSERVER_Error* err, const char* what);

#endif
