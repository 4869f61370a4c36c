/**
 * NUL-terminated UTF-8 encodings of the strings passed to C, cached: the same few names (models,
 * inputs, outputs, parameters) cross the FFI on every request, and encoding costs more than the
 * call (~0.5 µs on Deno). C only reads these bytes during the call (Triton copies what it keeps).
 *
 * @module
 */

const encoder = new TextEncoder();
const cache = new Map<string, Uint8Array>();
/** Strings longer than this are encoded per call. */
const MAX_CACHED_LENGTH = 256;
/** Entries kept before the cache starts over. */
const MAX_ENTRIES = 1024;

/** The NUL-terminated UTF-8 bytes of `s`. Treat the result as read-only. */
export function encodeCString(s: string): Uint8Array {
  let bytes = cache.get(s);
  if (bytes === undefined) {
    bytes = encoder.encode(s + "\0");
    if (s.length <= MAX_CACHED_LENGTH) {
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(s, bytes);
    }
  }
  return bytes;
}
