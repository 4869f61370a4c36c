/**
 * The response reader as x86-64 machine code (System V ABI, Linux), for Deno and Node: the same
 * function as `ffi/native/c/response_reader.c` (what it does and the layout:
 * `../response_record.ts`).
 *
 * `int read(TRITONSERVER_InferenceResponse* response, uint8_t* record)`: 0 when read (the
 * response's own error may be set), 1 when a call failed (its error in `CALL_ERROR`). Its
 * signature is a `bsearch` comparator's, so that JS can call it through libc `bsearch` with one
 * element (a fast FFI call on every runtime; see `../response_reader.ts`).
 *
 * Triton's functions and libc's `memcpy`/`memccpy` (addresses from `dlsym`) are called through
 * the address table after the code (`call [rip+disp32]`), in the order first called.
 * Registers: rbx the response, r12 the record, r13 the index, r14 the current output or parameter
 * record, r15 how many to read, rbp the data area's next free offset (all callee-saved).
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
import { Cond, R, X64 } from "./encoder.ts";

/** Generates the reader; it starts at offset 0. */
export function generateReaderX8664(t: ReaderTargets): Uint8Array {
  const a = new X64();
  const { rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8, r9, r12, r13, r14, r15 } = R;
  /** `call [rip + the table's entry]` to `t[name]`. */
  const call = (name: keyof ReaderTargets) => {
    a.callMem(a.address(name, t[name])); //   call [rip+name]
  };
  const checked = () => {
    a.test(rax, rax, true); //                test rax, rax       an error?
    a.jcc32(Cond.ne, "failed"); //            jne failed
  };
  /** copy_string(rdi = dst, rsi = [src], ecx = cap). */
  const copyString = (
    dst: { base: number; disp: number },
    src: { base: number; disp: number },
    cap: number,
  ) => {
    a.lea(rdi, dst); //                       lea rdi, dst
    a.load64(rsi, src); //                    mov rsi, src
    a.movImm32(rcx, cap); //                  mov ecx, cap
    a.call32("copy_string"); //               call copy_string
  };

  a.label("read");
  a.endbr64();
  for (const r of [rbx, rbp, r12, r13, r14, r15]) a.push(r); // callee-saved; rsp ≡ 8 (mod 16)
  a.subImm(rsp, 40, true); //                 sub rsp, 40         5 stack arguments; aligned
  a.mov(rbx, rdi, true); //                   mov rbx, rdi        response
  a.mov(r12, rsi, true); //                   mov r12, rsi        record
  a.storeImm({ base: r12, disp: L.CALL_ERROR }, 0, true); // mov qword [r12], 0

  // ---- the response's error: nothing else is read when it has one
  a.mov(rdi, rbx, true);
  call("responseError"); //                   ResponseError(response)
  a.mov({ base: r12, disp: L.RESPONSE_ERROR }, rax, true);
  a.test(rax, rax, true);
  a.jcc32(Cond.ne, "ok");

  // ---- outputs
  a.mov(rdi, rbx, true);
  a.lea(rsi, { base: r12, disp: L.OUTPUT_COUNT });
  call("outputCount"); //                     ResponseOutputCount(response, &count)
  checked();
  a.load32(r15, { base: r12, disp: L.OUTPUT_COUNT }); // r15d = count
  a.cmpImm(r15, MAX_OUTPUTS, true);
  a.jcc(Cond.be, "outputs.bounded");
  a.movImm32(r15, MAX_OUTPUTS); //            at most MAX_OUTPUTS
  a.label("outputs.bounded");
  a.movImm32(rbp, L.DATA); //                 ebp = data area
  a.xor32(r13, r13); //                       i = 0
  a.lea(r14, { base: r12, disp: L.OUTPUTS }); // r14 = output record 0
  a.label("outputs.loop");
  a.cmp32(r13, r15); //                       cmp r13d, r15d
  a.jcc32(Cond.ae, "outputs.done");
  a.mov(rdi, rbx, true); //                   response
  a.mov(rsi, r13, false); //                  index
  a.lea(rdx, { base: r14, disp: O.NAME });
  a.lea(rcx, { base: r14, disp: O.DATATYPE });
  a.lea(r8, { base: r14, disp: O.SHAPE });
  a.lea(r9, { base: r14, disp: O.DIM_COUNT });
  const stacked = [O.BASE, O.BYTE_SIZE, O.MEMORY_TYPE, O.MEMORY_TYPE_ID, O.USERP];
  stacked.forEach((field, k) => {
    a.lea(rax, { base: r14, disp: field });
    a.mov({ base: rsp, disp: 8 * k }, rax, true); // 7th.. 11th arguments on the stack
  });
  call("output"); //                          ResponseOutput(response, i, &name, ...)
  checked();
  copyString({ base: r14, disp: O.NAME_COPY }, { base: r14, disp: O.NAME }, L.NAME_CAP);
  a.load64(rdx, { base: r14, disp: O.DIM_COUNT });
  a.cmpImm(rdx, MAX_DIMS, true);
  a.jcc(Cond.a, "shape.skip"); //             more than MAX_DIMS: left to JS
  a.lea(rdi, { base: r14, disp: O.SHAPE_COPY });
  a.load64(rsi, { base: r14, disp: O.SHAPE });
  a.shl64(rdx, 3); //                         dims × 8 bytes
  call("memcpy");
  a.label("shape.skip");
  a.storeImm({ base: r14, disp: O.DATA }, 0, true); // not copied (yet)
  a.cmpImm({ base: r14, disp: O.MEMORY_TYPE }, MemoryType.GPU, false);
  a.jcc(Cond.e, "data.skip"); //              GPU memory: never read from the host
  a.load64(rdx, { base: r14, disp: O.BYTE_SIZE });
  a.cmpImm(rdx, DATA_LIMIT, true);
  a.jcc(Cond.a, "data.skip"); //              too large for a copy
  a.mov(rcx, rbp, true);
  a.add64(rcx, rdx); //                       rcx = end of the copy
  a.cmpImm(rcx, RECORD_BYTES, true);
  a.jcc(Cond.a, "data.skip"); //              does not fit
  a.mov({ base: r14, disp: O.DATA }, rbp, true); // where the copy goes
  a.mov(rdi, r12, true);
  a.add64(rdi, rbp); //                       rdi = record + offset
  a.load64(rsi, { base: r14, disp: O.BASE });
  a.mov(rbp, rcx, true);
  a.addImm(rbp, 7, true);
  a.andImm(rbp, -8, true); //                 next offset, a multiple of 8
  call("memcpy"); //                          memcpy(record + offset, base, size)
  a.label("data.skip");
  a.inc32(r13);
  a.addImm(r14, L.OUTPUT_SIZE, true);
  a.jmp32("outputs.loop");
  a.label("outputs.done");

  // ---- model and id
  a.mov(rdi, rbx, true);
  a.lea(rsi, { base: r12, disp: L.MODEL_NAME });
  a.lea(rdx, { base: r12, disp: L.MODEL_VERSION });
  call("model"); //                           ResponseModel(response, &name, &version)
  checked();
  copyString({ base: r12, disp: L.MODEL_COPY }, { base: r12, disp: L.MODEL_NAME }, L.STRING_CAP);
  a.mov(rdi, rbx, true);
  a.lea(rsi, { base: r12, disp: L.ID });
  call("id"); //                              ResponseId(response, &id)
  checked();
  copyString({ base: r12, disp: L.ID_COPY }, { base: r12, disp: L.ID }, L.STRING_CAP);

  // ---- parameters
  a.mov(rdi, rbx, true);
  a.lea(rsi, { base: r12, disp: L.PARAM_COUNT });
  call("parameterCount"); //                  ResponseParameterCount(response, &count)
  checked();
  a.load32(r15, { base: r12, disp: L.PARAM_COUNT });
  a.cmpImm(r15, MAX_PARAMS, true);
  a.jcc(Cond.be, "params.bounded");
  a.movImm32(r15, MAX_PARAMS);
  a.label("params.bounded");
  a.xor32(r13, r13);
  a.lea(r14, { base: r12, disp: L.PARAMS });
  a.label("params.loop");
  a.cmp32(r13, r15);
  a.jcc32(Cond.ae, "ok");
  a.mov(rdi, rbx, true);
  a.mov(rsi, r13, false);
  a.lea(rdx, { base: r14, disp: P.NAME });
  a.lea(rcx, { base: r14, disp: P.TYPE });
  a.lea(r8, { base: r14, disp: P.VALUE });
  call("parameter"); //                       ResponseParameter(response, i, &name, &type, &value)
  checked();
  copyString({ base: r14, disp: P.NAME_COPY }, { base: r14, disp: P.NAME }, L.NAME_CAP);
  a.load32(rax, { base: r14, disp: P.TYPE });
  a.cmpImm(rax, ParameterType.STRING, false);
  a.jcc(Cond.ne, "param.scalar");
  copyString({ base: r14, disp: P.STRING_COPY }, { base: r14, disp: P.VALUE }, L.VALUE_CAP);
  a.jmp("param.next");
  a.label("param.scalar");
  a.storeImm({ base: r14, disp: P.SCALAR }, 0, true);
  a.load64(rsi, { base: r14, disp: P.VALUE });
  a.test(rsi, rsi, true);
  a.jcc(Cond.e, "param.next"); //             no value: 0
  a.cmpImm(rax, ParameterType.BOOL, false);
  a.jcc(Cond.ne, "param.wide");
  a.loadByte(rcx, { base: rsi, disp: 0 }); // movzx ecx, byte [rsi]
  a.mov({ base: r14, disp: P.SCALAR }, rcx, true);
  a.jmp("param.next");
  a.label("param.wide");
  a.cmpImm(rax, ParameterType.INT, false);
  a.jcc(Cond.e, "param.copy8");
  a.cmpImm(rax, ParameterType.DOUBLE, false);
  a.jcc(Cond.ne, "param.next"); //            another type: left to JS
  a.label("param.copy8");
  a.load64(rcx, { base: rsi, disp: 0 });
  a.mov({ base: r14, disp: P.SCALAR }, rcx, true);
  a.label("param.next");
  a.inc32(r13);
  a.addImm(r14, L.PARAM_SIZE, true);
  a.jmp32("params.loop");

  // ---- return
  a.label("ok");
  a.xor32(rax, rax); //                       0: read
  a.jmp("exit");
  a.label("failed");
  a.mov({ base: r12, disp: L.CALL_ERROR }, rax, true); // the failed call's error
  a.movImm32(rax, 1); //                      1: a call failed
  a.label("exit");
  a.addImm(rsp, 40, true);
  for (const r of [r15, r14, r13, r12, rbp, rbx]) a.pop(r);
  a.ret();

  // ---- copy_string(rdi dst, rsi src, ecx cap): memccpy(dst, src, 0, cap); NULL copies as "".
  // Called with rsp ≡ 8 (mod 16), so the tail jump enters memccpy as a call would.
  a.label("copy_string");
  a.test(rsi, rsi, true);
  a.jcc(Cond.e, "copy_string.null");
  a.xor32(rdx, rdx); //                       c = 0 (the NUL)
  a.jmpMem(a.address("memccpy", t.memccpy)); // tail call: memccpy returns to our caller
  a.label("copy_string.null");
  a.storeByteImm({ base: rdi, disp: 0 }, 0);
  a.ret();

  a.finishTable(); //                         the address table, in the order first called
  return a.finish();
}
