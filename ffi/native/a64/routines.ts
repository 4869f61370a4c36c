/**
 * The A64 routines (AAPCS64, Linux) as one {@link Routines} set: what `../platform.ts` hands out
 * on an aarch64 CPU. The targets and entry points are the contract's, as for x86-64; the
 * instruction-cache flush is `cache_flush.ts`'s (code placed on aarch64 is flushed before it
 * runs), and `atomics` gives Bun's C ring producers the atomic operations TinyCC lacks there.
 *
 * @module
 */
import type { Routines } from "../routines.ts";
import { generateAtomicsA64 } from "./atomics.ts";
import { flushA64 } from "./cache_flush.ts";
import { generateDeleteEachA64 } from "./delete_each.ts";
import { generatePlacingA64 } from "./placing.ts";
import { generateReaderA64 } from "./reader.ts";
import { generateRingA64 } from "./ring.ts";
import { generateSubmitA64 } from "./submit.ts";

/** The A64 generators. */
export const a64Routines: Routines = {
  arch: "aarch64",
  ring: generateRingA64,
  placing: generatePlacingA64,
  reader: generateReaderA64,
  submit: generateSubmitA64,
  deleteEach: generateDeleteEachA64,
  flush: flushA64,
  atomics: generateAtomicsA64,
};
