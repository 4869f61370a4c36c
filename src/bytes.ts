/**
 * Triton's BYTES serialization: each element is a 4-byte little-endian length followed by that
 * many bytes, elements back to back.
 *
 * @module
 */
import { TritonError } from "./errors.ts";

const encoder = new TextEncoder();

/** Serializes elements (strings are UTF-8 encoded) into one buffer. */
export function encodeBytes(elements: readonly (string | Uint8Array)[]): Uint8Array {
  const parts = elements.map((e) => (typeof e === "string" ? encoder.encode(e) : e));
  let total = 0;
  for (const p of parts) total += 4 + p.byteLength;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  let at = 0;
  for (const p of parts) {
    dv.setUint32(at, p.byteLength, true);
    out.set(p, at + 4);
    at += 4 + p.byteLength;
  }
  return out;
}

/**
 * Splits a serialized BYTES buffer into owned copies of its elements.
 * @param expected the element count the shape implies; the buffer must hold exactly that many.
 * @throws {TritonError} INVALID_ARG when a length prefix runs past the buffer, bytes are left
 *   over, or the count differs from `expected`.
 */
export function decodeBytes(buffer: Uint8Array, expected: number, what: string): Uint8Array[] {
  const dv = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < buffer.byteLength) {
    if (at + 4 > buffer.byteLength) {
      throw new TritonError("INVALID_ARG", `${what}: truncated BYTES length prefix at byte ${at}`);
    }
    const len = dv.getUint32(at, true);
    at += 4;
    if (len > buffer.byteLength - at) {
      throw new TritonError(
        "INVALID_ARG",
        `${what}: BYTES element ${out.length} claims ${len} bytes but only ${
          buffer.byteLength - at
        } remain`,
      );
    }
    out.push(buffer.slice(at, at + len));
    at += len;
  }
  if (out.length !== expected) {
    throw new TritonError(
      "INVALID_ARG",
      `${what}: BYTES buffer holds ${out.length} elements, shape needs ${expected}`,
    );
  }
  return out;
}
