/**
 * A tiny x86-64 encoder: exactly the instructions the routines of this folder use, nothing more
 * (no 64-bit immediate and no `syscall`: addresses come from the address table, system calls
 * through libc).
 *
 * Each method appends one instruction. Operands are register numbers ({@link R}) or a memory
 * operand `{ base, disp }` (`[base + disp]`, no index register). Jumps are short (rel8) and refer
 * to labels resolved by {@link X64.finish}. Encodings follow the Intel SDM, volume 2: an optional
 * REX prefix `0100WRXB` (W = 64-bit operand, R/B extend the ModRM reg/rm fields to r8–r15), the
 * opcode, a ModRM byte `mod:2 reg:3 rm:3`, a SIB byte when rm is rsp/r12, then displacement and
 * immediate, little-endian. Jumps and calls to labels are rel8 ({@link X64.jmp}, {@link X64.jcc})
 * or rel32 ({@link X64.jmp32}, {@link X64.jcc32}, {@link X64.call32}): fixups of the neutral
 * {@link Assembler} (`../asm/assembler.ts`), which holds the buffer and the labels.
 *
 * @module
 */

import { Assembler, type Patch, writeInt } from "../asm/assembler.ts";

/** Register numbers as the encodings use them. */
export const R = {
  rax: 0,
  rcx: 1,
  rdx: 2,
  rbx: 3,
  rsp: 4,
  rbp: 5,
  rsi: 6,
  rdi: 7,
  r8: 8,
  r9: 9,
  r10: 10,
  r11: 11,
  r12: 12,
  r13: 13,
  r14: 14,
  r15: 15,
} as const;

/** A register number (0–15). */
export type Reg = number;

/** A memory operand `[base + disp]`. */
export interface Mem {
  readonly base: Reg;
  readonly disp: number;
}

/** Condition codes for `jcc` (the low nibble of opcode 0x70+cc). */
export const Cond = { b: 0x2, ae: 0x3, e: 0x4, ne: 0x5, be: 0x6, a: 0x7 } as const;

/**
 * A PC-relative field of `size` bytes counted from the field's end, which ends the instruction
 * (x86-64's rel8 and rel32).
 */
function relative(size: 1 | 4, label: string): Patch {
  const limit = 2 ** (8 * size - 1);
  return (code, at, target) => {
    const rel = target - (at + size);
    if (rel < -limit || rel >= limit) {
      throw new Error(`jump to ${label} out of rel${8 * size} range`);
    }
    writeInt(code, at, rel, size);
  };
}

/** An x86-64 encoder over the instruction-set-neutral {@link Assembler} (its buffer, labels and
 * fixups). */
export class X64 extends Assembler {
  // ---- encoding helpers ----

  /** REX prefix when needed: W for 64-bit operands, R for reg ≥ 8, B for rm/base ≥ 8. */
  #rex(w: boolean, reg: Reg, rm: Reg): void {
    const rex = 0x40 | (w ? 8 : 0) | (reg >= 8 ? 4 : 0) | (rm >= 8 ? 1 : 0);
    if (rex !== 0x40) this.emit(rex);
  }

  /** ModRM (and SIB, displacement) for `reg` and a register or memory operand. */
  #modrm(reg: Reg, rm: Reg | Mem): void {
    if (typeof rm === "number") {
      this.emit(0xc0 | ((reg & 7) << 3) | (rm & 7)); // mod 11: register direct
      return;
    }
    const base = rm.base & 7;
    // mod 00 = no displacement (except base rbp/r13, which mean RIP/disp32 there), 01 = disp8,
    // 10 = disp32.
    const mod = rm.disp === 0 && base !== 5 ? 0 : rm.disp >= -128 && rm.disp <= 127 ? 1 : 2;
    this.emit((mod << 6) | ((reg & 7) << 3) | base);
    if (base === 4) this.emit(0x24); // rsp/r12 as base needs a SIB byte: no index
    if (mod === 1) this.int(rm.disp, 1);
    if (mod === 2) this.int(rm.disp, 4);
  }

  /** `[prefixes] [REX] opcode ModRM…` for an instruction with a reg field and an r/m operand. */
  #op(opcode: number[], w: boolean, reg: Reg, rm: Reg | Mem, prefix: number[] = []): void {
    this.emit(...prefix);
    this.#rex(w, reg, typeof rm === "number" ? rm : rm.base);
    this.emit(...opcode);
    this.#modrm(reg, rm);
  }

  // ---- instructions ----

  /** `endbr64` (F3 0F 1E FA): a valid indirect-branch target under Intel CET. */
  endbr64(): void {
    this.emit(0xf3, 0x0f, 0x1e, 0xfa);
  }

  /** `mov r32, imm32` (B8+r id); zero-extends into the 64-bit register. */
  movImm32(dst: Reg, imm: number): void {
    this.#rex(false, 0, dst);
    this.emit(0xb8 + (dst & 7));
    this.int(imm, 4);
  }

  /** `mov r/m, reg` (89 /r), 32- or 64-bit. */
  mov(dst: Reg | Mem, src: Reg, w: boolean): void {
    this.#op([0x89], w, src, dst);
  }

  /** `mov r64, [mem]` (REX.W 8B /r). */
  load64(dst: Reg, src: Mem): void {
    this.#op([0x8b], true, dst, src);
  }

  /** `mov r32, [mem]` (8B /r); zero-extends into the 64-bit register. */
  load32(dst: Reg, src: Mem): void {
    this.#op([0x8b], false, dst, src);
  }

  /** `movzx r32, byte [mem]` (0F B6 /r). */
  loadByte(dst: Reg, src: Mem): void {
    this.#op([0x0f, 0xb6], false, dst, src);
  }

  /** `lea r64, [mem]` (REX.W 8D /r). */
  lea(dst: Reg, src: Mem): void {
    this.#op([0x8d], true, dst, src);
  }

  /** `mov byte [mem], imm8` (C6 /0 ib). */
  storeByteImm(dst: Mem, imm: number): void {
    this.#op([0xc6], false, 0, dst);
    this.int(imm, 1);
  }

  /** `mov dword/qword [mem], imm32` (C7 /0 id; sign-extended for qword). */
  storeImm(dst: Mem, imm: number, w: boolean): void {
    this.#op([0xc7], w, 0, dst);
    this.int(imm, 4);
  }

  /** `lock xadd [mem], r64` (F0 REX.W 0F C1 /r): atomically `tmp = [mem]; [mem] += r; r = tmp`. */
  lockXadd64(dst: Mem, src: Reg): void {
    this.#op([0x0f, 0xc1], true, src, dst, [0xf0]);
  }

  /** `xchg [mem], r32` (87 /r): atomic swap, implicitly locked (a full memory barrier). */
  xchg32(dst: Mem, src: Reg): void {
    this.#op([0x87], false, src, dst);
  }

  /** `shl r64, imm8` (REX.W C1 /4 ib). */
  shl64(dst: Reg, imm: number): void {
    this.#op([0xc1], true, 4, dst);
    this.int(imm, 1);
  }

  /** `add r/m, imm` (83 /0 ib when the value fits a signed byte, else 81 /0 id), 32- or 64-bit. */
  addImm(dst: Reg, imm: number, w: boolean): void {
    this.#arithImm(0, dst, imm, w);
  }

  /** `sub r/m, imm` (83 /5 ib or 81 /5 id), 32- or 64-bit. */
  subImm(dst: Reg, imm: number, w: boolean): void {
    this.#arithImm(5, dst, imm, w);
  }

  /** `and r/m, imm` (83 /4 ib or 81 /4 id), 32- or 64-bit; the immediate is sign-extended. */
  andImm(dst: Reg, imm: number, w: boolean): void {
    this.#arithImm(4, dst, imm, w);
  }

  /** `cmp r/m, imm` (83 /7 ib or 81 /7 id), 32- or 64-bit. */
  cmpImm(a: Reg | Mem, imm: number, w: boolean): void {
    this.#arithImm(7, a, imm, w);
  }

  /** The immediate forms of group 1 (`/ext`): the short encoding when the value fits. */
  #arithImm(ext: number, dst: Reg | Mem, imm: number, w: boolean): void {
    const short = imm >= -128 && imm <= 127;
    this.#op([short ? 0x83 : 0x81], w, ext, dst);
    this.int(imm, short ? 1 : 4);
  }

  /** `add r64, r64` (REX.W 01 /r). */
  add64(dst: Reg, src: Reg): void {
    this.#op([0x01], true, src, dst);
  }

  /** `cmp r/m32, r32` (39 /r). */
  cmp32(a: Reg | Mem, b: Reg): void {
    this.#op([0x39], false, b, a);
  }

  /** `cmp r/m64, r64` (REX.W 39 /r). */
  cmp64(a: Reg | Mem, b: Reg): void {
    this.#op([0x39], true, b, a);
  }

  /** `test r, r` (85 /r), 32- or 64-bit. */
  test(a: Reg, b: Reg, w: boolean): void {
    this.#op([0x85], w, b, a);
  }

  /** `xor r32, r32` (31 /r); `xor eax, eax` zeroes rax. */
  xor32(dst: Reg, src: Reg): void {
    this.#op([0x31], false, src, dst);
  }

  /** `inc r32` (FF /0). */
  inc32(dst: Reg): void {
    this.#op([0xff], false, 0, dst);
  }

  /** `push r64` (50+r). */
  push(r: Reg): void {
    this.#rex(false, 0, r);
    this.emit(0x50 + (r & 7));
  }

  /** `push imm8` (6A ib): pushes the sign-extended value as a qword. */
  pushImm8(imm: number): void {
    this.emit(0x6a);
    this.int(imm, 1);
  }

  /** `pop r64` (58+r). */
  pop(r: Reg): void {
    this.#rex(false, 0, r);
    this.emit(0x58 + (r & 7));
  }

  /** `call r64` (FF /2). */
  callReg(r: Reg): void {
    this.#op([0xff], false, 2, r);
  }

  /** `jmp qword [rip + disp32]` (FF /4, mod 00 rm 101) to the 64-bit value at `label` (an
   * entry of the address table). */
  jmpMem(label: string): void {
    this.emit(0xff, 0x25);
    this.#rel(4, label);
  }

  /** `call qword [rip + disp32]` (FF /2, mod 00 rm 101) to the 64-bit value at `label`. */
  callMem(label: string): void {
    this.emit(0xff, 0x15);
    this.#rel(4, label);
  }

  /** `mov r64, qword [rip + disp32]` (REX.W 8B /r, mod 00 rm 101): loads the 64-bit value at
   * `label`. */
  loadLabel64(dst: Reg, label: string): void {
    this.#rex(true, dst, 0);
    this.emit(0x8b, ((dst & 7) << 3) | 5);
    this.#rel(4, label);
  }

  /** `lea r64, [rip + disp32]` (REX.W 8D /r, mod 00 rm 101): the address of `label`. */
  leaLabel(dst: Reg, label: string): void {
    this.#rex(true, dst, 0);
    this.emit(0x8d, ((dst & 7) << 3) | 5);
    this.#rel(4, label);
  }

  /** The address table after the code (`int3` padding). */
  finishTable(): void {
    this.addressTable(0xcc);
  }

  /** `jmp rel8` (EB cb). */
  jmp(label: string): void {
    this.emit(0xeb);
    this.#rel(1, label);
  }

  /** `jmp rel32` (E9 cd). */
  jmp32(label: string): void {
    this.emit(0xe9);
    this.#rel(4, label);
  }

  /** `jcc rel32` (0F 80+cc cd). */
  jcc32(cond: number, label: string): void {
    this.emit(0x0f, 0x80 + cond);
    this.#rel(4, label);
  }

  /** `call rel32` (E8 cd) to a label. */
  call32(label: string): void {
    this.emit(0xe8);
    this.#rel(4, label);
  }

  /** `jcc rel8` (70+cc cb). */
  jcc(cond: number, label: string): void {
    this.emit(0x70 + cond);
    this.#rel(1, label);
  }

  /** A rel8 or rel32 field to `label`, zero until {@link finish}. */
  #rel(size: 1 | 4, label: string): void {
    this.fixup(label, relative(size, label));
    this.int(0, size);
  }

  /** `ret` (C3). */
  ret(): void {
    this.emit(0xc3);
  }
}
