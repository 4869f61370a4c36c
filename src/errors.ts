/**
 * `TritonError`: every failure the binding reports, with Triton's error code, and its conversion
 * from Triton's `TRITONSERVER_Error*` (both live in `ffi/`, which throws them too).
 *
 * @module
 */
export { check, discard, errorFromPtr, TritonError } from "../ffi/mod.ts";
