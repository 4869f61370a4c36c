/* ring_producer.c - the completion ring's producers: the response-complete and request-release
 * callbacks Triton's threads call push (kind, object, flags, userp) into the ring (ring.h) and
 * wake the consumer if it sleeps. A full ring makes the producer yield until the consumer frees
 * the slot (the backpressure: nothing is dropped). The x86-64 thunks (ffi/native/x86_64/ring.ts) are
 * the same producers in machine code, for Deno and Node.
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

#if defined(__TINYC__)
/* TinyCC has no __atomic builtins without its runtime library: x86-64 instructions instead
 * (lock xadd and xchg are full barriers; x86-64 loads are acquire loads). */
#if !defined(__x86_64__)
#error "the native completion ring needs x86-64 inline assembly under TinyCC"
#endif
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
  exchange(&s->seq, (uint32_t)pos + 1); /* publish; a full barrier before reading sleeping */
  volatile uint32_t* sleeping = TRITONFFI_RING_SLEEPING_AT(ring);
  if (*sleeping && exchange(sleeping, 0)) wake(); /* the first producer to see it wakes */
}

void tritonffi_response_complete(TF_RESPONSE* response, const uint32_t flags, void* userp) {
  push(TRITONFFI_KIND_RESPONSE, response, flags, userp);
}

void tritonffi_request_release(TF_REQUEST* request, const uint32_t flags, void* userp) {
  push(TRITONFFI_KIND_RELEASE, request, flags, userp);
}
