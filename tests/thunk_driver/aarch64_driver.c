/* aarch64_driver.c - runs the A64 routines (ffi/native/a64/) for tests/a64_ring.test.ts: built
 * with aarch64-linux-gnu-gcc as a static, non-PIE executable (so every address below is fixed at
 * link time, the same in every run) and run under qemu-aarch64.
 *
 *   aarch64_driver addresses
 *     prints the targets the code must be generated for: "name 0xaddress" per line.
 *   aarch64_driver run RING.bin FLUSH.bin responseComplete requestRelease alloc release query
 *                      bufferAttributes
 *     prints the same addresses, places both codes (each on a fresh anonymous mapping written
 *     read+write, then made read+execute; the ring's code flushed by the generated flush
 *     routine), then: PRODUCERS threads push RECORDS records each through the two producers into
 *     a ring of CAPACITY slots while the main thread consumes them as the JS consumer does
 *     (sleeping flag, eventfd); every record must arrive exactly once, in full, and each
 *     producer's in its order. Then the allocator's entry points are called on their CPU fast
 *     path and on every other path (which must reach the JS stand-ins with every argument
 *     untouched). Prints "result ..." and exits 0, or prints "FAIL ..." and exits 1.
 *
 * The ring's layout is ffi/native/ring_layout.ts's (the test checks the constants below against
 * it). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aarch64_driver_support.h"

#ifndef CAPACITY
#define CAPACITY 16
#endif
#define TAIL 0
#define SLEEPING 64
#define SLOTS 128
#define SLOT_SIZE 32
#define SLOT_SEQ 0
#define SLOT_KIND 4
#define SLOT_FLAGS 8
#define SLOT_OBJECT 16
#define SLOT_USERP 24
#define EVENTFD 42
#define PRODUCERS 4
#define RECORDS 20000
#define FAIL_SIZE 0x7777 /* test_malloc returns NULL for this size */

static _Alignas(4096) unsigned char ring[SLOTS + CAPACITY * SLOT_SIZE];


/* ---- what the generated code calls ---- */
static void* last_freed;
static int error_code;
static const char* error_message;
static void* set_type_attrs;
static int set_type_value = -1;
static void* set_id_attrs;
static int64_t set_id_value = -1;
static uintptr_t js_args[10];
static int js_calls;

#define ERROR_SENTINEL ((void*)0xe770)
#define BAD_ATTRIBUTES ((void*)0xbad0)

static void* test_malloc(size_t size) { return size == FAIL_SIZE ? NULL : malloc(size); }
static void test_free(void* p) {
  last_freed = p;
  free(p);
}
static void* error_new(int code, const char* message) {
  error_code = code;
  error_message = message;
  return ERROR_SENTINEL;
}
static void* set_memory_type(void* attributes, int type) {
  set_type_attrs = attributes;
  set_type_value = type;
  return attributes == BAD_ATTRIBUTES ? ERROR_SENTINEL : NULL;
}
static void* set_memory_type_id(void* attributes, int64_t id) {
  set_id_attrs = attributes;
  set_id_value = id;
  return NULL;
}
static void* js_alloc(void* a0, const char* a1, size_t a2, int a3, int64_t a4, void* a5, void** a6,
                      void** a7, int* a8, int64_t* a9) {
  uintptr_t v[10] = {(uintptr_t)a0, (uintptr_t)a1, a2, (uintptr_t)(unsigned)a3, (uintptr_t)a4,
                     (uintptr_t)a5, (uintptr_t)a6, (uintptr_t)a7, (uintptr_t)a8, (uintptr_t)a9};
  memcpy(js_args, v, sizeof v);
  js_calls++;
  return (void*)0xa110c;
}
static void* js_release(void* a0, void* a1, void* a2, size_t a3, int a4, int64_t a5) {
  uintptr_t v[6] = {(uintptr_t)a0, (uintptr_t)a1, (uintptr_t)a2, a3, (uintptr_t)(unsigned)a4,
                    (uintptr_t)a5};
  memcpy(js_args, v, sizeof v);
  js_calls++;
  return (void*)0x7e1;
}
static void* js_query(void* a0, void* a1, const char* a2, size_t* a3, int* a4, int64_t* a5) {
  uintptr_t v[6] = {(uintptr_t)a0, (uintptr_t)a1, (uintptr_t)a2,
                    (uintptr_t)a3, (uintptr_t)a4, (uintptr_t)a5};
  memcpy(js_args, v, sizeof v);
  js_calls++;
  return (void*)0x9e7;
}
static void* js_buffer_attributes(void* a0, const char* a1, void* a2, void* a3, void* a4) {
  uintptr_t v[5] = {(uintptr_t)a0, (uintptr_t)a1, (uintptr_t)a2, (uintptr_t)a3, (uintptr_t)a4};
  memcpy(js_args, v, sizeof v);
  js_calls++;
  return (void*)0xa77;
}

static void print_addresses(void) {
  printf("ring %p\n", (void*)ring);
  printf("capacity %d\n", CAPACITY);
  printf("eventfd %d\n", EVENTFD);
  printf("write %p\n", (void*)write);
  printf("schedYield %p\n", (void*)sched_yield);
  printf("malloc %p\n", (void*)test_malloc);
  printf("free %p\n", (void*)test_free);
  printf("errorNew %p\n", (void*)error_new);
  printf("setMemoryType %p\n", (void*)set_memory_type);
  printf("setMemoryTypeId %p\n", (void*)set_memory_type_id);
  printf("jsAlloc %p\n", (void*)js_alloc);
  printf("jsRelease %p\n", (void*)js_release);
  printf("jsQuery %p\n", (void*)js_query);
  printf("jsBufferAttributes %p\n", (void*)js_buffer_attributes);
  fflush(stdout);
}

typedef void (*push_fn)(void* object, uint32_t flags, void* userp);
typedef void* (*alloc_fn)(void*, const char*, size_t, int, int64_t, void*, void**, void**, int*,
                          int64_t*);
typedef void* (*release_fn)(void*, void*, void*, size_t, int, int64_t);
typedef void* (*query_fn)(void*, void*, const char*, size_t*, int*, int64_t*);
typedef void* (*attributes_fn)(void*, const char*, void*, void*, void*);
typedef void (*flush_fn)(void* start, void* end);

static push_fn response_complete, request_release;
static int producers_done;

static uint64_t object_of(int producer, int i) { return ((uint64_t)(producer + 1) << 32) | (uint32_t)i; }
static uint32_t flags_of(int producer, int i) { return (uint32_t)(i * 7 + producer) ^ 0x5a5a0000u; }
static uint64_t userp_of(int producer, int i) { return 0xfeed000000000000ull | (uint64_t)producer << 24 | (uint64_t)i; }

static void* producer(void* arg) {
  int p = (int)(intptr_t)arg;
  for (int i = 0; i < RECORDS; i++) {
    push_fn push = (i & 1) ? request_release : response_complete;
    push((void*)(uintptr_t)object_of(p, i), flags_of(p, i), (void*)(uintptr_t)userp_of(p, i));
  }
  __atomic_add_fetch(&producers_done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static uint32_t* u32_at(size_t offset) { return (uint32_t*)(ring + offset); }

/* Consumes PRODUCERS * RECORDS records as the JS consumer does (ffi/native/ring.ts); returns the
 * number of times it slept on the eventfd. */
static int consume(void) {
  int next[PRODUCERS] = {0};
  int sleeps = 0;
  uint64_t head = 0;
  for (long received = 0; received < (long)PRODUCERS * RECORDS;) {
    size_t slot = SLOTS + (head & (CAPACITY - 1)) * SLOT_SIZE;
    uint32_t* seq = u32_at(slot + SLOT_SEQ);
    if (__atomic_load_n(seq, __ATOMIC_SEQ_CST) != (uint32_t)(head + 1)) {
      /* announce sleep, re-check, then block on the eventfd */
      __atomic_exchange_n(u32_at(SLEEPING), 1, __ATOMIC_SEQ_CST);
      if (__atomic_load_n(seq, __ATOMIC_SEQ_CST) == (uint32_t)(head + 1)) {
        __atomic_store_n(u32_at(SLEEPING), 0, __ATOMIC_SEQ_CST);
      } else {
        /* blocks on the eventfd; a ring that stays empty once every producer has returned lost
         * a record (or a wake-up) */
        struct pollfd pfd = {.fd = EVENTFD, .events = POLLIN};
        int done = __atomic_load_n(&producers_done, __ATOMIC_SEQ_CST) == PRODUCERS;
        int ready = poll(&pfd, 1, 3000);
        CHECK(ready >= 0, "poll: %s", strerror(errno));
        CHECK(ready > 0 || !done, "%ld of %d records arrived, position %llu never filled "
              "(seq %u, sleeping %u)", received, PRODUCERS * RECORDS, (unsigned long long)head,
              __atomic_load_n(seq, __ATOMIC_SEQ_CST),
              __atomic_load_n(u32_at(SLEEPING), __ATOMIC_SEQ_CST));
        if (ready == 0) continue; /* still producing: sleep again */
        uint64_t count;
        CHECK(read(EVENTFD, &count, 8) == 8, "eventfd read: %s", strerror(errno));
        sleeps++;
      }
      continue;
    }
    uint32_t kind = *u32_at(slot + SLOT_KIND);
    uint32_t flags = *u32_at(slot + SLOT_FLAGS);
    uint64_t object, userp;
    memcpy(&object, ring + slot + SLOT_OBJECT, 8);
    memcpy(&userp, ring + slot + SLOT_USERP, 8);
    __atomic_store_n(seq, (uint32_t)(head + CAPACITY), __ATOMIC_SEQ_CST); /* free: next lap */
    head++;
    received++;
    int p = (int)(object >> 32) - 1;
    CHECK(p >= 0 && p < PRODUCERS, "position %llu: object %#llx", (unsigned long long)head - 1,
          (unsigned long long)object);
    int i = next[p]++;
    CHECK(object == object_of(p, i), "producer %d: object %#llx, expected record %d", p,
          (unsigned long long)object, i);
    CHECK(flags == flags_of(p, i), "producer %d record %d: flags %#x", p, i, flags);
    CHECK(userp == userp_of(p, i), "producer %d record %d: userp %#llx", p, i,
          (unsigned long long)userp);
    CHECK(kind == ((i & 1) ? 2u : 1u), "producer %d record %d: kind %u", p, i, kind);
  }
  for (int p = 0; p < PRODUCERS; p++) CHECK(next[p] == RECORDS, "producer %d: %d", p, next[p]);
  uint64_t tail;
  memcpy(&tail, ring + TAIL, 8);
  CHECK(tail == (uint64_t)PRODUCERS * RECORDS, "tail %llu", (unsigned long long)tail);
  return sleeps;
}

static void check_allocator(unsigned char* code, long alloc_at, long release_at, long query_at,
                            long attributes_at) {
  alloc_fn alloc = (alloc_fn)(code + alloc_at);
  release_fn release = (release_fn)(code + release_at);
  query_fn query = (query_fn)(code + query_at);
  attributes_fn attributes = (attributes_fn)(code + attributes_at);
  void* allocator = (void*)0xa1;
  const char* name = "OUTPUT0";

  /* CPU policy (userp 0): malloc, the four out-parameters */
  void* buffer = (void*)1;
  void* buffer_userp = (void*)2;
  int type = 77;
  int64_t id = 77;
  void* e = alloc(allocator, name, 100, 2, 3, NULL, &buffer, &buffer_userp, &type, &id);
  CHECK(e == NULL, "alloc: error %p", e);
  CHECK(buffer != NULL && buffer != (void*)1, "alloc: buffer %p", buffer);
  CHECK(buffer_userp == (void*)1 && type == 0 && id == 0, "alloc: userp %p type %d id %lld",
        buffer_userp, type, (long long)id);
  memset(buffer, 0xab, 100);
  /* release of a CPU buffer: free */
  e = release(allocator, buffer, (void*)1, 100, 0, 0);
  CHECK(e == NULL && last_freed == buffer, "release: %p, freed %p", e, last_freed);
  /* size 0 still gets a buffer */
  buffer = NULL;
  e = alloc(allocator, name, 0, 0, 0, NULL, &buffer, &buffer_userp, &type, &id);
  CHECK(e == NULL && buffer != NULL, "alloc 0: %p %p", e, buffer);
  free(buffer);
  /* malloc failure: TRITONSERVER_ErrorNew(INTERNAL, message), nothing written */
  buffer = (void*)5;
  e = alloc(allocator, name, FAIL_SIZE, 0, 0, NULL, &buffer, &buffer_userp, &type, &id);
  CHECK(e == ERROR_SENTINEL && error_code == 1 && buffer == (void*)5, "alloc failure: %p %d %p",
        e, error_code, buffer);
  CHECK(strcmp(error_message, "malloc of an output buffer failed") == 0, "message %s",
        error_message);
  /* any other policy: the JS alloc, every argument untouched */
  js_calls = 0;
  e = alloc(allocator, name, 0x123456789, 2, -5, (void*)0x33, &buffer, &buffer_userp, &type, &id);
  uintptr_t want_alloc[10] = {(uintptr_t)allocator, (uintptr_t)name, 0x123456789, 2,
                              (uintptr_t)(int64_t)-5, 0x33, (uintptr_t)&buffer,
                              (uintptr_t)&buffer_userp, (uintptr_t)&type, (uintptr_t)&id};
  CHECK(e == (void*)0xa110c && js_calls == 1, "JS alloc: %p calls %d", e, js_calls);
  for (int i = 0; i < 10; i++) {
    CHECK(js_args[i] == want_alloc[i], "JS alloc argument %d: %#lx", i, (unsigned long)js_args[i]);
  }
  /* release of anything else: the JS release */
  e = release(allocator, (void*)0xb0, (void*)0x201, 64, 1, 7);
  uintptr_t want_release[6] = {(uintptr_t)allocator, 0xb0, 0x201, 64, 1, 7};
  CHECK(e == (void*)0x7e1 && js_calls == 2, "JS release: %p", e);
  for (int i = 0; i < 6; i++) CHECK(js_args[i] == want_release[i], "JS release argument %d", i);
  /* query: CPU policy answers CPU, id 0; others go to JS */
  size_t size = 9;
  type = 5;
  id = 5;
  e = query(allocator, NULL, name, &size, &type, &id);
  CHECK(e == NULL && type == 0 && id == 0 && size == 9, "query: %p %d %lld", e, type,
        (long long)id);
  e = query(allocator, (void*)0x44, name, &size, &type, &id);
  uintptr_t want_query[6] = {(uintptr_t)allocator, 0x44, (uintptr_t)name,
                             (uintptr_t)&size, (uintptr_t)&type, (uintptr_t)&id};
  CHECK(e == (void*)0x9e7 && js_calls == 3, "JS query: %p", e);
  for (int i = 0; i < 6; i++) CHECK(js_args[i] == want_query[i], "JS query argument %d", i);
  /* buffer attributes: CPU id 0 through the two setters; an error of the first is returned */
  void* attrs = (void*)0xa7a7;
  e = attributes(allocator, name, attrs, NULL, (void*)1);
  CHECK(e == NULL && set_type_attrs == attrs && set_type_value == 0 && set_id_attrs == attrs &&
            set_id_value == 0,
        "attributes: %p %p %d %p %lld", e, set_type_attrs, set_type_value, set_id_attrs,
        (long long)set_id_value);
  set_id_attrs = NULL;
  e = attributes(allocator, name, BAD_ATTRIBUTES, NULL, (void*)1);
  CHECK(e == ERROR_SENTINEL && set_id_attrs == NULL, "attributes error: %p %p", e, set_id_attrs);
  e = attributes(allocator, name, attrs, (void*)0x55, (void*)0x301);
  uintptr_t want_attributes[5] = {(uintptr_t)allocator, (uintptr_t)name, 0xa7a7, 0x55, 0x301};
  CHECK(e == (void*)0xa77 && js_calls == 4, "JS attributes: %p", e);
  for (int i = 0; i < 5; i++) {
    CHECK(js_args[i] == want_attributes[i], "JS attributes argument %d", i);
  }
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "addresses") == 0) {
    print_addresses();
    return 0;
  }
  if (argc != 10 || strcmp(argv[1], "run") != 0) {
    fprintf(stderr, "usage: %s addresses | run RING.bin FLUSH.bin 6×offset\n", argv[0]);
    return 2;
  }
  print_addresses();
  alarm(120); /* a lost wake-up hangs: end it */
  int fd = eventfd(0, 0);
  CHECK(fd >= 0 && dup2(fd, EVENTFD) == EVENTFD, "eventfd: %s", strerror(errno));
  close(fd);
  for (int i = 0; i < CAPACITY; i++) *u32_at(SLOTS + (size_t)i * SLOT_SIZE + SLOT_SEQ) = (uint32_t)i;

  size_t code_size, flush_size;
  unsigned char* code = place_file(argv[2], &code_size);
  unsigned char* flush = place_file(argv[3], &flush_size); /* fresh page: runs without a flush */
  ((flush_fn)flush)(code, code + code_size);
  long at[6];
  for (int i = 0; i < 6; i++) {
    at[i] = strtol(argv[4 + i], NULL, 0);
    CHECK(at[i] >= 0 && (size_t)at[i] < code_size && at[i] % 4 == 0, "offset %ld", at[i]);
  }
  response_complete = (push_fn)(code + at[0]);
  request_release = (push_fn)(code + at[1]);

  pthread_t threads[PRODUCERS];
  for (int p = 0; p < PRODUCERS; p++) {
    CHECK(pthread_create(&threads[p], NULL, producer, (void*)(intptr_t)p) == 0, "pthread_create");
  }
  int sleeps = consume();
  for (int p = 0; p < PRODUCERS; p++) pthread_join(threads[p], NULL);
  uint32_t sleeping = __atomic_load_n(u32_at(SLEEPING), __ATOMIC_SEQ_CST);

  check_allocator(code, at[2], at[3], at[4], at[5]);
  printf("result records=%d producers=%d capacity=%d sleeps=%d sleeping=%u\n", PRODUCERS * RECORDS,
         PRODUCERS, CAPACITY, sleeps, sleeping);
  return 0;
}
