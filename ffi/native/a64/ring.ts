/**
 * The native callbacks Triton's threads call, as A64 machine code (AAPCS64, Linux): the
 * counterpart of the x86-64 ones, same entry points, same ring (`../ring_layout.ts`), same allocator
 * fast path.
 *
 * - `responseComplete(response, flags, userp)` and `requestRelease(request, flags, userp)`: push
 *   `(kind, object, flags, userp)` into the completion ring and wake the consumer through its
 *   eventfd (libc `write`) if it sleeps. A full ring makes the producer call libc `sched_yield`
 *   until the consumer frees the slot: nothing is dropped.
 * - `alloc`, `release`, `query`, `bufferAttributes`: the response allocator's CPU policy (libc
 *   `malloc`/`free`; policy and `buffer_userp` values from `cpuFastPath()`); every other policy
 *   branches, arguments untouched, to the JS allocator's function of the same kind.
 *
 * Memory order (aarch64 is weakly ordered; the JS consumer reads with `Atomics`, sequentially
 * consistent): a position is claimed with an `LDAXR`/`STLXR` loop on the tail (ARMv8.0, no LSE);
 * the slot's sequence number is read with `LDAR`, so the consumer's reads of the slot's previous
 * record come before this producer's stores; the record's four stores come before the `STLR` that
 * publishes `seq = pos + 1`; the `sleeping` flag is read with `LDAR` after that `STLR`, and a
 * store-release followed by a load-acquire is never reordered (ARMv8's acquire/release is RCsc):
 * a producer that finds the flag 0 published before the consumer's swap of the flag to 1, so the
 * consumer's re-check of the ring sees the record. The flag is swapped back to 0 with an
 * `LDAXR`/`STLXR` loop; only the producer that saw it set writes the eventfd.
 *
 * Every address, and the eventfd, comes from a table of 64-bit literals after the code (`LDR Xt,
 * label`, PC-relative): no address is built from immediates; the malloc failure message follows
 * the table and is addressed with `ADR`. Each entry starts with `BTI c` (a no-op unless the page
 * is guarded). `tests/a64_ring.test.ts` checks these bytes against
 * `tests/thunk_driver/aarch64_ring_reference.S` as the GNU assembler makes it, and runs them
 * under qemu-aarch64 from several threads.
 *
 * @module
 */
import { ErrorCode, MemoryType } from "../../enums.ts";
import { cpuFastPath } from "../cpu_fast_path.ts";
import { RingLayout } from "../ring_layout.ts";
import { MALLOC_FAILED, type ThunkCode, type ThunkTargets } from "../routines.ts";
import * as E from "./encoder.ts";
import { A64, Cond, Index } from "./encoder.ts";

/** The literal table after the code, in this order: name and the target it holds. */
const TABLE = [
  "ring",
  "schedYield",
  "write",
  "eventfd",
  "malloc",
  "free",
  "errorNew",
  "setMemoryType",
  "setMemoryTypeId",
  "jsAlloc",
  "jsRelease",
  "jsQuery",
  "jsBufferAttributes",
] as const;

const lit = (name: (typeof TABLE)[number]): string => `lit.${name}`;

/**
 * Generates the six functions for `t`.
 * @throws {Error} when the capacity is not a power of two in [2, 2^30], the eventfd is negative,
 * or the allocator's encodings no longer allow the fast path (see `../cpu_fast_path.ts`).
 */
export function generateRingA64(t: ThunkTargets): ThunkCode {
  if (t.capacity < 2 || (t.capacity & (t.capacity - 1)) !== 0 || t.capacity > 2 ** 30) {
    throw new Error(`ring capacity ${t.capacity} is not a power of two in [2, 2^30]`);
  }
  if (!Number.isInteger(t.eventfd) || t.eventfd < 0) throw new Error(`eventfd ${t.eventfd}`);
  const cpu = cpuFastPath();
  const L = RingLayout;
  const log2 = Math.log2(t.capacity);
  const SP = 31;
  const ZR = 31;
  const a = new A64();

  // ---- void responseComplete(TRITONSERVER_InferenceResponse* x0, uint32_t w1, void* x2)
  a.label("responseComplete");
  a.emit(E.btiC()); //                           bti c
  a.emit(E.movz(32, 3, 1)); //                   movz w3, #1          kind = RESPONSE
  a.b("push"); //                                b push

  // ---- void requestRelease(TRITONSERVER_InferenceRequest* x0, uint32_t w1, void* x2)
  a.label("requestRelease");
  a.emit(E.btiC()); //                           bti c
  a.emit(E.movz(32, 3, 2)); //                   movz w3, #2          kind = RELEASE
  a.label("push");
  a.ldrLiteral(9, lit("ring")); //               ldr x9, lit.ring     x9 = ring header
  a.label("claim");
  a.emit(E.ldaxr(64, 10, 9)); //                 ldaxr x10, [x9]      x10 = pos (tail)
  a.emit(E.addImm(64, 11, 10, 1)); //            add x11, x10, #1
  a.emit(E.stlxr(64, 12, 11, 9)); //             stlxr w12, x11, [x9] tail = pos + 1
  a.cbnz(32, 12, "claim"); //                    cbnz w12, claim      lost the monitor: again
  a.emit(E.ubfiz(64, 11, 10, 5, log2)); //       ubfiz x11, x10, #5, #log2   (pos & mask) × 32
  a.emit(E.addReg(64, 11, 9, 11)); //            add x11, x9, x11
  a.emit(E.addImm(64, 11, 11, L.SLOTS)); //      add x11, x11, #128   x11 = slot
  a.label("wait");
  a.emit(E.ldar(32, 12, 11)); //                 ldar w12, [x11]      seq (acquire)
  a.emit(E.cmpReg(32, 12, 10)); //               cmp w12, w10         seq == pos: slot free?
  a.bcond(Cond.eq, "claimed"); //                b.eq claimed
  a.emit(E.stp(64, 29, 30, SP, -64, Index.pre)); // stp x29, x30, [sp, #-64]!   ring full:
  a.emit(E.movSp(64, 29, SP)); //                mov x29, sp          let the consumer run
  a.emit(E.stp(64, 0, 1, SP, 16)); //            stp x0, x1, [sp, #16]
  a.emit(E.stp(64, 2, 3, SP, 32)); //            stp x2, x3, [sp, #32]
  a.emit(E.stp(64, 10, 11, SP, 48)); //          stp x10, x11, [sp, #48]
  a.ldrLiteral(16, lit("schedYield")); //        ldr x16, lit.schedYield
  a.emit(E.blr(16)); //                          blr x16              sched_yield()
  a.emit(E.ldp(64, 10, 11, SP, 48)); //          ldp x10, x11, [sp, #48]
  a.emit(E.ldp(64, 2, 3, SP, 32)); //            ldp x2, x3, [sp, #32]
  a.emit(E.ldp(64, 0, 1, SP, 16)); //            ldp x0, x1, [sp, #16]
  a.emit(E.ldp(64, 29, 30, SP, 64, Index.post)); // ldp x29, x30, [sp], #64
  a.ldrLiteral(9, lit("ring")); //               ldr x9, lit.ring     (the call clobbered x9)
  a.b("wait"); //                                b wait
  a.label("claimed");
  a.emit(E.strX(0, 11, L.SLOT_OBJECT)); //       str x0, [x11, #16]   object
  a.emit(E.strX(2, 11, L.SLOT_USERP)); //        str x2, [x11, #24]   userp
  a.emit(E.strW(1, 11, L.SLOT_FLAGS)); //        str w1, [x11, #8]    flags
  a.emit(E.strW(3, 11, L.SLOT_KIND)); //         str w3, [x11, #4]    kind
  a.emit(E.addImm(32, 12, 10, 1)); //            add w12, w10, #1     seq = pos + 1
  a.emit(E.stlr(32, 12, 11)); //                 stlr w12, [x11]      publish (release)
  a.emit(E.addImm(64, 13, 9, L.SLEEPING)); //    add x13, x9, #64
  a.emit(E.ldar(32, 12, 13)); //                 ldar w12, [x13]      asleep? (after the stlr)
  a.cbnz(32, 12, "wake"); //                     cbnz w12, wake
  a.emit(E.ret()); //                            ret
  a.label("wake");
  a.emit(E.ldaxr(32, 12, 13)); //                ldaxr w12, [x13]
  a.emit(E.stlxr(32, 14, ZR, 13)); //            stlxr w14, wzr, [x13] sleeping = 0
  a.cbnz(32, 14, "wake"); //                     cbnz w14, wake
  a.cbz(32, 12, "woken"); //                     cbz w12, woken       another producer woke it
  a.emit(E.stp(64, 29, 30, SP, -32, Index.pre)); // stp x29, x30, [sp, #-32]!
  a.emit(E.movSp(64, 29, SP)); //                mov x29, sp
  a.emit(E.movz(64, 12, 1)); //                  movz x12, #1
  a.emit(E.strX(12, SP, 16)); //                 str x12, [sp, #16]   u64 1 on the stack
  a.ldrLiteral(0, lit("eventfd")); //            ldr x0, lit.eventfd  write(fd,
  a.emit(E.addImm(64, 1, SP, 16)); //            add x1, sp, #16        &one,
  a.emit(E.movz(64, 2, 8)); //                   movz x2, #8            8)
  a.ldrLiteral(16, lit("write")); //             ldr x16, lit.write
  a.emit(E.blr(16)); //                          blr x16
  a.emit(E.ldp(64, 29, 30, SP, 32, Index.post)); // ldp x29, x30, [sp], #32
  a.label("woken");
  a.emit(E.ret()); //                            ret

  // ---- TRITONSERVER_Error* alloc(allocator x0, name x1, size_t byte_size x2, memory_type w3,
  //        int64_t memory_type_id x4, void* userp x5, void** buffer x6, void** buffer_userp x7,
  //        [sp] TRITONSERVER_MemoryType* actual_type, [sp+8] int64_t* actual_type_id)
  a.label("alloc");
  a.emit(E.btiC()); //                           bti c
  a.cbz(64, 5, "alloc.cpu"); //                  cbz x5, alloc.cpu    policy CPU (0)?
  a.ldrLiteral(16, lit("jsAlloc")); //           ldr x16, lit.jsAlloc
  a.emit(E.br(16)); //                           br x16               other policies: JS
  a.label("alloc.cpu");
  a.emit(E.stp(64, 29, 30, SP, -32, Index.pre)); // stp x29, x30, [sp, #-32]!
  a.emit(E.movSp(64, 29, SP)); //                mov x29, sp
  a.emit(E.stp(64, 6, 7, SP, 16)); //            stp x6, x7, [sp, #16]
  a.emit(E.cmpImm(64, 2, 0)); //                 cmp x2, #0
  a.emit(E.csinc(64, 0, 2, ZR, Cond.ne)); //     csinc x0, x2, xzr, ne  size, or 1: malloc(0)
  a.ldrLiteral(16, lit("malloc")); //            ldr x16, lit.malloc    may give NULL
  a.emit(E.blr(16)); //                          blr x16
  a.cbz(64, 0, "alloc.failed"); //               cbz x0, alloc.failed
  a.emit(E.ldp(64, 6, 7, SP, 16)); //            ldp x6, x7, [sp, #16]
  a.emit(E.strX(0, 6)); //                       str x0, [x6]         *buffer = p
  a.emit(E.movz(64, 9, cpu.bufferUserp)); //     movz x9, #1
  a.emit(E.strX(9, 7)); //                       str x9, [x7]         *buffer_userp: CPU, id 0
  a.emit(E.ldp(64, 10, 11, SP, 32)); //          ldp x10, x11, [sp, #32]  the stack arguments
  a.emit(E.strW(ZR, 10)); //                     str wzr, [x10]       *actual_type = CPU (0)
  a.emit(E.strX(ZR, 11)); //                     str xzr, [x11]       *actual_type_id = 0
  a.emit(E.movz(64, 0, 0)); //                   movz x0, #0          no error
  a.emit(E.ldp(64, 29, 30, SP, 32, Index.post)); // ldp x29, x30, [sp], #32
  a.emit(E.ret()); //                            ret
  a.label("alloc.failed");
  a.emit(E.movz(32, 0, ErrorCode.INTERNAL)); //  movz w0, #INTERNAL
  a.adr(1, "message"); //                        adr x1, message
  a.ldrLiteral(16, lit("errorNew")); //          ldr x16, lit.errorNew
  a.emit(E.blr(16)); //                          blr x16
  a.emit(E.ldp(64, 29, 30, SP, 32, Index.post)); // ldp x29, x30, [sp], #32
  a.emit(E.ret()); //                            ret

  // ---- TRITONSERVER_Error* release(allocator x0, buffer x1, buffer_userp x2,
  //        size_t byte_size x3, memory_type w4, int64_t memory_type_id x5)
  a.label("release");
  a.emit(E.btiC()); //                           bti c
  a.emit(E.cmpImm(64, 2, cpu.bufferUserp)); //   cmp x2, #1           a malloc'd CPU buffer?
  a.bcond(Cond.eq, "release.cpu"); //            b.eq release.cpu
  a.ldrLiteral(16, lit("jsRelease")); //         ldr x16, lit.jsRelease
  a.emit(E.br(16)); //                           br x16
  a.label("release.cpu");
  a.emit(E.stp(64, 29, 30, SP, -16, Index.pre)); // stp x29, x30, [sp, #-16]!
  a.emit(E.movSp(64, 29, SP)); //                mov x29, sp
  a.emit(E.movReg(64, 0, 1)); //                 mov x0, x1
  a.ldrLiteral(16, lit("free")); //              ldr x16, lit.free
  a.emit(E.blr(16)); //                          blr x16              free(buffer)
  a.emit(E.movz(64, 0, 0)); //                   movz x0, #0          no error
  a.emit(E.ldp(64, 29, 30, SP, 16, Index.post)); // ldp x29, x30, [sp], #16
  a.emit(E.ret()); //                            ret

  // ---- TRITONSERVER_Error* query(allocator x0, userp x1, name x2, size_t* byte_size x3,
  //        TRITONSERVER_MemoryType* memory_type x4, int64_t* memory_type_id x5)
  a.label("query");
  a.emit(E.btiC()); //                           bti c
  a.cbz(64, 1, "query.cpu"); //                  cbz x1, query.cpu    policy CPU (0)?
  a.ldrLiteral(16, lit("jsQuery")); //           ldr x16, lit.jsQuery
  a.emit(E.br(16)); //                           br x16
  a.label("query.cpu");
  a.emit(E.strW(ZR, 4)); //                      str wzr, [x4]        CPU (0)
  a.emit(E.strX(ZR, 5)); //                      str xzr, [x5]        id 0
  a.emit(E.movz(64, 0, 0)); //                   movz x0, #0
  a.emit(E.ret()); //                            ret

  // ---- TRITONSERVER_Error* bufferAttributes(allocator x0, name x1, attributes x2, userp x3,
  //        buffer_userp x4)
  a.label("bufferAttributes");
  a.emit(E.btiC()); //                           bti c
  a.emit(E.cmpImm(64, 4, cpu.bufferUserp)); //   cmp x4, #1           CPU id 0?
  a.bcond(Cond.eq, "attributes.cpu"); //         b.eq attributes.cpu
  a.ldrLiteral(16, lit("jsBufferAttributes")); // ldr x16, lit.jsBufferAttributes
  a.emit(E.br(16)); //                           br x16
  a.label("attributes.cpu");
  a.emit(E.stp(64, 29, 30, SP, -32, Index.pre)); // stp x29, x30, [sp, #-32]!
  a.emit(E.movSp(64, 29, SP)); //                mov x29, sp
  a.emit(E.strX(19, SP, 16)); //                 str x19, [sp, #16]   callee-saved: keeps
  a.emit(E.movReg(64, 19, 2)); //                mov x19, x2           attributes
  a.emit(E.movReg(64, 0, 2)); //                 mov x0, x2
  a.emit(E.movz(32, 1, MemoryType.CPU)); //      movz w1, #0          CPU
  a.ldrLiteral(16, lit("setMemoryType")); //     ldr x16, lit.setMemoryType
  a.emit(E.blr(16)); //                          blr x16
  a.cbnz(64, 0, "attributes.done"); //           cbnz x0, attributes.done  error: return it
  a.emit(E.movReg(64, 0, 19)); //                mov x0, x19
  a.emit(E.movz(64, 1, 0)); //                   movz x1, #0          id 0
  a.ldrLiteral(16, lit("setMemoryTypeId")); //   ldr x16, lit.setMemoryTypeId
  a.emit(E.blr(16)); //                          blr x16
  a.label("attributes.done");
  a.emit(E.ldrX(19, SP, 16)); //                 ldr x19, [sp, #16]
  a.emit(E.ldp(64, 29, 30, SP, 32, Index.post)); // ldp x29, x30, [sp], #32
  a.emit(E.ret()); //                            ret

  // ---- data: the literal table (8-byte aligned), then the malloc failure message
  a.align(8);
  for (const name of TABLE) {
    a.label(lit(name));
    a.quad(name === "eventfd" ? BigInt(t.eventfd) : t[name]);
  }
  a.label("message");
  a.bytes(new TextEncoder().encode(MALLOC_FAILED + "\0"));

  return {
    code: a.finish(),
    entries: {
      responseComplete: a.at("responseComplete"),
      requestRelease: a.at("requestRelease"),
      alloc: a.at("alloc"),
      release: a.at("release"),
      query: a.at("query"),
      bufferAttributes: a.at("bufferAttributes"),
    },
  };
}
