/* aarch64_routines_driver.c - runs the A64 placing allocator, batch deleter's comparator, request
 * submitter and response reader (ffi/native/a64/) for tests/a64_routines.test.ts, with C stand-ins for what
 * they call: built with aarch64-linux-gnu-gcc as a static, non-PIE executable (every address below
 * is fixed at link time) and run under qemu-aarch64.
 *
 *   aarch64_routines_driver addresses
 *     prints the targets the placing allocator's and the reader's code must be generated for:
 *     "name 0xaddress" per line.
 *   aarch64_routines_driver run DIR PLACING_RELEASE
 *     prints the same addresses, places DIR/placing.bin, DIR/delete_each.bin, DIR/submit.bin and
 *     DIR/reader.bin (each on a fresh anonymous mapping written read+write, then made
 *     read+execute), calls each on every path, prints "ok NAME" per routine and exits 0, or
 *     prints "FAIL ..." and exits 1.
 *
 * The placement table's, the request record's and the response record's layouts are
 * ffi/output_placement.ts's, ffi/native/request_record.ts's and ffi/native/response_record.ts's
 * (the test checks the constants below against them). */
#define _GNU_SOURCE
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aarch64_driver_support.h"

#define REGION 0xff
/* request_record.ts */
#define R_SERVER 64
#define R_MODEL 72
#define R_VERSION 80
#define R_ALLOCATOR 88
#define R_ALLOCATOR_USERP 96
#define R_RESPONSE_FN 104
#define R_RELEASE_FN 112
#define R_USERP 120
#define R_INPUT_COUNT 128
#define R_REQUEST 136
#define R_ERROR 144
#define R_INPUTS 192
#define R_INPUT_SIZE 64
/* response_record.ts */
#define RR_CALL_ERROR 0
#define RR_RESPONSE_ERROR 8
#define RR_OUTPUT_COUNT 16
#define RR_PARAM_COUNT 24
#define RR_MODEL_NAME 32
#define RR_MODEL_VERSION 40
#define RR_ID 48
#define RR_MODEL_COPY 64
#define RR_ID_COPY 192
#define RR_OUTPUTS 320
#define RR_OUTPUT_SIZE 208
#define RR_PARAMS 3648
#define RR_PARAM_SIZE 208
#define RR_DATA 8192
#define O_NAME 0
#define O_DATATYPE 8
#define O_SHAPE 16
#define O_DIM_COUNT 24
#define O_BASE 32
#define O_BYTE_SIZE 40
#define O_MEMORY_TYPE 48
#define O_MEMORY_TYPE_ID 56
#define O_USERP 64
#define O_DATA 72
#define O_NAME_COPY 80
#define O_SHAPE_COPY 144
#define P_NAME 0
#define P_TYPE 8
#define P_VALUE 16
#define P_SCALAR 24
#define P_NAME_COPY 32
#define P_STRING_COPY 96
#define RECORD_BYTES 65536


/* ---- stand-ins: each records its arguments ---- */
static uintptr_t args[10];
static int calls;

static void* js_placing_alloc(void* a0, const char* a1, size_t a2, int a3, int64_t a4, void* a5,
                              void** a6, void** a7, int* a8, int64_t* a9) {
  uintptr_t v[10] = {(uintptr_t)a0, (uintptr_t)a1, a2, (uintptr_t)(unsigned)a3, (uintptr_t)a4,
                     (uintptr_t)a5, (uintptr_t)a6, (uintptr_t)a7, (uintptr_t)a8, (uintptr_t)a9};
  memcpy(args, v, sizeof v);
  calls++;
  return (void*)0xa110c;
}
static void* cpu_release(void* a0, void* a1, void* a2, size_t a3, int a4, int64_t a5) {
  uintptr_t v[6] = {(uintptr_t)a0, (uintptr_t)a1, (uintptr_t)a2, a3, (uintptr_t)(unsigned)a4,
                    (uintptr_t)a5};
  memcpy(args, v, sizeof v);
  calls++;
  return (void*)0x7e1;
}


/* ---- the response reader's stand-ins: a response is a struct fake_response ---- */
struct fake_output {
  const char* name;
  int datatype;
  const int64_t* shape;
  uint64_t dims;
  const void* base;
  size_t size;
  int memory_type;
  int64_t memory_type_id;
  void* userp;
};
struct fake_param {
  const char* name;
  int type;
  const void* value;
};
struct fake_response {
  void* error;
  uint32_t output_count;
  struct fake_output* outputs;
  const char* model;
  int64_t version;
  const char* id;
  uint32_t param_count;
  struct fake_param* params;
  int fail_at; /* the call (in order, ResponseError not counted) that returns an error */
  int calls;
  int output_calls;
};
#define READ_ERROR ((void*)0xe88)
static void* maybe_fail(struct fake_response* r) { return r->calls++ == r->fail_at ? READ_ERROR : NULL; }
static void* response_error(struct fake_response* r) { return r->error; }
static void* output_count(struct fake_response* r, uint32_t* count) {
  *count = r->output_count;
  return maybe_fail(r);
}
static void* response_output(struct fake_response* r, uint32_t i, const char** name, int* datatype,
                             const int64_t** shape, uint64_t* dims, const void** base,
                             size_t* size, int* memory_type, int64_t* memory_type_id,
                             void** userp) {
  struct fake_output* o = &r->outputs[i];
  r->output_calls++;
  *name = o->name;
  *datatype = o->datatype;
  *shape = o->shape;
  *dims = o->dims;
  *base = o->base;
  *size = o->size;
  *memory_type = o->memory_type;
  *memory_type_id = o->memory_type_id;
  *userp = o->userp;
  return maybe_fail(r);
}
static void* response_model(struct fake_response* r, const char** name, int64_t* version) {
  *name = r->model;
  *version = r->version;
  return maybe_fail(r);
}
static void* response_id(struct fake_response* r, const char** id) {
  *id = r->id;
  return maybe_fail(r);
}
static void* parameter_count(struct fake_response* r, uint32_t* count) {
  *count = r->param_count;
  return maybe_fail(r);
}
static void* response_parameter(struct fake_response* r, uint32_t i, const char** name, int* type,
                                const void** value) {
  *name = r->params[i].name;
  *type = r->params[i].type;
  *value = r->params[i].value;
  return maybe_fail(r);
}

static void print_addresses(void) {
  printf("jsAlloc %p\n", (void*)js_placing_alloc);
  printf("release %p\n", (void*)cpu_release);
  printf("responseError %p\n", (void*)response_error);
  printf("outputCount %p\n", (void*)output_count);
  printf("output %p\n", (void*)response_output);
  printf("model %p\n", (void*)response_model);
  printf("id %p\n", (void*)response_id);
  printf("parameterCount %p\n", (void*)parameter_count);
  printf("parameter %p\n", (void*)response_parameter);
  printf("memcpy %p\n", (void*)memcpy);
  printf("memccpy %p\n", (void*)memccpy);
  fflush(stdout);
}

static unsigned char* place(const char* dir, const char* name, size_t* size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return place_file(path, size);
}

typedef void* (*alloc_fn)(void*, const char*, size_t, int, int64_t, void*, void**, void**, int*,
                          int64_t*);
typedef void* (*release_fn)(void*, void*, void*, size_t, int, int64_t);

/* ---- the placing allocator ---- */
static void check_placing(unsigned char* code, long release_at) {
  alloc_fn alloc = (alloc_fn)code;
  release_fn release = (release_fn)(code + release_at);
  static char part0[64], part1[256];
  /* output_placement.ts: count, policy, then { name, address, byteSize } per entry */
  uint64_t table[2 + 3 * 3] = {3, 9,
                               (uintptr_t) "OUT", (uintptr_t)part0, 64,
                               (uintptr_t) "OUTPUT1", (uintptr_t)part1, 256,
                               (uintptr_t) "", (uintptr_t)part0, 8};
  void* allocator = (void*)0xa1;
  void* buffer = NULL;
  void* buffer_userp = NULL;
  int type = 7;
  int64_t id = 7;
  const char* name = "OUTPUT1";
  void* e = alloc(allocator, name, 256, 2, 1, table, &buffer, &buffer_userp, &type, &id);
  CHECK(e == NULL && buffer == part1 && buffer_userp == (void*)REGION && type == 0 && id == 0,
        "placed: %p %p %p %d %lld", e, buffer, buffer_userp, type, (long long)id);
  type = 7;
  e = alloc(allocator, "OUT", 0, 0, 0, table, &buffer, &buffer_userp, &type, &id);
  CHECK(e == NULL && buffer == part0 && type == 0, "placed first: %p %p", e, buffer);
  e = alloc(allocator, "", 8, 0, 0, table, &buffer, &buffer_userp, &type, &id);
  CHECK(e == NULL && buffer == part0, "empty name: %p %p", e, buffer);
  /* to JS, every argument untouched: larger than its part, a prefix, a longer name, no name */
  const char* names[] = {"OUTPUT1", "OUTPUT", "OUTPUT12", "OU", "x", NULL};
  size_t sizes[] = {257, 1, 1, 1, 1, 1};
  for (int k = 0; k < 6; k++) {
    calls = 0;
    buffer = (void*)3;
    e = alloc(allocator, names[k], sizes[k], 2, -9, table, &buffer, &buffer_userp, &type, &id);
    uintptr_t want[10] = {(uintptr_t)allocator, (uintptr_t)names[k], sizes[k], 2,
                          (uintptr_t)(int64_t)-9, (uintptr_t)table, (uintptr_t)&buffer,
                          (uintptr_t)&buffer_userp, (uintptr_t)&type, (uintptr_t)&id};
    CHECK(e == (void*)0xa110c && calls == 1 && buffer == (void*)3, "%s to JS: %p %d",
          names[k] ? names[k] : "NULL", e, calls);
    for (int i = 0; i < 10; i++) CHECK(args[i] == want[i], "%s: argument %d", names[k], i);
  }
  uint64_t empty[2] = {0, 0};
  calls = 0;
  e = alloc(allocator, "OUT", 1, 0, 0, empty, &buffer, &buffer_userp, &type, &id);
  CHECK(e == (void*)0xa110c && calls == 1, "empty table: %p", e);
  /* release: REGION frees nothing; anything else goes to the CPU release, untouched */
  calls = 0;
  e = release(allocator, part1, (void*)REGION, 256, 0, 0);
  CHECK(e == NULL && calls == 0, "release REGION: %p %d", e, calls);
  e = release(allocator, (void*)0xb0, (void*)1, 64, 3, -1);
  uintptr_t want[6] = {(uintptr_t)allocator, 0xb0, 1, 64, 3, (uintptr_t)(int64_t)-1};
  CHECK(e == (void*)0x7e1 && calls == 1, "release other: %p", e);
  for (int i = 0; i < 6; i++) CHECK(args[i] == want[i], "release argument %d", i);
  printf("ok placing\n");
}

/* ---- the batch deleter's comparator, through lfind as ffi/native/deletes.ts calls it ---- */
static uintptr_t deleted[16];
static char deleted_kind[16];
static int deletions;
static void* response_delete(void* p) {
  deleted[deletions] = (uintptr_t)p;
  deleted_kind[deletions++] = 'r';
  return NULL;
}
static void* request_delete(void* p) {
  deleted[deletions] = (uintptr_t)p;
  deleted_kind[deletions++] = 'q';
  return (void*)0xe;
}

static void check_delete_each(unsigned char* code) {
  void* table[2] = {(void*)response_delete, (void*)request_delete};
  uint64_t items[5] = {0x1000, 0x2001, 0x7fff00003008ull, 0x7fff00004009ull, 0x10};
  size_t n = 5;
  void* found = lfind(table, items, &n, 8, (int (*)(const void*, const void*))code);
  CHECK(found == NULL && n == 5, "lfind: %p", found);
  uintptr_t want[5] = {0x1000, 0x2000, 0x7fff00003008ull, 0x7fff00004008ull, 0x10};
  const char* kinds = "rqrqr";
  CHECK(deletions == 5, "deletions %d", deletions);
  for (int i = 0; i < 5; i++) {
    CHECK(deleted[i] == want[i] && deleted_kind[i] == kinds[i], "item %d: %#lx %c", i,
          (unsigned long)deleted[i], deleted_kind[i]);
  }
  printf("ok delete_each\n");
}

/* ---- the request submitter, through bsearch as request_submitter.ts calls it ---- */
static char log_text[4096];
static int fail_at = -1; /* the call (in order) that returns an error */
static int call_number;
#define LOG(...) snprintf(log_text + strlen(log_text), sizeof log_text - strlen(log_text), __VA_ARGS__)
static void* result(void) { return call_number++ == fail_at ? (void*)0xe77 : NULL; }
static void* request_new(void** request, void* server, const char* model, int64_t version) {
  *request = (void*)0x5e0;
  LOG("new(%p,%s,%lld);", server, model, (long long)version);
  return result();
}
static void* add_input(void* request, const char* name, int datatype, const int64_t* shape,
                       uint64_t dims) {
  LOG("add(%p,%s,%d,", request, name, datatype);
  for (uint64_t i = 0; i < dims; i++) LOG("%lld%s", (long long)shape[i], i + 1 < dims ? "x" : "");
  LOG(");");
  return result();
}
static void* append_input_data(void* request, const char* name, const void* base, size_t size,
                               int memory_type, int64_t id) {
  LOG("append(%p,%s,%s,%zu,%d,%lld);", request, name, (const char*)base, size, memory_type,
      (long long)id);
  return result();
}
static void* set_release(void* request, void* fn, void* userp) {
  LOG("release(%p,%p,%p);", request, fn, userp);
  return result();
}
static void* set_response(void* request, void* allocator, void* allocator_userp, void* fn,
                          void* userp) {
  LOG("response(%p,%p,%p,%p,%p);", request, allocator, allocator_userp, fn, userp);
  return result();
}
static void* infer_async(void* server, void* request, void* trace) {
  LOG("infer(%p,%p,%p);", server, request, trace);
  return result();
}

static void fill_record(uint8_t* record) {
  memset(record, 0x55, 4096);
  void* fns[6] = {(void*)request_new, (void*)add_input, (void*)append_input_data,
                  (void*)set_release, (void*)set_response, (void*)infer_async};
  memcpy(record, fns, sizeof fns);
  static int64_t shape0[2] = {2, 3};
  static int64_t shape1[1] = {4};
  uint64_t fields[][2] = {{R_SERVER, 0x5e7}, {R_MODEL, (uintptr_t) "simple"},
                          {R_VERSION, (uint64_t)-1}, {R_ALLOCATOR, 0xa1},
                          {R_ALLOCATOR_USERP, 0xa2}, {R_RESPONSE_FN, 0xf1},
                          {R_RELEASE_FN, 0xf2}, {R_USERP, 0x05e},
                          {R_INPUT_COUNT, 2}};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    memcpy(record + fields[i][0], &fields[i][1], 8);
  }
  uint64_t inputs[2][8] = {
      {(uintptr_t) "INPUT0", 8, (uintptr_t)shape0, 2, (uintptr_t) "bytes0", 6, 0, 0},
      {(uintptr_t) "INPUT1", 13, (uintptr_t)shape1, 1, 0, 0, 1, 3}, /* no bytes: no append */
  };
  memcpy(record + R_INPUTS, inputs, sizeof inputs);
}

static void check_submit(unsigned char* code) {
  int (*submit)(const void*, const void*) = (int (*)(const void*, const void*))code;
  static _Alignas(8) uint8_t record[4096];
  fill_record(record);
  uint64_t element = 0;
  /* bsearch with one element: found (NULL when submit returned nonzero) */
  void* found = bsearch(record, &element, 1, 8, submit);
  CHECK(found == &element, "bsearch: %p", found);
  uint64_t request, error;
  memcpy(&request, record + R_REQUEST, 8);
  memcpy(&error, record + R_ERROR, 8);
  CHECK(request == 0x5e0 && error == 0, "request %#llx error %#llx", (unsigned long long)request,
        (unsigned long long)error);
  const char* want =
      "new(0x5e7,simple,-1);add(0x5e0,INPUT0,8,2x3);append(0x5e0,INPUT0,bytes0,6,0,0);"
      "add(0x5e0,INPUT1,13,4);release(0x5e0,0xf2,0x5e);response(0x5e0,0xa1,0xa2,0xf1,0x5e);"
      "infer(0x5e7,0x5e0,(nil));";
  CHECK(strcmp(log_text, want) == 0, "calls: %s", log_text);
  /* every call failing in turn: 1, its error in ERROR, nothing called after it */
  for (int k = 0; k < 7; k++) {
    fill_record(record);
    log_text[0] = 0;
    call_number = 0;
    fail_at = k;
    int r = submit(record, &element);
    memcpy(&error, record + R_ERROR, 8);
    memcpy(&request, record + R_REQUEST, 8);
    CHECK(r == 1 && error == 0xe77 && call_number == k + 1, "failing call %d: %d %#llx %d", k, r,
          (unsigned long long)error, call_number);
    CHECK(request == 0x5e0, "failing call %d: request %#llx", k, (unsigned long long)request);
  }
  printf("ok submit\n");
}


/* ---- the response reader, through bsearch as response_reader.ts calls it ---- */
static uint64_t u64_at(const uint8_t* p, size_t offset) {
  uint64_t v;
  memcpy(&v, p + offset, 8);
  return v;
}
static uint32_t u32_at(const uint8_t* p, size_t offset) {
  uint32_t v;
  memcpy(&v, p + offset, 4);
  return v;
}

static void check_reader(unsigned char* code) {
  int (*read_response)(const void*, const void*) = (int (*)(const void*, const void*))code;
  static _Alignas(8) uint8_t record[RECORD_BYTES];
  static const int64_t shape0[2] = {2, 3};
  static const int64_t shape9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 5000};
  static const char data0[24] = "twenty-four bytes here!";
  static const char data3[10] = "ten bytes";
  static char big[5000];
  static const char long_name[] =
      "a_name_of_seventy_characters_that_does_not_fit_in_the_sixty_four_bytes";
  struct fake_output outputs[5] = {
      {"OUT0", 8, shape0, 2, data0, 24, 0, 0, (void*)0x111},
      {"OUT_GPU", 9, shape0, 2, (void*)0x9000, 16, 2, 1, (void*)0x222},
      {"OUT_BIG", 10, shape9, 9, big, sizeof big, 1, 0, (void*)0x333},
      {"OUT3", 11, shape0, 1, data3, 10, 0, 0, NULL},
      {long_name, 13, shape0, 0, NULL, 0, 0, 0, NULL},
  };
  static const int64_t forty_two = 42;
  static const double one_and_a_half = 1.5;
  static const uint8_t yes = 1;
  struct fake_param params[6] = {
      {"s", 0, "hello"}, {"i", 1, &forty_two}, {"b", 2, &yes},
      {"d", 3, &one_and_a_half}, {"x", 4, &forty_two}, {"n", 1, NULL},
  };
  struct fake_response r = {NULL, 5, outputs, "simple", 7, NULL, 6, params, -1, 0, 0};
  memset(record, 0x55, sizeof record);
  uint64_t element = 0;
  void* found = bsearch(&r, record, 1, 8, read_response);
  CHECK(found == record, "bsearch: %p", found);
  CHECK(u64_at(record, RR_CALL_ERROR) == 0 && u64_at(record, RR_RESPONSE_ERROR) == 0, "errors");
  CHECK(u32_at(record, RR_OUTPUT_COUNT) == 5 && r.output_calls == 5, "outputs %u",
        u32_at(record, RR_OUTPUT_COUNT));
  uint64_t want_data[5] = {RR_DATA, 0, 0, RR_DATA + 24, RR_DATA + 40};
  for (int i = 0; i < 5; i++) {
    const uint8_t* o = record + RR_OUTPUTS + (size_t)i * RR_OUTPUT_SIZE;
    struct fake_output* f = &outputs[i];
    CHECK(u64_at(o, O_NAME) == (uintptr_t)f->name && u32_at(o, O_DATATYPE) == (uint32_t)f->datatype &&
              u64_at(o, O_SHAPE) == (uintptr_t)f->shape && u64_at(o, O_DIM_COUNT) == f->dims &&
              u64_at(o, O_BASE) == (uintptr_t)f->base && u64_at(o, O_BYTE_SIZE) == f->size &&
              u32_at(o, O_MEMORY_TYPE) == (uint32_t)f->memory_type &&
              u64_at(o, O_MEMORY_TYPE_ID) == (uint64_t)f->memory_type_id &&
              u64_at(o, O_USERP) == (uintptr_t)f->userp,
          "output %d: fields", i);
    CHECK(u64_at(o, O_DATA) == want_data[i], "output %d: data at %llu", i,
          (unsigned long long)u64_at(o, O_DATA));
    if (i < 4) {
      CHECK(strcmp((const char*)o + O_NAME_COPY, f->name) == 0, "output %d: name copy", i);
    } else {
      CHECK(memcmp(o + O_NAME_COPY, long_name, 64) == 0, "long name: the first 64 bytes");
    }
    if (f->dims <= 8) {
      CHECK(memcmp(o + O_SHAPE_COPY, f->shape, f->dims * 8) == 0, "output %d: shape", i);
    } else {
      CHECK(u64_at(o, O_SHAPE_COPY) == 0x5555555555555555ull, "output %d: shape not copied", i);
    }
    if (want_data[i]) {
      CHECK(memcmp(record + want_data[i], f->base, f->size) == 0, "output %d: data", i);
    }
  }
  CHECK(u64_at(record, RR_MODEL_NAME) == (uintptr_t)r.model &&
            u64_at(record, RR_MODEL_VERSION) == 7 &&
            strcmp((const char*)record + RR_MODEL_COPY, "simple") == 0,
        "model");
  CHECK(u64_at(record, RR_ID) == 0 && record[RR_ID_COPY] == 0, "id: NULL copies as \"\"");
  CHECK(u32_at(record, RR_PARAM_COUNT) == 6, "params %u", u32_at(record, RR_PARAM_COUNT));
  uint64_t half;
  memcpy(&half, &one_and_a_half, 8);
  uint64_t want_scalar[6] = {0x5555555555555555ull, 42, 1, half, 0, 0};
  for (int i = 0; i < 6; i++) {
    const uint8_t* p = record + RR_PARAMS + (size_t)i * RR_PARAM_SIZE;
    CHECK(u64_at(p, P_NAME) == (uintptr_t)params[i].name &&
              u32_at(p, P_TYPE) == (uint32_t)params[i].type &&
              u64_at(p, P_VALUE) == (uintptr_t)params[i].value &&
              strcmp((const char*)p + P_NAME_COPY, params[i].name) == 0,
          "parameter %d: fields", i);
    CHECK(u64_at(p, P_SCALAR) == want_scalar[i], "parameter %d: scalar %#llx", i,
          (unsigned long long)u64_at(p, P_SCALAR));
  }
  CHECK(strcmp((const char*)record + RR_PARAMS + P_STRING_COPY, "hello") == 0, "string value");
  (void)element;

  /* the response's own error: nothing else read */
  memset(record, 0x55, sizeof record);
  struct fake_response e = {(void*)0xeee, 5, outputs, "m", 1, "id", 0, params, -1, 0, 0};
  CHECK(read_response(&e, record) == 0 && u64_at(record, RR_RESPONSE_ERROR) == 0xeee &&
            u64_at(record, RR_CALL_ERROR) == 0 && e.calls == 0 &&
            u32_at(record, RR_OUTPUT_COUNT) == 0x55555555,
        "response error");
  /* more than MAX_OUTPUTS and MAX_PARAMS: the first 16 of each */
  struct fake_output many[20];
  struct fake_param many_params[20];
  for (int i = 0; i < 20; i++) {
    many[i] = outputs[1];
    many_params[i] = params[1];
  }
  struct fake_response m = {NULL, 20, many, "m", 1, "id", 20, many_params, -1, 0, 0};
  CHECK(read_response(&m, record) == 0 && m.output_calls == 16 &&
            u32_at(record, RR_OUTPUT_COUNT) == 20 && m.calls == 1 + 16 + 2 + 1 + 16,
        "bounded: %d outputs, %d calls", m.output_calls, m.calls);
  /* every call failing in turn: 1, its error in CALL_ERROR, nothing called after it */
  int total = r.calls;
  for (int k = 0; k < total; k++) {
    struct fake_response f = {NULL, 5, outputs, "simple", 7, NULL, 6, params, k, 0, 0};
    memset(record, 0x55, sizeof record);
    int result = read_response(&f, record);
    CHECK(result == 1 && u64_at(record, RR_CALL_ERROR) == (uintptr_t)READ_ERROR &&
              f.calls == k + 1,
          "failing call %d: %d, %d calls", k, result, f.calls);
  }
  printf("ok reader\n");
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "addresses") == 0) {
    print_addresses();
    return 0;
  }
  if (argc != 4 || strcmp(argv[1], "run") != 0) {
    fprintf(stderr, "usage: %s addresses | run DIR PLACING_RELEASE\n", argv[0]);
    return 2;
  }
  print_addresses();
  size_t size;
  unsigned char* placing = place(argv[2], "placing.bin", &size);
  long release_at = strtol(argv[3], NULL, 0);
  CHECK(release_at > 0 && (size_t)release_at < size && release_at % 4 == 0, "offset %ld",
        release_at);
  check_placing(placing, release_at);
  check_delete_each(place(argv[2], "delete_each.bin", &size));
  check_submit(place(argv[2], "submit.bin", &size));
  check_reader(place(argv[2], "reader.bin", &size));
  return 0;
}
