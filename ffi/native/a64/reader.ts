/**
 * The response reader as A64 machine code (AAPCS64, Linux): the counterpart of the x86-64 one and
 * of `../c/response_reader.c` (what it does and the layout: `../response_record.ts`).
 *
 * `int read(TRITONSERVER_InferenceResponse* response, uint8_t* record)`: 0 when read (the
 * response's own error may be set), 1 when a call failed (its error in `CALL_ERROR`). Its
 * signature is a `bsearch` comparator's, so that JS can call it through libc `bsearch` with one
 * element.
 *
 * Triton's functions and libc's `memcpy`/`memccpy` come from a literal table after the code.
 * Registers: x19 the response, x20 the record, x21 the index, x22 the current output or parameter
 * record, x23 how many to read, x24 the data area's next free offset (callee-saved). The 96-byte
 * frame holds, from sp up, the three stack arguments of `TRITONSERVER_InferenceResponseOutput`
 * (its 9th to 11th), then x29/x30 and x19–x24. `tests/a64_routines.test.ts` checks the bytes against
 * `tests/thunk_driver/aarch64_reader_reference.S` and runs them under qemu-aarch64.
 *
 * @module
 */
import { MemoryType, ParameterType } from "../../enums.ts";
import {
  DATA_LIMIT,
  MAX_DIMS,
  MAX_OUTPUTS,
  MAX_PARAMS,
  OutputRecord as O,
  ParamRecord as P,
  RECORD_BYTES,
  RecordLayout as L,
} from "../response_record.ts";
import type { ReaderTargets } from "../routines.ts";
import * as E from "./encoder.ts";
import { A64, Cond } from "./encoder.ts";

/** The literal table after the code, in this order. */
const TABLE = [
  "responseError",
  "outputCount",
  "output",
  "model",
  "id",
  "parameterCount",
  "parameter",
  "memcpy",
  "memccpy",
] as const;

/** `CMP Xn, #value` for 0 ≤ value < 2^24 that is below 4096 or a multiple of 4096. */
function cmpConst(rn: number, value: number): number {
  if (value < 4096) return E.cmpImm(64, rn, value);
  if (value % 4096 !== 0) throw new Error(`no CMP immediate for ${value}`);
  return E.cmpImm(64, rn, value / 4096, true);
}

/** Generates the reader; it starts at offset 0. */
export function generateReaderA64(t: ReaderTargets): Uint8Array {
  const SP = 31;
  const ZR = 31;
  const a = new A64();
  const call = (target: (typeof TABLE)[number]) => {
    a.ldrLiteral(16, `lit.${target}`); //     ldr x16, lit.target
    a.emit(E.blr(16)); //                     blr x16
  };
  const checked = () => a.cbnz(64, 0, "failed"); // cbnz x0, failed   an error
  /** copy_string(x0 = base + dst, x1 = [base + src], x3 = cap). */
  const copyString = (base: number, dst: number, src: number, cap: number) => {
    a.emit(E.addImm(64, 0, base, dst)); //    add x0, base, #dst
    a.emit(E.ldrX(1, base, src)); //          ldr x1, [base, #src]
    a.emit(E.movz(64, 3, cap)); //            movz x3, #cap
    a.bl("copy_string"); //                   bl copy_string
  };

  a.label("read");
  a.emit(E.btiC()); //                        bti c
  a.emit(E.subImm(64, SP, SP, 96)); //        sub sp, sp, #96
  a.emit(E.stp(64, 29, 30, SP, 32)); //       stp x29, x30, [sp, #32]
  a.emit(E.addImm(64, 29, SP, 32)); //        add x29, sp, #32
  a.emit(E.stp(64, 19, 20, SP, 48)); //       stp x19, x20, [sp, #48]
  a.emit(E.stp(64, 21, 22, SP, 64)); //       stp x21, x22, [sp, #64]
  a.emit(E.stp(64, 23, 24, SP, 80)); //       stp x23, x24, [sp, #80]
  a.emit(E.movReg(64, 19, 0)); //             mov x19, x0         response
  a.emit(E.movReg(64, 20, 1)); //             mov x20, x1         record
  a.emit(E.strX(ZR, 20, L.CALL_ERROR)); //    str xzr, [x20]

  // ---- the response's error: nothing else is read when it has one
  a.emit(E.movReg(64, 0, 19));
  call("responseError"); //                   ResponseError(response)
  a.emit(E.strX(0, 20, L.RESPONSE_ERROR));
  a.cbnz(64, 0, "ok");

  // ---- outputs
  a.emit(E.movReg(64, 0, 19));
  a.emit(E.addImm(64, 1, 20, L.OUTPUT_COUNT));
  call("outputCount"); //                     ResponseOutputCount(response, &count)
  checked();
  a.emit(E.ldrW(23, 20, L.OUTPUT_COUNT)); //  w23 = count
  a.emit(E.cmpImm(32, 23, MAX_OUTPUTS));
  a.bcond(Cond.ls, "outputs.bounded");
  a.emit(E.movz(32, 23, MAX_OUTPUTS)); //     at most MAX_OUTPUTS
  a.label("outputs.bounded");
  a.emit(E.movz(32, 24, L.DATA)); //          w24 = data area
  a.emit(E.movz(32, 21, 0)); //               i = 0
  a.emit(E.addImm(64, 22, 20, L.OUTPUTS)); // x22 = output record 0
  a.label("outputs.loop");
  a.emit(E.cmpReg(32, 21, 23));
  a.bcond(Cond.hs, "outputs.done");
  a.emit(E.movReg(64, 0, 19)); //             response
  a.emit(E.movReg(32, 1, 21)); //             index
  const inRegisters = [O.NAME, O.DATATYPE, O.SHAPE, O.DIM_COUNT, O.BASE, O.BYTE_SIZE];
  inRegisters.forEach((field, k) => a.emit(E.addImm(64, 2 + k, 22, field))); // x2..x7 = &field
  a.emit(E.addImm(64, 9, 22, O.MEMORY_TYPE));
  a.emit(E.addImm(64, 10, 22, O.MEMORY_TYPE_ID));
  a.emit(E.stp(64, 9, 10, SP, 0)); //         9th, 10th arguments on the stack
  a.emit(E.addImm(64, 9, 22, O.USERP));
  a.emit(E.strX(9, SP, 16)); //               11th
  call("output"); //                          ResponseOutput(response, i, &name, ...)
  checked();
  copyString(22, O.NAME_COPY, O.NAME, L.NAME_CAP);
  a.emit(E.ldrX(2, 22, O.DIM_COUNT));
  a.emit(E.cmpImm(64, 2, MAX_DIMS));
  a.bcond(Cond.hi, "shape.skip"); //          more than MAX_DIMS: left to JS
  a.emit(E.addImm(64, 0, 22, O.SHAPE_COPY));
  a.emit(E.ldrX(1, 22, O.SHAPE));
  a.emit(E.lslImm(64, 2, 2, 3)); //           dims × 8 bytes
  call("memcpy");
  a.label("shape.skip");
  a.emit(E.strX(ZR, 22, O.DATA)); //          not copied (yet)
  a.emit(E.ldrW(9, 22, O.MEMORY_TYPE));
  a.emit(E.cmpImm(32, 9, MemoryType.GPU));
  a.bcond(Cond.eq, "data.skip"); //           GPU memory: never read from the host
  a.emit(E.ldrX(2, 22, O.BYTE_SIZE));
  a.emit(cmpConst(2, DATA_LIMIT));
  a.bcond(Cond.hi, "data.skip"); //           too large for a copy
  a.emit(E.addReg(64, 9, 24, 2)); //          x9 = end of the copy
  a.emit(cmpConst(9, RECORD_BYTES));
  a.bcond(Cond.hi, "data.skip"); //           does not fit
  a.emit(E.strX(24, 22, O.DATA)); //          where the copy goes
  a.emit(E.addReg(64, 0, 20, 24)); //         x0 = record + offset
  a.emit(E.ldrX(1, 22, O.BASE));
  a.emit(E.addImm(64, 24, 9, 7));
  a.emit(E.lsrImm(64, 24, 24, 3));
  a.emit(E.lslImm(64, 24, 24, 3)); //         next offset, a multiple of 8
  call("memcpy"); //                          memcpy(record + offset, base, size)
  a.label("data.skip");
  a.emit(E.addImm(32, 21, 21, 1));
  a.emit(E.addImm(64, 22, 22, L.OUTPUT_SIZE));
  a.b("outputs.loop");
  a.label("outputs.done");

  // ---- model and id
  a.emit(E.movReg(64, 0, 19));
  a.emit(E.addImm(64, 1, 20, L.MODEL_NAME));
  a.emit(E.addImm(64, 2, 20, L.MODEL_VERSION));
  call("model"); //                           ResponseModel(response, &name, &version)
  checked();
  copyString(20, L.MODEL_COPY, L.MODEL_NAME, L.STRING_CAP);
  a.emit(E.movReg(64, 0, 19));
  a.emit(E.addImm(64, 1, 20, L.ID));
  call("id"); //                              ResponseId(response, &id)
  checked();
  copyString(20, L.ID_COPY, L.ID, L.STRING_CAP);

  // ---- parameters
  a.emit(E.movReg(64, 0, 19));
  a.emit(E.addImm(64, 1, 20, L.PARAM_COUNT));
  call("parameterCount"); //                  ResponseParameterCount(response, &count)
  checked();
  a.emit(E.ldrW(23, 20, L.PARAM_COUNT));
  a.emit(E.cmpImm(32, 23, MAX_PARAMS));
  a.bcond(Cond.ls, "params.bounded");
  a.emit(E.movz(32, 23, MAX_PARAMS));
  a.label("params.bounded");
  a.emit(E.movz(32, 21, 0));
  a.emit(E.addImm(64, 22, 20, L.PARAMS));
  a.label("params.loop");
  a.emit(E.cmpReg(32, 21, 23));
  a.bcond(Cond.hs, "ok");
  a.emit(E.movReg(64, 0, 19));
  a.emit(E.movReg(32, 1, 21));
  a.emit(E.addImm(64, 2, 22, P.NAME));
  a.emit(E.addImm(64, 3, 22, P.TYPE));
  a.emit(E.addImm(64, 4, 22, P.VALUE));
  call("parameter"); //                       ResponseParameter(response, i, &name, &type, &value)
  checked();
  copyString(22, P.NAME_COPY, P.NAME, L.NAME_CAP);
  a.emit(E.ldrW(9, 22, P.TYPE));
  a.emit(E.cmpImm(32, 9, ParameterType.STRING));
  a.bcond(Cond.ne, "param.scalar");
  copyString(22, P.STRING_COPY, P.VALUE, L.VALUE_CAP);
  a.b("param.next");
  a.label("param.scalar");
  a.emit(E.strX(ZR, 22, P.SCALAR));
  a.emit(E.ldrX(1, 22, P.VALUE));
  a.cbz(64, 1, "param.next"); //              no value: 0
  a.emit(E.cmpImm(32, 9, ParameterType.BOOL));
  a.bcond(Cond.ne, "param.wide");
  a.emit(E.ldrb(10, 1)); //                   ldrb w10, [x1]
  a.emit(E.strX(10, 22, P.SCALAR));
  a.b("param.next");
  a.label("param.wide");
  a.emit(E.cmpImm(32, 9, ParameterType.INT));
  a.bcond(Cond.eq, "param.copy8");
  a.emit(E.cmpImm(32, 9, ParameterType.DOUBLE));
  a.bcond(Cond.ne, "param.next"); //          another type: left to JS
  a.label("param.copy8");
  a.emit(E.ldrX(10, 1));
  a.emit(E.strX(10, 22, P.SCALAR));
  a.label("param.next");
  a.emit(E.addImm(32, 21, 21, 1));
  a.emit(E.addImm(64, 22, 22, L.PARAM_SIZE));
  a.b("params.loop");

  // ---- return
  a.label("ok");
  a.emit(E.movz(32, 0, 0)); //                0: read
  a.b("exit");
  a.label("failed");
  a.emit(E.strX(0, 20, L.CALL_ERROR)); //     the failed call's error
  a.emit(E.movz(32, 0, 1)); //                1: a call failed
  a.label("exit");
  a.emit(E.ldp(64, 23, 24, SP, 80));
  a.emit(E.ldp(64, 21, 22, SP, 64));
  a.emit(E.ldp(64, 19, 20, SP, 48));
  a.emit(E.ldp(64, 29, 30, SP, 32));
  a.emit(E.addImm(64, SP, SP, 96));
  a.emit(E.ret());

  // ---- copy_string(x0 dst, x1 src, x3 cap): memccpy(dst, src, 0, cap); NULL copies as "".
  // A tail call: memccpy returns to copy_string's caller (x30 from its BL).
  a.label("copy_string");
  a.cbz(64, 1, "copy_string.null");
  a.emit(E.movz(32, 2, 0)); //                c = 0 (the NUL)
  a.ldrLiteral(16, "lit.memccpy");
  a.emit(E.br(16));
  a.label("copy_string.null");
  a.emit(E.strb(ZR, 0)); //                   strb wzr, [x0]
  a.emit(E.ret());

  a.align(8);
  for (const name of TABLE) {
    a.label(`lit.${name}`);
    a.quad(t[name]);
  }
  return a.finish();
}
