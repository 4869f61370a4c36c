/**
 * KServe v2 errors over gRPC: the status each Triton error code is answered with, as Triton's
 * gRPC front end maps them.
 *
 * @module
 */
import type { ErrorCodeName } from "../../../ffi/mod.ts";
import { TritonError } from "../../../src/errors.ts";
import { type GrpcStatus, Status } from "./transport.ts";

/** A Triton error code's gRPC status, as Triton's gRPC front end maps it. */
export const GRPC_STATUS: Readonly<Record<ErrorCodeName, number>> = {
  INVALID_ARG: Status.INVALID_ARGUMENT,
  UNSUPPORTED: Status.UNIMPLEMENTED,
  NOT_FOUND: Status.NOT_FOUND,
  UNAVAILABLE: Status.UNAVAILABLE,
  INTERNAL: Status.INTERNAL,
  ALREADY_EXISTS: Status.ALREADY_EXISTS,
  CANCELLED: Status.CANCELLED,
  UNKNOWN: Status.UNKNOWN,
};

/** The status an error is answered with: a {@link TritonError} by its code, anything else (a
 * bug) as INTERNAL with its message. */
export function statusOf(error: unknown): GrpcStatus {
  if (error instanceof TritonError) {
    return { code: GRPC_STATUS[error.code] ?? Status.UNKNOWN, details: error.message };
  }
  return { code: Status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}
