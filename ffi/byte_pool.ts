/**
 * `BytePool`: JS memory for small output copies, carved out of shared 32 KiB `ArrayBuffer`s
 * (as Node's `Buffer` pool does): making an `ArrayBuffer` on V8 (Deno, Node) costs many times what
 * a view of an existing one does (bench/README.md, "Costs the code is shaped by"). Each copy
 * starts at a multiple of 8 bytes, so a typed array of any element size can view it. A slab lives while any view of it does (garbage-collected like
 * any `ArrayBuffer`); nothing here is native memory.
 *
 * @module
 */

/** Bytes per slab. */
const SLAB_BYTES = 32 * 1024;
/** Copies larger than this get an `ArrayBuffer` of their own. */
export const POOLED_LIMIT = 4096;

/** See the module documentation. */
export class BytePool {
  #slab = new Uint8Array(SLAB_BYTES);
  #used = 0;

  /**
   * A copy of `source[start, start + size)`, in a slab when it is at most {@link POOLED_LIMIT}
   * bytes (its `buffer` is then shared with other copies: read it through `byteOffset` and
   * `byteLength`), otherwise in an `ArrayBuffer` of its own.
   */
  copy(source: Uint8Array, start: number, size: number): Uint8Array {
    if (size > POOLED_LIMIT) return source.slice(start, start + size);
    const bytes = this.take(size);
    if (size <= 32) {
      for (let i = 0; i < size; i++) bytes[i] = source[start + i];
    } else bytes.set(source.subarray(start, start + size));
    return bytes;
  }

  /** `size` zeroed bytes: in a slab when at most {@link POOLED_LIMIT}, else of their own. */
  take(size: number): Uint8Array {
    if (size > POOLED_LIMIT) return new Uint8Array(size);
    if (this.#used + size > SLAB_BYTES) {
      this.#slab = new Uint8Array(SLAB_BYTES);
      this.#used = 0;
    }
    const at = this.#used;
    this.#used = (at + size + 7) & ~7;
    return new Uint8Array(this.#slab.buffer, at, size);
  }
}
