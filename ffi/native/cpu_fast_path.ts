/**
 * What the response allocator's native fast path (the CPU policy, in every instruction set's ring
 * routines: `x86_64/ring.ts`, `a64/ring.ts`, and `c/allocator.c`'s counterpart) may assume of
 * `allocator.ts`, checked once before any code is generated.
 *
 * @module
 */
import { decodePolicy, encodeBufferUserp, encodePolicy, place, PolicyKind } from "../allocator.ts";
import { MemoryType } from "../enums.ts";

/**
 * What the allocator's fast path tests and writes, from `allocator.ts`: the CPU policy's `userp`
 * (0, so a test for zero finds it) and the `buffer_userp` of a CPU buffer (in [1, 127], an
 * immediate in every instruction set),
 * after checking that `place()` puts every output of that policy in CPU memory, id 0.
 * @throws {Error} when the allocator's rule or encodings no longer allow this fast path.
 */
export function cpuFastPath(): { policy: number; bufferUserp: number } {
  const policy = encodePolicy(PolicyKind.CPU, 0, false);
  const bufferUserp = encodeBufferUserp(MemoryType.CPU, 0);
  for (const requested of Object.values(MemoryType)) {
    for (const cuda of [false, true]) {
      const p = place(decodePolicy(policy), requested, 3, cuda);
      if (p.type !== MemoryType.CPU || p.id !== 0) {
        throw new Error(`the CPU policy places an output in ${JSON.stringify(p)}: no fast path`);
      }
    }
  }
  if (policy !== 0 || MemoryType.CPU !== 0 || bufferUserp < 1 || bufferUserp > 127) {
    throw new Error(`CPU policy ${policy} / buffer_userp ${bufferUserp}: not the fast path's`);
  }
  return { policy, bufferUserp };
}
