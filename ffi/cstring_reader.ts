/**
 * `CStringReader`: decodes NUL-terminated UTF-8 strings out of a byte array (the response
 * record), answering a string it decoded before from a small cache, so that the names and ids
 * every response repeats cost a byte comparison, not a decode and a new string.
 *
 * @module
 */

const decoder = new TextDecoder();

/** Entries kept before the cache starts over. */
const CACHE_SIZE = 512;

interface Entry {
  readonly bytes: number[];
  readonly value: string;
}

/** See the module documentation. */
export class CStringReader {
  readonly #cache = new Map<number, Entry>();

  /**
   * The string at `u8[at]` up to its NUL, at most `cap` bytes long (NUL included); `undefined`
   * when no NUL is within them.
   */
  read(u8: Uint8Array, at: number, cap: number): string | undefined {
    let hash = 0x811c9dc5;
    let n = 0;
    for (; n < cap; n++) {
      const b = u8[at + n];
      if (b === 0) break;
      hash = Math.imul(hash ^ b, 16777619);
    }
    if (n === cap) return undefined;
    const key = (hash ^ n) >>> 0;
    const hit = this.#cache.get(key);
    if (hit !== undefined && same(hit.bytes, u8, at, n)) return hit.value;
    const bytes = Array.from(u8.subarray(at, at + n));
    const value = decoder.decode(u8.subarray(at, at + n));
    if (this.#cache.size >= CACHE_SIZE) this.#cache.clear();
    this.#cache.set(key, { bytes, value });
    return value;
  }
}

function same(bytes: number[], u8: Uint8Array, at: number, n: number): boolean {
  if (bytes.length !== n) return false;
  for (let i = 0; i < n; i++) if (bytes[i] !== u8[at + i]) return false;
  return true;
}
