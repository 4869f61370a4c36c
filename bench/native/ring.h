/* ring.h - the completion ring of the reference client: the same contract as the binding's native
 * ring (ffi/ring_layout.ts, ffi/thunks/x86_64.ts): a multi-producer single-consumer ring of
 * 32-byte slots with per-slot sequence numbers, a sleeping flag and an eventfd wake-up, and the
 * same poll before sleeping ($TRITONFFI_POLL_US, default 50 µs). */
#ifndef BENCH_RING_H
#define BENCH_RING_H

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  uint32_t seq;
  uint32_t kind; /* 1 = response complete, 2 = request release */
  uint32_t flags;
  uint32_t pad;
  void* object;
  void* userp;
} ring_slot;

typedef struct {
  _Alignas(64) uint64_t tail;
  _Alignas(64) uint32_t sleeping;
  _Alignas(64) uint64_t head; /* consumer only */
  uint64_t mask;
  int eventfd;
  ring_slot* slots;
} ring_t;

static inline void ring_init(ring_t* r, uint32_t capacity) {
  r->tail = 0;
  r->sleeping = 0;
  r->head = 0;
  r->mask = capacity - 1;
  r->eventfd = eventfd(0, EFD_CLOEXEC);
  r->slots = aligned_alloc(64, sizeof(ring_slot) * capacity);
  for (uint32_t i = 0; i < capacity; i++) r->slots[i].seq = i;
}

/* Producer: claim, fill, publish, wake the consumer if it sleeps. */
static inline void ring_push(ring_t* r, uint32_t kind, void* object, uint32_t flags, void* userp) {
  uint64_t pos = __atomic_fetch_add(&r->tail, 1, __ATOMIC_SEQ_CST);
  ring_slot* s = &r->slots[pos & r->mask];
  while (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != (uint32_t)pos) sched_yield();
  s->object = object;
  s->userp = userp;
  s->flags = flags;
  s->kind = kind;
  __atomic_exchange_n(&s->seq, (uint32_t)pos + 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&r->sleeping, __ATOMIC_RELAXED) &&
      __atomic_exchange_n(&r->sleeping, 0, __ATOMIC_SEQ_CST)) {
    uint64_t one = 1;
    if (write(r->eventfd, &one, 8) < 0) abort();
  }
}

/* Consumer: the next filled slot, or NULL. */
static inline ring_slot* ring_peek(ring_t* r) {
  ring_slot* s = &r->slots[r->head & r->mask];
  return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == (uint32_t)(r->head + 1) ? s : NULL;
}

/* Consumer: frees the slot ring_peek returned. */
static inline void ring_pop(ring_t* r, ring_slot* s) {
  __atomic_store_n(&s->seq, (uint32_t)(r->head + r->mask + 1), __ATOMIC_RELEASE);
  r->head++;
}

/* The binding's poll before sleeping (ffi/native_ring.ts RingConsumer): up to poll_ns; after 8
 * fruitless polls in a row only one wait in 16 polls, until a poll pays off again. */
static uint64_t poll_ns = 50000;
static int fruitless;
static unsigned waits;

static inline uint64_t ring_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Consumer: polls, then sleeps until a producer publishes (set the flag, re-check, block on the
 * eventfd). */
static inline void ring_wait(ring_t* r) {
  if (poll_ns > 0 && (fruitless < 8 || ++waits % 16 == 0)) {
    uint64_t deadline = ring_now_ns() + poll_ns;
    while (ring_peek(r) == NULL) {
      if (ring_now_ns() >= deadline) {
        fruitless++;
        break;
      }
    }
    if (ring_peek(r) != NULL) {
      fruitless = 0;
      return;
    }
  }
  __atomic_exchange_n(&r->sleeping, 1, __ATOMIC_SEQ_CST);
  if (ring_peek(r) == NULL) {
    uint64_t value;
    if (read(r->eventfd, &value, 8) < 0) abort();
  }
  __atomic_store_n(&r->sleeping, 0, __ATOMIC_SEQ_CST);
}

#endif
