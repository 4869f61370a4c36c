/**
 * Out-parameters in native memory: one mapped block, carved into 8-byte slots that C calls write
 * and JS reads without allocating. Each slot is passed to C as a typed array over its own
 * external ArrayBuffer (the address every runtime passes for a `buf` parameter); JS reads it back
 * through one 32-bit view of the whole block, and pointers through the runtime's pointer reader —
 * no `BigInt` and no address-to-pointer conversion per read.
 *
 * Not reentrant: read a slot before the next call that writes it. All calls happen on the JS
 * thread.
 *
 * @module
 */
import { mapMemory } from "./os.ts";
import type { FfiRuntime, Ptr } from "./types.ts";

const TWO_32 = 4294967296;

/** A block of `count` 8-byte out-parameter slots. */
export class OutParams {
  /** Slot `i` as the buffer to pass for an out-parameter. */
  readonly slots: Uint8Array[];
  readonly #u32: Uint32Array;
  readonly #i32: Int32Array;
  readonly #pointerAt: (offset: number) => Ptr;

  constructor(ffi: FfiRuntime, count: number) {
    const bytes = count * 8;
    const base = mapMemory(ffi, bytes);
    const whole = ffi.view(base, bytes);
    this.#u32 = new Uint32Array(whole);
    this.#i32 = new Int32Array(whole);
    this.#pointerAt = ffi.pointerReader(base, bytes);
    const address = ffi.address(base);
    this.slots = Array.from(
      { length: count },
      (_, i) => new Uint8Array(ffi.view(ffi.fromAddress(address + i * 8), 8)),
    );
  }

  /** Slot `i` as a `uint32_t` (also the low half of a 64-bit value). */
  u32(i: number): number {
    return this.#u32[i << 1];
  }

  /** Slot `i` as an `int32_t` / the low half of a small `int64_t` (e.g. a device id). */
  i32(i: number): number {
    return this.#i32[i << 1];
  }

  /** Slot `i` as a `uint64_t` below 2^53 (sizes, counts), exactly. */
  u64(i: number): number {
    return this.#u32[i << 1] + this.#u32[(i << 1) + 1] * TWO_32;
  }

  /** Slot `i` as an `int64_t` in ±2^53 (versions, dims), exactly. */
  i64(i: number): number {
    return this.#u32[i << 1] + this.#i32[(i << 1) + 1] * TWO_32;
  }

  /** Slot `i` as a pointer. */
  pointer(i: number): Ptr {
    return this.#pointerAt(i << 3);
  }
}
