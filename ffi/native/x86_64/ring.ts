/**
 * The native callbacks Triton's threads call, as x86-64 machine code (System V ABI, Linux).
 *
 * Six entry points, each starting with `endbr64` (Intel CET):
 *
 * - `responseComplete(response, flags, userp)` and `requestRelease(request, flags, userp)`: push
 *   `(kind, object, flags, userp)` into the completion ring (`../ring_layout.ts`) and wake the
 *   consumer through its eventfd (libc `write`) if it sleeps. A full ring makes the producer call
 *   libc `sched_yield` until the consumer frees the slot: that is the backpressure, nothing is
 *   dropped.
 * - `alloc`, `release`, `query`, `bufferAttributes`: the response allocator's fast path for the
 *   CPU policy (policy `userp` 0: libc `malloc`/`free`, buffer_userp 1 = CPU id 0; both values,
 *   and that `place()` sends this policy to CPU memory, come from `allocator.ts`: see
 *   `../cpu_fast_path.ts`). Anything else (pinned or GPU memory, AUTO) jumps, arguments untouched,
 *   to the JS allocator's function of the same kind, which implements every policy.
 *
 * Addresses (ring, libc, Triton, JS callbacks) are read from the address table after the code
 * (RIP-relative: `mov r9, [rip+ring]`, `call [rip+malloc]`, `jmp [rip+jsAlloc]`), and the malloc
 * failure message, stored after the code, is addressed RIP-relative too: the code holds no
 * 64-bit immediate and runs at any address. The eventfd is a 32-bit immediate.
 * `tests/thunks.test.ts` checks these bytes against a listing made by the GNU assembler.
 *
 * @module
 */
import { ErrorCode, MemoryType } from "../../enums.ts";
import { cpuFastPath } from "../cpu_fast_path.ts";
import { RingLayout } from "../ring_layout.ts";
import { MALLOC_FAILED, type ThunkCode, type ThunkTargets } from "../routines.ts";
import { Cond, R, X64 } from "./encoder.ts";

/** Generates the six functions for `t`. */
export function generateX8664(t: ThunkTargets): ThunkCode {
  if (t.capacity < 2 || (t.capacity & (t.capacity - 1)) !== 0 || t.capacity > 2 ** 30) {
    throw new Error(`ring capacity ${t.capacity} is not a power of two in [2, 2^30]`);
  }
  const a = new X64();
  const { rax, rcx, rdx, rbx, rsp, rsi, rdi, r8, r9, r10, r11 } = R;
  const L = RingLayout;
  const cpu = cpuFastPath();

  // ---- void responseComplete(TRITONSERVER_InferenceResponse* rdi, uint32_t esi, void* rdx)
  a.label("responseComplete");
  a.endbr64();
  a.movImm32(r8, 1); //                        mov r8d, 1          kind = RESPONSE
  a.jmp("push"); //                            jmp push

  // ---- void requestRelease(TRITONSERVER_InferenceRequest* rdi, uint32_t esi, void* rdx)
  a.label("requestRelease");
  a.endbr64();
  a.movImm32(r8, 2); //                        mov r8d, 2          kind = RELEASE
  a.label("push");
  a.loadLabel64(r9, a.address("ring", t.ring)); // mov r9, [rip+ring] r9 = ring header
  a.movImm32(rax, 1); //                       mov eax, 1
  a.lockXadd64({ base: r9, disp: L.TAIL }, rax); // lock xadd [r9], rax   rax = pos, tail++
  a.mov(r10, rax, false); //                   mov r10d, eax
  a.andImm(r10, t.capacity - 1, false); //   and r10d, mask      slot index
  a.shl64(r10, 5); //                          shl r10, 5          × 32 bytes
  a.lea(r11, { base: r9, disp: L.SLOTS }); //  lea r11, [r9+SLOTS] the slots
  a.add64(r10, r11); //                        add r10, r11        r10 = slot
  a.label("wait");
  a.cmp32({ base: r10, disp: L.SLOT_SEQ }, rax); // cmp [r10], eax   seq == pos: slot free?
  a.jcc(Cond.e, "claimed"); //                 je claimed
  // Ring full: sched_yield() lets the consumer run. The call may clobber every caller-saved
  // register: the seven in use are kept (which also leaves rsp 16-byte aligned for the call).
  const kept = [rax, rdi, rsi, rdx, r8, r9, r10];
  for (const r of kept) a.push(r); //          push rax, rdi, rsi, rdx, r8, r9, r10
  a.callMem(a.address("schedYield", t.schedYield)); // call [rip+sched_yield]
  for (const r of [...kept].reverse()) a.pop(r); // pop r10, r9, r8, rdx, rsi, rdi, rax
  a.jmp("wait"); //                            jmp wait
  a.label("claimed");
  a.mov({ base: r10, disp: L.SLOT_OBJECT }, rdi, true); // mov [r10+16], rdi   object
  a.mov({ base: r10, disp: L.SLOT_USERP }, rdx, true); //  mov [r10+24], rdx   userp
  a.mov({ base: r10, disp: L.SLOT_FLAGS }, rsi, false); // mov [r10+8], esi    flags
  a.mov({ base: r10, disp: L.SLOT_KIND }, r8, false); //   mov [r10+4], r8d    kind
  a.inc32(rax); //                             inc eax             seq = pos + 1
  a.xchg32({ base: r10, disp: L.SLOT_SEQ }, rax); // xchg [r10], eax  publish; full barrier
  a.cmpImm({ base: r9, disp: L.SLEEPING }, 0, false); // cmp dword [r9+64], 0   asleep?
  a.jcc(Cond.ne, "wake"); //                   jne wake
  a.ret(); //                                  ret
  a.label("wake");
  a.xor32(rax, rax); //                        xor eax, eax
  a.xchg32({ base: r9, disp: L.SLEEPING }, rax); // xchg [r9+64], eax  sleeping = 0
  a.test(rax, rax, false); //                  test eax, eax       was it still set?
  a.jcc(Cond.e, "woken"); //                   je woken            (another producer woke it)
  a.pushImm8(1); //                            push 1              u64 1 on the stack; rsp
  a.movImm32(rdi, t.eventfd); //               mov edi, eventfd    16-byte aligned: write(fd,
  a.mov(rsi, rsp, true); //                    mov rsi, rsp          &one,
  a.movImm32(rdx, 8); //                       mov edx, 8            8)
  a.callMem(a.address("write", t.write)); //   call [rip+write]
  a.pop(rax); //                               pop rax
  a.label("woken");
  a.ret(); //                                  ret

  // ---- TRITONSERVER_Error* alloc(allocator rdi, name rsi, size_t byte_size rdx,
  //        memory_type ecx, int64_t memory_type_id r8, void* userp r9,
  //        [rsp+8] void** buffer, [rsp+16] void** buffer_userp,
  //        [rsp+24] TRITONSERVER_MemoryType* actual_type, [rsp+32] int64_t* actual_type_id)
  a.label("alloc");
  a.endbr64();
  a.test(r9, r9, true); //                     test r9, r9         policy CPU (0)?
  a.jcc(Cond.e, "alloc.cpu"); //               je alloc.cpu
  a.jmpMem(a.address("jsAlloc", t.jsAlloc)); // jmp [rip+jsAlloc]  other policies: JS
  a.label("alloc.cpu");
  a.push(rbx); //                              push rbx            align rsp to 16 for calls
  a.mov(rdi, rdx, true); //                    mov rdi, rdx        size
  a.test(rdi, rdi, true); //                   test rdi, rdi
  a.jcc(Cond.ne, "alloc.sized"); //            jne alloc.sized
  a.movImm32(rdi, 1); //                       mov edi, 1          malloc(0) may give NULL
  a.label("alloc.sized");
  a.callMem(a.address("malloc", t.malloc)); // call [rip+malloc]
  a.test(rax, rax, true); //                   test rax, rax
  a.jcc(Cond.e, "alloc.failed"); //            je alloc.failed
  a.load64(rcx, { base: rsp, disp: 16 }); //   mov rcx, [rsp+16]   buffer
  a.mov({ base: rcx, disp: 0 }, rax, true); // mov [rcx], rax      *buffer = p
  a.load64(rcx, { base: rsp, disp: 24 }); //   mov rcx, [rsp+24]   buffer_userp
  a.storeImm({ base: rcx, disp: 0 }, cpu.bufferUserp, true); // mov qword [rcx], 1  CPU, id 0
  a.load64(rcx, { base: rsp, disp: 32 }); //   mov rcx, [rsp+32]   actual_type
  a.storeImm({ base: rcx, disp: 0 }, MemoryType.CPU, false); // mov dword [rcx], 0  CPU
  a.load64(rcx, { base: rsp, disp: 40 }); //   mov rcx, [rsp+40]   actual_type_id
  a.storeImm({ base: rcx, disp: 0 }, 0, true); // mov qword [rcx], 0
  a.xor32(rax, rax); //                        xor eax, eax        no error
  a.pop(rbx); //                               pop rbx
  a.ret(); //                                  ret
  a.label("alloc.failed");
  a.movImm32(rdi, ErrorCode.INTERNAL); //      mov edi, INTERNAL
  a.leaLabel(rsi, "message"); //               lea rsi, [rip+message]
  a.callMem(a.address("errorNew", t.errorNew)); // call [rip+TRITONSERVER_ErrorNew]
  a.pop(rbx); //                               pop rbx
  a.ret(); //                                  ret

  // ---- TRITONSERVER_Error* release(allocator rdi, buffer rsi, buffer_userp rdx,
  //        size_t byte_size rcx, memory_type r8d, int64_t memory_type_id r9)
  a.label("release");
  a.endbr64();
  a.cmpImm(rdx, cpu.bufferUserp, true); //    cmp rdx, 1          a malloc'd CPU buffer?
  a.jcc(Cond.e, "release.cpu"); //             je release.cpu
  a.jmpMem(a.address("jsRelease", t.jsRelease)); // jmp [rip+jsRelease]
  a.label("release.cpu");
  a.push(rbx); //                              push rbx            alignment
  a.mov(rdi, rsi, true); //                    mov rdi, rsi
  a.callMem(a.address("free", t.free)); //     call [rip+free]
  a.xor32(rax, rax); //                        xor eax, eax        no error
  a.pop(rbx); //                               pop rbx
  a.ret(); //                                  ret

  // ---- TRITONSERVER_Error* query(allocator rdi, userp rsi, name rdx, size_t* byte_size rcx,
  //        TRITONSERVER_MemoryType* memory_type r8, int64_t* memory_type_id r9)
  a.label("query");
  a.endbr64();
  a.test(rsi, rsi, true); //                   test rsi, rsi       policy CPU (0)?
  a.jcc(Cond.e, "query.cpu"); //               je query.cpu
  a.jmpMem(a.address("jsQuery", t.jsQuery)); // jmp [rip+jsQuery]
  a.label("query.cpu");
  a.storeImm({ base: r8, disp: 0 }, MemoryType.CPU, false); // mov dword [r8], 0   CPU
  a.storeImm({ base: r9, disp: 0 }, 0, true); //  mov qword [r9], 0   id 0
  a.xor32(rax, rax); //                        xor eax, eax
  a.ret(); //                                  ret

  // ---- TRITONSERVER_Error* bufferAttributes(allocator rdi, name rsi, attributes rdx,
  //        userp rcx, buffer_userp r8)
  a.label("bufferAttributes");
  a.endbr64();
  a.cmpImm(r8, cpu.bufferUserp, true); //     cmp r8, 1           CPU id 0?
  a.jcc(Cond.e, "attributes.cpu"); //          je attributes.cpu
  a.jmpMem(a.address("jsBufferAttributes", t.jsBufferAttributes)); // jmp [rip+jsBufferAttributes]
  a.label("attributes.cpu");
  a.push(rbx); //                              push rbx            (callee-saved: keeps
  a.mov(rbx, rdx, true); //                    mov rbx, rdx         attributes; aligns rsp)
  a.mov(rdi, rdx, true); //                    mov rdi, rdx
  a.xor32(rsi, rsi); //                        xor esi, esi        CPU
  a.callMem(a.address("setMemoryType", t.setMemoryType)); // call [rip+SetMemoryType]
  a.test(rax, rax, true); //                   test rax, rax
  a.jcc(Cond.ne, "attributes.done"); //        jne attributes.done  error: return it
  a.mov(rdi, rbx, true); //                    mov rdi, rbx
  a.xor32(rsi, rsi); //                        xor esi, esi        id 0
  a.callMem(a.address("setMemoryTypeId", t.setMemoryTypeId)); // call [rip+SetMemoryTypeId]
  a.label("attributes.done");
  a.pop(rbx); //                               pop rbx
  a.ret(); //                                  ret

  // ---- data: the malloc failure message, NUL-terminated
  a.label("message");
  a.bytes(new TextEncoder().encode(MALLOC_FAILED + "\0"));
  a.finishTable(); //                          the address table, in the order first named

  const code = a.finish();
  return {
    code,
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
