/* ring.h - the completion ring of the reference client: the binding's own ring (ffi/native/c/ring.h, the
 * layout of ffi/native/ring_layout.ts), filled by the binding's own C producers (ffi/native/c/ring_producer.c,
 * which Bun compiles too), woken through an eventfd, and drained here the way the binding's
 * consumer drains it (ffi/native/ring.ts RingConsumer), with the same poll before sleeping
 * ($TRITONFFI_POLL_US, default 50 µs). */
#ifndef BENCH_RING_H
#define BENCH_RING_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "../../ffi/native/c/ring.h"

typedef struct {
  void* memory; /* TRITONFFI_RING_BYTES(capacity), 64-byte aligned */
  uint64_t head; /* the consumer's next position */
  uint64_t mask;
  int eventfd;
} ring_t;

static int ring_eventfd = -1;

/* The producers' wake-up: one write to the eventfd. */
static void ring_wake(void) {
  uint64_t one = 1;
  if (write(ring_eventfd, &one, 8) < 0) abort();
}

/* A ring of `capacity` slots (a power of two) with the producers configured for it. */
static inline void ring_init(ring_t* r, uint32_t capacity) {
  size_t bytes = TRITONFFI_RING_BYTES(capacity);
  r->memory = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  r->head = 0;
  r->mask = capacity - 1;
  r->eventfd = ring_eventfd = eventfd(0, EFD_CLOEXEC);
  *TRITONFFI_RING_TAIL_AT(r->memory) = 0;
  *TRITONFFI_RING_SLEEPING_AT(r->memory) = 0;
  for (uint32_t i = 0; i < capacity; i++) TRITONFFI_RING_SLOT_AT(r->memory, i)->seq = i;
  tritonffi_ring_configure(r->memory, capacity, (void*)ring_wake);
}

/* Consumer: the next filled slot, or NULL. */
static inline tritonffi_slot* ring_peek(ring_t* r) {
  tritonffi_slot* s = TRITONFFI_RING_SLOT_AT(r->memory, r->head & r->mask);
  return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == (uint32_t)(r->head + 1) ? s : NULL;
}

/* Consumer: frees the slot ring_peek returned. */
static inline void ring_pop(ring_t* r, tritonffi_slot* s) {
  __atomic_store_n(&s->seq, (uint32_t)(r->head + r->mask + 1), __ATOMIC_RELEASE);
  r->head++;
}

/* The binding's poll before sleeping (ffi/native/ring.ts RingConsumer): up to poll_ns; after 8
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
  volatile uint32_t* sleeping = TRITONFFI_RING_SLEEPING_AT(r->memory);
  __atomic_exchange_n(sleeping, 1, __ATOMIC_SEQ_CST);
  if (ring_peek(r) == NULL) {
    uint64_t value;
    if (read(r->eventfd, &value, 8) < 0) abort();
  }
  __atomic_store_n(sleeping, 0, __ATOMIC_SEQ_CST);
}

#endif
