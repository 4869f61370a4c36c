/**
 * The instruction-set-neutral assembler core (ffi/native/asm/assembler.ts): bytes and
 * little-endian integers appended, labels, fixups of any width written by their patch functions
 * once every label is known, and the errors of a label defined twice, missing, or out of reach.
 * (The x86-64 encoder built on it is checked byte for byte against the GNU assembler by
 * thunks.test.ts and the reader's, submitter's and deleter's tests.)
 */
import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { Assembler, writeInt } from "../ffi/native/asm/assembler.ts";
import { R, X64 } from "../ffi/native/x86_64/encoder.ts";

test("assembler: bytes, little-endian integers, labels and fixups of several widths", () => {
  const a = new Assembler();
  a.emit(0x1ff, 0xaa); // modulo 256
  a.int(-2, 2);
  a.int(0x0102030405060708n, 8);
  // A 32-bit word whose low 26 bits count words to the label (an A64 `b`-like field).
  const word = a.offset;
  a.fixup("end", (code, at, target) => {
    const v = new DataView(code.buffer, code.byteOffset);
    v.setUint32(at, (v.getUint32(at, true) | (((target - at) >> 2) & 0x3ffffff)) >>> 0, true);
  });
  a.int(0x14000000, 4);
  a.fixup("end", (code, at, target) => writeInt(code, at, target, 1));
  a.emit(0);
  a.label("end");
  a.bytes([9, 9, 9]);
  assert.equal(a.at("end"), 17);
  assert.deepEqual(
    [...a.finish()],
    [0xff, 0xaa, 0xfe, 0xff, 8, 7, 6, 5, 4, 3, 2, 1, 0x01, 0, 0, 0x14, 17, 9, 9, 9],
  );
  assert.equal(word, 12);
});

test("assembler: a label defined twice or never, and a jump out of reach, are errors", () => {
  const a = new Assembler();
  a.label("x");
  assert.throws(() => a.label("x"), /label x defined twice/);
  assert.throws(() => a.at("y"), /label y is not defined/);
  a.fixup("y", () => {});
  assert.throws(() => a.finish(), /label y is not defined/);
  const x = new X64();
  x.jmp("far");
  x.bytes(new Uint8Array(128));
  x.label("far");
  assert.throws(() => x.finish(), /jump to far out of rel8 range/);
  const near = new X64();
  near.jmp("near");
  near.bytes(new Uint8Array(127));
  near.label("near");
  assert.deepEqual([...near.finish().subarray(0, 2)], [0xeb, 127]);
});

test("assembler: the address table follows the code, 8-byte aligned, read through fixups", () => {
  const a = new X64();
  a.jmpMem(a.address("f", 0x1122334455667788n));
  a.callMem(a.address("g", 2n));
  a.loadLabel64(R.r9, a.address("f", 0x1122334455667788n));
  assert.throws(() => a.address("g", 3n), /address g given two values/);
  a.finishTable();
  const code = Array.from(a.finish());
  // 6 + 6 + 7 = 19 bytes, 5 bytes of int3, f at 24, g at 32.
  assert.equal(a.at("address.f"), 24);
  assert.equal(a.at("address.g"), 32);
  const jmp = [0xff, 0x25, 18, 0, 0, 0]; // jmp [rip+18]: 6 + 18 = 24
  const call = [0xff, 0x15, 20, 0, 0, 0]; // call [rip+20]: 12 + 20 = 32
  const load = [0x4c, 0x8b, 0x0d, 5, 0, 0, 0]; // mov r9, [rip+5]: 19 + 5 = 24
  assert.deepEqual(code.slice(0, 24), [...jmp, ...call, ...load, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc]);
  const f = [0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11];
  assert.deepEqual(code.slice(24), [...f, 2, 0, 0, 0, 0, 0, 0, 0]);
});
