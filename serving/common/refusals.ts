/**
 * The errors the KServe operations throw, on both protocols: each front end answers a
 * {@link TritonError} with its code's status (HTTP: `http_errors.ts`, gRPC:
 * `../kserve/grpc/status.ts`).
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";

/** Throws `TritonError` INVALID_ARG (HTTP 400, gRPC INVALID_ARGUMENT) with `message`. */
export function invalid(message: string): never {
  throw new TritonError("INVALID_ARG", message);
}

/** Throws `TritonError` UNSUPPORTED (HTTP 501, gRPC UNIMPLEMENTED) with `message`. */
export function unsupported(message: string): never {
  throw new TritonError("UNSUPPORTED", message);
}
