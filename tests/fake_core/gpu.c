/* gpu.c - copies to and from GPU memory. The real core moves data with
 * CUDA; the fake core uses the cudaMemcpy of a CUDA runtime that is
 * already loaded in the process (the binding's, real or the project's
 * fake one). Nothing is loaded here; without one, GPU memory is an error. */
#include "fake_core.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef int (*cuda_memcpy_fn)(void* dst, const void* src, size_t count, int kind);

#define CUDA_MEMCPY_DEFAULT 4 /* cudaMemcpyDefault: direction from pointers */

static atomic_uintptr_t g_cuda_memcpy;

static cuda_memcpy_fn
resolve_cuda_memcpy(void)
{
  uintptr_t cached = atomic_load(&g_cuda_memcpy);
  if (cached != 0) {
    return (cuda_memcpy_fn)cached;
  }
  void* sym = dlsym(RTLD_DEFAULT, "cudaMemcpy");
  if (sym == NULL) {
    /* Loaded with RTLD_LOCAL: find it by name without loading anything. */
    const char* names[] = {
        getenv("TRITONFFI_CUDART"), "libcudart.so", "libcudart.so.13",
        "libcudart.so.12", "libcudart.so.11.0",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !sym; ++i) {
      if (names[i] == NULL || names[i][0] == '\0') {
        continue;
      }
      void* h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
      if (h != NULL) {
        sym = dlsym(h, "cudaMemcpy"); /* the extra reference is kept */
      }
    }
  }
  if (sym != NULL) {
    atomic_store(&g_cuda_memcpy, (uintptr_t)sym);
  }
  return (cuda_memcpy_fn)sym;
}

TRITONSERVER_Error*
fc_gpu_copy(void* dst, const void* src, size_t n)
{
  if (n == 0) {
    return NULL;
  }
  cuda_memcpy_fn copy = resolve_cuda_memcpy();
  if (copy == NULL) {
    return fc_err(
        TRITONSERVER_ERROR_UNSUPPORTED,
        "fake core: GPU memory needs a CUDA runtime loaded in the process "
        "(cudaMemcpy not found)");
  }
  int rc = copy(dst, src, n, CUDA_MEMCPY_DEFAULT);
  if (rc != 0) {
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL, "fake core: cudaMemcpy failed with error %d",
        rc);
  }
  return NULL;
}
