/**
 * The three atomic operations of the C ring producers (`../c/ring_producer.c`), as A64 functions,
 * for a C compiler that has none of its own on aarch64: Bun's TinyCC accepts no A64 instruction in
 * inline assembly and its `__atomic` builtins need a runtime library that `cc()` does not link.
 * `../bun_ring.ts` places this code (`Routines.atomics`) and hands the three entry points to the
 * C (`tritonffi_ring_atomics`), which calls them through function pointers.
 *
 * - `fetchIncrement(uint64_t* p)`: `*p += 1`, returns the old value (`LDAXR`/`STLXR` loop:
 *   acquire and release, as GCC makes a sequentially consistent fetch-add without LSE);
 * - `exchange(uint32_t* p, uint32_t v)`: `*p = v`, returns the old value (`LDAXR`/`STLXR` loop);
 * - `loadAcquire(uint32_t* p)`: `LDAR`.
 *
 * A store-release followed by a load-acquire is never reordered (ARMv8's acquire/release is RCsc),
 * so the C's publish (`exchange` of the slot's sequence number) comes before its read of the
 * `sleeping` flag (`loadAcquire`), as in `ring.ts`.
 *
 * @module
 */
import type { AtomicsEntries } from "../routines.ts";
import * as E from "./encoder.ts";
import { A64 } from "./encoder.ts";

/** Generates the three functions (nothing embedded). */
export function generateAtomicsA64(): { code: Uint8Array; entries: AtomicsEntries } {
  const a = new A64();
  a.label("fetchIncrement");
  a.emit(E.btiC()); //                         bti c
  a.label("fetchIncrement.retry");
  a.emit(E.ldaxr(64, 1, 0)); //                ldaxr x1, [x0]
  a.emit(E.addImm(64, 2, 1, 1)); //            add x2, x1, #1
  a.emit(E.stlxr(64, 3, 2, 0)); //             stlxr w3, x2, [x0]
  a.cbnz(32, 3, "fetchIncrement.retry"); //    cbnz w3, fetchIncrement.retry
  a.emit(E.movReg(64, 0, 1)); //               mov x0, x1
  a.emit(E.ret()); //                          ret

  a.label("exchange");
  a.emit(E.btiC()); //                         bti c
  a.label("exchange.retry");
  a.emit(E.ldaxr(32, 2, 0)); //                ldaxr w2, [x0]
  a.emit(E.stlxr(32, 3, 1, 0)); //             stlxr w3, w1, [x0]
  a.cbnz(32, 3, "exchange.retry"); //          cbnz w3, exchange.retry
  a.emit(E.movReg(32, 0, 2)); //               mov w0, w2
  a.emit(E.ret()); //                          ret

  a.label("loadAcquire");
  a.emit(E.btiC()); //                         bti c
  a.emit(E.ldar(32, 0, 0)); //                 ldar w0, [x0]
  a.emit(E.ret()); //                          ret
  return {
    code: a.finish(),
    entries: {
      fetchIncrement: a.at("fetchIncrement"),
      exchange: a.at("exchange"),
      loadAcquire: a.at("loadAcquire"),
    },
  };
}
