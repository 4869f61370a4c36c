/**
 * The request submitter as A64 machine code (AAPCS64, Linux): the counterpart of the x86-64 one.
 * Builds one inference request from the request record and submits it (what it does and the
 * layout: `request_record.ts`; what it is for: `request_submitter.ts`).
 *
 * `int submit(uint8_t* record, const void* unused)`: 0 when Triton took the request, 1 when a call
 * failed (its error in `ERROR`). Its signature is a `bsearch` comparator's, so that JS calls it
 * through libc `bsearch` with one element. Nothing is embedded: Triton's functions are read from
 * the record's function table, so the code is the same at any address.
 * `tests/a64_routines.test.ts` checks the bytes against
 * `tests/thunk_driver/aarch64_submit_reference.S` and runs them under qemu-aarch64. Registers:
 * x19 the record, x20 the current input record, x21 the inputs left (callee-saved, kept in a
 * 48-byte frame with x29 and x30).
 *
 * @module
 */
import { InputRecord as I, RequestLayout as L } from "../request_record.ts";
import * as E from "./encoder.ts";
import { A64, Index } from "./encoder.ts";

/** Generates the submitter; it starts at offset 0. */
export function generateSubmitA64(): Uint8Array {
  const SP = 31;
  const ZR = 31;
  const a = new A64();
  const load = (rt: number, base: number, offset: number) => a.emit(E.ldrX(rt, base, offset));
  /** Calls Triton's function `index` of the record's table; a non-NULL error goes to `failed`. */
  const call = (index: number) => {
    load(16, 19, L.FUNCTIONS + 8 * index); //         ldr x16, [x19, #8·index]
    a.emit(E.blr(16)); //                             blr x16
    a.cbnz(64, 0, "failed"); //                       cbnz x0, failed   an error
  };

  a.emit(E.btiC()); //                                bti c
  a.emit(E.stp(64, 29, 30, SP, -48, Index.pre)); //   stp x29, x30, [sp, #-48]!
  a.emit(E.movSp(64, 29, SP)); //                     mov x29, sp
  a.emit(E.stp(64, 19, 20, SP, 16)); //               stp x19, x20, [sp, #16]
  a.emit(E.strX(21, SP, 32)); //                      str x21, [sp, #32]
  a.emit(E.movReg(64, 19, 0)); //                     mov x19, x0       the record
  a.emit(E.strX(ZR, 19, L.REQUEST)); //               str xzr, [x19, #REQUEST]
  a.emit(E.strX(ZR, 19, L.ERROR)); //                 str xzr, [x19, #ERROR]

  // ---- RequestNew(&request, server, model, version)
  a.emit(E.addImm(64, 0, 19, L.REQUEST));
  load(1, 19, L.SERVER);
  load(2, 19, L.MODEL);
  load(3, 19, L.VERSION);
  call(0);

  // ---- every input: AddInput, then AppendInputData when it has bytes
  a.emit(E.addImm(64, 20, 19, L.INPUTS)); //          x20 = input record 0
  load(21, 19, L.INPUT_COUNT); //                     x21 = inputs left
  a.label("inputs.loop");
  a.cbz(64, 21, "inputs.done");
  load(0, 19, L.REQUEST);
  load(1, 20, I.NAME);
  load(2, 20, I.DATATYPE);
  load(3, 20, I.SHAPE);
  load(4, 20, I.DIM_COUNT);
  call(1); //                                         AddInput(request, name, dtype, shape, dims)
  load(3, 20, I.BYTE_SIZE);
  a.cbz(64, 3, "inputs.next"); //                     no bytes: nothing to append
  load(0, 19, L.REQUEST);
  load(1, 20, I.NAME);
  load(2, 20, I.BASE);
  load(4, 20, I.MEMORY_TYPE);
  load(5, 20, I.MEMORY_TYPE_ID);
  call(2); //                                         AppendInputData(request, name, base, size, …)
  a.label("inputs.next");
  a.emit(E.addImm(64, 20, 20, L.INPUT_SIZE));
  a.emit(E.subImm(64, 21, 21, 1));
  a.b("inputs.loop");
  a.label("inputs.done");

  // ---- SetReleaseCallback(request, release, userp)
  load(0, 19, L.REQUEST);
  load(1, 19, L.RELEASE_FN);
  load(2, 19, L.USERP);
  call(3);
  // ---- SetResponseCallback(request, allocator, allocator userp, response, userp)
  load(0, 19, L.REQUEST);
  load(1, 19, L.ALLOCATOR);
  load(2, 19, L.ALLOCATOR_USERP);
  load(3, 19, L.RESPONSE_FN);
  load(4, 19, L.USERP);
  call(4);
  // ---- ServerInferAsync(server, request, NULL)
  load(0, 19, L.SERVER);
  load(1, 19, L.REQUEST);
  a.emit(E.movz(64, 2, 0));
  call(5);

  a.emit(E.movz(32, 0, 0)); //                        0: submitted
  a.b("exit");
  a.label("failed");
  a.emit(E.strX(0, 19, L.ERROR)); //                  the failed call's error
  a.emit(E.movz(32, 0, 1)); //                        1: a call failed
  a.label("exit");
  a.emit(E.ldrX(21, SP, 32)); //                      ldr x21, [sp, #32]
  a.emit(E.ldp(64, 19, 20, SP, 16)); //               ldp x19, x20, [sp, #16]
  a.emit(E.ldp(64, 29, 30, SP, 48, Index.post)); //   ldp x29, x30, [sp], #48
  a.emit(E.ret());
  return a.finish();
}
