/**
 * aarch64's {@link CacheFlush}: runs the generated `flush(start, end)` (`flush.ts`: `DC CVAU`,
 * `IC IVAU`, barriers) over code just placed, before any thread runs it.
 *
 * The flush routine is placed once per runtime adapter, on a fresh page of its own, without a
 * flush of its own: Linux (arm64) cleans and invalidates the caches for a page the first time it
 * maps it executable, and `placeCode` writes the code while the page is read+write, before the
 * `mprotect` that makes it executable (`flush.ts` says when that holds). JS calls it through libc
 * `bsearch` with one element, which calls its comparator once as `compar(key, base)`: key = start,
 * base = end.
 *
 * @module
 */
import { coherentCaches, os, PAGE_SIZE, placeCode } from "../../os.ts";
import type { CacheFlush } from "../../os.ts";
import type { FfiRuntime, Ptr } from "../../types.ts";
import { generateFlushA64 } from "./flush.ts";

/** The placed flush routine, per runtime adapter. */
const placed = new WeakMap<FfiRuntime, Ptr>();

/**
 * Makes `[code, code + length)` visible to instruction fetch on every core.
 * @throws {ExecMemoryError} when the flush routine's page is refused executable memory.
 */
export const flushA64: CacheFlush = (ffi, code, length) => {
  let flush = placed.get(ffi);
  if (flush === undefined) {
    // A fresh page made executable once: the kernel syncs it (see the module's comment).
    flush = placeCode(ffi, PAGE_SIZE, () => generateFlushA64().code, coherentCaches);
    placed.set(ffi, flush);
  }
  const end = ffi.fromAddress(ffi.address(code) + length);
  os(ffi).sync.bsearch(code, end, 1n, 1n, flush);
};
