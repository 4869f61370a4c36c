/*
 * A stand-in CUDA runtime for the tests: the cuda* functions the binding calls, backed by host
 * memory, so the pinned and GPU allocator paths run on machines without a GPU.
 *
 * Test controls: FAKECUDA_SetFail("cudaMalloc") makes that function fail (NULL or "" clears it),
 * FAKECUDA_SetDeviceCount(n), FAKECUDA_LiveCount("device" | "pinned" | "total") counts the
 * allocations not yet freed ("ipc": the IPC openings not yet closed), FAKECUDA_IsDevicePointer(p)
 * says whether p came from cudaMalloc.
 *
 * CUDA IPC: cudaIpcGetMemHandle makes a 64-byte handle of a cudaMalloc'd buffer (a magic, its
 * address and size); cudaIpcOpenMemHandle, which takes the handle by value as the real one does,
 * opens it (counted; a handle opened again gets the same pointer and one more count, as the real
 * runtime does within one context) and fails with "invalid resource handle" for a handle that is
 * not one or whose buffer was freed; cudaIpcCloseMemHandle closes one opening and fails with
 * "invalid argument" for a pointer not opened. Unlike the real runtime, which refuses to open a
 * handle in the process that exported it, the fake opens it there, so that one test process can
 * both export and register a buffer; the opened pointer is the buffer's own (host) address.
 * cuMemGetAddressRange_v2 (a driver function, which the real runtime library does not export)
 * answers the allocation holding an address, for the binding's bounds check.
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
static size_t alloc_size[MAX_ALLOCS];

/* Open IPC handles: the pointer and its count of openings. */
#define MAX_IPC 1024
static void* ipc_ptr[MAX_IPC];
static int ipc_count[MAX_IPC];
static int64_t live_ipc;

static int should_fail(const char* name) {
  pthread_mutex_lock(&lock);
  int fail = strcmp(fail_name, name) == 0;
  pthread_mutex_unlock(&lock);
  return fail;
}

static int remember(void* p, int kind, size_t size) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_ALLOCS; i++) {
    if (alloc_ptr[i] == NULL) {
      alloc_ptr[i] = p;
      alloc_kind[i] = kind;
      alloc_size[i] = size;
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
  if (!remember(p, kind, size)) {
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
    case 400: return "invalid resource handle";
    default: return "unknown error";
  }
}

enum { kInvalidResourceHandle = 400 };
static const char kMagic[8] = {'F', 'A', 'K', 'E', 'I', 'P', 'C', '1'};

typedef struct {
  char reserved[64];
} cudaIpcMemHandle_t;

/* The device allocation holding p (index), or -1; the lock is held by the caller. */
static int device_allocation(const void* p) {
  for (int i = 0; i < MAX_ALLOCS; i++) {
    const char* base = alloc_ptr[i];
    if (base != NULL && alloc_kind[i] == 1 && (const char*)p >= base &&
        (const char*)p < base + (alloc_size[i] == 0 ? 1 : alloc_size[i])) {
      return i;
    }
  }
  return -1;
}

int cudaIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* p) {
  if (handle == NULL || should_fail("cudaIpcGetMemHandle")) return kInvalidValue;
  pthread_mutex_lock(&lock);
  int i = device_allocation(p);
  pthread_mutex_unlock(&lock);
  if (i < 0 || alloc_ptr[i] != p) return kInvalidValue;
  memset(handle, 0, sizeof *handle);
  memcpy(handle->reserved, kMagic, sizeof kMagic);
  uint64_t address = (uint64_t)(uintptr_t)p, size = alloc_size[i];
  memcpy(handle->reserved + 8, &address, 8);
  memcpy(handle->reserved + 16, &size, 8);
  return kSuccess;
}

int cudaIpcOpenMemHandle(void** p, cudaIpcMemHandle_t handle, unsigned int flags) {
  (void)flags;
  if (p == NULL) return kInvalidValue;
  *p = NULL;
  if (should_fail("cudaIpcOpenMemHandle")) return kInvalidResourceHandle;
  if (memcmp(handle.reserved, kMagic, sizeof kMagic) != 0) return kInvalidResourceHandle;
  uint64_t address, size;
  memcpy(&address, handle.reserved + 8, 8);
  memcpy(&size, handle.reserved + 16, 8);
  void* buffer = (void*)(uintptr_t)address;
  pthread_mutex_lock(&lock);
  int a = device_allocation(buffer);
  if (a < 0 || alloc_ptr[a] != buffer || alloc_size[a] != size) {
    pthread_mutex_unlock(&lock);
    return kInvalidResourceHandle;
  }
  int slot = -1;
  for (int i = 0; i < MAX_IPC; i++) {
    if (ipc_ptr[i] == buffer) {
      slot = i;
      break;
    }
    if (slot < 0 && ipc_ptr[i] == NULL) slot = i;
  }
  if (slot < 0) {
    pthread_mutex_unlock(&lock);
    return kMemoryAllocation;
  }
  ipc_ptr[slot] = buffer;
  ipc_count[slot]++;
  live_ipc++;
  pthread_mutex_unlock(&lock);
  *p = buffer;
  return kSuccess;
}

int cudaIpcCloseMemHandle(void* p) {
  if (should_fail("cudaIpcCloseMemHandle")) return kInvalidValue;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_IPC; i++) {
    if (p != NULL && ipc_ptr[i] == p) {
      if (--ipc_count[i] == 0) ipc_ptr[i] = NULL;
      live_ipc--;
      pthread_mutex_unlock(&lock);
      return kSuccess;
    }
  }
  pthread_mutex_unlock(&lock);
  return kInvalidValue;
}

/* CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr). */
int cuMemGetAddressRange_v2(uint64_t* base, size_t* size, uint64_t address) {
  pthread_mutex_lock(&lock);
  int i = device_allocation((const void*)(uintptr_t)address);
  if (i >= 0) {
    if (base != NULL) *base = (uint64_t)(uintptr_t)alloc_ptr[i];
    if (size != NULL) *size = alloc_size[i];
  }
  pthread_mutex_unlock(&lock);
  return i < 0 ? 1 /* CUDA_ERROR_INVALID_VALUE */ : 0;
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
            : strcmp(kind, "ipc") == 0 ? live_ipc
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
