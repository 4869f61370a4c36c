/*
 * A stand-in CUDA runtime for the tests: the cuda* functions the binding calls, backed by host
 * memory, so the pinned and GPU allocator paths run on machines without a GPU.
 *
 * Test controls: FAKECUDA_SetFail("cudaMalloc") makes that function fail (NULL or "" clears it),
 * FAKECUDA_SetDeviceCount(n), FAKECUDA_LiveCount("device" | "pinned" | "total") counts the
 * allocations not yet freed, FAKECUDA_IsDevicePointer(p) says whether p came from cudaMalloc.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { kSuccess = 0, kInvalidValue = 1, kMemoryAllocation = 2, kInvalidDevice = 101 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char fail_name[64];
static int device_count = 1;
static int current_device = 0;
static int64_t live_device, live_pinned;

/* A small registry of allocations: pointer, kind (1 device, 2 pinned). */
#define MAX_ALLOCS 65536
static void* alloc_ptr[MAX_ALLOCS];
static int alloc_kind[MAX_ALLOCS];

static int should_fail(const char* name) {
  pthread_mutex_lock(&lock);
  int fail = strcmp(fail_name, name) == 0;
  pthread_mutex_unlock(&lock);
  return fail;
}

static int remember(void* p, int kind) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_ALLOCS; i++) {
    if (alloc_ptr[i] == NULL) {
      alloc_ptr[i] = p;
      alloc_kind[i] = kind;
      if (kind == 1) live_device++; else live_pinned++;
      pthread_mutex_unlock(&lock);
      return 1;
    }
  }
  pthread_mutex_unlock(&lock);
  return 0;
}

/* Forgets p if it was allocated with `kind`; returns 0 when it was not. */
static int forget(void* p, int kind) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_ALLOCS; i++) {
    if (alloc_ptr[i] == p && alloc_kind[i] == kind) {
      alloc_ptr[i] = NULL;
      if (kind == 1) live_device--; else live_pinned--;
      pthread_mutex_unlock(&lock);
      return 1;
    }
  }
  pthread_mutex_unlock(&lock);
  return 0;
}

static int allocate(void** out, size_t size, int kind, const char* name) {
  if (out == NULL) return kInvalidValue;
  *out = NULL;
  if (should_fail(name)) return kMemoryAllocation;
  void* p = malloc(size == 0 ? 1 : size);
  if (p == NULL) return kMemoryAllocation;
  if (!remember(p, kind)) {
    free(p);
    return kMemoryAllocation;
  }
  *out = p;
  return kSuccess;
}

int cudaMalloc(void** p, size_t size) { return allocate(p, size, 1, "cudaMalloc"); }

int cudaHostAlloc(void** p, size_t size, unsigned int flags) {
  (void)flags;
  return allocate(p, size, 2, "cudaHostAlloc");
}

int cudaFree(void* p) {
  if (p == NULL) return kSuccess;
  if (should_fail("cudaFree") || !forget(p, 1)) return kInvalidValue;
  free(p);
  return kSuccess;
}

int cudaFreeHost(void* p) {
  if (p == NULL) return kSuccess;
  if (should_fail("cudaFreeHost") || !forget(p, 2)) return kInvalidValue;
  free(p);
  return kSuccess;
}

int cudaMemcpy(void* dst, const void* src, size_t count, int kind) {
  if (kind < 0 || kind > 4 || should_fail("cudaMemcpy")) return kInvalidValue;
  memmove(dst, src, count);
  return kSuccess;
}

int cudaSetDevice(int device) {
  if (device < 0 || device >= device_count) return kInvalidDevice;
  current_device = device;
  return kSuccess;
}

int cudaGetDevice(int* device) {
  *device = current_device;
  return kSuccess;
}

int cudaGetDeviceCount(int* count) {
  *count = device_count;
  return kSuccess;
}

const char* cudaGetErrorString(int error) {
  switch (error) {
    case kSuccess: return "no error";
    case kInvalidValue: return "invalid argument";
    case kMemoryAllocation: return "out of memory";
    case kInvalidDevice: return "invalid device ordinal";
    default: return "unknown error";
  }
}

void FAKECUDA_SetFail(const char* name) {
  pthread_mutex_lock(&lock);
  strncpy(fail_name, name ? name : "", sizeof fail_name - 1);
  pthread_mutex_unlock(&lock);
}

void FAKECUDA_SetDeviceCount(int n) { device_count = n; }

int64_t FAKECUDA_LiveCount(const char* kind) {
  pthread_mutex_lock(&lock);
  int64_t n = strcmp(kind, "device") == 0 ? live_device
            : strcmp(kind, "pinned") == 0 ? live_pinned
            : live_device + live_pinned;
  pthread_mutex_unlock(&lock);
  return n;
}

int FAKECUDA_IsDevicePointer(const void* p) {
  pthread_mutex_lock(&lock);
  int found = 0;
  for (int i = 0; i < MAX_ALLOCS && !found; i++) found = alloc_ptr[i] == p && alloc_kind[i] == 1;
  pthread_mutex_unlock(&lock);
  return found;
}
