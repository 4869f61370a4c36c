/**
 * The instruction-cache flush for code written at run time on aarch64, as A64 machine code:
 * `flush(start, end)` (`void (*)(void* start, void* end)`, AAPCS64), what GCC's
 * `__builtin___clear_cache` does. aarch64's instruction fetch does not see data stores until the
 * data cache is cleaned to the point of unification and the instruction cache invalidated; libgcc's
 * `__clear_cache` is not in libc, so the FFI runtimes cannot call it, hence this routine.
 *
 * It reads the line sizes from `CTR_EL0` (Linux lets user space read it), cleans each data cache
 * line of [start, end) with `DC CVAU`, waits with `DSB ISH`, invalidates each instruction cache
 * line with `IC IVAU` (broadcast to every core of the inner shareable domain), waits with
 * `DSB ISH` again and ends with `ISB` (the calling core refetches). Other threads that later
 * branch to the code need nothing more: their first fetch misses the invalidated lines.
 *
 * What the code placer must do on aarch64 (`placeCode` in `../../os.ts` with `cache_flush.ts`'s
 * `flushA64` does it): write the routines into a private anonymous mapping made readable
 * and writable, `mprotect` it to read and execute, then call `flush` over the bytes before any
 * thread runs them. The flush routine itself cannot be flushed by itself: it is placed
 * the same way on its own fresh page, and runs without a flush because Linux (arm64) does the
 * maintenance for a page the first time it maps it executable: `set_pte_at` with a user-executable
 * entry cleans the data cache to the point of unification and invalidates the instruction cache
 * for a page whose `PG_dcache_clean` flag is clear, then sets the flag. A page newly allocated to
 * an anonymous mapping has the flag clear; so a fresh mapping written while read+write and then
 * made executable with `mprotect` runs correctly without a flush, but ONLY IF none of its pages
 * was mapped executable before (the kernel syncs each page once: code written again on a page that
 * was already executable, or made read+write and executable again, is not synced) and the code is
 * written before the page becomes executable (with a read+write+execute mapping the kernel syncs
 * at the first fault, before the bytes are written). Anything else — rewriting code in place,
 * reusing a page, an RWX mapping — must call `flush`.
 *
 * `tests/a64_ring.test.ts` checks the bytes against `tests/thunk_driver/aarch64_flush_reference.S`
 * and runs the routine under qemu-aarch64 (which keeps no caches: that run shows only that it
 * executes and returns over a range; the ordering is the architecture's).
 *
 * @module
 */
import * as E from "./encoder.ts";
import { A64, Cond } from "./encoder.ts";

/** Generates `flush(start, end)`; it starts at offset 0 (nothing embedded). */
export function generateFlushA64(): { code: Uint8Array; entries: { flush: number } } {
  const a = new A64();
  a.label("flush");
  a.emit(E.btiC()); //                         bti c
  a.emit(E.mrsCtrEl0(3)); //                   mrs x3, ctr_el0
  a.emit(E.movz(64, 5, 4)); //                 movz x5, #4          a line is 4 << log2 words
  a.emit(E.ubfx(64, 4, 3, 16, 4)); //          ubfx x4, x3, #16, #4 DminLine
  a.emit(E.lslReg(64, 4, 5, 4)); //            lsl x4, x5, x4       data line bytes
  a.emit(E.subImm(64, 6, 4, 1)); //            sub x6, x4, #1
  a.emit(E.andReg(64, 6, 0, 6)); //            and x6, x0, x6
  a.emit(E.subReg(64, 7, 0, 6)); //            sub x7, x0, x6       start, down to a line
  a.label("flush.data");
  a.emit(E.dcCvau(7)); //                      dc cvau, x7          clean to the PoU
  a.emit(E.addReg(64, 7, 7, 4)); //            add x7, x7, x4
  a.emit(E.cmpReg(64, 7, 1)); //               cmp x7, x1
  a.bcond(Cond.lo, "flush.data"); //           b.lo flush.data
  a.emit(E.dsbIsh()); //                       dsb ish
  a.emit(E.ubfx(64, 4, 3, 0, 4)); //           ubfx x4, x3, #0, #4  IminLine
  a.emit(E.lslReg(64, 4, 5, 4)); //            lsl x4, x5, x4       instruction line bytes
  a.emit(E.subImm(64, 6, 4, 1)); //            sub x6, x4, #1
  a.emit(E.andReg(64, 6, 0, 6)); //            and x6, x0, x6
  a.emit(E.subReg(64, 7, 0, 6)); //            sub x7, x0, x6
  a.label("flush.instructions");
  a.emit(E.icIvau(7)); //                      ic ivau, x7          invalidate (every core)
  a.emit(E.addReg(64, 7, 7, 4)); //            add x7, x7, x4
  a.emit(E.cmpReg(64, 7, 1)); //               cmp x7, x1
  a.bcond(Cond.lo, "flush.instructions"); //   b.lo flush.instructions
  a.emit(E.dsbIsh()); //                       dsb ish
  a.emit(E.isb()); //                          isb
  a.emit(E.ret()); //                          ret
  return { code: a.finish(), entries: { flush: a.at("flush") } };
}
