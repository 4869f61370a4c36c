/**
 * OpenAI's error shape, `{"error": {"message", "type", "param", "code"}}`, and the status each
 * error is answered with: an {@link OpenAIError} by its own, a `TritonError` (the model's, or the
 * binding's for bad input) by the status Triton's HTTP front end gives its code, a 413 or another
 * HTTP error of the shared request reading by its status.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import { HTTP_STATUS, HttpError } from "../common/http_errors.ts";

/** A client's mistake (or a refusal) with its HTTP status, and OpenAI's `param` and `code`. */
export class OpenAIError extends Error {
  override name = "OpenAIError";
  /** The HTTP status it is answered with. */
  readonly status: number;
  /** The request field at fault (`"messages[0].content"`), or null. */
  readonly param: string | null;
  /** A machine-readable code (`"model_not_found"`), or null. */
  readonly code: string | null;

  constructor(
    status: number,
    message: string,
    param: string | null = null,
    code: string | null = null,
  ) {
    super(message);
    this.status = status;
    this.param = param;
    this.code = code;
  }
}

/** Throws a 400 `invalid_request_error` naming the field `param`. */
export function badRequest(
  message: string,
  param: string | null,
  code: string | null = null,
): never {
  throw new OpenAIError(400, message, param, code);
}

/** OpenAI's `type` for a status: `invalid_request_error` for a client's mistake,
 * `permission_error` for a restricted API, `server_error` for the server's failure. */
function errorType(status: number): string {
  if (status === 403) return "permission_error";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

/** The error object of OpenAI's shape for `error`, and its status: an {@link OpenAIError} as it
 * says, a `TritonError` by its code ({@link HTTP_STATUS}; `code` is Triton's code name), an
 * `HttpError` by its status, anything else (a bug) as 500. */
export function errorObject(error: unknown): {
  status: number;
  body: { message: string; type: string; param: string | null; code: string | null };
} {
  let status: number;
  let param: string | null = null;
  let code: string | null = null;
  if (error instanceof OpenAIError) {
    status = error.status;
    param = error.param;
    code = error.code;
  } else if (error instanceof TritonError) {
    status = HTTP_STATUS[error.code] ?? 400;
    code = error.code;
  } else if (error instanceof HttpError) {
    status = error.status;
  } else {
    status = 500;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { status, body: { message, type: errorType(status), param, code } };
}

/** The text of `{"error": {...}}` for `error` (see {@link errorObject}). */
export function errorJson(error: unknown): string {
  return JSON.stringify({ error: errorObject(error).body });
}

/** The response for an error: `{"error": {...}}` as `application/json`, with its status. */
export function errorResponse(error: unknown): Response {
  const { status, body } = errorObject(error);
  return new Response(JSON.stringify({ error: body }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
