/* client.c - the C reference client of `npm run bench`: the same work as bench/bench.ts through the
 * same libtritonserver.so, with the binding's own C allocator (ffi/native/c/allocator.c, CPU policy), a
 * completion callback and the same concurrency scheme (N workers, each issuing its next request
 * when its previous one gave its FINAL response), in two modes:
 *
 *   handoff  the callbacks push (kind, object, flags, userp) into a ring (ring.h: the binding's
 *            ring and its C producers, with its poll before sleeping); the main thread drains it,
 *            reads and deletes responses, deletes released requests and issues the next
 *            requests: the fair comparison for an event loop.
 *   direct   the response callback reads the response and issues the next request itself, on
 *            Triton's thread: the ceiling.
 *
 * Each response is read the way the binding reads one (error, model, id, parameters, every output's
 * name, type, shape and data), so both sides do the same work.
 *
 * Usage: native_client LIB MODEL_REPOSITORY BACKEND_DIR DURATION_MS [SECTIONS]
 * SECTIONS: comma-separated from micro,bigOutput,handoff,direct,scaling (default all); scaling
 * (hand-off mode) is identity [1,16] at concurrency 1 to 4096 with every inference's p99 and the
 * RSS when the timed run ends, and 10,000 concurrent streams of 100 responses.
 * Prints one JSON object (see main). Scenario parameters match bench/inference.ts. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "triton.h" /* first: the C sources of ffi/native/c then take Triton's types */
#include "../../ffi/native/c/allocator.h"
#include "ring.h"

enum { HANDOFF, DIRECT };
enum { IDENTITY, REPEAT };
#define MAX_WORKERS 10000
#define BIG_ELEMENTS (16 * 1024 * 1024) /* 64 MiB of FP32 */
#define MAX_LATENCIES (1 << 20)

static TRITONSERVER_Server* server;
static TRITONSERVER_ResponseAllocator* allocator;
static ring_t ring;
static volatile int64_t sink; /* keeps output reads from being optimised away */

/* The process's resident set, MiB (from /proc/self/statm). */
static double rss_mib(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f != NULL) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the allocator: the binding's own C allocator (ffi/native/c/allocator.c, which Bun compiles too),
 * with its CPU policy (userp NULL): malloc/free. ---- */

/* ---- one scenario ---- */

typedef struct {
  const char* model;
  int kind;          /* IDENTITY: INPUT0 INT32 [rows, 16]; REPEAT: IN/DELAY [elements], WAIT [1] */
  int rows;
  int elements;
  int concurrency;
  int mode;
  uint64_t deadline; /* workers re-issue until then; 0: one request per worker */
  _Atomic long inferences;
  _Atomic long responses;
  _Atomic int active;       /* workers still issuing */
  _Atomic long outstanding; /* requests not yet released */
  uint64_t* latencies;      /* RequestNew to the FINAL response read, ns, when set */
  _Atomic long latency_count;
  double rss_mib;           /* the RSS when the first worker saw the deadline pass, MiB */
} scenario;

typedef struct {
  scenario* s;
  uint64_t t0;
} worker;

static worker workers[MAX_WORKERS];
static int32_t identity_input[8 * 16];
static int32_t* repeat_in;
static uint32_t* repeat_delay;
static uint32_t repeat_wait[1];
static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;

static void direct_response(TRITONSERVER_InferenceResponse* r, uint32_t flags, void* userp);
static void direct_release(TRITONSERVER_InferenceRequest* r, uint32_t flags, void* userp);

static void add_input(TRITONSERVER_InferenceRequest* req, const char* name,
                      TRITONSERVER_DataType dtype,
                      const int64_t* shape, int dims, const void* data, size_t bytes) {
  triton_check(TRITONSERVER_InferenceRequestAddInput(req, name, dtype, shape, dims), "AddInput");
  triton_check(TRITONSERVER_InferenceRequestAppendInputData(req, name, data, bytes,
                                                             TRITONSERVER_MEMORY_CPU, 0),
               "AppendInputData");
}

/* Builds a request for the scenario, submits it and returns it. */
static void issue(worker* w) {
  scenario* s = w->s;
  TRITONSERVER_InferenceRequest* req;
  w->t0 = now_ns(); /* latency spans building the request, as the binding's infer() does */
  triton_check(TRITONSERVER_InferenceRequestNew(&req, server, s->model, -1), "RequestNew");
  if (s->kind == IDENTITY) {
    int64_t shape[2] = {s->rows, 16};
    add_input(req, "INPUT0", TRITONSERVER_TYPE_INT32, shape, 2, identity_input, (size_t)s->rows * 16 * 4);
  } else {
    int64_t shape[1] = {s->elements};
    int64_t one[1] = {1};
    add_input(req, "IN", TRITONSERVER_TYPE_INT32, shape, 1, repeat_in, (size_t)s->elements * 4);
    add_input(req, "DELAY", TRITONSERVER_TYPE_UINT32, shape, 1, repeat_delay, (size_t)s->elements * 4);
    add_input(req, "WAIT", TRITONSERVER_TYPE_UINT32, one, 1, repeat_wait, 4);
  }
  int direct = s->mode == DIRECT;
  triton_check(TRITONSERVER_InferenceRequestSetReleaseCallback(
                   req, direct ? direct_release : tritonffi_request_release, w),
               "SetReleaseCallback");
  triton_check(TRITONSERVER_InferenceRequestSetResponseCallback(
                   req, allocator, NULL, direct ? direct_response : tritonffi_response_complete, w),
               "SetResponseCallback");
  atomic_fetch_add(&s->outstanding, 1);
  triton_check(TRITONSERVER_ServerInferAsync(server, req, NULL), "InferAsync");
}

static void maybe_done(scenario* s) {
  if (atomic_load(&s->active) == 0 && atomic_load(&s->outstanding) == 0) {
    pthread_mutex_lock(&done_mu);
    pthread_cond_broadcast(&done_cv);
    pthread_mutex_unlock(&done_mu);
  }
}

/* Reads what the binding reads of a response (its readResponse): error, model, id, parameters,
 * and each output's name, type, shape and first element. */
static void read_response(TRITONSERVER_InferenceResponse* r) {
  triton_check(TRITONSERVER_InferenceResponseError(r), "response");
  const char* text;
  int64_t version;
  triton_check(TRITONSERVER_InferenceResponseModel(r, &text, &version), "Model");
  sink += (int64_t)strlen(text) + version;
  triton_check(TRITONSERVER_InferenceResponseId(r, &text), "Id");
  sink += (int64_t)strlen(text);
  uint32_t count;
  triton_check(TRITONSERVER_InferenceResponseParameterCount(r, &count), "ParameterCount");
  for (uint32_t i = 0; i < count; i++) {
    TRITONSERVER_ParameterType type;
    const void* value;
    triton_check(TRITONSERVER_InferenceResponseParameter(r, i, &text, &type, &value), "Param");
    sink += (int64_t)strlen(text);
    if (type == TRITONSERVER_PARAMETER_STRING) sink += (int64_t)strlen(value);
    else if (type == TRITONSERVER_PARAMETER_INT) sink += *(const int64_t*)value;
    else if (type == TRITONSERVER_PARAMETER_BOOL) sink += *(const char*)value;
    else sink += (int64_t)*(const double*)value;
  }
  triton_check(TRITONSERVER_InferenceResponseOutputCount(r, &count), "OutputCount");
  for (uint32_t i = 0; i < count; i++) {
    TRITONSERVER_DataType dtype;
    TRITONSERVER_MemoryType memory_type;
    const int64_t* shape;
    uint64_t dims;
    const void* base;
    size_t size;
    int64_t memory_id;
    void* userp;
    triton_check(TRITONSERVER_InferenceResponseOutput(r, i, &text, &dtype, &shape, &dims, &base,
                                                      &size, &memory_type, &memory_id, &userp),
                 "Output");
    sink += (int64_t)strlen(text) + dtype + shape[dims - 1] + *(const int32_t*)base;
  }
}

/* Reads and deletes a response; on FINAL issues the next request. */
static void on_response(TRITONSERVER_InferenceResponse* r, uint32_t flags, worker* w) {
  scenario* s = w->s;
  if (r != NULL) {
    read_response(r);
    triton_check(TRITONSERVER_InferenceResponseDelete(r), "ResponseDelete");
    atomic_fetch_add(&s->responses, 1);
  }
  if (flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL) {
    uint64_t t = now_ns();
    if (s->latencies != NULL) {
      long i = atomic_fetch_add(&s->latency_count, 1);
      if (i < MAX_LATENCIES) s->latencies[i] = t - w->t0;
    }
    atomic_fetch_add(&s->inferences, 1);
    if (s->deadline != 0 && t < s->deadline) {
      issue(w);
    } else {
      if (s->deadline != 0 && s->mode == HANDOFF && s->rss_mib == 0) s->rss_mib = rss_mib();
      atomic_fetch_sub(&s->active, 1);
      maybe_done(s);
    }
  }
}

static void on_release(TRITONSERVER_InferenceRequest* r, worker* w) {
  triton_check(TRITONSERVER_InferenceRequestDelete(r), "RequestDelete");
  atomic_fetch_sub(&w->s->outstanding, 1);
  maybe_done(w->s);
}

static void direct_response(TRITONSERVER_InferenceResponse* r, uint32_t flags, void* userp) {
  on_response(r, flags, userp);
}

static void direct_release(TRITONSERVER_InferenceRequest* r, uint32_t flags, void* userp) {
  (void)flags;
  on_release(r, userp);
}

/* The main thread's hand-off loop: drain the ring until the scenario is over. */
static void handoff_loop(scenario* s) {
  while (atomic_load(&s->active) > 0 || atomic_load(&s->outstanding) > 0) {
    tritonffi_slot* slot = ring_peek(&ring);
    if (slot == NULL) {
      ring_wait(&ring);
      continue;
    }
    uint32_t kind = slot->kind, flags = slot->flags;
    void *object = slot->object, *userp = slot->userp;
    ring_pop(&ring, slot);
    if (kind == TRITONFFI_KIND_RESPONSE) on_response(object, flags, userp);
    else on_release(object, userp);
  }
}

/* Runs the scenario for duration_ms (0: one request per worker); returns the wall time in ns. */
static uint64_t run(scenario* s, uint64_t duration_ms) {
  atomic_store(&s->active, s->concurrency);
  uint64_t start = now_ns();
  s->deadline = duration_ms ? start + duration_ms * 1000000ull : 0;
  for (int i = 0; i < s->concurrency; i++) {
    workers[i].s = s;
    issue(&workers[i]);
  }
  if (duration_ms == 0) s->rss_mib = rss_mib(); /* every stream issued */
  if (s->mode == HANDOFF) {
    handoff_loop(s);
  } else {
    pthread_mutex_lock(&done_mu);
    while (atomic_load(&s->active) > 0 || atomic_load(&s->outstanding) > 0) {
      pthread_cond_wait(&done_cv, &done_mu);
    }
    pthread_mutex_unlock(&done_mu);
  }
  return now_ns() - start;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static uint64_t* latency_buffer;

/* Latency at concurrency 1: "p50" and "p99" in µs. */
static void latency(int mode, int rows, uint64_t ms, const char* key, int comma) {
  scenario warm = {.model = "identity_int32", .kind = IDENTITY, .rows = rows, .concurrency = 1,
                   .mode = mode};
  run(&warm, ms / 4);
  scenario s = {.model = "identity_int32", .kind = IDENTITY, .rows = rows, .concurrency = 1,
                .mode = mode, .latencies = latency_buffer};
  run(&s, ms);
  long n = s.latency_count < MAX_LATENCIES ? s.latency_count : MAX_LATENCIES;
  qsort(s.latencies, n, sizeof(uint64_t), cmp_u64);
  printf("    \"%s\": {\"p50\": %.2f, \"p99\": %.2f, \"count\": %ld}%s\n", key,
         s.latencies[n / 2] / 1e3, s.latencies[(n * 99) / 100] / 1e3, n, comma ? "," : "");
}

/* Throughput at a concurrency: inferences per second. */
static void throughput(int mode, int rows, int concurrency, uint64_t ms, const char* key) {
  scenario warm = {.model = "identity_int32", .kind = IDENTITY, .rows = rows,
                   .concurrency = concurrency, .mode = mode};
  run(&warm, ms / 4);
  scenario s = {.model = "identity_int32", .kind = IDENTITY, .rows = rows,
                .concurrency = concurrency, .mode = mode};
  uint64_t ns = run(&s, ms);
  printf("    \"%s\": %.1f,\n", key, s.inferences * 1e9 / ns);
}

/* Decoupled streams: requests × elements responses; responses per second. */
static void stream(int mode, int requests, int elements, const char* key, int comma) {
  scenario s = {.model = "repeat_int32", .kind = REPEAT, .elements = elements,
                .concurrency = requests, .mode = mode};
  uint64_t ns = run(&s, 0);
  if (s.responses != (long)requests * elements) {
    fprintf(stderr, "native client: %ld responses, expected %ld\n", (long)s.responses,
            (long)requests * elements);
    exit(4);
  }
  printf("    \"%s\": %.1f%s\n", key, s.responses * 1e9 / ns, comma ? "," : "");
}

/* How cost grows with work, hand-off mode: "scale_cN" {rate, p99 µs, rssMiB} and
 * "streams_10000x100" {rate, rssMiB}, as bench/inference.ts's scaling(). */
static void scaling(uint64_t ms) {
  static const int concurrency[] = {1, 8, 64, 512, 4096};
  printf("  \"scaling\": {\n");
  for (size_t i = 0; i < sizeof concurrency / sizeof concurrency[0]; i++) {
    int n = concurrency[i];
    scenario warm = {.model = "identity_int32", .kind = IDENTITY, .rows = 1, .concurrency = n,
                     .mode = HANDOFF};
    run(&warm, ms / 4);
    scenario s = {.model = "identity_int32", .kind = IDENTITY, .rows = 1, .concurrency = n,
                  .mode = HANDOFF, .latencies = latency_buffer};
    uint64_t ns = run(&s, ms);
    long count = s.latency_count < MAX_LATENCIES ? s.latency_count : MAX_LATENCIES;
    qsort(s.latencies, count, sizeof(uint64_t), cmp_u64);
    printf("    \"scale_c%d\": {\"rate\": %.1f, \"p99\": %.2f, \"rssMiB\": %.1f},\n", n,
           s.inferences * 1e9 / ns, s.latencies[(count * 99) / 100] / 1e3, s.rss_mib);
  }
  scenario s = {.model = "repeat_int32", .kind = REPEAT, .elements = 100,
                .concurrency = MAX_WORKERS, .mode = HANDOFF};
  uint64_t ns = run(&s, 0);
  if (s.responses != (long)MAX_WORKERS * 100) {
    fprintf(stderr, "native client: %ld responses, expected %ld\n", (long)s.responses,
            (long)MAX_WORKERS * 100);
    exit(4);
  }
  printf("    \"streams_%dx100\": {\"rate\": %.1f, \"rssMiB\": %.1f}\n  },\n", MAX_WORKERS,
         s.responses * 1e9 / ns, s.rss_mib);
}

static void scenarios(int mode, uint64_t ms) {
  printf("  \"%s\": {\n", mode == HANDOFF ? "handoff" : "direct");
  latency(mode, 1, ms, "latency_1x16", 1);
  latency(mode, 8, ms, "latency_8x16", 1);
  throughput(mode, 1, 16, ms, "throughput_c16_1x16");
  throughput(mode, 1, 128, ms, "throughput_c128_1x16");
  throughput(mode, 8, 16, ms, "throughput_c16_8x16");
  throughput(mode, 8, 128, ms, "throughput_c128_8x16");
  stream(mode, 1, 100000, "stream_1x100000", 1);
  stream(mode, 128, 1000, "stream_128x1000", 0);
  printf("  },\n");
}

/* ---- raw call costs (ns per call), the median of 15 batches ---- */

static double median_batch(double* v, int n) {
  for (int i = 1; i < n; i++) {
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
  }
  return v[n / 2];
}

/* Median ns per call of body(arg) over 15 batches of 2000 calls. */
static double per_call(void (*body)(void*), void* arg) {
  double t[15];
  for (int b = 0; b < 15; b++) {
    uint64_t t0 = now_ns();
    for (int i = 0; i < 2000; i++) body(arg);
    t[b] = (now_ns() - t0) / 2000.0;
  }
  return median_batch(t, 15);
}

static const int64_t shape_1x16[2] = {1, 16};

static void new_delete(void* arg) {
  (void)arg;
  TRITONSERVER_InferenceRequest* req;
  triton_check(TRITONSERVER_InferenceRequestNew(&req, server, "identity_int32", -1), "New");
  triton_check(TRITONSERVER_InferenceRequestDelete(req), "Delete");
}

static void add_remove_input(void* req) {
  triton_check(TRITONSERVER_InferenceRequestAddInput(req, "INPUT0", TRITONSERVER_TYPE_INT32, shape_1x16, 2),
               "AddInput");
  triton_check(TRITONSERVER_InferenceRequestRemoveInput(req, "INPUT0"), "RemoveInput");
}

static void append_remove_data(void* req) {
  triton_check(TRITONSERVER_InferenceRequestAppendInputData(req, "INPUT0", identity_input, 64,
                                                            TRITONSERVER_MEMORY_CPU, 0),
               "AppendInputData");
  triton_check(TRITONSERVER_InferenceRequestRemoveAllInputData(req, "INPUT0"), "RemoveAll");
}

/* Output 0 of a response: its buffer and byte size (TRITONSERVER_InferenceResponseOutput). */
static void output0(void* response, const void** base, size_t* size) {
  const char* name;
  TRITONSERVER_DataType dtype;
  TRITONSERVER_MemoryType memory_type;
  const int64_t* shape;
  uint64_t dims;
  int64_t memory_id;
  void* userp;
  triton_check(TRITONSERVER_InferenceResponseOutput(response, 0, &name, &dtype, &shape, &dims,
                                                    base, size, &memory_type, &memory_id, &userp),
               "Output");
}

static void read_output(void* response) {
  const void* base;
  size_t size;
  output0(response, &base, &size);
  sink += (int64_t)size;
}

/* One identity_int32 [1,16] response held by the main thread (for the output read bench). */
static TRITONSERVER_InferenceResponse* one_response(const char* model, int kind_fp32) {
  static int64_t big_shape[2] = {1, BIG_ELEMENTS};
  static float* big_input;
  TRITONSERVER_InferenceRequest* req;
  triton_check(TRITONSERVER_InferenceRequestNew(&req, server, model, -1), "RequestNew");
  if (kind_fp32) {
    if (big_input == NULL) big_input = calloc(BIG_ELEMENTS, sizeof(float));
    add_input(req, "INPUT0", TRITONSERVER_TYPE_FP32, big_shape, 2, big_input, (size_t)BIG_ELEMENTS * 4);
  } else {
    int64_t shape[2] = {1, 16};
    add_input(req, "INPUT0", TRITONSERVER_TYPE_INT32, shape, 2, identity_input, 64);
  }
  triton_check(TRITONSERVER_InferenceRequestSetReleaseCallback(req, tritonffi_request_release, NULL), "rel");
  triton_check(TRITONSERVER_InferenceRequestSetResponseCallback(req, allocator, NULL,
                                                                tritonffi_response_complete, NULL),
               "resp");
  triton_check(TRITONSERVER_ServerInferAsync(server, req, NULL), "InferAsync");
  TRITONSERVER_InferenceResponse* response = NULL;
  int released = 0, final = 0;
  while (!released || !final) {
    tritonffi_slot* slot = ring_peek(&ring);
    if (slot == NULL) {
      ring_wait(&ring);
      continue;
    }
    if (slot->kind == TRITONFFI_KIND_RELEASE) {
      triton_check(TRITONSERVER_InferenceRequestDelete(slot->object), "RequestDelete");
      released = 1;
    } else {
      if (slot->object != NULL) response = slot->object;
      final = (slot->flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL) != 0;
    }
    ring_pop(&ring, slot);
  }
  return response;
}

static void micro(void) {
  TRITONSERVER_InferenceRequest* req;
  const int64_t* shape = shape_1x16;
  printf("  \"micro\": {\n");
  printf("    \"requestNewDelete\": %.1f,\n", per_call(new_delete, NULL));
  triton_check(TRITONSERVER_InferenceRequestNew(&req, server, "identity_int32", -1), "New");
  printf("    \"addInput\": %.1f,\n", per_call(add_remove_input, req));
  triton_check(TRITONSERVER_InferenceRequestAddInput(req, "INPUT0", TRITONSERVER_TYPE_INT32, shape, 2), "Add");
  printf("    \"appendInputData\": %.1f,\n", per_call(append_remove_data, req));
  triton_check(TRITONSERVER_InferenceRequestDelete(req), "Delete");
  TRITONSERVER_InferenceResponse* r = one_response("identity_int32", 0);
  printf("    \"responseOutput\": %.1f,\n", per_call(read_output, r));
  triton_check(TRITONSERVER_InferenceResponseDelete(r), "ResponseDelete");

  /* InferAsync: batches of 64 prepared requests, the call alone timed; the median per call. */
  double t[15];
  scenario s = {.model = "identity_int32", .kind = IDENTITY, .rows = 1, .mode = HANDOFF};
  for (int b = 0; b < 15; b++) {
    TRITONSERVER_InferenceRequest* batch[64];
    for (int i = 0; i < 64; i++) {
      triton_check(TRITONSERVER_InferenceRequestNew(&batch[i], server, "identity_int32", -1), "N");
      add_input(batch[i], "INPUT0", TRITONSERVER_TYPE_INT32, shape, 2, identity_input, 64);
      workers[i].s = &s;
      triton_check(TRITONSERVER_InferenceRequestSetReleaseCallback(batch[i], tritonffi_request_release,
                                                                   &workers[i]),
                   "rel");
      triton_check(TRITONSERVER_InferenceRequestSetResponseCallback(
                       batch[i], allocator, NULL, tritonffi_response_complete, &workers[i]),
                   "resp");
    }
    atomic_store(&s.active, 64);
    atomic_store(&s.outstanding, 64);
    s.deadline = 0;
    uint64_t t0 = now_ns();
    for (int i = 0; i < 64; i++) {
      triton_check(TRITONSERVER_ServerInferAsync(server, batch[i], NULL), "InferAsync");
    }
    t[b] = (now_ns() - t0) / 64.0;
    handoff_loop(&s);
  }
  printf("    \"inferAsync\": %.1f\n  },\n", median_batch(t, 15));
}

/* 64 MiB FP32 output: memcpy of the output buffer into a buffer already touched (copy bandwidth),
 * and into a fresh malloc'd one (what a copy into new memory costs: the page faults too), µs
 * (median of 9). */
static void big_output(void) {
  TRITONSERVER_InferenceResponse* r = one_response("identity_fp32", 1);
  const void* base;
  size_t size;
  output0(r, &base, &size);
  char* dst = malloc(size);
  memset(dst, 1, size);
  double touched[9], fresh[9];
  for (int i = 0; i < 9; i++) {
    uint64_t t0 = now_ns();
    memcpy(dst, base, size);
    touched[i] = (now_ns() - t0) / 1e3;
    sink += dst[i];
  }
  free(dst);
  for (int i = 0; i < 9; i++) {
    uint64_t t0 = now_ns();
    char* copy = malloc(size);
    memcpy(copy, base, size);
    fresh[i] = (now_ns() - t0) / 1e3;
    sink += copy[i];
    free(copy);
  }
  printf("  \"bigOutput\": {\"bytes\": %zu, \"memcpy_us\": %.1f, \"fresh_memcpy_us\": %.1f},\n",
         size, median_batch(touched, 9), median_batch(fresh, 9));
  triton_check(TRITONSERVER_InferenceResponseDelete(r), "ResponseDelete");
}

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: %s LIB MODEL_REPOSITORY BACKEND_DIR DURATION_MS [SECTIONS]\n",
            argv[0]);
    return 1;
  }
  const char* sections = argc == 6 ? argv[5] : "micro,bigOutput,handoff,direct,scaling";
  uint64_t ms = strtoull(argv[4], NULL, 10);
  const char* poll = getenv("TRITONFFI_POLL_US");
  if (poll != NULL && *poll != 0) poll_ns = (uint64_t)(strtod(poll, NULL) * 1000);
  triton_load(argv[1]);
  ring_init(&ring, 16384);
  for (int i = 0; i < 8 * 16; i++) identity_input[i] = i;
  repeat_in = calloc(100000, sizeof(int32_t));
  repeat_delay = calloc(100000, sizeof(uint32_t));
  latency_buffer = malloc(sizeof(uint64_t) * MAX_LATENCIES);

  TRITONSERVER_ServerOptions* opts;
  triton_check(TRITONSERVER_ServerOptionsNew(&opts), "ServerOptionsNew");
  triton_check(TRITONSERVER_ServerOptionsSetModelRepositoryPath(opts, argv[2]), "repository");
  triton_check(TRITONSERVER_ServerOptionsSetBackendDirectory(opts, argv[3]), "backends");
  triton_check(TRITONSERVER_ServerOptionsSetModelControlMode(opts, TRITONSERVER_MODEL_CONTROL_EXPLICIT), "m");
  const char* models[] = {"identity_int32", "identity_fp32", "repeat_int32"};
  for (int i = 0; i < 3; i++) {
    triton_check(TRITONSERVER_ServerOptionsSetStartupModel(opts, models[i]), "startup model");
  }
  triton_check(TRITONSERVER_ServerOptionsSetLogInfo(opts, 0), "log");
  triton_check(TRITONSERVER_ServerOptionsSetLogWarn(opts, 0), "log");
  /* The core leaves these two uninitialised; tritonserver's defaults. */
  triton_check(TRITONSERVER_ServerOptionsSetModelLoadRetryCount(opts, 0), "retry count");
  triton_check(TRITONSERVER_ServerOptionsSetEnablePeerAccess(opts, 1), "peer access");
  triton_check(TRITONSERVER_ServerNew(&server, opts), "ServerNew");
  triton_check(TRITONSERVER_ServerOptionsDelete(opts), "ServerOptionsDelete");
  for (int i = 0; i < 3; i++) {
    bool ready = false;
    triton_check(TRITONSERVER_ServerModelIsReady(server, models[i], -1, &ready), "IsReady");
    if (!ready) {
      fprintf(stderr, "native client: model %s is not ready\n", models[i]);
      return 3;
    }
  }
  tritonffi_configure((void*)TRITONSERVER_ErrorNew, (void*)TRITONSERVER_BufferAttributesSetMemoryType,
                      (void*)TRITONSERVER_BufferAttributesSetMemoryTypeId);
  triton_check(TRITONSERVER_ResponseAllocatorNew(&allocator, tritonffi_alloc, tritonffi_release,
                                                 NULL),
               "alloc");

  printf("{\n");
  if (strstr(sections, "micro")) micro();
  if (strstr(sections, "bigOutput")) big_output();
  if (strstr(sections, "handoff")) scenarios(HANDOFF, ms);
  if (strstr(sections, "direct")) scenarios(DIRECT, ms);
  if (strstr(sections, "scaling")) scaling(ms);
  printf("  \"sink\": %lld\n}\n", (long long)(sink & 1));

  triton_check(TRITONSERVER_ResponseAllocatorDelete(allocator), "AllocatorDelete");
  triton_check(TRITONSERVER_ServerStop(server), "ServerStop");
  triton_check(TRITONSERVER_ServerDelete(server), "ServerDelete");
  return 0;
}
