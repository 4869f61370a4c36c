/**
 * The batch deleter's comparator as x86-64 machine code (System V ABI, Linux), for Deno and Node:
 * the same function as `ffi/native/c/delete_each.c` (what it is for: `../deletes.ts`).
 *
 * `int deleteEach(void* const* table, const uint64_t* item)`: `*item` is a native object's
 * address with its kind in bit 0 (0 a response, 1 a request, whose addresses are 8-byte aligned);
 * calls `table[kind](*item & ~1)` (`TRITONSERVER_InferenceResponseDelete` or
 * `TRITONSERVER_InferenceRequestDelete`, whose error, NULL for a live object, is not read) and
 * returns 1, so that libc `lfind` goes on to the next item. Nothing is embedded: the code is the
 * same at any address. `tests/native_deletes.test.ts` checks these bytes against a listing made
 * by the GNU assembler.
 *
 * @module
 */
import { Cond, R, X64 } from "./encoder.ts";

/** Generates the comparator; it starts at offset 0. */
export function generateDeleteEachX8664(): Uint8Array {
  const a = new X64();
  const { rax, rcx, rbx, rsi, rdi } = R;
  a.endbr64();
  a.push(rbx); //                              push rbx            aligns rsp to 16 for the call
  a.load64(rax, { base: rsi, disp: 0 }); //    mov rax, [rsi]      the item
  a.mov(rcx, rax, false); //                   mov ecx, eax
  a.andImm(rcx, 1, false); //                  and ecx, 1          its kind
  a.jcc(Cond.ne, "request"); //                jne request
  a.load64(rcx, { base: rdi, disp: 0 }); //    mov rcx, [rdi]      table[0]: ResponseDelete
  a.jmp("call"); //                            jmp call
  a.label("request");
  a.load64(rcx, { base: rdi, disp: 8 }); //    mov rcx, [rdi+8]    table[1]: RequestDelete
  a.andImm(rax, -2, true); //                  and rax, -2         the address
  a.label("call");
  a.mov(rdi, rax, true); //                    mov rdi, rax
  a.callReg(rcx); //                           call rcx
  a.movImm32(rax, 1); //                       mov eax, 1          not found: next item
  a.pop(rbx); //                               pop rbx
  a.ret(); //                                  ret
  return a.finish();
}
