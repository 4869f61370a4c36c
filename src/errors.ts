/**
 * `TritonError`: every failure the binding reports, with Triton's error code, and its conversion
 * from Triton's `TRITONSERVER_Error*` (both live in `ffi/`, which throws them too).
 *
 * @module
 */
export { TritonError } from "../ffi/mod.ts";
/** @internal A `TRITONSERVER_Error*` as a {@link TritonError}: thrown, dropped or returned. */
export { check, discard, errorFromPtr } from "../ffi/mod.ts";
