/**
 * NUL-terminated UTF-8 encodings of the strings passed to C, cached: the same few names (models,
 * inputs, outputs, parameters) cross the FFI on every request, and encoding costs more than the
 * call (bench/README.md, "Costs the code is shaped by"). C only reads these bytes during the
 * call (Triton copies what it keeps).
 *
 * @module
 */

import { TritonError } from "./triton_error.ts";

const encoder = new TextEncoder();
const cache = new Map<string, Uint8Array>();
/** Strings longer than this are encoded per call. */
const MAX_CACHED_LENGTH = 256;
/** Entries kept before the cache starts over. */
const MAX_ENTRIES = 1024;

/**
 * The NUL-terminated UTF-8 bytes of `s`. Treat the result as read-only.
 * @throws {TritonError} INVALID_ARG when `s` holds a NUL character (see {@link checkCString}).
 */
export function encodeCString(s: string): Uint8Array {
  let bytes = cache.get(s);
  if (bytes === undefined) {
    checkCString(s);
    bytes = encoder.encode(s + "\0");
    if (s.length <= MAX_CACHED_LENGTH) {
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(s, bytes);
    }
  }
  return bytes;
}

/**
 * Refuses a string that holds a NUL character: C would read it only up to there, so
 * `"identity_int32\0x"` would reach Triton as `"identity_int32"`.
 * @throws {TritonError} INVALID_ARG.
 */
export function checkCString(s: string): void {
  if (typeof s !== "string") {
    throw new TritonError(
      "INVALID_ARG",
      `a string passed to Triton must be a string, not ${s === null ? "null" : typeof s}`,
    );
  }
  const at = s.indexOf("\0");
  if (at >= 0) {
    throw new TritonError(
      "INVALID_ARG",
      `a string passed to Triton holds a NUL character at index ${at}, where C would end it: ` +
        JSON.stringify(s),
    );
  }
}
