/**
 * The batch deleter's comparator as A64 machine code (AAPCS64, Linux): the same function as
 * `../c/delete_each.c` and the x86-64 one (what it is for: `../deletes.ts`).
 *
 * `int deleteEach(void* const* table, const uint64_t* item)`: `*item` is a native object's address
 * with its kind in bit 0 (0 a response, 1 a request, whose addresses are 8-byte aligned); calls
 * `table[kind](*item & ~1)` (`TRITONSERVER_InferenceResponseDelete` or
 * `TRITONSERVER_InferenceRequestDelete`, whose error is not read) and returns 1, so that libc
 * `lfind` goes on to the next item. Nothing is embedded: the code is the same at any address.
 * `tests/a64_routines.test.ts` checks the bytes against
 * `tests/thunk_driver/aarch64_delete_each_reference.S` and runs them under qemu-aarch64.
 *
 * @module
 */
import * as E from "./encoder.ts";
import { A64, Index } from "./encoder.ts";

/** Generates the comparator; it starts at offset 0. */
export function generateDeleteEachA64(): Uint8Array {
  const SP = 31;
  const a = new A64();
  a.emit(E.btiC()); //                               bti c
  a.emit(E.stp(64, 29, 30, SP, -16, Index.pre)); //  stp x29, x30, [sp, #-16]!
  a.emit(E.movSp(64, 29, SP)); //                    mov x29, sp
  a.emit(E.ldrX(2, 1)); //                           ldr x2, [x1]         the item
  a.emit(E.ubfx(64, 3, 2, 0, 1)); //                 ubfx x3, x2, #0, #1  its kind
  a.emit(E.ldrXReg(16, 0, 3, true)); //              ldr x16, [x0, x3, lsl #3]  table[kind]
  a.emit(E.subReg(64, 0, 2, 3)); //                  sub x0, x2, x3       the address
  a.emit(E.blr(16)); //                              blr x16
  a.emit(E.movz(32, 0, 1)); //                       movz w0, #1          not found: next item
  a.emit(E.ldp(64, 29, 30, SP, 16, Index.post)); //  ldp x29, x30, [sp], #16
  a.emit(E.ret()); //                                ret
  return a.finish();
}
