/**
 * The request submitter as x86-64 machine code (System V ABI, Linux), for Node and Bun: builds one
 * inference request from the request record and submits it (what it does and the layout:
 * `../request_record.ts`; what it is for: `../request_submitter.ts`).
 *
 * `int submit(uint8_t* record, const void* unused)`: 0 when Triton took the request, 1 when a call
 * failed (its error in `ERROR`). Its signature is a `bsearch` comparator's, so that JS calls it
 * through libc `bsearch` with one element. Nothing is embedded: Triton's functions are read from
 * the record's function table, so the code is the same at any address, and
 * `tests/request_submitter.test.ts` checks these bytes against a listing made by the GNU
 * assembler. Registers: rbx the record, r12 the current input record, r13 the inputs left (all
 * callee-saved; three pushes keep rsp 16-byte aligned at every call).
 *
 * @module
 */
import { InputRecord as I, RequestLayout as L } from "../request_record.ts";
import { Cond, type Mem, R, X64 } from "./encoder.ts";

/** Generates the submitter; it starts at offset 0. */
export function generateSubmitX8664(): Uint8Array {
  const a = new X64();
  const { rax, rcx, rdx, rbx, rsi, rdi, r8, r9, r12, r13 } = R;
  const field = (disp: number): Mem => ({ base: rbx, disp });
  const input = (disp: number): Mem => ({ base: r12, disp });
  /** Calls Triton's function `index` of the table; a non-NULL error goes to `failed`. */
  const call = (index: number) => {
    a.load64(rax, field(L.FUNCTIONS + 8 * index)); // mov rax, [rbx + 8·index]
    a.callReg(rax); //                                call rax
    a.test(rax, rax, true); //                        test rax, rax     an error?
    a.jcc32(Cond.ne, "failed"); //                    jne failed
  };

  a.endbr64();
  for (const r of [rbx, r12, r13]) a.push(r); //      callee-saved; rsp ≡ 0 (mod 16)
  a.mov(rbx, rdi, true); //                           mov rbx, rdi      the record
  a.storeImm(field(L.REQUEST), 0, true); //           mov qword [rbx+REQUEST], 0
  a.storeImm(field(L.ERROR), 0, true); //             mov qword [rbx+ERROR], 0

  // ---- RequestNew(&request, server, model, version)
  a.lea(rdi, field(L.REQUEST));
  a.load64(rsi, field(L.SERVER));
  a.load64(rdx, field(L.MODEL));
  a.load64(rcx, field(L.VERSION));
  call(0);

  // ---- every input: AddInput, then AppendInputData when it has bytes
  a.lea(r12, field(L.INPUTS)); //                     r12 = input record 0
  a.load64(r13, field(L.INPUT_COUNT)); //             r13 = inputs left
  a.label("inputs.loop");
  a.test(r13, r13, true);
  a.jcc(Cond.e, "inputs.done");
  a.load64(rdi, field(L.REQUEST));
  a.load64(rsi, input(I.NAME));
  a.load64(rdx, input(I.DATATYPE));
  a.load64(rcx, input(I.SHAPE));
  a.load64(r8, input(I.DIM_COUNT));
  call(1); //                                         AddInput(request, name, dtype, shape, dims)
  a.load64(rcx, input(I.BYTE_SIZE));
  a.test(rcx, rcx, true);
  a.jcc(Cond.e, "inputs.next"); //                    no bytes: nothing to append
  a.load64(rdi, field(L.REQUEST));
  a.load64(rsi, input(I.NAME));
  a.load64(rdx, input(I.BASE));
  a.load64(r8, input(I.MEMORY_TYPE));
  a.load64(r9, input(I.MEMORY_TYPE_ID));
  call(2); //                                         AppendInputData(request, name, base, size, …)
  a.label("inputs.next");
  a.addImm(r12, L.INPUT_SIZE, true);
  a.subImm(r13, 1, true);
  a.jmp("inputs.loop");
  a.label("inputs.done");

  // ---- SetReleaseCallback(request, release, userp)
  a.load64(rdi, field(L.REQUEST));
  a.load64(rsi, field(L.RELEASE_FN));
  a.load64(rdx, field(L.USERP));
  call(3);
  // ---- SetResponseCallback(request, allocator, allocator userp, response, userp)
  a.load64(rdi, field(L.REQUEST));
  a.load64(rsi, field(L.ALLOCATOR));
  a.load64(rdx, field(L.ALLOCATOR_USERP));
  a.load64(rcx, field(L.RESPONSE_FN));
  a.load64(r8, field(L.USERP));
  call(4);
  // ---- ServerInferAsync(server, request, NULL)
  a.load64(rdi, field(L.SERVER));
  a.load64(rsi, field(L.REQUEST));
  a.xor32(rdx, rdx);
  call(5);

  a.xor32(rax, rax); //                               0: submitted
  a.jmp("exit");
  a.label("failed");
  a.mov(field(L.ERROR), rax, true); //                the failed call's error
  a.movImm32(rax, 1); //                              1: a call failed
  a.label("exit");
  for (const r of [r13, r12, rbx]) a.pop(r);
  a.ret();
  return a.finish();
}
