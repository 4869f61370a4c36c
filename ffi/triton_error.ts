/**
 * `TritonError`, the one error class of the binding, with Triton's error code. It lives beside the
 * FFI layer, which throws it too (a string C would cut short); `src/errors.ts` adds the conversion
 * from Triton's `TRITONSERVER_Error*`.
 *
 * @module
 */
import { ErrorCode, type ErrorCodeName } from "./enums.ts";

/**
 * An error reported by Triton (a `TRITONSERVER_Error`), or detected by the binding before any C
 * call, carrying a Triton error code.
 *
 * @example
 * ```ts
 * try {
 *   await server.model("nope").infer({ inputs: {} }).next();
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
