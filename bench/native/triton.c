/* triton.c - resolves the Triton functions of triton.h with dlopen/dlsym. */
#include "triton.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFINE(name) name##_fn* name;
TRITON_FUNCTIONS(DEFINE)
#undef DEFINE

void triton_load(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "native client: %s\n", dlerror());
    exit(2);
  }
#define RESOLVE(name)                                                 \
  *(void**)&name = dlsym(lib, #name);                                 \
  if (name == NULL) {                                                 \
    fprintf(stderr, "native client: %s missing in %s\n", #name, path); \
    exit(2);                                                          \
  }
  TRITON_FUNCTIONS(RESOLVE)
#undef RESOLVE
}

void triton_check(TRITONSERVER_Error* err, const char* what) {
  if (err == NULL) return;
  fprintf(stderr, "native client: %s: %s\n", what, TRITONSERVER_ErrorMessage(err));
  TRITONSERVER_ErrorDelete(err);
  exit(3);
}
