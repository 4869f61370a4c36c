import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import {
  bf16ToNumber,
  fp16ToNumber,
  numberToBf16,
  numberToFp16,
  Tensor,
  TritonError,
} from "../mod.ts";
import { decodeBytes, encodeBytes } from "../src/bytes.ts";

test("BYTES encoding uses 4-byte little-endian length prefixes", () => {
  const buf = encodeBytes(["ab", new Uint8Array([255]), ""]);
  assert.deepEqual(Array.from(buf), [2, 0, 0, 0, 97, 98, 1, 0, 0, 0, 255, 0, 0, 0, 0]);
  const back = decodeBytes(buf, 3, "t");
  assert.deepEqual(back.map((b) => Array.from(b)), [[97, 98], [255], []]);
});

test("malformed BYTES is rejected, not read out of bounds", () => {
  const claimsTooMuch = new Uint8Array([10, 0, 0, 0, 1, 2]);
  assert.throws(() => decodeBytes(claimsTooMuch, 1, "t"), (e: unknown) => {
    return e instanceof TritonError && e.code === "INVALID_ARG" &&
      /claims 10 bytes/.test(e.message);
  });
  assert.throws(() => decodeBytes(new Uint8Array([1, 0]), 1, "t"), /truncated/);
  assert.throws(() => decodeBytes(encodeBytes(["a", "b"]), 3, "t"), /holds 2 elements/);
  assert.throws(
    () => Tensor.fromBytes("BYTES", [1], new Uint8Array([0xff, 0xff, 0xff, 0xff])),
    TritonError,
  );
});

test("FP16 and BF16 conversions", () => {
  for (const v of [0, 1, -1, 0.5, 65504, -(2 ** -14), 2 ** -24, 1 - 2 ** -11]) {
    assert.equal(fp16ToNumber(numberToFp16(v)), v);
  }
  assert.equal(numberToFp16(1e6), 0x7c00);
  assert.ok(Number.isNaN(fp16ToNumber(numberToFp16(NaN))));
  assert.equal(numberToFp16(1 + 2 ** -11), 0x3c00); // ties to even
  for (const v of [0, 1, -2, 0.5, 3.140625]) assert.equal(bf16ToNumber(numberToBf16(v)), v);
  assert.equal(numberToBf16(1 + 2 ** -8), 0x3f80); // ties to even
});

test("Tensor.from infers data types and shapes", () => {
  assert.equal(Tensor.from(new Int32Array(3)).dtype, "INT32");
  assert.deepEqual(Tensor.from(new Float64Array(5)).shape, [5]);
  assert.equal(Tensor.from(["x", "y"]).dtype, "BYTES");
  assert.deepEqual(Array.from(Tensor.from([true, false]).data as Uint8Array), [1, 0]);
  const t = Tensor.from({ dtype: "BYTES", shape: [2, 1], data: ["a", new Uint8Array([1])] });
  assert.equal(t.byteSize, 4 + 1 + 4 + 1);
  assert.throws(() => Tensor.from([1, "a"] as never), TritonError);
});

test("console.log shows a tensor's data type, shape and data (or that it was released)", async () => {
  const { inspect } = await import("node:util");
  const t = new Tensor("FP32", [1, 4], new Float32Array([1, 2, 3, 4]));
  assert.equal(inspect(t), "Tensor FP32 [1, 4] Float32Array(4) [ 1, 2, 3, 4 ]");
  assert.match(
    inspect({ t: Tensor.fromStrings(["a"]) }),
    /t: Tensor BYTES \[1\] \[ Uint8Array\(1\) \[ 97 \] \]/,
  );
  const gpu = Tensor.onDevice("INT8", [2], 4096, 2, 1);
  assert.equal(inspect(gpu), "Tensor INT8 [2] GPU:1 at 0x1000");
  const released = Tensor.view("INT32", [1], new Int32Array([7]), { disposed: true });
  assert.equal(inspect(released), "Tensor INT32 [1] (released with its response)");
  if (typeof Deno !== "undefined") {
    assert.equal(Deno.inspect(t), "Tensor FP32 [1, 4] Float32Array(4) [ 1, 2, 3, 4 ]");
  }
});

test("a Node Buffer's bytes are copied, not viewed, where a copy is made (Buffer#slice is a view)", async () => {
  const { Buffer } = await import("node:buffer");
  // A Buffer over a pool, at an odd offset: elementsOf copies to align, fromBytes always copies.
  const pool = Buffer.alloc(64, 0xee);
  const bytes = pool.subarray(1, 9);
  new DataView(bytes.buffer, bytes.byteOffset).setInt32(0, 7, true);
  new DataView(bytes.buffer, bytes.byteOffset).setInt32(4, -8, true);
  const aligned = Tensor.elementsOf("INT32", [2], bytes) as Int32Array;
  assert.deepEqual(Array.from(aligned), [7, -8]);
  const owned = Tensor.fromBytes("INT32", [2], bytes);
  pool.fill(0);
  assert.deepEqual(Array.from(owned.data as Int32Array), [7, -8]);
  assert.deepEqual(Array.from(aligned), [7, -8]);
  const t = new Tensor("UINT8", [3], Buffer.from([1, 2, 3]));
  const copy = t.copy();
  (t.data as Uint8Array)[0] = 9;
  assert.deepEqual(Array.from(copy.data as Uint8Array), [1, 2, 3]);
  const s = new Tensor("BYTES", [1], [Buffer.from("ab")]);
  const sc = s.copy();
  (s.data as Uint8Array[])[0][0] = 0x7a;
  assert.deepEqual(sc.strings(), ["ab"]);
});
