/**
 * The A64 encoder (ffi/native/a64/encoder.ts), word for word against the GNU assembler: every
 * case below is one line of tests/thunk_driver/aarch64_encoder_reference.S, in the same order,
 * over registers (x0, x30, sp, xzr) and the edges of each immediate. Also the fixups' range
 * checks and the assembler's labels. The comparison skips where aarch64-linux-gnu-as is absent.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "./support/test.ts";
import { assembleA64, driverFile, noAssembler, words } from "./support/aarch64_cross.ts";
import * as E from "../ffi/native/a64/encoder.ts";

const { Cond, Index, Shift } = E;
const SP = 31;
const ZR = 31;

/** [the reference line, the encoder's word]. */
const CASES: [string, number][] = [
  ["movz x0, #0x0", E.movz(64, 0, 0)],
  ["movz x30, #0xffff, lsl #48", E.movz(64, 30, 0xffff, 3)],
  ["movz w5, #0x1234, lsl #16", E.movz(32, 5, 0x1234, 1)],
  ["movz xzr, #0x1", E.movz(64, ZR, 1)],
  ["movk x9, #0xbeef, lsl #32", E.movk(64, 9, 0xbeef, 2)],
  ["movk w1, #0xffff", E.movk(32, 1, 0xffff)],
  ["add x0, x1, #0x0", E.addImm(64, 0, 1, 0)],
  ["add sp, sp, #0xfff", E.addImm(64, SP, SP, 4095)],
  ["add x29, sp, #0x10", E.addImm(64, 29, SP, 16)],
  ["add w3, w4, #0x1, lsl #12", E.addImm(32, 3, 4, 1, true)],
  ["sub sp, sp, #0x40", E.subImm(64, SP, SP, 64)],
  ["sub x30, x0, #0xfff, lsl #12", E.subImm(64, 30, 0, 4095, true)],
  ["adds x2, x3, #0x7", E.addsImm(64, 2, 3, 7)],
  ["subs w2, w3, #0x1", E.subsImm(32, 2, 3, 1)],
  ["cmp x2, #0x1", E.cmpImm(64, 2, 1)],
  ["cmp sp, #0xfff", E.cmpImm(64, SP, 4095)],
  ["cmp w8, #0x0", E.cmpImm(32, 8, 0)],
  ["cmn x4, #0x7f", E.cmnImm(64, 4, 127)],
  ["mov x29, sp", E.movSp(64, 29, SP)],
  ["mov sp, x9", E.movSp(64, SP, 9)],
  ["add x11, x9, x11, lsl #5", E.addReg(64, 11, 9, 11, Shift.lsl, 5)],
  ["add w0, w1, w2", E.addReg(32, 0, 1, 2)],
  ["add x0, xzr, x30, lsr #63", E.addReg(64, 0, ZR, 30, Shift.lsr, 63)],
  ["sub x1, x2, x3, asr #1", E.subReg(64, 1, 2, 3, Shift.asr, 1)],
  ["adds x1, x2, x3", E.addsReg(64, 1, 2, 3)],
  ["subs w1, w2, w3, lsl #31", E.subsReg(32, 1, 2, 3, Shift.lsl, 31)],
  ["cmp w12, w10", E.cmpReg(32, 12, 10)],
  ["cmp x0, xzr", E.cmpReg(64, 0, ZR)],
  ["cmn x5, x6", E.cmnReg(64, 5, 6)],
  ["and x1, x2, x3", E.andReg(64, 1, 2, 3)],
  ["orr w1, w2, w3, lsl #4", E.orrReg(32, 1, 2, 3, Shift.lsl, 4)],
  ["eor x30, x0, x1, lsr #2", E.eorReg(64, 30, 0, 1, Shift.lsr, 2)],
  ["ands x1, x2, x3", E.andsReg(64, 1, 2, 3)],
  ["tst x5, x5", E.tstReg(64, 5, 5)],
  ["tst w1, w2", E.tstReg(32, 1, 2)],
  ["mov x0, x1", E.movReg(64, 0, 1)],
  ["mov w19, w30", E.movReg(32, 19, 30)],
  ["mov x0, xzr", E.movReg(64, 0, ZR)],
  ["ubfx x11, x10, #0, #10", E.ubfx(64, 11, 10, 0, 10)],
  ["ubfx x4, x3, #16, #4", E.ubfx(64, 4, 3, 16, 4)],
  ["ubfx w0, w1, #31, #1", E.ubfx(32, 0, 1, 31, 1)],
  ["ubfiz x11, x10, #5, #30", E.ubfiz(64, 11, 10, 5, 30)],
  ["ubfiz w1, w2, #0, #32", E.ubfiz(32, 1, 2, 0, 32)],
  ["lsl x1, x2, #5", E.lslImm(64, 1, 2, 5)],
  ["lsl x1, x2, #63", E.lslImm(64, 1, 2, 63)],
  ["lsl w1, w2, #1", E.lslImm(32, 1, 2, 1)],
  ["lsr x1, x2, #63", E.lsrImm(64, 1, 2, 63)],
  ["lsr w1, w2, #0", E.lsrImm(32, 1, 2, 0)],
  ["ubfm x1, x2, #3, #2", E.ubfm(64, 1, 2, 3, 2)],
  ["lsl x4, x5, x4", E.lslReg(64, 4, 5, 4)],
  ["lsr w4, w5, w6", E.lsrReg(32, 4, 5, 6)],
  ["csel x0, x1, x2, ne", E.csel(64, 0, 1, 2, Cond.ne)],
  ["csel w0, wzr, w2, hi", E.csel(32, 0, ZR, 2, Cond.hi)],
  ["csinc x0, x2, xzr, ne", E.csinc(64, 0, 2, ZR, Cond.ne)],
  ["cset w0, eq", E.cset(32, 0, Cond.eq)],
  ["cset x9, lo", E.cset(64, 9, Cond.lo)],
  ["cset w1, le", E.cset(32, 1, Cond.le)],
  ["ldr x0, [x1]", E.ldrX(0, 1)],
  ["ldr x30, [sp, #32760]", E.ldrX(30, SP, 32760)],
  ["ldr w0, [x1, #16380]", E.ldrW(0, 1, 16380)],
  ["ldr w12, [x11]", E.ldrW(12, 11)],
  ["ldrh w3, [x4, #8190]", E.ldrh(3, 4, 8190)],
  ["ldrb w3, [x4, #4095]", E.ldrb(3, 4, 4095)],
  ["ldrb w0, [sp]", E.ldrb(0, SP)],
  ["ldrsw x3, [x4, #4]", E.ldrsw(3, 4, 4)],
  ["str x0, [x11, #16]", E.strX(0, 11, 16)],
  ["str xzr, [x11]", E.strX(ZR, 11)],
  ["str w1, [x11, #8]", E.strW(1, 11, 8)],
  ["str wzr, [sp, #16380]", E.strW(ZR, SP, 16380)],
  ["strh w1, [x2, #2]", E.strh(1, 2, 2)],
  ["strb wzr, [x2, #4095]", E.strb(ZR, 2, 4095)],
  ["ldr x0, [x1, x2]", E.ldrXReg(0, 1, 2)],
  ["ldr x0, [sp, x30, lsl #3]", E.ldrXReg(0, SP, 30, true)],
  ["ldr w0, [x1, x2, lsl #2]", E.ldrWReg(0, 1, 2, true)],
  ["ldrb w0, [x1, x2]", E.ldrbReg(0, 1, 2)],
  ["str x0, [x1, x2, lsl #3]", E.strXReg(0, 1, 2, true)],
  ["str w0, [x1, x2]", E.strWReg(0, 1, 2)],
  ["strb wzr, [x1, x2]", E.strbReg(ZR, 1, 2)],
  ["ldr x9, .+8", E.ldrXLiteral(9, 8)],
  ["ldr x16, .+1048572", E.ldrXLiteral(16, 1048572)],
  ["ldr x0, .-1048576", E.ldrXLiteral(0, -1048576)],
  ["ldr w0, .+4", E.ldrWLiteral(0, 4)],
  ["ldrsw x1, .-4", E.ldrswLiteral(1, -4)],
  ["stp x29, x30, [sp, #-16]!", E.stp(64, 29, 30, SP, -16, Index.pre)],
  ["stp x29, x30, [sp, #-512]!", E.stp(64, 29, 30, SP, -512, Index.pre)],
  ["stp x0, x1, [sp, #16]", E.stp(64, 0, 1, SP, 16)],
  ["stp x0, x1, [x2, #504]", E.stp(64, 0, 1, 2, 504)],
  ["stp w0, w1, [x2], #-256", E.stp(32, 0, 1, 2, -256, Index.post)],
  ["stp xzr, xzr, [sp, #-32]!", E.stp(64, ZR, ZR, SP, -32, Index.pre)],
  ["ldp x29, x30, [sp], #16", E.ldp(64, 29, 30, SP, 16, Index.post)],
  ["ldp x29, x30, [sp], #504", E.ldp(64, 29, 30, SP, 504, Index.post)],
  ["ldp x10, x11, [sp, #48]", E.ldp(64, 10, 11, SP, 48)],
  ["ldp w0, w1, [x2, #-4]!", E.ldp(32, 0, 1, 2, -4, Index.pre)],
  ["ldar w12, [x11]", E.ldar(32, 12, 11)],
  ["ldar x0, [sp]", E.ldar(64, 0, SP)],
  ["stlr w12, [x11]", E.stlr(32, 12, 11)],
  ["stlr xzr, [x30]", E.stlr(64, ZR, 30)],
  ["ldxr x1, [x2]", E.ldxr(64, 1, 2)],
  ["ldaxr x10, [x9]", E.ldaxr(64, 10, 9)],
  ["ldaxr w12, [sp]", E.ldaxr(32, 12, SP)],
  ["stxr w3, x1, [x2]", E.stxr(64, 3, 1, 2)],
  ["stlxr w12, x11, [x9]", E.stlxr(64, 12, 11, 9)],
  ["stlxr w14, wzr, [x13]", E.stlxr(32, 14, ZR, 13)],
  ["dmb ish", E.dmbIsh()],
  ["dsb ish", E.dsbIsh()],
  ["isb", E.isb()],
  ["nop", E.nop()],
  ["bti c", E.btiC()],
  ["mrs x3, ctr_el0", E.mrsCtrEl0(3)],
  ["dc cvau, x0", E.dcCvau(0)],
  ["ic ivau, x30", E.icIvau(30)],
  ["b .+8", E.b(8)],
  ["b .-4", E.b(-4)],
  ["b .+134217724", E.b(134217724)],
  ["b .-134217728", E.b(-134217728)],
  ["bl .+4", E.bl(4)],
  ["bl .-134217728", E.bl(-134217728)],
  ["b.eq .+12", E.bcond(Cond.eq, 12)],
  ["b.ne .-1048576", E.bcond(Cond.ne, -1048576)],
  ["b.hi .+1048572", E.bcond(Cond.hi, 1048572)],
  ["b.le .+0", E.bcond(Cond.le, 0)],
  ["cbz x5, .+8", E.cbz(64, 5, 8)],
  ["cbz w12, .-8", E.cbz(32, 12, -8)],
  ["cbnz w12, .+1048572", E.cbnz(32, 12, 1048572)],
  ["cbnz xzr, .-1048576", E.cbnz(64, ZR, -1048576)],
  ["tbz w0, #0, .+8", E.tbz(0, 0, 8)],
  ["tbz x1, #63, .-32768", E.tbz(1, 63, -32768)],
  ["tbnz w2, #31, .+32764", E.tbnz(2, 31, 32764)],
  ["tbnz x3, #32, .-4", E.tbnz(3, 32, -4)],
  ["br x16", E.br(16)],
  ["blr x16", E.blr(16)],
  ["blr x0", E.blr(0)],
  ["ret", E.ret()],
  ["ret x1", E.ret(1)],
  ["adr x1, .+0", E.adr(1, 0)],
  ["adr x0, .+1", E.adr(0, 1)],
  ["adr x30, .+1048575", E.adr(30, 1048575)],
  ["adr x2, .-1048576", E.adr(2, -1048576)],
  ["adr x3, .-3", E.adr(3, -3)],
];

/** The instruction lines of the reference: comments and directives left out. */
function referenceLines(): string[] {
  return readFileSync(driverFile("aarch64_encoder_reference.S"), "utf8").split("\n")
    .map((line) => line.replace(/\/\/.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("."));
}

test("a64 encoder: the reference .S lists the encoder's cases, in order", () => {
  assert.deepEqual(referenceLines(), CASES.map(([text]) => text));
});

test("a64 encoder: every word equals the GNU assembler's", (t) => {
  const why = noAssembler();
  if (why) return t.skip(why);
  const assembled = words(assembleA64("aarch64_encoder_reference.S"));
  assert.equal(assembled.length, CASES.length);
  const mismatches = CASES.flatMap(([text, word], i) => {
    const ours = word.toString(16).padStart(8, "0");
    return ours === assembled[i] ? [] : [`${text}: ours ${ours}, as ${assembled[i]}`];
  });
  assert.deepEqual(mismatches, []);
});

test("a64 encoder: out-of-range operands and deltas throw", () => {
  assert.throws(() => E.b(134217728), /imm26/);
  assert.throws(() => E.b(-134217732), /imm26/);
  assert.throws(() => E.b(2), /multiple of 4/);
  assert.throws(() => E.bcond(Cond.eq, 1048576), /imm19/);
  assert.throws(() => E.cbz(64, 0, -1048580), /imm19/);
  assert.throws(() => E.tbz(0, 0, 32768), /imm14/);
  assert.throws(() => E.tbnz(0, 64, 0), /bit number/);
  assert.throws(() => E.adr(0, 1048576), /ADR delta/);
  assert.throws(() => E.ldrXLiteral(0, 1048576), /imm19/);
  assert.throws(() => E.patchImm19(E.cbnz(32, 1), -1048580), /imm19/);
  assert.throws(() => E.addImm(64, 0, 0, 4096), /immediate/);
  assert.throws(() => E.movz(32, 0, 0, 2), /shift/);
  assert.throws(() => E.movz(64, 0, 0x10000), /MOVZ immediate/);
  assert.throws(() => E.ldrX(0, 1, 4), /multiple of 8/);
  assert.throws(() => E.ldrX(0, 1, 32768), /scaled offset/);
  assert.throws(() => E.stp(64, 0, 1, 31, -520, Index.pre), /pair offset/);
  assert.throws(() => E.stp(64, 0, 1, 31, 512), /pair offset/);
  assert.throws(() => E.ubfx(64, 0, 1, 60, 5), /exceeds/);
  assert.throws(() => E.ldar(64, 32, 0), /register/);
  assert.throws(() => E.addReg(64, 0, 1, 2, Shift.lsl, 64), /shift amount/);
});

test("a64 assembler: labels, fixups both ways, and the error for a fixup out of range", () => {
  const a = new E.A64();
  a.label("top");
  a.cbz(64, 0, "end"); // +12
  a.ldrLiteral(1, "lit"); // +12 → 16
  a.b("top"); // -8
  a.label("end");
  a.emit(E.ret());
  a.align(8);
  a.label("lit");
  a.quad(0x1122334455667788n);
  const code = a.finish();
  assert.deepEqual(
    words(code),
    [
      E.cbz(64, 0, 12),
      E.ldrXLiteral(1, 12),
      E.b(-8),
      E.ret(),
      0x55667788,
      0x11223344,
    ].map((w) => (w >>> 0).toString(16).padStart(8, "0")),
  );
  assert.throws(() => a.label("top"), /defined twice/);

  const far = new E.A64();
  far.tbz(0, 1, "away");
  for (let i = 0; i < 8192; i++) far.emit(E.nop());
  far.label("away");
  assert.throws(() => far.finish(), /fixup at 0 to away: imm14/);
  const missing = new E.A64();
  missing.b("nowhere");
  assert.throws(() => missing.finish(), /nowhere is not defined/);
});
