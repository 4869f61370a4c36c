/**
 * `TritonError`, the one error class of the binding, with Triton's error code. It lives beside the
 * FFI layer, which throws it too (a string C would cut short), with the conversion from Triton's
 * `TRITONSERVER_Error*`.
 *
 * @module
 */
import { ErrorCode, type ErrorCodeName } from "./enums.ts";
import type { NativeLibrary, Ptr } from "./types.ts";

/**
 * An error reported by Triton (a `TRITONSERVER_Error`), or detected by the binding before any C
 * call, carrying a Triton error code.
 *
 * @example
 * ```ts
 * import { Server, TritonError } from "tritonffi";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * try {
 *   await server.model("nope").inferOne({ inputs: {} });
 * } catch (e) {
 *   if (e instanceof TritonError && e.code === "NOT_FOUND") console.log(e.message);
 * }
 * ```
 */
export class TritonError extends Error {
  override name = "TritonError";
  /** Triton's error code (`TRITONSERVER_Error_Code`), e.g. `"INVALID_ARG"`. */
  readonly code: ErrorCodeName;

  /**
   * @param code the Triton error code name.
   * @param message what went wrong (Triton's own message where Triton reported it).
   */
  constructor(code: ErrorCodeName, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** The numeric `TRITONSERVER_Error_Code`. */
  get codeValue(): number {
    return ErrorCode[this.code];
  }
}

const codeNames = Object.fromEntries(
  Object.entries(ErrorCode).map(([name, value]) => [value, name]),
) as Record<number, ErrorCodeName>;

/**
 * Converts a `TRITONSERVER_Error*` into a {@link TritonError}. With `owned`, the C error is deleted
 * (`TRITONSERVER_ErrorDelete`); errors owned by a response are only read.
 */
export function errorFromPtr(lib: NativeLibrary, err: Ptr, owned: boolean): TritonError {
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
export function check(lib: NativeLibrary, err: Ptr): void {
  if (!lib.ffi.isNull(err)) throw errorFromPtr(lib, err, true);
}

/**
 * Deletes the `TRITONSERVER_Error*` returned by a C call whose failure cannot be acted on (a
 * delete on a cleanup path); does nothing for NULL. Never throws.
 */
export function discard(lib: NativeLibrary, err: Ptr): void {
  if (!lib.ffi.isNull(err)) lib.api.TRITONSERVER_ErrorDelete(err);
}
