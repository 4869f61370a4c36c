/**
 * KServe v2 errors over HTTP: the status each Triton error code is answered with, and the
 * `{"error": "..."}` body Triton's HTTP front end sends.
 *
 * @module
 */
import type { ErrorCodeName } from "../../ffi/mod.ts";
import { TritonError } from "../../src/errors.ts";

/**
 * The HTTP status for each Triton error code, as Triton's HTTP front end answers them: INTERNAL is
 * a server error, NOT_FOUND and UNAVAILABLE have their own statuses, UNSUPPORTED is "not
 * implemented", and the codes without an HTTP counterpart (UNKNOWN, INVALID_ARG, ALREADY_EXISTS,
 * CANCELLED) are a bad request.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCodeName, number>> = {
  UNKNOWN: 400,
  INTERNAL: 500,
  NOT_FOUND: 404,
  INVALID_ARG: 400,
  UNAVAILABLE: 503,
  UNSUPPORTED: 501,
  ALREADY_EXISTS: 400,
  CANCELLED: 400,
};

/**
 * An error answered with an HTTP status that no Triton error code gives (413, 403, 405, 404 for an
 * unknown path). Everything else is a {@link TritonError}, answered by {@link HTTP_STATUS}.
 */
export class HttpError extends Error {
  override name = "HttpError";
  /** The HTTP status it is answered with. */
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** `{"error": message}` with `status`, as `application/json`, with `headers` besides. */
export function errorResponse(
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}

/**
 * A {@link TritonError} whose HTTP answer ({@link responseForError}) carries headers besides its
 * body, as Hono's `HTTPException` carries its response: e.g. UNSUPPORTED "Unsupported compression
 * type" with the `Accept-Encoding` of the encodings taken.
 */
export class TritonErrorWithHeaders extends TritonError {
  /** The headers its answer carries. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCodeName, message: string, headers: Readonly<Record<string, string>>) {
    super(code, message);
    this.headers = headers;
  }
}

/** The status and message an error is answered with: a {@link TritonError} by its code, an
 * {@link HttpError} by its status, anything else (a bug) as 500 with its message. */
export function statusOf(error: unknown): { status: number; message: string } {
  if (error instanceof TritonError) {
    return { status: HTTP_STATUS[error.code] ?? 400, message: error.message };
  }
  if (error instanceof HttpError) return { status: error.status, message: error.message };
  return { status: 500, message: error instanceof Error ? error.message : String(error) };
}

/** The response for an error thrown while serving a request. */
export function responseForError(error: unknown): Response {
  const { status, message } = statusOf(error);
  const headers = error instanceof TritonErrorWithHeaders ? error.headers : undefined;
  return errorResponse(status, message, headers);
}
