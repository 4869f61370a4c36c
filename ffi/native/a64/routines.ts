/**
 * The A64 routines (AAPCS64, Linux) as one set, in the shape of the x86-64 generators: what the
 * native layer's platform switch hands out on an aarch64 CPU. Each generator returns fresh bytes
 * and places nothing; code placed on aarch64 must be followed by {@link a64Routines.flush}'s
 * routine over its bytes unless it sits on pages never mapped executable before (see `flush.ts`).
 *
 * Where the targets differ from x86-64's: the ring's take libc `write` and `sched_yield` (no raw
 * system calls) and no `base` (the malloc failure message is addressed PC-relative).
 *
 * @module
 */
import { generateDeleteEachA64 } from "./delete_each.ts";
import { generateFlushA64 } from "./flush.ts";
import { generatePlacingA64 } from "./placing.ts";
import { generateReaderA64 } from "./reader.ts";
import { generateRingA64 } from "./ring.ts";
import { generateSubmitA64 } from "./submit.ts";

/** The A64 generators. */
export const a64Routines = {
  /** The instruction set, as Linux names the CPU. */
  arch: "aarch64",
  /** The ring producers and the allocator's CPU policy (six entry points). */
  ring: generateRingA64,
  /** The placing allocator's `alloc` and `release`. */
  placing: generatePlacingA64,
  /** The response reader; it starts at offset 0. */
  reader: generateReaderA64,
  /** The request submitter; it starts at offset 0 (nothing embedded). */
  submit: generateSubmitA64,
  /** The batch deleter's comparator; it starts at offset 0 (nothing embedded). */
  deleteEach: generateDeleteEachA64,
  /** `flush(start, end)`, the instruction-cache flush for placed code. */
  flush: generateFlushA64,
} as const;
