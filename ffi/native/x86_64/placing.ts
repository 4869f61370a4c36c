/**
 * The placing allocator's fast path as x86-64 machine code (System V ABI, Linux), for Deno and
 * Node with the native callbacks: an output named in the request's output placement table
 * (`output_placement.ts`) that fits its part gets the part's address without a call into JS.
 *
 * - `alloc`: walks the table (`count`, `policy`, then `name`, `address`, `byteSize` per entry),
 *   comparing the tensor name byte by byte with each entry's; a match that fits writes the
 *   address, `buffer_userp` REGION, CPU memory, id 0, and returns NULL. Anything else (a NULL
 *   name, no match, an output larger than its part) jumps, arguments untouched, to the JS placing
 *   alloc, which allocates by the table's policy or returns tritonserver's error.
 * - `release`: REGION is released without a free; any other buffer goes to the ordinary
 *   allocator's release (its CPU fast path, else JS), which freed what the policy allocated.
 *
 * Query has no fast path (backends rarely ask): the JS placing query serves it. The two addresses
 * it jumps to are read from the address table after the code (`jmp [rip+disp32]`).
 *
 * @module
 */
import { BufferUserp } from "../../allocator.ts";
import { MemoryType } from "../../enums.ts";
import type { PlacingEntries, PlacingTargets } from "../routines.ts";
import { Cond, R, X64 } from "./encoder.ts";

/** The table's layout, as `output_placement.ts` writes it. */
const HEADER_BYTES = 16;
const ENTRY_BYTES = 24;

/** Generates `alloc` and `release` for `t`. */
export function generatePlacingX8664(
  t: PlacingTargets,
): { code: Uint8Array; entries: PlacingEntries } {
  const { rax, rcx, rdx, rsi, rdi, rsp, r8, r9, r10, r11 } = R;
  const a = new X64();

  // ---- TRITONSERVER_Error* alloc(allocator rdi, name rsi, size_t byte_size rdx,
  //        memory_type ecx, int64_t memory_type_id r8, void* userp (the table) r9,
  //        [rsp+8] void** buffer, [rsp+16] void** buffer_userp,
  //        [rsp+24] TRITONSERVER_MemoryType* actual_type, [rsp+32] int64_t* actual_type_id)
  a.label("alloc");
  a.endbr64();
  a.test(rsi, rsi, true); //                   test rsi, rsi       no name: JS
  a.jcc(Cond.e, "alloc.js"); //                je alloc.js
  a.push(rdi); //                              push rdi            kept for the jump to JS
  a.push(rcx); //                              push rcx
  a.push(r8); //                               push r8
  a.load64(r10, { base: r9, disp: 0 }); //     mov r10, [r9]       entries left
  a.lea(r11, { base: r9, disp: HEADER_BYTES }); // lea r11, [r9+16] the first entry
  a.label("alloc.next");
  a.test(r10, r10, true); //                   test r10, r10
  a.jcc(Cond.e, "alloc.restore"); //           je alloc.restore    not placed: JS
  a.load64(rax, { base: r11, disp: 0 }); //    mov rax, [r11]      the entry's name
  a.mov(rdi, rsi, true); //                    mov rdi, rsi        the tensor's name
  a.label("alloc.compare");
  a.loadByte(rcx, { base: rax, disp: 0 }); //  movzx ecx, byte [rax]
  a.loadByte(r8, { base: rdi, disp: 0 }); //   movzx r8d, byte [rdi]
  a.cmp32(rcx, r8); //                         cmp ecx, r8d
  a.jcc(Cond.ne, "alloc.skip"); //             jne alloc.skip
  a.test(rcx, rcx, false); //                  test ecx, ecx       both ended: the same name
  a.jcc(Cond.e, "alloc.found"); //             je alloc.found
  a.addImm(rax, 1, true); //                   add rax, 1
  a.addImm(rdi, 1, true); //                   add rdi, 1
  a.jmp("alloc.compare"); //                   jmp alloc.compare
  a.label("alloc.skip");
  a.addImm(r11, ENTRY_BYTES, true); //         add r11, 24
  a.subImm(r10, 1, true); //                   sub r10, 1
  a.jmp("alloc.next"); //                      jmp alloc.next
  a.label("alloc.found");
  a.load64(rax, { base: r11, disp: 16 }); //   mov rax, [r11+16]   the part's bytes
  a.cmp64(rdx, rax); //                        cmp rdx, rax
  a.jcc(Cond.a, "alloc.restore"); //           ja alloc.restore    larger: JS gives the error
  a.load64(rax, { base: r11, disp: 8 }); //    mov rax, [r11+8]    the part's address
  a.pop(r8); //                                pop r8
  a.pop(rcx); //                               pop rcx
  a.pop(rdi); //                               pop rdi
  a.load64(r10, { base: rsp, disp: 8 }); //    mov r10, [rsp+8]    buffer
  a.mov({ base: r10, disp: 0 }, rax, true); // mov [r10], rax
  a.load64(r10, { base: rsp, disp: 16 }); //   mov r10, [rsp+16]   buffer_userp
  a.storeImm({ base: r10, disp: 0 }, BufferUserp.REGION, true); // mov qword [r10], REGION
  a.load64(r10, { base: rsp, disp: 24 }); //   mov r10, [rsp+24]   actual_type
  a.storeImm({ base: r10, disp: 0 }, MemoryType.CPU, false); // mov dword [r10], CPU
  a.load64(r10, { base: rsp, disp: 32 }); //   mov r10, [rsp+32]   actual_type_id
  a.storeImm({ base: r10, disp: 0 }, 0, true); // mov qword [r10], 0
  a.xor32(rax, rax); //                        xor eax, eax        no error
  a.ret(); //                                  ret
  a.label("alloc.restore");
  a.pop(r8); //                                pop r8
  a.pop(rcx); //                               pop rcx
  a.pop(rdi); //                               pop rdi
  a.label("alloc.js");
  a.jmpMem(a.address("jsAlloc", t.jsAlloc)); // jmp [rip+jsAlloc]  arguments untouched

  // ---- TRITONSERVER_Error* release(allocator rdi, buffer rsi, buffer_userp rdx,
  //        size_t byte_size rcx, memory_type r8d, int64_t memory_type_id r9)
  a.label("release");
  a.endbr64();
  a.cmpImm(rdx, BufferUserp.REGION, true); //  cmp rdx, REGION     a placed output?
  a.jcc(Cond.ne, "release.other"); //          jne release.other
  a.xor32(rax, rax); //                        xor eax, eax        nothing to free
  a.ret(); //                                  ret
  a.label("release.other");
  a.jmpMem(a.address("release", t.release)); // jmp [rip+release]

  a.finishTable(); //                          the address table: jsAlloc, release

  return { code: a.finish(), entries: { alloc: a.at("alloc"), release: a.at("release") } };
}
