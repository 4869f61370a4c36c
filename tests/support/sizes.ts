/**
 * What the size tests (tests/size_matrix.test.ts, tests/property_sizes.test.ts) share: the sizes
 * where the binding changes how it moves an output's bytes (taken from the code's own constants, so
 * that a changed constant moves the tests), patterned tensors of every data type at a given size,
 * their JSON forms, a byte-exact comparison that stays fast on large tensors, and a check that
 * nothing is left in flight.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { POOLED_LIMIT } from "../../ffi/byte_pool.ts";
import { DATA_LIMIT, RECORD_BYTES } from "../../ffi/native/response_record.ts";
import { COPY_LIMIT } from "../../ffi/response_fields.ts";
import {
  DATA_TYPES,
  type DataTypeName,
  type NumericArray,
  type Server,
  Tensor,
} from "../../mod.ts";
import { encodeBytes } from "../../src/bytes.ts";
import { liveCounter } from "./env.ts";

/** Every data type of the identity models (tests/models/identity_<dtype>). */
export const ALL_DTYPES: readonly DataTypeName[] = [
  "BOOL",
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "UINT8",
  "UINT16",
  "UINT32",
  "UINT64",
  "FP16",
  "BF16",
  "FP32",
  "FP64",
  "BYTES",
];

/** The data types KServe's JSON cannot carry (FP16 and BF16 have no JSON form, as in Triton). */
export const NO_JSON: ReadonlySet<DataTypeName> = new Set(["FP16", "BF16"]);

/** The identity model of a data type. */
export function modelOf(dtype: DataTypeName): string {
  return `identity_${dtype.toLowerCase()}`;
}

/**
 * The output sizes (bytes) where the binding changes how it moves an output, each named by the
 * constants at that size: the byte pool's slab copies (`POOLED_LIMIT`), the native reader's copy
 * into the response record (`DATA_LIMIT`, in a record of `RECORD_BYTES`), and copy versus
 * zero-copy view of Triton's buffer (`COPY_LIMIT`).
 */
export const THRESHOLDS: readonly { readonly bytes: number; readonly name: string }[] = (() => {
  const named = new Map<number, string[]>();
  for (
    const [name, bytes] of [
      ["POOLED_LIMIT", POOLED_LIMIT],
      ["DATA_LIMIT", DATA_LIMIT],
      ["RECORD_BYTES", RECORD_BYTES],
      ["COPY_LIMIT", COPY_LIMIT],
    ] as const
  ) named.set(bytes, [...(named.get(bytes) ?? []), name]);
  return [...named].sort((a, b) => a[0] - b[0]).map(([bytes, names]) => ({
    bytes,
    name: names.join("=") + `(${bytes})`,
  }));
})();

/** 1 MiB. */
export const MiB = 1024 * 1024;

/** A patterned tensor and the bytes its echo must give back. */
export interface SizeCase {
  readonly dtype: DataTypeName;
  /** [1, n]: the identity models batch. */
  readonly shape: readonly [1, number];
  /** The tensor's bytes in Triton's layout (little-endian; BYTES length-prefixed). */
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** BYTES only: the elements. */
  readonly elements?: readonly Uint8Array[];
  /** What the case is, for messages: data type, size and why that size. */
  readonly label: string;
}

/** Bytes per element (BYTES: 0, its elements vary). */
export function elementBytes(dtype: DataTypeName): number {
  return DATA_TYPES[dtype].byteSize;
}

/** Fills `out` with xorshift32 bytes from `seed`: no period a shifted or cut copy could match. */
function noise(out: Uint8Array, seed: number): void {
  let x = (Math.imul(seed | 0, 0x9e3779b1) + 0x7f4a7c15) >>> 0 || 1;
  const words = out.byteLength >>> 2;
  const w = new Uint32Array(out.buffer, out.byteOffset, words);
  for (let i = 0; i < words; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    w[i] = x;
  }
  for (let i = words * 4; i < out.byteLength; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
}

/**
 * `n` patterned elements of a numeric `dtype` as bytes (n * element size bytes, 8-aligned). The
 * bits are noise, made valid where they must be: BOOL 0/1 (with no period); with `json`, floats
 * finite and never -0 (JSON has no NaN, infinities or -0), FP16/BF16 not NaN or infinite either.
 */
export function numericBytes(
  dtype: DataTypeName,
  n: number,
  seed: number,
  json = false,
): Uint8Array<ArrayBuffer> {
  const size = n * elementBytes(dtype);
  const bytes = new Uint8Array(new ArrayBuffer((size + 7) & ~7), 0, size);
  noise(bytes, seed);
  switch (dtype) {
    case "BOOL":
      for (let i = 0; i < n; i++) bytes[i] &= 1;
      break;
    case "FP16": {
      // Exponent bits 10..14 all ones: NaN or infinity; clear bit 10 there.
      const h = new Uint16Array(bytes.buffer, 0, n);
      for (let i = 0; i < n; i++) if ((h[i] & 0x7c00) === 0x7c00) h[i] &= ~0x0400;
      break;
    }
    case "BF16": {
      const h = new Uint16Array(bytes.buffer, 0, n);
      for (let i = 0; i < n; i++) if ((h[i] & 0x7f80) === 0x7f80) h[i] &= ~0x0080;
      break;
    }
    case "FP32":
      if (json) {
        const u = new Uint32Array(bytes.buffer, 0, n);
        for (let i = 0; i < n; i++) {
          if ((u[i] & 0x7f800000) === 0x7f800000) u[i] &= ~0x00800000;
          if (u[i] === 0x80000000) u[i] = 0x3f800000;
        }
      }
      break;
    case "FP64":
      if (json) {
        const u = new Uint32Array(bytes.buffer, 0, n * 2);
        for (let i = 1; i < 2 * n; i += 2) {
          if ((u[i] & 0x7ff00000) === 0x7ff00000) u[i] &= ~0x00100000;
          if (u[i] === 0x80000000 && u[i - 1] === 0) u[i] = 0x3ff00000;
        }
      }
      break;
  }
  return bytes;
}

/** `count` patterned bytes: printable ASCII with `json` (every string JSON carries as it is),
 * else any byte (0x00 and 0xff included). */
function elementContent(count: number, seed: number, json: boolean): Uint8Array {
  const e = new Uint8Array(count);
  noise(e, seed);
  if (json) { for (let i = 0; i < count; i++) e[i] = 0x20 + (e[i] % 95); }
  return e;
}

/**
 * BYTES elements whose serialized size (4-byte prefix + content each) is exactly `total` bytes:
 * `long` puts nearly all of it in one element beside an empty and a short one; otherwise many
 * short elements of varying lengths, every seventh empty.
 */
export function bytesElements(
  total: number,
  seed: number,
  json: boolean,
  long: boolean,
): Uint8Array[] {
  if (total === 0) return [];
  assert.ok(total >= 4, `a BYTES tensor of ${total} bytes cannot hold an element`);
  const lengths: number[] = [];
  if (long && total >= 4 + 4 + 13 + 4) {
    lengths.push(0, 13, total - 25);
  } else {
    let left = total;
    let i = 0;
    while (left > 0) {
      let len = i % 7 === 6 ? 0 : 1 + ((i * 37 + seed) % 200);
      if (left - (4 + len) < 4 && left - (4 + len) !== 0) len = left - 4; // the rest in one
      if (4 + len > left) len = left - 4;
      lengths.push(len);
      left -= 4 + len;
      i++;
    }
  }
  return lengths.map((len, i) => elementContent(len, seed * 31 + i, json));
}

/** A case of `n` elements of a numeric data type. */
export function numericCase(
  dtype: DataTypeName,
  n: number,
  why: string,
  json = false,
  seed: number = n * 131 + dtype.length * 7 + 1,
): SizeCase {
  const bytes = numericBytes(dtype, n, seed, json);
  return {
    dtype,
    shape: [1, n],
    bytes,
    label: `${dtype} ${n} elements (${bytes.byteLength} B, ${why})`,
  };
}

/** A BYTES case of `total` serialized bytes (see {@link bytesElements}). */
export function bytesCase(
  total: number,
  why: string,
  json = false,
  long = false,
  seed: number = total % 9973 + 3,
): SizeCase {
  const elements = bytesElements(total, seed, json, long);
  const bytes = encodeBytes(elements) as Uint8Array<ArrayBuffer>;
  assert.equal(bytes.byteLength, total);
  return {
    dtype: "BYTES",
    shape: [1, elements.length],
    bytes,
    elements,
    label: `BYTES ${elements.length} elements${long ? ", one long" : ""} (${total} B, ${why})`,
  };
}

/** A BYTES case of the given elements. */
export function bytesCaseOf(elements: Uint8Array[], why: string): SizeCase {
  return {
    dtype: "BYTES",
    shape: [1, elements.length],
    bytes: encodeBytes(elements) as Uint8Array<ArrayBuffer>,
    elements,
    label: `BYTES ${elements.length} elements (${why})`,
  };
}

/** A case of about `bytes` bytes (exactly, rounded down to whole elements). */
export function caseOfBytes(
  dtype: DataTypeName,
  bytes: number,
  why: string,
  json = false,
): SizeCase {
  if (dtype === "BYTES") return bytesCase(bytes, why, json);
  return numericCase(dtype, Math.floor(bytes / elementBytes(dtype)), why, json);
}

/**
 * The small cases of a data type: empty (0 elements), one element, and each threshold's size −1,
 * =, +1 element (BYTES: −1, =, +1 byte, once with one long element beside an empty one and once
 * with many short ones, some empty).
 */
export function thresholdCases(dtype: DataTypeName, json = false): SizeCase[] {
  const out: SizeCase[] = [];
  if (dtype === "BYTES") {
    out.push(bytesCaseOf([], "empty"));
    out.push(bytesCaseOf([new Uint8Array(0)], "one empty string"));
    out.push(bytesCaseOf([elementContent(11, 5, json)], "one element"));
    for (const t of THRESHOLDS) {
      for (const d of [-1, 0, 1]) {
        const why = `${t.name}${d < 0 ? "-1" : d > 0 ? "+1" : ""}`;
        out.push(bytesCase(t.bytes + d, why, json, true));
        out.push(bytesCase(t.bytes + d, why, json, false));
      }
    }
    // An element of 64 KiB and more on its own.
    out.push(
      bytesCaseOf([elementContent(COPY_LIMIT + 1, 17, json)], `one element of COPY_LIMIT+1 B`),
    );
    return out;
  }
  out.push(numericCase(dtype, 0, "empty", json));
  out.push(numericCase(dtype, 1, "one element", json));
  const e = elementBytes(dtype);
  for (const t of THRESHOLDS) {
    const at = Math.floor(t.bytes / e);
    out.push(numericCase(dtype, at - 1, `${t.name}-1 element`, json));
    out.push(numericCase(dtype, at, t.name, json));
    out.push(numericCase(dtype, at + 1, `${t.name}+1 element`, json));
  }
  return out;
}

/** The input tensor of a case (a view of its bytes). */
export function tensorOf(c: SizeCase): Tensor {
  if (c.dtype === "BYTES") return new Tensor("BYTES", c.shape, [...c.elements!]);
  return new Tensor(c.dtype, c.shape, Tensor.elementsOf(c.dtype, c.shape, c.bytes) as NumericArray);
}

/** The JSON text of a case's elements, flat: BOOL as booleans, integers exactly, floats in
 * their shortest form, BYTES as strings (its elements are ASCII when made for JSON). */
export function jsonData(c: SizeCase): string {
  if (c.dtype === "BYTES") {
    const d = new TextDecoder();
    return `[${c.elements!.map((e) => JSON.stringify(d.decode(e))).join(",")}]`;
  }
  const data = Tensor.elementsOf(c.dtype, c.shape, c.bytes) as NumericArray;
  if (c.dtype === "BOOL") {
    let text = "[";
    for (let i = 0; i < data.length; i++) text += (i ? "," : "") + (data[i] ? "true" : "false");
    return text + "]";
  }
  return `[${Array.prototype.join.call(data, ",")}]`;
}

/** The bytes, in Triton's layout, of JSON `data` as a tensor of `dtype` (what a JSON output
 * says). 64-bit integers may come as numbers or bigints. */
export function bytesOfJson(dtype: DataTypeName, data: readonly unknown[]): Uint8Array {
  if (dtype === "BYTES") {
    const e = new TextEncoder();
    return encodeBytes(data.map((s) => {
      assert.equal(typeof s, "string", "a BYTES element in JSON is a string");
      return e.encode(s as string);
    }));
  }
  const n = data.length;
  const out = new DATA_TYPES[dtype].array(n) as NumericArray;
  if (dtype === "BOOL") {
    for (let i = 0; i < n; i++) {
      if (typeof data[i] !== "boolean") assert.fail(`element ${i} is ${data[i]}, not a boolean`);
      out[i] = data[i] ? 1 : 0;
    }
  } else if (dtype === "INT64" || dtype === "UINT64") {
    for (let i = 0; i < n; i++) out[i] = BigInt(data[i] as number | bigint);
  } else {
    for (let i = 0; i < n; i++) out[i] = Number(data[i]);
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Asserts `actual` is exactly `expected`, naming the first byte that differs (never a diff of the
 * arrays: node:assert's diff of large arrays runs for minutes).
 */
export function assertSameBytes(
  actual: Uint8Array | undefined,
  expected: Uint8Array,
  what: string,
): void {
  assert.ok(actual !== undefined, `${what}: no output bytes came back`);
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (a.byteLength === b.byteLength && Buffer.compare(a, b) === 0) return;
  let at = 0;
  const n = Math.min(a.byteLength, b.byteLength);
  while (at < n && a[at] === b[at]) at++;
  let zeros = true;
  for (let i = 0; i < a.byteLength && zeros; i++) zeros = a[i] === 0;
  assert.fail(
    `${what}: ${a.byteLength} bytes came back, ${b.byteLength} expected; first difference at ` +
      `byte ${at}` + (at < n ? ` (got ${a[at]}, expected ${b[at]})` : "") +
      (a.byteLength > 0 && zeros ? "; every byte that came back is 0" : ""),
  );
}

/** Asserts a reported shape (numbers, strings or bigints) is `expected`. */
export function assertShape(
  actual: readonly unknown[] | undefined,
  expected: readonly number[],
  what: string,
): void {
  assert.deepEqual(actual?.map(Number), [...expected], `${what}: shape`);
}

/** What may still be busy: the server, and front ends that count the calls they serve. */
export interface Busy {
  readonly server: Server;
  readonly services?: readonly { readonly name: string; readonly active: number }[];
}

/**
 * Waits until nothing is in flight — no request in Triton, no call being served by a front end,
 * and on the fake core no live request, response or allocator buffer — and fails the test
 * otherwise.
 */
export async function assertQuiet(busy: Busy, timeoutMs = 10_000): Promise<void> {
  const live = await liveCounter();
  const services = busy.services ?? [];
  const deadline = Date.now() + timeoutMs;
  const busyNow = () =>
    busy.server.inflight > 0 || services.some((s) => s.active > 0) ||
    (live !== undefined && (live("request") > 0 || live("response") > 0 || live("buffer") > 0));
  while (busyNow() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(busy.server.inflight, 0, "requests in flight in Triton");
  for (const s of services) assert.equal(s.active, 0, `${s.name}: calls still being served`);
  if (live) {
    assert.equal(live("request"), 0, "live requests");
    assert.equal(live("response"), 0, "live responses");
    assert.equal(live("buffer"), 0, "live allocator buffers");
  }
}
