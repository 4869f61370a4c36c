/**
 * An A64 (AArch64) encoder: pure functions returning one 32-bit instruction word each, exactly the
 * instructions the generated routines in this folder use, and {@link A64}, which appends them as
 * words to the instruction-set-neutral {@link Assembler} (`../asm/assembler.ts`: the buffer, labels
 * and fixups) and patches their PC-relative fields.
 *
 * Registers are numbers 0–30; 31 is `sp` or `xzr`/`wzr` as the instruction defines it (the
 * function's documentation says which). A `Width` of 64 selects the X form (`sf` = 1), 32 the W
 * form. Immediates out of an instruction's range throw, so a word is either exact or not made.
 * Encodings follow the Arm Architecture Reference Manual (A64 base instructions); every function
 * is checked word for word against the GNU assembler by `tests/a64_encoder.test.ts`.
 *
 * Only ARMv8.0 instructions: exclusives (`LDAXR`/`STLXR`) rather than LSE atomics, so the code runs
 * on every aarch64 core (Jetson's Cortex-A57 included). `BTI c` is a hint: a no-op where BTI is
 * absent or the page is not guarded.
 *
 * @module
 */
import { Assembler } from "../asm/assembler.ts";

/** Register numbers. `sp` and `xzr` are both 31: the instruction decides which it means. */
export const X = {
  x0: 0,
  x1: 1,
  x2: 2,
  x3: 3,
  x4: 4,
  x5: 5,
  x6: 6,
  x7: 7,
  x8: 8,
  x9: 9,
  x10: 10,
  x11: 11,
  x12: 12,
  x13: 13,
  x14: 14,
  x15: 15,
  x16: 16,
  x17: 17,
  x18: 18,
  x19: 19,
  x20: 20,
  x21: 21,
  x22: 22,
  x23: 23,
  x24: 24,
  x25: 25,
  x26: 26,
  x27: 27,
  x28: 28,
  x29: 29,
  x30: 30,
  sp: 31,
  xzr: 31,
} as const;

/** A register number, 0–31. */
export type Reg = number;

/** Operand width: 64 for X registers (`sf` = 1), 32 for W registers. */
export type Width = 32 | 64;

/** Condition codes (B.cond, CSEL, CSINC). */
export const Cond = {
  eq: 0x0,
  ne: 0x1,
  hs: 0x2,
  lo: 0x3,
  mi: 0x4,
  pl: 0x5,
  vs: 0x6,
  vc: 0x7,
  hi: 0x8,
  ls: 0x9,
  ge: 0xa,
  lt: 0xb,
  gt: 0xc,
  le: 0xd,
} as const;

/** A condition code, 0–13. */
export type CondCode = number;

/** Shift of a shifted-register operand (LSL, LSR, ASR). */
export const Shift = { lsl: 0, lsr: 1, asr: 2 } as const;

function reg(r: Reg): number {
  if (!Number.isInteger(r) || r < 0 || r > 31) throw new Error(`register ${r} is not 0-31`);
  return r;
}

function sf(w: Width): number {
  if (w !== 32 && w !== 64) throw new Error(`width ${w} is not 32 or 64`);
  return w === 64 ? 1 : 0;
}

function unsigned(value: number, bits: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** bits) {
    throw new Error(`${what} ${value} is not in [0, ${2 ** bits - 1}]`);
  }
  return value;
}

/** `value` as a `bits`-wide two's complement field. @throws {Error} out of range. */
function signed(value: number, bits: number, what: string): number {
  const half = 2 ** (bits - 1);
  if (!Number.isInteger(value) || value < -half || value >= half) {
    throw new Error(`${what} ${value} is not in [${-half}, ${half - 1}]`);
  }
  return value & (2 ** bits - 1);
}

/** A byte offset scaled by `scale`: a multiple of it, or throws. */
function scaled(offset: number, scale: number, what: string): number {
  if (offset % scale !== 0) throw new Error(`${what} ${offset} is not a multiple of ${scale}`);
  return offset / scale;
}

const u32 = (word: number): number => word >>> 0;

// ---- moves of immediates ----

/** `MOVZ Rd, #imm16, LSL #(16·hw)`; rd 31 is the zero register. */
export function movz(w: Width, rd: Reg, imm16: number, hw = 0): number {
  unsigned(hw, w === 64 ? 2 : 1, "MOVZ shift/16");
  return u32(
    0x52800000 | sf(w) << 31 | hw << 21 | unsigned(imm16, 16, "MOVZ immediate") << 5 |
      reg(rd),
  );
}

/** `MOVK Rd, #imm16, LSL #(16·hw)`: replaces one 16-bit field, keeps the others. */
export function movk(w: Width, rd: Reg, imm16: number, hw = 0): number {
  unsigned(hw, w === 64 ? 2 : 1, "MOVK shift/16");
  return u32(
    0x72800000 | sf(w) << 31 | hw << 21 | unsigned(imm16, 16, "MOVK immediate") << 5 |
      reg(rd),
  );
}

// ---- add / subtract ----

function addSubImm(
  base: number,
  w: Width,
  rd: Reg,
  rn: Reg,
  imm12: number,
  lsl12: boolean,
): number {
  return u32(
    base | sf(w) << 31 | (lsl12 ? 1 << 22 : 0) | unsigned(imm12, 12, "immediate") << 10 |
      reg(rn) << 5 | reg(rd),
  );
}

/** `ADD Rd|SP, Rn|SP, #imm12 {, LSL #12}`; register 31 is sp on both sides. */
export function addImm(w: Width, rd: Reg, rn: Reg, imm12: number, lsl12 = false): number {
  return addSubImm(0x11000000, w, rd, rn, imm12, lsl12);
}

/** `ADDS Rd, Rn|SP, #imm12 {, LSL #12}`; rd 31 is the zero register. */
export function addsImm(w: Width, rd: Reg, rn: Reg, imm12: number, lsl12 = false): number {
  return addSubImm(0x31000000, w, rd, rn, imm12, lsl12);
}

/** `SUB Rd|SP, Rn|SP, #imm12 {, LSL #12}`; register 31 is sp on both sides. */
export function subImm(w: Width, rd: Reg, rn: Reg, imm12: number, lsl12 = false): number {
  return addSubImm(0x51000000, w, rd, rn, imm12, lsl12);
}

/** `SUBS Rd, Rn|SP, #imm12 {, LSL #12}`; rd 31 is the zero register. */
export function subsImm(w: Width, rd: Reg, rn: Reg, imm12: number, lsl12 = false): number {
  return addSubImm(0x71000000, w, rd, rn, imm12, lsl12);
}

/** `CMP Rn|SP, #imm12` (`SUBS ZR, Rn, #imm12`). */
export function cmpImm(w: Width, rn: Reg, imm12: number, lsl12 = false): number {
  return subsImm(w, 31, rn, imm12, lsl12);
}

/** `CMN Rn|SP, #imm12` (`ADDS ZR, Rn, #imm12`). */
export function cmnImm(w: Width, rn: Reg, imm12: number, lsl12 = false): number {
  return addsImm(w, 31, rn, imm12, lsl12);
}

/** `MOV Rd|SP, Rn|SP` (`ADD Rd, Rn, #0`): the move to or from sp. */
export function movSp(w: Width, rd: Reg, rn: Reg): number {
  return addImm(w, rd, rn, 0);
}

function addSubReg(
  base: number,
  w: Width,
  rd: Reg,
  rn: Reg,
  rm: Reg,
  shift: number,
  amount: number,
): number {
  unsigned(shift, 2, "shift kind");
  if (shift === 3) throw new Error("ROR is not an add/subtract shift");
  return u32(
    base | sf(w) << 31 | shift << 22 | reg(rm) << 16 |
      unsigned(amount, w === 64 ? 6 : 5, "shift amount") << 10 | reg(rn) << 5 | reg(rd),
  );
}

/** `ADD Rd, Rn, Rm {, shift #amount}` (shifted register; 31 is the zero register). */
export function addReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return addSubReg(0x0b000000, w, rd, rn, rm, shift, amount);
}

/** `ADDS Rd, Rn, Rm {, shift #amount}`. */
export function addsReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return addSubReg(0x2b000000, w, rd, rn, rm, shift, amount);
}

/** `SUB Rd, Rn, Rm {, shift #amount}`. */
export function subReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return addSubReg(0x4b000000, w, rd, rn, rm, shift, amount);
}

/** `SUBS Rd, Rn, Rm {, shift #amount}`. */
export function subsReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return addSubReg(0x6b000000, w, rd, rn, rm, shift, amount);
}

/** `CMP Rn, Rm {, shift #amount}` (`SUBS ZR, Rn, Rm`). */
export function cmpReg(w: Width, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return subsReg(w, 31, rn, rm, shift, amount);
}

/** `CMN Rn, Rm {, shift #amount}` (`ADDS ZR, Rn, Rm`). */
export function cmnReg(w: Width, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return addsReg(w, 31, rn, rm, shift, amount);
}

// ---- logical (shifted register) ----

function logicalReg(
  base: number,
  w: Width,
  rd: Reg,
  rn: Reg,
  rm: Reg,
  shift: number,
  amount: number,
): number {
  return u32(
    base | sf(w) << 31 | unsigned(shift, 2, "shift kind") << 22 | reg(rm) << 16 |
      unsigned(amount, w === 64 ? 6 : 5, "shift amount") << 10 | reg(rn) << 5 | reg(rd),
  );
}

/** `AND Rd, Rn, Rm {, shift #amount}`. */
export function andReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return logicalReg(0x0a000000, w, rd, rn, rm, shift, amount);
}

/** `ORR Rd, Rn, Rm {, shift #amount}`. */
export function orrReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return logicalReg(0x2a000000, w, rd, rn, rm, shift, amount);
}

/** `EOR Rd, Rn, Rm {, shift #amount}`. */
export function eorReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return logicalReg(0x4a000000, w, rd, rn, rm, shift, amount);
}

/** `ANDS Rd, Rn, Rm {, shift #amount}`. */
export function andsReg(w: Width, rd: Reg, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return logicalReg(0x6a000000, w, rd, rn, rm, shift, amount);
}

/** `TST Rn, Rm` (`ANDS ZR, Rn, Rm`). */
export function tstReg(w: Width, rn: Reg, rm: Reg, shift = 0, amount = 0): number {
  return andsReg(w, 31, rn, rm, shift, amount);
}

/** `MOV Rd, Rm` (`ORR Rd, ZR, Rm`); neither may be sp (see {@link movSp}). */
export function movReg(w: Width, rd: Reg, rm: Reg): number {
  return orrReg(w, rd, 31, rm);
}

// ---- bitfield moves and variable shifts ----

/** `UBFM Rd, Rn, #immr, #imms`. */
export function ubfm(w: Width, rd: Reg, rn: Reg, immr: number, imms: number): number {
  const bits = w === 64 ? 6 : 5;
  return u32(
    0x53000000 | sf(w) << 31 | sf(w) << 22 | unsigned(immr, bits, "immr") << 16 |
      unsigned(imms, bits, "imms") << 10 | reg(rn) << 5 | reg(rd),
  );
}

/** `LSL Rd, Rn, #shift` (`UBFM Rd, Rn, #(-shift mod w), #(w-1-shift)`). */
export function lslImm(w: Width, rd: Reg, rn: Reg, shift: number): number {
  unsigned(shift, w === 64 ? 6 : 5, "shift");
  return ubfm(w, rd, rn, (w - shift) % w, w - 1 - shift);
}

/** `LSR Rd, Rn, #shift` (`UBFM Rd, Rn, #shift, #(w-1)`). */
export function lsrImm(w: Width, rd: Reg, rn: Reg, shift: number): number {
  return ubfm(w, rd, rn, shift, w - 1);
}

/** `UBFX Rd, Rn, #lsb, #width`: bits lsb..lsb+width-1 of Rn, zero-extended. */
export function ubfx(w: Width, rd: Reg, rn: Reg, lsb: number, width: number): number {
  if (width < 1 || lsb + width > w) throw new Error(`UBFX #${lsb}, #${width} exceeds ${w} bits`);
  return ubfm(w, rd, rn, lsb, lsb + width - 1);
}

/** `UBFIZ Rd, Rn, #lsb, #width`: the low `width` bits of Rn, moved up to bit `lsb`. */
export function ubfiz(w: Width, rd: Reg, rn: Reg, lsb: number, width: number): number {
  if (width < 1 || lsb + width > w) throw new Error(`UBFIZ #${lsb}, #${width} exceeds ${w} bits`);
  return ubfm(w, rd, rn, (w - lsb) % w, width - 1);
}

/** `LSLV Rd, Rn, Rm` (`LSL Rd, Rn, Rm`). */
export function lslReg(w: Width, rd: Reg, rn: Reg, rm: Reg): number {
  return u32(0x1ac02000 | sf(w) << 31 | reg(rm) << 16 | reg(rn) << 5 | reg(rd));
}

/** `LSRV Rd, Rn, Rm` (`LSR Rd, Rn, Rm`). */
export function lsrReg(w: Width, rd: Reg, rn: Reg, rm: Reg): number {
  return u32(0x1ac02400 | sf(w) << 31 | reg(rm) << 16 | reg(rn) << 5 | reg(rd));
}

// ---- conditional select ----

/** `CSEL Rd, Rn, Rm, cond`: Rn if cond holds, else Rm. */
export function csel(w: Width, rd: Reg, rn: Reg, rm: Reg, cond: CondCode): number {
  return u32(
    0x1a800000 | sf(w) << 31 | reg(rm) << 16 | unsigned(cond, 4, "condition") << 12 |
      reg(rn) << 5 | reg(rd),
  );
}

/** `CSINC Rd, Rn, Rm, cond`: Rn if cond holds, else Rm + 1. */
export function csinc(w: Width, rd: Reg, rn: Reg, rm: Reg, cond: CondCode): number {
  return u32(
    0x1a800400 | sf(w) << 31 | reg(rm) << 16 | unsigned(cond, 4, "condition") << 12 |
      reg(rn) << 5 | reg(rd),
  );
}

/** `CSET Rd, cond` (`CSINC Rd, ZR, ZR, !cond`): 1 if cond holds, else 0. */
export function cset(w: Width, rd: Reg, cond: CondCode): number {
  if (cond >= 14) throw new Error(`CSET needs a condition other than AL/NV, not ${cond}`);
  return csinc(w, rd, 31, 31, cond ^ 1);
}

// ---- loads and stores ----

/** The `opc` field of a load or store: store, load (zero-extend), load sign-extending to 64. */
const Opc = { STORE: 0, LOAD: 1, LOAD_SIGNED_64: 2 } as const;

function ldstUnsigned(size: number, opc: number, rt: Reg, rn: Reg, offset: number): number {
  const imm12 = unsigned(scaled(offset, 1 << size, "offset"), 12, "scaled offset");
  return u32(0x39000000 | size << 30 | opc << 22 | imm12 << 10 | reg(rn) << 5 | reg(rt));
}

/** Register offset `[Xn|SP, Xm {, LSL #size}]` (option LSL/UXTX). */
function ldstRegister(
  size: number,
  opc: number,
  rt: Reg,
  rn: Reg,
  rm: Reg,
  scale: boolean,
): number {
  return u32(
    0x38200800 | size << 30 | opc << 22 | reg(rm) << 16 | 3 << 13 |
      (scale ? 1 << 12 : 0) | reg(rn) << 5 | reg(rt),
  );
}

/** `LDR Xt, [Xn|SP, #offset]` (unsigned offset, a multiple of 8 up to 32760). */
export function ldrX(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(3, Opc.LOAD, rt, rn, offset);
}

/** `LDR Wt, [Xn|SP, #offset]` (multiple of 4 up to 16380; zero-extends). */
export function ldrW(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(2, Opc.LOAD, rt, rn, offset);
}

/** `LDRH Wt, [Xn|SP, #offset]` (multiple of 2 up to 8190; zero-extends). */
export function ldrh(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(1, Opc.LOAD, rt, rn, offset);
}

/** `LDRB Wt, [Xn|SP, #offset]` (0–4095; zero-extends). */
export function ldrb(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(0, Opc.LOAD, rt, rn, offset);
}

/** `LDRSW Xt, [Xn|SP, #offset]` (multiple of 4 up to 16380; sign-extends). */
export function ldrsw(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(2, Opc.LOAD_SIGNED_64, rt, rn, offset);
}

/** `STR Xt, [Xn|SP, #offset]`; rt 31 is xzr. */
export function strX(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(3, Opc.STORE, rt, rn, offset);
}

/** `STR Wt, [Xn|SP, #offset]`; rt 31 is wzr. */
export function strW(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(2, Opc.STORE, rt, rn, offset);
}

/** `STRH Wt, [Xn|SP, #offset]`. */
export function strh(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(1, Opc.STORE, rt, rn, offset);
}

/** `STRB Wt, [Xn|SP, #offset]`. */
export function strb(rt: Reg, rn: Reg, offset = 0): number {
  return ldstUnsigned(0, Opc.STORE, rt, rn, offset);
}

/** `LDR Xt, [Xn|SP, Xm {, LSL #3}]`. */
export function ldrXReg(rt: Reg, rn: Reg, rm: Reg, scale = false): number {
  return ldstRegister(3, Opc.LOAD, rt, rn, rm, scale);
}

/** `LDR Wt, [Xn|SP, Xm {, LSL #2}]`. */
export function ldrWReg(rt: Reg, rn: Reg, rm: Reg, scale = false): number {
  return ldstRegister(2, Opc.LOAD, rt, rn, rm, scale);
}

/** `LDRB Wt, [Xn|SP, Xm]`. */
export function ldrbReg(rt: Reg, rn: Reg, rm: Reg): number {
  return ldstRegister(0, Opc.LOAD, rt, rn, rm, false);
}

/** `STR Xt, [Xn|SP, Xm {, LSL #3}]`. */
export function strXReg(rt: Reg, rn: Reg, rm: Reg, scale = false): number {
  return ldstRegister(3, Opc.STORE, rt, rn, rm, scale);
}

/** `STR Wt, [Xn|SP, Xm {, LSL #2}]`. */
export function strWReg(rt: Reg, rn: Reg, rm: Reg, scale = false): number {
  return ldstRegister(2, Opc.STORE, rt, rn, rm, scale);
}

/** `STRB Wt, [Xn|SP, Xm]`. */
export function strbReg(rt: Reg, rn: Reg, rm: Reg): number {
  return ldstRegister(0, Opc.STORE, rt, rn, rm, false);
}

/** `LDR Xt, label` (PC-relative literal, `delta` bytes from this instruction, ±1 MiB). */
export function ldrXLiteral(rt: Reg, delta = 0): number {
  return patchImm19(u32(0x58000000 | reg(rt)), delta);
}

/** `LDR Wt, label` (PC-relative literal; zero-extends). */
export function ldrWLiteral(rt: Reg, delta = 0): number {
  return patchImm19(u32(0x18000000 | reg(rt)), delta);
}

/** `LDRSW Xt, label` (PC-relative literal; sign-extends). */
export function ldrswLiteral(rt: Reg, delta = 0): number {
  return patchImm19(u32(0x98000000 | reg(rt)), delta);
}

/** How LDP/STP update the base: signed offset (no update), pre-index (`!`), post-index. */
export const Index = { offset: 2, pre: 3, post: 1 } as const;

function pair(
  load: boolean,
  w: Width,
  rt: Reg,
  rt2: Reg,
  rn: Reg,
  offset: number,
  index: number,
): number {
  if (index !== 1 && index !== 2 && index !== 3) throw new Error(`pair index mode ${index}`);
  const imm7 = signed(scaled(offset, w / 8, "pair offset"), 7, "scaled pair offset");
  return u32(
    0x28000000 | (w === 64 ? 2 : 0) << 30 | index << 23 | (load ? 1 << 22 : 0) |
      imm7 << 15 | reg(rt2) << 10 | reg(rn) << 5 | reg(rt),
  );
}

/**
 * `STP Rt, Rt2, [Xn|SP, #offset]`, `[Xn|SP, #offset]!` (pre) or `[Xn|SP], #offset` (post);
 * offset a multiple of 8 (X) or 4 (W) in [-64, 63] of those.
 */
export function stp(
  w: Width,
  rt: Reg,
  rt2: Reg,
  rn: Reg,
  offset: number,
  index: number = Index.offset,
): number {
  return pair(false, w, rt, rt2, rn, offset, index);
}

/** `LDP Rt, Rt2, …` with the addressing of {@link stp}. */
export function ldp(
  w: Width,
  rt: Reg,
  rt2: Reg,
  rn: Reg,
  offset: number,
  index: number = Index.offset,
): number {
  return pair(true, w, rt, rt2, rn, offset, index);
}

// ---- acquire / release and exclusives (ARMv8.0) ----

/** `LDAR Rt, [Xn|SP]`: load-acquire. */
export function ldar(w: Width, rt: Reg, rn: Reg): number {
  return u32((w === 64 ? 0xc8dffc00 : 0x88dffc00) | reg(rn) << 5 | reg(rt));
}

/** `STLR Rt, [Xn|SP]`: store-release. */
export function stlr(w: Width, rt: Reg, rn: Reg): number {
  return u32((w === 64 ? 0xc89ffc00 : 0x889ffc00) | reg(rn) << 5 | reg(rt));
}

/** `LDXR Rt, [Xn|SP]`: load-exclusive. */
export function ldxr(w: Width, rt: Reg, rn: Reg): number {
  return u32((w === 64 ? 0xc85f7c00 : 0x885f7c00) | reg(rn) << 5 | reg(rt));
}

/** `LDAXR Rt, [Xn|SP]`: load-acquire exclusive. */
export function ldaxr(w: Width, rt: Reg, rn: Reg): number {
  return u32((w === 64 ? 0xc85ffc00 : 0x885ffc00) | reg(rn) << 5 | reg(rt));
}

/** `STXR Ws, Rt, [Xn|SP]`: store-exclusive; Ws = 0 on success, 1 on failure. */
export function stxr(w: Width, rs: Reg, rt: Reg, rn: Reg): number {
  return u32((w === 64 ? 0xc8007c00 : 0x88007c00) | reg(rs) << 16 | reg(rn) << 5 | reg(rt));
}

/** `STLXR Ws, Rt, [Xn|SP]`: store-release exclusive; Ws = 0 on success, 1 on failure. */
export function stlxr(w: Width, rs: Reg, rt: Reg, rn: Reg): number {
  return u32((w === 64 ? 0xc800fc00 : 0x8800fc00) | reg(rs) << 16 | reg(rn) << 5 | reg(rt));
}

// ---- barriers, hints, system ----

/** `DMB ISH`: a full barrier for the inner shareable domain (all the process's threads). */
export function dmbIsh(): number {
  return 0xd5033bbf;
}

/** `DSB ISH`: completes earlier memory accesses and cache maintenance. */
export function dsbIsh(): number {
  return 0xd5033b9f;
}

/** `ISB`: refetches the instructions after it. */
export function isb(): number {
  return 0xd5033fdf;
}

/** `NOP`. */
export function nop(): number {
  return 0xd503201f;
}

/** `BTI c` (`HINT #34`): a valid target of BLR/BR x16/x17 on a guarded page; a no-op otherwise. */
export function btiC(): number {
  return 0xd503245f;
}

/** `MRS Xt, CTR_EL0`: the cache type register (cache line sizes). */
export function mrsCtrEl0(rt: Reg): number {
  return u32(0xd53b0020 | reg(rt));
}

/** `DC CVAU, Xt`: cleans the data cache line holding Xt to the point of unification. */
export function dcCvau(rt: Reg): number {
  return u32(0xd50b7b20 | reg(rt));
}

/** `IC IVAU, Xt`: invalidates the instruction cache line holding Xt (every core). */
export function icIvau(rt: Reg): number {
  return u32(0xd50b7520 | reg(rt));
}

// ---- branches ----

/** `B label`, `delta` bytes from this instruction (±128 MiB). */
export function b(delta = 0): number {
  return patchImm26(0x14000000, delta);
}

/** `BL label`. */
export function bl(delta = 0): number {
  return patchImm26(0x94000000, delta);
}

/** `B.cond label` (±1 MiB). */
export function bcond(cond: CondCode, delta = 0): number {
  return patchImm19(u32(0x54000000 | unsigned(cond, 4, "condition")), delta);
}

/** `CBZ Rt, label` (±1 MiB). */
export function cbz(w: Width, rt: Reg, delta = 0): number {
  return patchImm19(u32(0x34000000 | sf(w) << 31 | reg(rt)), delta);
}

/** `CBNZ Rt, label` (±1 MiB). */
export function cbnz(w: Width, rt: Reg, delta = 0): number {
  return patchImm19(u32(0x35000000 | sf(w) << 31 | reg(rt)), delta);
}

function testBranch(base: number, rt: Reg, bit: number, delta: number): number {
  unsigned(bit, 6, "bit number");
  return patchImm14(u32(base | (bit >> 5) << 31 | (bit & 31) << 19 | reg(rt)), delta);
}

/** `TBZ Rt, #bit, label` (±32 KiB); a bit ≥ 32 tests an X register. */
export function tbz(rt: Reg, bit: number, delta = 0): number {
  return testBranch(0x36000000, rt, bit, delta);
}

/** `TBNZ Rt, #bit, label` (±32 KiB). */
export function tbnz(rt: Reg, bit: number, delta = 0): number {
  return testBranch(0x37000000, rt, bit, delta);
}

/** `BR Xn`. */
export function br(rn: Reg): number {
  return u32(0xd61f0000 | reg(rn) << 5);
}

/** `BLR Xn`. */
export function blr(rn: Reg): number {
  return u32(0xd63f0000 | reg(rn) << 5);
}

/** `RET {Xn}` (x30 by default). */
export function ret(rn: Reg = 30): number {
  return u32(0xd65f0000 | reg(rn) << 5);
}

/** `ADR Xd, label`: the address `delta` bytes from this instruction (±1 MiB). */
export function adr(rd: Reg, delta = 0): number {
  return patchImm21(u32(0x10000000 | reg(rd)), delta);
}

// ---- PC-relative fixups: patch a word's offset field with a byte delta ----

function wordDelta(delta: number, bits: number, what: string): number {
  if (delta % 4 !== 0) throw new Error(`${what} delta ${delta} is not a multiple of 4`);
  return signed(delta / 4, bits, `${what} delta/4`);
}

/** Sets bits 0–25 (B, BL) to `delta`/4. @throws {Error} beyond ±128 MiB or misaligned. */
export function patchImm26(word: number, delta: number): number {
  return u32((word & ~0x03ffffff) | wordDelta(delta, 26, "imm26"));
}

/** Sets bits 5–23 (B.cond, CBZ/CBNZ, LDR literal) to `delta`/4. @throws {Error} beyond ±1 MiB. */
export function patchImm19(word: number, delta: number): number {
  return u32((word & ~(0x7ffff << 5)) | wordDelta(delta, 19, "imm19") << 5);
}

/** Sets bits 5–18 (TBZ/TBNZ) to `delta`/4. @throws {Error} beyond ±32 KiB or misaligned. */
export function patchImm14(word: number, delta: number): number {
  return u32((word & ~(0x3fff << 5)) | wordDelta(delta, 14, "imm14") << 5);
}

/** Sets ADR's immlo (bits 29–30) and immhi (bits 5–23) to the byte `delta`. @throws beyond ±1 MiB. */
export function patchImm21(word: number, delta: number): number {
  const imm = signed(delta, 21, "ADR delta");
  return u32((word & ~(3 << 29 | 0x7ffff << 5)) | (imm & 3) << 29 | (imm >> 2) << 5);
}

/** A patch function: the word with its PC-relative field set to `delta` bytes. */
export type Patch = (word: number, delta: number) => number;

/**
 * An A64 code buffer over the neutral {@link Assembler}: instruction words, data, labels, and
 * PC-relative fixups resolved by {@link Assembler.finish}. Little-endian, as Linux on aarch64 runs.
 */
export class A64 extends Assembler {
  /** Appends one instruction word. @throws {Error} when the buffer is not 4-byte aligned. */
  override emit(word: number): void {
    if (this.offset % 4 !== 0) throw new Error("instruction at a misaligned offset");
    this.int(word >>> 0, 4);
  }

  /** Appends `word` whose PC-relative field `patch` sets to the distance to `label`. */
  emitTo(word: number, label: string, patch: Patch): void {
    this.fixup(label, (code, at, target) => {
      const view = new DataView(code.buffer, code.byteOffset, code.byteLength);
      let patched: number;
      try {
        patched = patch(view.getUint32(at, true), target - at);
      } catch (e) {
        throw new Error(`fixup at ${at} to ${label}: ${(e as Error).message}`);
      }
      view.setUint32(at, patched, true);
    });
    this.emit(word);
  }

  /** Appends a little-endian 64-bit value. */
  quad(value: bigint): void {
    this.int(value, 8);
  }

  /** Pads with NOPs (GNU as's code padding) to a multiple of `n` bytes (a power of two ≥ 4). */
  align(n: number): void {
    if (this.offset % 4 !== 0) throw new Error("align after data that is not words");
    while (this.offset % n !== 0) this.emit(nop());
  }

  // ---- instructions that refer to labels ----

  /** `B label`. */
  b(label: string): void {
    this.emitTo(b(), label, patchImm26);
  }

  /** `BL label`. */
  bl(label: string): void {
    this.emitTo(bl(), label, patchImm26);
  }

  /** `B.cond label`. */
  bcond(cond: CondCode, label: string): void {
    this.emitTo(bcond(cond), label, patchImm19);
  }

  /** `CBZ Rt, label`. */
  cbz(w: Width, rt: Reg, label: string): void {
    this.emitTo(cbz(w, rt), label, patchImm19);
  }

  /** `CBNZ Rt, label`. */
  cbnz(w: Width, rt: Reg, label: string): void {
    this.emitTo(cbnz(w, rt), label, patchImm19);
  }

  /** `TBZ Rt, #bit, label`. */
  tbz(rt: Reg, bit: number, label: string): void {
    this.emitTo(tbz(rt, bit), label, patchImm14);
  }

  /** `TBNZ Rt, #bit, label`. */
  tbnz(rt: Reg, bit: number, label: string): void {
    this.emitTo(tbnz(rt, bit), label, patchImm14);
  }

  /** `LDR Xt, label`: a 64-bit literal (an address of the table after the code). */
  ldrLiteral(rt: Reg, label: string): void {
    this.emitTo(ldrXLiteral(rt), label, patchImm19);
  }

  /** `ADR Xd, label`. */
  adr(rd: Reg, label: string): void {
    this.emitTo(adr(rd), label, patchImm21);
  }
}
