/**
 * The placing allocator's fast path as A64 machine code (AAPCS64, Linux): the counterpart of the
 * x86-64 one. An output named in the request's output placement table (`output_placement.ts`)
 * that fits its part gets the part's address without a call into JS.
 *
 * - `alloc`: walks the table (`count`, `policy`, then `name`, `address`, `byteSize` per entry),
 *   comparing the tensor name byte by byte with each entry's; a match that fits writes the
 *   address, `buffer_userp` REGION, CPU memory, id 0, and returns NULL. Anything else (a NULL
 *   name, no match, an output larger than its part) branches, arguments untouched, to the JS
 *   placing alloc, which allocates by the table's policy or returns tritonserver's error.
 * - `release`: REGION is released without a free; any other buffer goes to the ordinary
 *   allocator's release (its CPU fast path, else JS).
 *
 * Only scratch registers (x9–x14, x16) are used, so neither function saves anything. The two
 * targets come from a literal table after the code. `tests/a64_routines.test.ts` checks the bytes
 * against `tests/thunk_driver/aarch64_placing_reference.S` and runs them under qemu-aarch64.
 *
 * @module
 */
import { BufferUserp } from "../../allocator.ts";
import { MemoryType } from "../../enums.ts";
import type { PlacingEntries, PlacingTargets } from "../routines.ts";
import * as E from "./encoder.ts";
import { A64, Cond } from "./encoder.ts";

/** The table's layout, as `output_placement.ts` writes it. */
const HEADER_BYTES = 16;
const ENTRY_BYTES = 24;

/** Generates `alloc` and `release` for `t`. */
export function generatePlacingA64(
  t: PlacingTargets,
): { code: Uint8Array; entries: PlacingEntries } {
  if (MemoryType.CPU !== 0) throw new Error("the placing fast path stores CPU as 0");
  const SP = 31;
  const ZR = 31;
  const a = new A64();

  // ---- TRITONSERVER_Error* alloc(allocator x0, name x1, size_t byte_size x2, memory_type w3,
  //        int64_t memory_type_id x4, void* userp (the table) x5, void** buffer x6,
  //        void** buffer_userp x7, [sp] TRITONSERVER_MemoryType* actual_type,
  //        [sp+8] int64_t* actual_type_id)
  a.label("alloc");
  a.emit(E.btiC()); //                         bti c
  a.cbz(64, 1, "alloc.js"); //                 cbz x1, alloc.js     no name: JS
  a.emit(E.ldrX(9, 5)); //                     ldr x9, [x5]         entries left
  a.emit(E.addImm(64, 10, 5, HEADER_BYTES)); // add x10, x5, #16    the first entry
  a.label("alloc.next");
  a.cbz(64, 9, "alloc.js"); //                 cbz x9, alloc.js     not placed: JS
  a.emit(E.ldrX(11, 10)); //                   ldr x11, [x10]       the entry's name
  a.emit(E.movReg(64, 12, 1)); //              mov x12, x1          the tensor's name
  a.label("alloc.compare");
  a.emit(E.ldrb(13, 11)); //                   ldrb w13, [x11]
  a.emit(E.ldrb(14, 12)); //                   ldrb w14, [x12]
  a.emit(E.cmpReg(32, 13, 14)); //             cmp w13, w14
  a.bcond(Cond.ne, "alloc.skip"); //           b.ne alloc.skip
  a.cbz(32, 13, "alloc.found"); //             cbz w13, alloc.found both ended: the same name
  a.emit(E.addImm(64, 11, 11, 1)); //          add x11, x11, #1
  a.emit(E.addImm(64, 12, 12, 1)); //          add x12, x12, #1
  a.b("alloc.compare"); //                     b alloc.compare
  a.label("alloc.skip");
  a.emit(E.addImm(64, 10, 10, ENTRY_BYTES)); // add x10, x10, #24
  a.emit(E.subImm(64, 9, 9, 1)); //            sub x9, x9, #1
  a.b("alloc.next"); //                        b alloc.next
  a.label("alloc.found");
  a.emit(E.ldrX(11, 10, 16)); //               ldr x11, [x10, #16]  the part's bytes
  a.emit(E.cmpReg(64, 2, 11)); //              cmp x2, x11
  a.bcond(Cond.hi, "alloc.js"); //             b.hi alloc.js        larger: JS gives the error
  a.emit(E.ldrX(11, 10, 8)); //                ldr x11, [x10, #8]   the part's address
  a.emit(E.strX(11, 6)); //                    str x11, [x6]        *buffer
  a.emit(E.movz(64, 12, BufferUserp.REGION)); // movz x12, #0xff
  a.emit(E.strX(12, 7)); //                    str x12, [x7]        *buffer_userp = REGION
  a.emit(E.ldp(64, 13, 14, SP, 0)); //         ldp x13, x14, [sp]   the stack arguments
  a.emit(E.strW(ZR, 13)); //                   str wzr, [x13]       *actual_type = CPU
  a.emit(E.strX(ZR, 14)); //                   str xzr, [x14]       *actual_type_id = 0
  a.emit(E.movz(64, 0, 0)); //                 movz x0, #0          no error
  a.emit(E.ret()); //                          ret
  a.label("alloc.js");
  a.ldrLiteral(16, "lit.jsAlloc"); //          ldr x16, lit.jsAlloc
  a.emit(E.br(16)); //                         br x16               arguments untouched

  // ---- TRITONSERVER_Error* release(allocator x0, buffer x1, buffer_userp x2,
  //        size_t byte_size x3, memory_type w4, int64_t memory_type_id x5)
  a.label("release");
  a.emit(E.btiC()); //                         bti c
  a.emit(E.cmpImm(64, 2, BufferUserp.REGION)); // cmp x2, #0xff     a placed output?
  a.bcond(Cond.ne, "release.other"); //        b.ne release.other
  a.emit(E.movz(64, 0, 0)); //                 movz x0, #0          nothing to free
  a.emit(E.ret()); //                          ret
  a.label("release.other");
  a.ldrLiteral(16, "lit.release"); //          ldr x16, lit.release
  a.emit(E.br(16)); //                         br x16

  a.align(8);
  a.label("lit.jsAlloc");
  a.quad(t.jsAlloc);
  a.label("lit.release");
  a.quad(t.release);
  return { code: a.finish(), entries: { alloc: a.at("alloc"), release: a.at("release") } };
}
