/* ring_producer.c - the completion ring's producers: the response-complete and request-release
 * callbacks Triton's threads call push (kind, object, flags, userp) into the ring (ring.h) and
 * wake the consumer if it sleeps. A full ring makes the producer yield until the consumer frees
 * the slot (the backpressure: nothing is dropped). The generated ring routines
 * (ffi/native/x86_64/ring.ts, ffi/native/a64/ring.ts) are the same producers in machine code, for
 * Deno and Node.
 *
 * Compiled at run time by Bun's cc() (TinyCC; ffi/native/bun_ring.ts), whose wake is a threadsafe
 * JSCallback (posted, never waited for), and at build time by the C reference client
 * (bench/native), whose wake writes an eventfd. The constants come from ringDefines()
 * (ffi/native/bun_ring.ts). One compilation serves one ring: tritonffi_ring_configure runs before
 * Triton calls the pushes. */
#ifdef TRITONFFI_C_API_CHECK
#include "tritonffi_c_api.h" /* the C reference client's build: checks the signatures below */
#endif
#include "ring.h"

int sched_yield(void);

#if defined(__TINYC__) && defined(__x86_64__)
/* TinyCC has no __atomic builtins without its runtime library: x86-64 instructions instead
 * (lock xadd and xchg are full barriers; x86-64 loads are acquire loads). */
static uint64_t fetch_increment(volatile uint64_t* p) {
  uint64_t v = 1;
  __asm__ volatile("lock xaddq %0, %1" : "+r"(v), "+m"(*p) : : "memory");
  return v;
}
static uint32_t exchange(volatile uint32_t* p, uint32_t v) {
  __asm__ volatile("xchgl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
  return v;
}
static uint32_t load_acquire(volatile uint32_t* p) { return *p; }
#elif defined(__TINYC__) && defined(__aarch64__)
/* TinyCC on aarch64 assembles no A64 instruction inline and has no __atomic builtins without its
 * runtime library: the three operations are generated A64 functions (ffi/native/a64/atomics.ts:
 * LDAXR/STLXR loops and LDAR) that tritonffi_ring_atomics hands over before any push. */
static uint64_t (*fetch_increment)(volatile uint64_t* p);
static uint32_t (*exchange)(volatile uint32_t* p, uint32_t v);
static uint32_t (*load_acquire)(volatile uint32_t* p);

void tritonffi_ring_atomics(void* increment, void* swap, void* acquire) {
  fetch_increment = (uint64_t (*)(volatile uint64_t*))increment;
  exchange = (uint32_t (*)(volatile uint32_t*, uint32_t))swap;
  load_acquire = (uint32_t (*)(volatile uint32_t*))acquire;
}
#elif defined(__TINYC__)
#error "the native completion ring has no atomic operations for this CPU under TinyCC"
#else
static uint64_t fetch_increment(volatile uint64_t* p) {
  return __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
}
static uint32_t exchange(volatile uint32_t* p, uint32_t v) {
  return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}
static uint32_t load_acquire(volatile uint32_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
#endif

static char* ring;
static uint64_t mask;
static void (*wake)(void);

void tritonffi_ring_configure(void* r, uint32_t capacity, void* w) {
  ring = (char*)r;
  mask = capacity - 1;
  wake = (void (*)(void))w;
}

#ifdef TRITONFFI_C_API_H
/* A signature that differs from the callback type is an error here. */
__attribute__((unused)) static TRITONSERVER_InferenceResponseCompleteFn_t const check_response =
    tritonffi_response_complete;
__attribute__((unused)) static TRITONSERVER_InferenceRequestReleaseFn_t const check_release =
    tritonffi_request_release;
#endif

static void push(uint32_t kind, void* object, uint32_t flags, void* userp) {
  uint64_t pos = fetch_increment(TRITONFFI_RING_TAIL_AT(ring)); /* claim a position */
  tritonffi_slot* s = TRITONFFI_RING_SLOT_AT(ring, pos & mask);
  while (load_acquire(&s->seq) != (uint32_t)pos) sched_yield(); /* full: wait for the consumer */
  s->object = object;
  s->userp = userp;
  s->flags = flags;
  s->kind = kind;
  exchange(&s->seq, (uint32_t)pos + 1); /* publish (release; a full barrier on x86-64) */
  volatile uint32_t* sleeping = TRITONFFI_RING_SLEEPING_AT(ring);
  /* An acquire load after the publish: aarch64 never moves it before a store-release (a plain
   * load it may), so a consumer that went to sleep before the publish is seen asleep here. */
  if (load_acquire(sleeping) && exchange(sleeping, 0)) wake(); /* the first to see it wakes */
}

void tritonffi_response_complete(TF_RESPONSE* response, const uint32_t flags, void* userp) {
  push(TRITONFFI_KIND_RESPONSE, response, flags, userp);
}

void tritonffi_request_release(TF_REQUEST* request, const uint32_t flags, void* userp) {
  push(TRITONFFI_KIND_RELEASE, request, flags, userp);
}
