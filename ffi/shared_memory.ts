/**
 * POSIX shared memory through libc: a client's region (`shm_open` by key, its size checked with
 * `lseek`, then `mmap`ed shared read+write and the descriptor closed), and `munmap` when the
 * region is let go. What the KServe front ends' system shared memory extension stands on.
 *
 * @module
 */
import { mapFailed, os, PROT_READ, PROT_WRITE, systemPageSize } from "./os.ts";
import type { FfiRuntime, Ptr } from "./types.ts";

const O_RDWR = 0o2;
const MAP_SHARED = 0x01;
const SEEK_END = 2;

/** A mapped region: its bytes (a view of the mapping) and what {@link unmapSharedMemory} needs. */
export interface SharedMemoryMapping {
  /** The `byteSize` bytes from `offset` in the shared memory object. */
  readonly bytes: Uint8Array;
  /** The mapping's start (page-aligned, at or before `offset`). */
  readonly base: Ptr;
  /** The mapping's length in bytes. */
  readonly length: number;
}

/** Why a region could not be mapped: `"open"` (no such key, or no access), `"size"` (the object
 * is smaller than offset + byte size), `"map"` (mmap refused). */
export class SharedMemoryError extends Error {
  override name = "SharedMemoryError";
  readonly reason: "open" | "size" | "map";
  constructor(reason: "open" | "size" | "map", message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Maps `byteSize` bytes at `offset` of the POSIX shared memory object `key`, shared and
 * read+write, after checking that the object holds them (a mapping past its end would fault on
 * access, killing the process). The descriptor is closed once mapped.
 * @throws {SharedMemoryError} when the key cannot be opened, the object is too small, or mmap
 *   fails.
 */
export function mapSharedMemory(
  ffi: FfiRuntime,
  key: string,
  offset: number,
  byteSize: number,
): SharedMemoryMapping {
  const { sync } = os(ffi);
  const fd = sync.shm_open(key, O_RDWR, 0o600);
  if (fd < 0) throw new SharedMemoryError("open", `cannot open shared memory '${key}'`);
  try {
    const size = Number(sync.lseek(fd, 0, SEEK_END));
    if (size < 0 || offset + byteSize > size) {
      throw new SharedMemoryError(
        "size",
        `shared memory '${key}' holds ${Math.max(size, 0)} bytes, fewer than offset ${offset} + ` +
          `byte size ${byteSize}`,
      );
    }
    // mmap's offset must be page-aligned: map from the page holding `offset`.
    const skip = offset % systemPageSize(ffi);
    const length = skip + byteSize;
    const base = sync.mmap(
      ffi.NULL,
      length,
      PROT_READ | PROT_WRITE,
      MAP_SHARED,
      fd,
      offset - skip,
    );
    if (mapFailed(ffi, base)) {
      throw new SharedMemoryError("map", `mmap of shared memory '${key}' failed`);
    }
    return { bytes: new Uint8Array(ffi.view(base, length), skip, byteSize), base, length };
  } finally {
    sync.close(fd);
  }
}

/** Unmaps a region mapped by {@link mapSharedMemory}; its bytes must not be touched after. */
export function unmapSharedMemory(ffi: FfiRuntime, mapping: SharedMemoryMapping): void {
  os(ffi).sync.munmap(mapping.base, mapping.length);
}
