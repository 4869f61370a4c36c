/**
 * `TritonError`: every failure the binding reports, with Triton's error code.
 *
 * @module
 */
import { ErrorCode, type ErrorCodeName } from "../ffi/enums.ts";
import type { TritonLibrary } from "../ffi/loader.ts";
import { TritonError } from "../ffi/triton_error.ts";
import type { Ptr } from "../ffi/types.ts";

export { TritonError };

const codeNames = Object.fromEntries(
  Object.entries(ErrorCode).map(([name, value]) => [value, name]),
) as Record<number, ErrorCodeName>;

/**
 * Converts a `TRITONSERVER_Error*` into a {@link TritonError}. With `owned`, the C error is deleted
 * (`TRITONSERVER_ErrorDelete`); errors owned by a response are only read.
 */
export function errorFromPtr(lib: TritonLibrary, err: Ptr, owned: boolean): TritonError {
  const { api } = lib;
  const code = codeNames[api.TRITONSERVER_ErrorCode(err)] ?? "UNKNOWN";
  const message = api.TRITONSERVER_ErrorMessage(err);
  if (owned) api.TRITONSERVER_ErrorDelete(err);
  return new TritonError(code, message);
}

/**
 * Throws the `TRITONSERVER_Error*` returned by a C call, after deleting it; does nothing for NULL.
 * @throws {TritonError}
 */
export function check(lib: TritonLibrary, err: Ptr): void {
  if (!lib.ffi.isNull(err)) throw errorFromPtr(lib, err, true);
}

/**
 * Deletes the `TRITONSERVER_Error*` returned by a C call whose failure cannot be acted on (a
 * delete on a cleanup path); does nothing for NULL. Never throws.
 */
export function discard(lib: TritonLibrary, err: Ptr): void {
  if (!lib.ffi.isNull(err)) lib.api.TRITONSERVER_ErrorDelete(err);
}
