/**
 * The native completion ring's memory layout, shared by its producers (the x86-64 routines, Bun's
 * C) and its consumer (`ring.ts`).
 *
 * ```
 * offset   0  u64 tail       next position to claim (producers: lock xadd)
 * offset  64  u32 sleeping   1 while the consumer is (about to be) blocked on the eventfd
 * offset 128  slots[capacity], 32 bytes each:
 *               +0  u32 seq      == pos (low 32 bits): free for the producer of position pos
 *                                == pos + 1: filled, readable by the consumer
 *               +4  u32 kind     1 = response complete, 2 = request release
 *               +8  u32 flags    the callback's flags
 *               +12 u32 (padding)
 *               +16 u64 object   the response or request pointer
 *               +24 u64 userp    the callback's userp
 * ```
 * Tail and the sleeping flag sit on their own cache lines. A slot at index i starts with
 * seq = i; the consumer, after reading position p, sets seq = p + capacity (free for the next
 * lap). Positions are 64-bit; sequence numbers are their low 32 bits (capacity divides 2^32).
 *
 * @module
 */

/** Byte offsets in the ring. */
export const RingLayout = {
  TAIL: 0,
  SLEEPING: 64,
  SLOTS: 128,
  SLOT_SIZE: 32,
  SLOT_SEQ: 0,
  SLOT_KIND: 4,
  SLOT_FLAGS: 8,
  SLOT_OBJECT: 16,
  SLOT_USERP: 24,
} as const;

/** Bytes a ring of `capacity` slots occupies. */
export function ringBytes(capacity: number): number {
  return RingLayout.SLOTS + capacity * RingLayout.SLOT_SIZE;
}
