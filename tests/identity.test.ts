import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { type DataTypeName, hasFloat16Array, numberToBf16, numberToFp16, Tensor } from "../mod.ts";
import { collect, sharedServer, stopShared } from "./support/env.ts";

after(stopShared);

async function roundTrip(dtype: DataTypeName, input: Tensor): Promise<Tensor> {
  const server = await sharedServer();
  const responses = await collect(
    server.model(`identity_${dtype.toLowerCase()}`).infer({ inputs: { INPUT0: input } }),
  );
  assert.equal(responses.length, 1);
  assert.equal(responses[0].final, true);
  assert.equal(responses[0].model.name, `identity_${dtype.toLowerCase()}`);
  const out = responses[0].outputs.OUTPUT0;
  assert.ok(out, "OUTPUT0 present");
  assert.equal(out.dtype, dtype);
  assert.deepEqual(out.shape, input.shape);
  return out;
}

const numeric: [DataTypeName, ArrayLike<number | bigint>, new (a: never[]) => ArrayBufferView][] = [
  ["UINT8", [0, 1, 127, 255], Uint8Array as never],
  ["UINT16", [0, 1, 65535, 1234], Uint16Array as never],
  ["UINT32", [0, 1, 4294967295, 7], Uint32Array as never],
  ["UINT64", [0n, 1n, 18446744073709551615n, 9007199254740993n], BigUint64Array as never],
  ["INT8", [-128, -1, 0, 127], Int8Array as never],
  ["INT16", [-32768, -1, 0, 32767], Int16Array as never],
  ["INT32", [-2147483648, -1, 0, 2147483647], Int32Array as never],
  ["INT64", [-9223372036854775808n, -1n, 0n, 9223372036854775807n], BigInt64Array as never],
  ["FP32", [0, -1.5, 3.25, 2 ** 100], Float32Array as never],
  ["FP64", [0, -1.5, Math.PI, 1e300], Float64Array as never],
];

for (const [dtype, values, ctor] of numeric) {
  test(`identity round trip ${dtype}`, async () => {
    const data = new ctor(Array.from(values) as never[]);
    const out = await roundTrip(dtype, new Tensor(dtype, [1, values.length], data as never));
    assert.equal(out.data.constructor, data.constructor);
    assert.deepEqual(Array.from(out.data as ArrayLike<unknown>), Array.from(values));
  });
}

test("identity round trip BOOL", async () => {
  const out = await roundTrip("BOOL", Tensor.fromBooleans([true, false, true], [1, 3]));
  assert.deepEqual(Array.from(out.data as Uint8Array), [1, 0, 1]);
});

test("identity round trip FP16 (half bits, or Float16Array where the runtime has it)", async () => {
  const values = [0, 1, -2.5, 65504];
  const bits = Uint16Array.from(values, numberToFp16);
  assert.deepEqual(Array.from(bits), [0x0000, 0x3c00, 0xc100, 0x7bff]);
  const input = hasFloat16Array
    ? new Tensor(
      "FP16",
      [1, 4],
      new (globalThis as unknown as { Float16Array: new (v: number[]) => Uint16Array })
        .Float16Array(values),
    )
    : new Tensor("FP16", [1, 4], bits);
  const out = await roundTrip("FP16", input);
  if (hasFloat16Array) {
    assert.deepEqual(Array.from(out.data as Uint16Array), values);
  } else {
    assert.deepEqual(Array.from(out.data as Uint16Array), Array.from(bits));
  }
});

test("identity round trip BF16", async () => {
  const bits = Uint16Array.from([1, -2, 0.5, 3e38], numberToBf16);
  assert.deepEqual(Array.from(bits.slice(0, 3)), [0x3f80, 0xc000, 0x3f00]);
  const out = await roundTrip("BF16", new Tensor("BF16", [1, 4], bits));
  assert.ok(out.data instanceof Uint16Array);
  assert.deepEqual(Array.from(out.data), Array.from(bits));
});

test("identity round trip BYTES (empty, non-ASCII, binary, 1 MiB)", async () => {
  const big = new Uint8Array(1 << 20).map((_, i) => (i * 31) & 0xff);
  const elements = [
    new TextEncoder().encode(""),
    new TextEncoder().encode("héllo wörld ✓ 日本"),
    new Uint8Array([0, 255, 0, 1]),
    big,
  ];
  const out = await roundTrip("BYTES", new Tensor("BYTES", [1, 4], elements));
  const data = out.data as Uint8Array[];
  assert.equal(data.length, 4);
  assert.deepEqual(out.strings().slice(0, 2), ["", "héllo wörld ✓ 日本"]);
  assert.deepEqual(Array.from(data[2]), [0, 255, 0, 1]);
  assert.equal(data[3].byteLength, 1 << 20);
  assert.deepEqual(data[3], big);
});

test("identity: batch of 8 rows of INT32 keeps shape and values", async () => {
  const data = Int32Array.from({ length: 8 * 16 }, (_, i) => i * 3 - 100);
  const out = await roundTrip("INT32", new Tensor("INT32", [8, 16], data));
  assert.deepEqual(out.data, data);
});
