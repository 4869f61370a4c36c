/* allocator.c - the response allocator's functions in C: where Triton's output buffers come from.
 * Host memory from malloc/free; pinned and device memory from libcudart once its functions are
 * given (tritonffi_use_cuda). Compiled at run time by Bun's cc() (TinyCC; nativeAllocator() in
 * ffi/allocator.ts), and at build time by the C reference client (bench/native), which uses its
 * CPU policy.
 *
 * It states no rule of its own: the compiler receives, from allocatorDefines() in
 * ffi/allocator.ts, the placement table (TRITONFFI_PLACEMENT: place() there evaluated over every
 * policy kind, requested memory type, fallback flag and CUDA state), the bits of the policy
 * integer (userp) and of buffer_userp, and the memory type and error code values.
 *
 * The tritonffi_placed_* functions, at the end, are the placing allocator's (see ffi/allocator.ts):
 * outputs named in a request's output placement table are written at the table's addresses. */
#include <stdlib.h>

#ifdef TRITONFFI_C_API_CHECK
#include "tritonffi_c_api.h" /* the C reference client's build: checks the signatures below */
#endif
#include "allocator.h"

typedef TF_ERROR* (*error_new_t)(int code, const char* msg);
typedef TF_ERROR* (*attr_set_type_t)(TF_ATTRIBUTES* attributes, TF_MEMORY_TYPE type);
typedef TF_ERROR* (*attr_set_id_t)(TF_ATTRIBUTES* attributes, int64_t id);
typedef int (*cuda_malloc_t)(void** p, size_t size);
typedef int (*cuda_host_alloc_t)(void** p, size_t size, unsigned int flags);
typedef int (*cuda_free_t)(void* p);
typedef int (*cuda_set_device_t)(int device);

static error_new_t error_new;
static attr_set_type_t attr_set_type;
static attr_set_id_t attr_set_id;
static cuda_malloc_t cuda_malloc;
static cuda_host_alloc_t cuda_host_alloc;
static cuda_free_t cuda_free;
static cuda_free_t cuda_free_host;
static cuda_set_device_t cuda_set_device;

enum {
  CPU = TRITONFFI_MEMORY_CPU,
  GPU = TRITONFFI_MEMORY_GPU,
};

#ifdef TRITONFFI_C_API_H
/* A signature that differs from the callback type is an error here. */
__attribute__((unused)) static TRITONSERVER_ResponseAllocatorAllocFn_t const check_alloc =
    tritonffi_alloc;
__attribute__((unused)) static TRITONSERVER_ResponseAllocatorReleaseFn_t const check_release =
    tritonffi_release;
__attribute__((unused)) static TRITONSERVER_ResponseAllocatorQueryFn_t const check_query =
    tritonffi_query;
__attribute__((unused)) static TRITONSERVER_ResponseAllocatorBufferAttributesFn_t const
    check_attributes = tritonffi_buffer_attributes;
__attribute__((unused)) static TRITONSERVER_ResponseAllocatorAllocFn_t const check_placed_alloc =
    tritonffi_placed_alloc;
__attribute__((unused)) static TRITONSERVER_ResponseAllocatorReleaseFn_t const
    check_placed_release = tritonffi_placed_release;
__attribute__((unused)) static TRITONSERVER_ResponseAllocatorQueryFn_t const check_placed_query =
    tritonffi_placed_query;
#endif

/* Triton's functions the allocator calls (their addresses, from the loaded library). */
void tritonffi_configure(void* en, void* ast, void* asi) {
  error_new = (error_new_t)en;
  attr_set_type = (attr_set_type_t)ast;
  attr_set_id = (attr_set_id_t)asi;
}

/* libcudart's functions, once it is loaded. */
void tritonffi_use_cuda(void* m, void* ha, void* f, void* fh, void* sd) {
  cuda_malloc = (cuda_malloc_t)m;
  cuda_host_alloc = (cuda_host_alloc_t)ha;
  cuda_free = (cuda_free_t)f;
  cuda_free_host = (cuda_free_t)fh;
  cuda_set_device = (cuda_set_device_t)sd;
}

static const unsigned char placement[] = TRITONFFI_PLACEMENT;

/* Where a buffer goes (place() in ffi/allocator.ts, looked up): 0 for a policy or a requested
 * memory type outside the table. */
static int place(size_t policy, int req_type, int64_t req_id, int* type, int* id, int* fallback) {
  size_t kind = policy & TRITONFFI_POLICY_KIND_MASK;
  if (kind >= TRITONFFI_POLICY_KINDS || req_type < 0 || req_type >= TRITONFFI_MEMORY_TYPES) {
    return 0;
  }
  size_t index = kind * TRITONFFI_MEMORY_TYPES + (size_t)req_type;
  index = index * 2 + ((policy & TRITONFFI_POLICY_FALLBACK) != 0);
  index = index * 2 + (cuda_malloc != 0);
  unsigned char e = placement[index];
  int from = (e >> TRITONFFI_PLACEMENT_ID_SHIFT) & TRITONFFI_PLACEMENT_ID_MASK;
  *type = e & TRITONFFI_PLACEMENT_TYPE_MASK;
  *id = from == TRITONFFI_PLACEMENT_ID_REQUESTED ? (int)req_id
      : from == TRITONFFI_PLACEMENT_ID_POLICY
      ? (int)((policy >> TRITONFFI_POLICY_DEVICE_SHIFT) & TRITONFFI_POLICY_DEVICE_MASK)
      : 0;
  *fallback = (e & TRITONFFI_PLACEMENT_FALLBACK) != 0;
  return 1;
}

TF_ERROR* tritonffi_alloc(TF_ALLOCATOR* allocator, const char* name, size_t byte_size,
                          TF_MEMORY_TYPE req_type, int64_t req_id, void* userp, void** buffer,
                          void** buffer_userp, TF_MEMORY_TYPE* actual_type, int64_t* actual_id) {
  (void)allocator, (void)name;
  int type, id, fallback;
  void* p = 0;
  size_t size = byte_size == 0 ? 1 : byte_size;
  if (!place((size_t)userp, (int)req_type, req_id, &type, &id, &fallback)) {
    return error_new(TRITONFFI_ERROR_INVALID_ARG, "unknown output memory policy or type");
  }
  if (type != CPU) {
    if (cuda_malloc == 0) return error_new(TRITONFFI_ERROR_UNAVAILABLE, "output memory needs libcudart");
    int rc = type == GPU ? cuda_set_device(id) : 0;
    if (rc == 0) rc = type == GPU ? cuda_malloc(&p, size) : cuda_host_alloc(&p, size, 0);
    if (rc != 0) {
      if (!fallback) {
        return error_new(TRITONFFI_ERROR_INTERNAL, type == GPU
                                                       ? "cudaMalloc of an output buffer failed"
                                                       : "cudaHostAlloc of an output buffer failed");
      }
      type = CPU;
      id = 0;
    }
  }
  if (type == CPU) {
    p = malloc(size);
    if (p == 0) return error_new(TRITONFFI_ERROR_INTERNAL, "malloc of an output buffer failed");
  }
  *buffer = p;
  *buffer_userp = (void*)(size_t)((type + TRITONFFI_BUFFER_USERP_TYPE_OFFSET) |
                                  (id << TRITONFFI_BUFFER_USERP_ID_SHIFT));
  *actual_type = (TF_MEMORY_TYPE)type;
  *actual_id = id;
  return 0;
}

TF_ERROR* tritonffi_release(TF_ALLOCATOR* allocator, void* buffer, void* buffer_userp,
                            size_t byte_size, TF_MEMORY_TYPE type, int64_t id) {
  (void)allocator, (void)buffer_userp, (void)byte_size;
  if ((int)type == CPU || cuda_free == 0) {
    free(buffer);
    return 0;
  }
  int rc;
  if ((int)type == GPU) {
    cuda_set_device((int)id);
    rc = cuda_free(buffer);
  } else {
    rc = cuda_free_host(buffer);
  }
  return rc == 0 ? 0 : error_new(TRITONFFI_ERROR_INTERNAL, "freeing an output buffer failed");
}

TF_ERROR* tritonffi_query(TF_ALLOCATOR* allocator, void* userp, const char* name,
                          size_t* byte_size, TF_MEMORY_TYPE* memory_type,
                          int64_t* memory_type_id) {
  (void)allocator, (void)name, (void)byte_size;
  int type, id, fallback;
  if (!place((size_t)userp, (int)*memory_type, *memory_type_id, &type, &id, &fallback)) {
    return error_new(TRITONFFI_ERROR_INVALID_ARG, "unknown output memory policy or type");
  }
  *memory_type = (TF_MEMORY_TYPE)type;
  *memory_type_id = id;
  return 0;
}

TF_ERROR* tritonffi_buffer_attributes(TF_ALLOCATOR* allocator, const char* name,
                                      TF_ATTRIBUTES* attributes, void* userp, void* buffer_userp) {
  (void)allocator, (void)name, (void)userp;
  size_t code = (size_t)buffer_userp;
  if (code == 0) return 0;
  size_t mask = ((size_t)1 << TRITONFFI_BUFFER_USERP_ID_SHIFT) - 1;
  TF_ERROR* err =
      attr_set_type(attributes, (TF_MEMORY_TYPE)((code & mask) - TRITONFFI_BUFFER_USERP_TYPE_OFFSET));
  return err ? err : attr_set_id(attributes, (int64_t)(code >> TRITONFFI_BUFFER_USERP_ID_SHIFT));
}

/* ---- the placing allocator: outputs written where the request says ------------------------
 * Its userp is an output placement table (ffi/output_placement.ts writes it): the policy of the
 * outputs not in the table, then, per placed output, its name, the address it goes to and the
 * bytes there. A placed output's buffer is that address (its buffer_userp REGION: released,
 * nothing is freed); any other output is allocated and released as above, by the policy. It has
 * no buffer-attributes function: the core reports each buffer's memory as alloc gave it. */
typedef struct {
  const char* name;
  void* base;
  uint64_t byte_size;
} placed_output;

typedef struct {
  uint64_t count;
  uint64_t policy;
} placement_header; /* followed by count placed_outputs */

static const placed_output* find_placed(const placement_header* table, const char* name) {
  if (name == 0) return 0;
  const placed_output* outputs = (const placed_output*)(table + 1);
  for (uint64_t i = 0; i < table->count; i++) {
    const char* a = outputs[i].name;
    const char* b = name;
    while (*a != 0 && *a == *b) a++, b++;
    if (*a == *b) return &outputs[i];
  }
  return 0;
}

/* Appends `text` at `*at` within `end` (always NUL-terminated). */
static void append(char** at, char* end, const char* text) {
  while (*text != 0 && *at < end - 1) *(*at)++ = *text++;
  **at = 0;
}

static void append_u64(char** at, char* end, uint64_t value) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + value % 10), value /= 10;
  while (value != 0);
  char text[24];
  for (int i = 0; i < n; i++) text[i] = digits[n - 1 - i];
  text[n] = 0;
  append(at, end, text);
}

TF_ERROR* tritonffi_placed_alloc(TF_ALLOCATOR* allocator, const char* name, size_t byte_size,
                                 TF_MEMORY_TYPE req_type, int64_t req_id, void* userp,
                                 void** buffer, void** buffer_userp, TF_MEMORY_TYPE* actual_type,
                                 int64_t* actual_id) {
  const placement_header* table = (const placement_header*)userp;
  const placed_output* o = find_placed(table, name);
  if (o == 0) {
    return tritonffi_alloc(allocator, name, byte_size, req_type, req_id,
                           (void*)(size_t)table->policy, buffer, buffer_userp, actual_type,
                           actual_id);
  }
  if (byte_size > o->byte_size) {
    /* The message tritonserver's front ends give. */
    char message[512];
    char* at = message;
    char* end = message + sizeof message;
    append(&at, end, "shared memory size specified with the request for output '");
    append(&at, end, name);
    append(&at, end, "' (");
    append_u64(&at, end, o->byte_size);
    append(&at, end, " bytes) should be at least ");
    append_u64(&at, end, byte_size);
    append(&at, end, " bytes to hold the results");
    return error_new(TRITONFFI_ERROR_INTERNAL, message);
  }
  *buffer = o->base;
  *buffer_userp = (void*)(size_t)TRITONFFI_BUFFER_USERP_REGION;
  *actual_type = (TF_MEMORY_TYPE)CPU;
  *actual_id = 0;
  return 0;
}

TF_ERROR* tritonffi_placed_release(TF_ALLOCATOR* allocator, void* buffer, void* buffer_userp,
                                   size_t byte_size, TF_MEMORY_TYPE type, int64_t id) {
  if ((size_t)buffer_userp == TRITONFFI_BUFFER_USERP_REGION) return 0;
  return tritonffi_release(allocator, buffer, buffer_userp, byte_size, type, id);
}

TF_ERROR* tritonffi_placed_query(TF_ALLOCATOR* allocator, void* userp, const char* name,
                                 size_t* byte_size, TF_MEMORY_TYPE* memory_type,
                                 int64_t* memory_type_id) {
  const placement_header* table = (const placement_header*)userp;
  if (find_placed(table, name) != 0) {
    *memory_type = (TF_MEMORY_TYPE)CPU;
    *memory_type_id = 0;
    return 0;
  }
  return tritonffi_query(allocator, (void*)(size_t)table->policy, name, byte_size, memory_type,
                         memory_type_id);
}
