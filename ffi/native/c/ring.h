/* ring.h - the completion ring in C: its memory, the layout of ffi/native/ring_layout.ts (whose constants
 * the compiler receives as TRITONFFI_RING_*, with -D or the define option of Bun's cc(); see
 * ringDefines() in ffi/native/bun_ring.ts), and its producers (ring_producer.c). Shared by the
 * producers and the C reference client's consumer (bench/native/ring.h). */
#ifndef TRITONFFI_RING_H
#define TRITONFFI_RING_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

/* One slot; seq == position: free for that position's producer, == position + 1: filled. */
typedef struct {
  volatile uint32_t seq;
  uint32_t kind; /* TRITONFFI_KIND_RESPONSE or TRITONFFI_KIND_RELEASE */
  uint32_t flags;
  uint32_t pad;
  void* object;
  void* userp;
} tritonffi_slot;

_Static_assert(sizeof(tritonffi_slot) == TRITONFFI_RING_SLOT_SIZE, "slot size");
_Static_assert(offsetof(tritonffi_slot, seq) == TRITONFFI_RING_SLOT_SEQ, "slot seq");
_Static_assert(offsetof(tritonffi_slot, kind) == TRITONFFI_RING_SLOT_KIND, "slot kind");
_Static_assert(offsetof(tritonffi_slot, flags) == TRITONFFI_RING_SLOT_FLAGS, "slot flags");
_Static_assert(offsetof(tritonffi_slot, object) == TRITONFFI_RING_SLOT_OBJECT, "slot object");
_Static_assert(offsetof(tritonffi_slot, userp) == TRITONFFI_RING_SLOT_USERP, "slot userp");

/* The parts of a ring at `ring` (its header address). */
#define TRITONFFI_RING_TAIL_AT(ring) ((volatile uint64_t*)((char*)(ring) + TRITONFFI_RING_TAIL))
#define TRITONFFI_RING_SLEEPING_AT(ring) \
  ((volatile uint32_t*)((char*)(ring) + TRITONFFI_RING_SLEEPING))
#define TRITONFFI_RING_SLOT_AT(ring, index) \
  ((tritonffi_slot*)((char*)(ring) + TRITONFFI_RING_SLOTS) + (index))
/* Bytes a ring of `capacity` slots occupies. */
#define TRITONFFI_RING_BYTES(capacity) \
  (TRITONFFI_RING_SLOTS + (size_t)(capacity) * TRITONFFI_RING_SLOT_SIZE)

/* The producers (ring_producer.c): configure once, before Triton calls the two callbacks
 * (TRITONSERVER_InferenceResponseCompleteFn_t, TRITONSERVER_InferenceRequestReleaseFn_t). */
void tritonffi_ring_configure(void* ring, uint32_t capacity, void* wake);
void tritonffi_response_complete(TF_RESPONSE* response, const uint32_t flags, void* userp);
void tritonffi_request_release(TF_REQUEST* request, const uint32_t flags, void* userp);

#endif
