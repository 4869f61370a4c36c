/* driver.c - calls the binding's native callbacks (generated x86-64 thunks, or Bun's cc() C) the
 * way Triton's threads do, for tests/thunks.test.ts. Built by build.mjs into
 * .build/thunk_driver/libthunk_driver.so.
 *
 *   driver_start / driver_finished / driver_join: producer threads pushing completions.
 *   driver_check_allocator: the allocator thunks' CPU path and their forwarding of every other
 *     policy, checked from C (sizes, alignment, out-parameters, free, error path).
 *   driver_fake_*: stand-ins for the JS allocator and the Triton functions the thunks call. */
#define _GNU_SOURCE
#include <malloc.h> /* malloc_usable_size */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*complete_fn)(void* object, uint32_t flags, void* userp);

/* ---- producers ---- */

#define MAX_THREADS 16
static pthread_t threads[MAX_THREADS];
static struct producer {
  complete_fn fn;
  int index;
  int count;
} producers[MAX_THREADS];
static int started;
static volatile int finished;

/* Thread t pushes count completions: object = t * count + i + 1, flags = i, userp = t + 1. */
static void* produce(void* arg) {
  struct producer* p = arg;
  for (int i = 0; i < p->count; i++) {
    p->fn((void*)(uintptr_t)((uint64_t)p->index * (uint64_t)p->count + (uint64_t)i + 1),
          (uint32_t)i, (void*)(uintptr_t)(p->index + 1));
  }
  __atomic_add_fetch(&finished, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

/* Starts `n` producer threads, thread t calling fns[t % 2] (so two callbacks can interleave);
 * returns 0, or -1 when a thread cannot be started. */
int driver_start(complete_fn first, complete_fn second, int n, int count) {
  if (n > MAX_THREADS) return -1;
  finished = 0;
  started = 0;
  for (int t = 0; t < n; t++) {
    producers[t] = (struct producer){t % 2 == 0 ? first : second, t, count};
    if (pthread_create(&threads[t], NULL, produce, &producers[t]) != 0) return -1;
    started++;
  }
  return 0;
}

/* Producers that have pushed everything. */
int driver_finished(void) { return __atomic_load_n(&finished, __ATOMIC_SEQ_CST); }

/* Waits for the producers (call once driver_finished() == n). */
void driver_join(void) {
  for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
  started = 0;
}

/* ---- fakes for the allocator's collaborators ---- */

typedef void* (*alloc_fn)(void*, const char*, size_t, int, int64_t, void*, void**, void**, int*,
                          int64_t*);
typedef void* (*release_fn)(void*, void*, void*, size_t, int, int64_t);
typedef void* (*query_fn)(void*, void*, const char*, size_t*, int*, int64_t*);
typedef void* (*attributes_fn)(void*, const char*, void*, void*, void*);

static struct {
  int calls;
  uintptr_t args[10];
} seen;

#define RECORD(...)                                      \
  do {                                                   \
    uintptr_t recorded[] = {__VA_ARGS__};                \
    seen.calls++;                                        \
    memset(seen.args, 0, sizeof(seen.args));             \
    memcpy(seen.args, recorded, sizeof(recorded));       \
  } while (0)

#define FORWARDED ((void*)0x5eed)

void* driver_fake_js_alloc(void* a, const char* name, size_t size, int type, int64_t id,
                           void* userp, void** buffer, void** buffer_userp, int* actual_type,
                           int64_t* actual_id) {
  RECORD((uintptr_t)a, (uintptr_t)name, size, (uintptr_t)type, (uintptr_t)id, (uintptr_t)userp,
         (uintptr_t)buffer, (uintptr_t)buffer_userp, (uintptr_t)actual_type,
         (uintptr_t)actual_id);
  return FORWARDED;
}

void* driver_fake_js_release(void* a, void* buffer, void* buffer_userp, size_t size, int type,
                             int64_t id) {
  RECORD((uintptr_t)a, (uintptr_t)buffer, (uintptr_t)buffer_userp, size, (uintptr_t)type,
         (uintptr_t)id);
  return FORWARDED;
}

void* driver_fake_js_query(void* a, void* userp, const char* name, size_t* size, int* type,
                           int64_t* id) {
  RECORD((uintptr_t)a, (uintptr_t)userp, (uintptr_t)name, (uintptr_t)size, (uintptr_t)type,
         (uintptr_t)id);
  return FORWARDED;
}

void* driver_fake_js_attributes(void* a, const char* name, void* attributes, void* userp,
                                void* buffer_userp) {
  RECORD((uintptr_t)a, (uintptr_t)name, (uintptr_t)attributes, (uintptr_t)userp,
         (uintptr_t)buffer_userp);
  return FORWARDED;
}

static char error_message[128];
static int error_code;

void* driver_fake_error_new(int code, const char* message) {
  error_code = code;
  strncpy(error_message, message, sizeof(error_message) - 1);
  return (void*)0xe770;
}

static int set_type_calls, set_type_value = -1, set_id_calls;
static int64_t set_id_value = -1;
static void* set_attributes;

void* driver_fake_set_memory_type(void* attributes, int type) {
  set_type_calls++;
  set_type_value = type;
  set_attributes = attributes;
  return NULL;
}

void* driver_fake_set_memory_type_id(void* attributes, int64_t id) {
  set_id_calls++;
  set_id_value = id;
  if (attributes != set_attributes) set_attributes = NULL;
  return NULL;
}

/* malloc and free through counters: what the allocator thunks are generated to call here. */
static long live_allocations;
static size_t last_malloc_size;

void* driver_malloc(size_t size) {
  last_malloc_size = size;
  void* p = malloc(size);
  if (p != NULL) __atomic_add_fetch(&live_allocations, 1, __ATOMIC_SEQ_CST);
  return p;
}

void driver_free(void* p) {
  if (p != NULL) __atomic_sub_fetch(&live_allocations, 1, __ATOMIC_SEQ_CST);
  free(p);
}

/* ---- the allocator check ---- */

/* Returns 0 when every check passes, else the number of the first failing check (the thunks
 * must have been generated with driver_malloc and driver_free as malloc and free). */
int driver_check_allocator(alloc_fn alloc, release_fn release, query_fn query,
                           attributes_fn attributes) {
#define CHECK(number, cond)          \
  do {                               \
    if (!(cond)) return number;      \
  } while (0)
  void* const A = (void*)0xa110c;
  long live_before = live_allocations;
  static const size_t sizes[] = {0, 1, 7, 16, 33, 4096, 1 << 20, 64 << 20};
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    void* buffer = (void*)1;
    void* buffer_userp = (void*)99;
    int type = 7;
    int64_t id = 7;
    void* err = alloc(A, "OUT", sizes[k], 2 /* GPU asked: CPU policy ignores it */, 3, NULL,
                      &buffer, &buffer_userp, &type, &id);
    CHECK(1, err == NULL);
    CHECK(2, buffer != NULL && buffer != (void*)1);
    CHECK(3, ((uintptr_t)buffer & 15) == 0); /* 16-byte aligned */
    CHECK(4, last_malloc_size == (sizes[k] ? sizes[k] : 1)); /* malloc(0) asks for 1 byte */
    CHECK(5, malloc_usable_size(buffer) >= last_malloc_size);
    CHECK(6, buffer_userp == (void*)1 && type == 0 && id == 0); /* CPU, id 0 */
    CHECK(7, live_allocations == live_before + 1);
    memset(buffer, 0xab, sizes[k]);
    CHECK(8, release(A, buffer, buffer_userp, sizes[k], 0, 0) == NULL);
    CHECK(9, live_allocations == live_before); /* freed */
  }

  /* Other policies reach the JS allocator with every argument intact. */
  void *buffer, *buffer_userp;
  int type;
  int64_t id;
  seen.calls = 0;
  void* r = alloc(A, "OUT", 123, 1, 4, (void*)0x105, &buffer, &buffer_userp, &type, &id);
  CHECK(10, r == FORWARDED && seen.calls == 1);
  CHECK(11, seen.args[0] == (uintptr_t)A && strcmp((const char*)seen.args[1], "OUT") == 0 &&
        seen.args[2] == 123 && seen.args[3] == 1 && seen.args[4] == 4 &&
        seen.args[5] == 0x105 && seen.args[6] == (uintptr_t)&buffer &&
        seen.args[7] == (uintptr_t)&buffer_userp && seen.args[8] == (uintptr_t)&type &&
        seen.args[9] == (uintptr_t)&id);
  r = release(A, (void*)0xb0f, (void*)0x201, 55, 2, 1);
  CHECK(12, r == FORWARDED && seen.calls == 2 && seen.args[1] == 0xb0f && seen.args[2] == 0x201 &&
        seen.args[3] == 55 && seen.args[4] == 2 && seen.args[5] == 1);
  size_t qsize = 9;
  int qtype = 1;
  int64_t qid = 2;
  r = query(A, (void*)0x102, "OUT", &qsize, &qtype, &qid);
  CHECK(13, r == FORWARDED && seen.calls == 3 && seen.args[1] == 0x102 &&
        seen.args[3] == (uintptr_t)&qsize && seen.args[5] == (uintptr_t)&qid);
  r = attributes(A, "OUT", (void*)0xa77, NULL, (void*)0x301);
  CHECK(14, r == FORWARDED && seen.calls == 4 && seen.args[2] == 0xa77 && seen.args[4] == 0x301);

  /* The CPU policy's query and buffer attributes are answered natively. */
  qtype = 2, qid = 5;
  CHECK(15, query(A, NULL, "OUT", &qsize, &qtype, &qid) == NULL && qtype == 0 && qid == 0);
  set_type_calls = set_id_calls = 0;
  CHECK(16, attributes(A, "OUT", (void*)0xa77, NULL, (void*)1) == NULL && set_type_calls == 1 &&
        set_type_value == 0 && set_id_calls == 1 && set_id_value == 0 &&
        set_attributes == (void*)0xa77);
  CHECK(17, seen.calls == 4); /* nothing forwarded */

  /* malloc failure becomes TRITONSERVER_ErrorNew(INTERNAL, message). */
  error_code = 0;
  r = alloc(A, "OUT", SIZE_MAX / 2, 0, 0, NULL, &buffer, &buffer_userp, &type, &id);
  CHECK(18, r == (void*)0xe770 && error_code == 1 &&
        strcmp(error_message, "malloc of an output buffer failed") == 0);
  return 0;
#undef CHECK
}

/* ---- the placing allocator check ---- */

/* An output placement table as ffi/output_placement.ts writes it. */
struct placement_entry {
  const char* name;
  void* address;
  uint64_t byte_size;
};
struct placement_table {
  uint64_t count;
  uint64_t policy;
  struct placement_entry entries[3];
};

/* Returns 0 when every check passes, else the number of the first failing check (the thunks
 * must have been generated with driver_fake_js_alloc and driver_fake_js_release as the JS alloc
 * and the ordinary release). */
int driver_check_placing(alloc_fn alloc, release_fn release);
int driver_check_placing(alloc_fn alloc, release_fn release) {
#define CHECK(number, cond)          \
  do {                               \
    if (!(cond)) return number;      \
  } while (0)
  void* const A = (void*)0xa110c;
  static char region[256];
  struct placement_table table = {
      3, 0x105, {{"OUT", region + 16, 64}, {"OUTPUT_1", region + 128, 0}, {"", region, 8}}};
  static const char* const placed[] = {"OUT", "OUTPUT_1", ""};
  static const size_t fits[] = {64, 0, 8};
  for (int k = 0; k < 3; k++) {
    for (size_t size = 0; size <= fits[k]; size += fits[k] ? fits[k] / 2 : 1) {
      void* buffer = (void*)1;
      void* buffer_userp = (void*)99;
      int type = 7;
      int64_t id = 7;
      seen.calls = 0;
      void* err = alloc(A, placed[k], size, 2, 3, &table, &buffer, &buffer_userp, &type, &id);
      CHECK(1, err == NULL && seen.calls == 0);
      CHECK(2, buffer == table.entries[k].address);
      CHECK(3, buffer_userp == (void*)0xff && type == 0 && id == 0);
      CHECK(4, release(A, buffer, buffer_userp, size, 0, 0) == NULL && seen.calls == 0);
    }
  }
  /* Larger than its part, a prefix, a longer name, another name, no name: forwarded intact. */
  static const char* const others[] = {"OUT", "OU", "OUTX", "OUTPUT_", "X"};
  static const size_t sizes[] = {65, 4, 4, 4, 4};
  void *buffer, *buffer_userp;
  int type;
  int64_t id;
  for (int k = 0; k < 5; k++) {
    seen.calls = 0;
    void* r = alloc(A, others[k], sizes[k], 1, 4, &table, &buffer, &buffer_userp, &type, &id);
    CHECK(10 + k, r == FORWARDED && seen.calls == 1 && seen.args[0] == (uintptr_t)A &&
                      seen.args[1] == (uintptr_t)others[k] && seen.args[2] == sizes[k] &&
                      seen.args[3] == 1 && seen.args[4] == 4 &&
                      seen.args[5] == (uintptr_t)&table && seen.args[6] == (uintptr_t)&buffer &&
                      seen.args[7] == (uintptr_t)&buffer_userp &&
                      seen.args[8] == (uintptr_t)&type && seen.args[9] == (uintptr_t)&id);
  }
  seen.calls = 0;
  CHECK(20, alloc(A, NULL, 4, 0, 0, &table, &buffer, &buffer_userp, &type, &id) == FORWARDED &&
                seen.calls == 1 && seen.args[1] == 0);
  table.count = 0;
  seen.calls = 0;
  CHECK(21, alloc(A, "OUT", 4, 0, 0, &table, &buffer, &buffer_userp, &type, &id) == FORWARDED &&
                seen.calls == 1);
  /* A buffer the policy allocated goes to the ordinary release, intact. */
  seen.calls = 0;
  void* r = release(A, (void*)0xb0f, (void*)0x1, 55, 0, 0);
  CHECK(22, r == FORWARDED && seen.calls == 1 && seen.args[1] == 0xb0f && seen.args[2] == 1 &&
                seen.args[3] == 55);
  return 0;
#undef CHECK
}
