/**
 * Output placement tables: the native `userp` of the placing response allocator, which writes the
 * outputs a request names at the addresses it gives (a client's shared memory region) instead of
 * allocating them.
 *
 * One table per request, in libc `malloc`ed memory, read by the placing allocator's functions on
 * Triton's threads (`ffi/native/c/allocator.c` on Bun; {@link readOutputPlacement} in the JS
 * allocator on Deno and Node). Layout, native-endian 64-bit words:
 *
 * ```text
 * count, policy                                  the header (policy: the outputs not placed)
 * name, address, byteSize      × count           name: a char* to a NUL-terminated UTF-8 name
 * the names, each NUL-terminated                 (the block's own bytes)
 * ```
 *
 * The table must outlive every allocator call of its request: it is freed once Triton has
 * released the request and sent its final response ({@link OutputPlacement.free}).
 *
 * @module
 */
import type { FfiRuntime, NativeLibrary, Ptr } from "./types.ts";

/** An output to be written at a given host address. */
export interface PlacedOutput {
  /** The output's name. */
  readonly name: string;
  /** Where its bytes go (a host address, mapped for as long as the request runs). */
  readonly address: number;
  /** How many bytes fit there: a larger output is the allocator's INTERNAL error. */
  readonly byteSize: number;
}

/** A table in native memory. */
export interface OutputPlacement {
  /** The allocator's `userp`: the table's address. */
  readonly userp: Ptr;
  /** Frees the table (idempotent); no allocator call of its request may follow. */
  free(): void;
}

const HEADER_BYTES = 16;
const ENTRY_BYTES = 24;
const encoder = new TextEncoder();

/**
 * Writes the table of `outputs` to native memory; the outputs not listed get the memory of
 * `policy` (an allocator policy, as `Binding.outputPolicy` gives).
 * @throws {Error} when malloc fails.
 */
export function writeOutputPlacement(
  lib: NativeLibrary,
  policy: Ptr,
  outputs: readonly PlacedOutput[],
): OutputPlacement {
  const { ffi, libc } = lib;
  const names = outputs.map((o) => encoder.encode(o.name));
  const namesStart = HEADER_BYTES + ENTRY_BYTES * outputs.length;
  const total = names.reduce((sum, n) => sum + n.byteLength + 1, namesStart);
  const block = libc.malloc(total);
  if (ffi.isNull(block)) throw new Error(`malloc of a ${total}-byte output placement table failed`);
  const base = BigInt(ffi.address(block));
  const bytes = new Uint8Array(total);
  const words = new BigUint64Array(bytes.buffer, 0, namesStart / 8);
  words[0] = BigInt(outputs.length);
  words[1] = BigInt(ffi.address(policy));
  let nameAt = namesStart;
  outputs.forEach((o, i) => {
    const at = (HEADER_BYTES + ENTRY_BYTES * i) / 8;
    words[at] = base + BigInt(nameAt);
    words[at + 1] = BigInt(o.address);
    words[at + 2] = BigInt(o.byteSize);
    bytes.set(names[i], nameAt);
    nameAt += names[i].byteLength + 1; // the NUL is the array's zero
  });
  libc.memcpy(block, bytes, total);
  let held = true;
  return {
    userp: block,
    free() {
      if (!held) return;
      held = false;
      libc.free(block);
    },
  };
}

/** A table as the JS allocator reads it (on Triton's thread, while the table lives). */
export interface OutputPlacementView {
  /** The policy of the outputs not placed. */
  readonly policy: number;
  /** Where output `name` goes, if it is placed. */
  find(name: string): { address: number; byteSize: number } | undefined;
}

/** Reads the table at `userp` (written by {@link writeOutputPlacement}). */
export function readOutputPlacement(ffi: FfiRuntime, userp: Ptr): OutputPlacementView {
  const header = new BigUint64Array(ffi.view(userp, HEADER_BYTES));
  const count = Number(header[0]);
  const policy = Number(header[1]);
  return {
    policy,
    find(name) {
      if (count === 0) return undefined;
      const words = new BigUint64Array(ffi.view(userp, HEADER_BYTES + ENTRY_BYTES * count));
      for (let i = 0; i < count; i++) {
        const at = (HEADER_BYTES + ENTRY_BYTES * i) / 8;
        if (ffi.cstring(ffi.fromAddress(words[at])) !== name) continue;
        return { address: Number(words[at + 1]), byteSize: Number(words[at + 2]) };
      }
      return undefined;
    },
  };
}
