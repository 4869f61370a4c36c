/**
 * The bounds of a request's part of a shared memory region, system or CUDA: Triton's checks and
 * messages, in one place.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";

/**
 * Checks that `byteSize` bytes at `offset` lie within region `name`, of `regionSize` bytes.
 * @throws {TritonError} INVALID_ARG for an offset at or past the region's end, or bytes past it.
 */
export function checkRegionPart(
  name: string,
  regionSize: number,
  offset: number,
  byteSize: number,
): void {
  if (offset >= regionSize) {
    throw new TritonError("INVALID_ARG", `Invalid offset for shared memory region: '${name}'`);
  }
  if (offset + byteSize > regionSize) {
    throw new TritonError(
      "INVALID_ARG",
      `Invalid offset + byte size for shared memory region: '${name}'`,
    );
  }
}
