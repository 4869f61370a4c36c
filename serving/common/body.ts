/**
 * Reading a request body under a size cap: a declared size over the cap is refused before
 * anything is read, and a body without a declared size (chunked) is refused as soon as it grows
 * past the cap, so no allocation ever exceeds it. A body in `Content-Encoding: gzip` or `deflate`
 * is inflated under the same cap: what it inflates to counts, and inflating stops once past it.
 *
 * @module
 */
import { HttpError } from "./http_errors.ts";
import { invalid } from "./refusals.ts";
import { inflateBounded, InflateError } from "./compression.ts";
import { requestEncoding } from "./content_encoding.ts";
import { type JsonRecord, parseJson, record } from "./json.ts";

const EMPTY = new Uint8Array(0);

/** A size cap, and the option that sets it (named in the 413 that enforces it). */
export interface SizeLimit {
  /** The most bytes accepted. */
  readonly bytes: number;
  /** The option that sets {@link bytes}, e.g. `maxRequestBytes`. */
  readonly option: string;
}

/** The request size limits of the HTTP front end (`maxRequestBytes`, `maxJsonBytes`). */
export interface RequestLimits {
  /** A whole body. */
  readonly body: SizeLimit;
  /** A JSON body, or a binary request's JSON header: the tighter of the two limits. */
  readonly json: SizeLimit;
}

/** The 413 for `what` of `size` bytes over `limit`. */
export function tooLarge(what: string, size: number | string, limit: SizeLimit): HttpError {
  return new HttpError(
    413,
    `${what} of ${size} bytes exceeds the limit of ${limit.bytes} bytes (${limit.option})`,
  );
}

/**
 * The whole body of `request`, at most `limit.bytes` bytes, inflated where its
 * `Content-Encoding` is `gzip` or `deflate` (either format is read under either name, as
 * `tritonserver` reads them).
 * @throws {HttpError} 413 naming `limit.option` when `Content-Length`, the bytes received or
 *   (compressed) the bytes they inflate to exceed it.
 * @throws {TritonError} INVALID_ARG for a malformed `Content-Length`, a body that ends before its
 *   declared size, or a compressed body that is empty ("nothing to be decompressed") or does not
 *   inflate; UNSUPPORTED "Unsupported compression type" for another `Content-Encoding` (see
 *   `requestEncoding`), before the body is read.
 */
export async function readBody(request: Request, limit: SizeLimit): Promise<Uint8Array> {
  let encoding;
  try {
    encoding = requestEncoding(request.headers);
  } catch (e) {
    request.body?.cancel().catch(() => {});
    throw e;
  }
  const bytes = await readBytes(request, limit);
  if (encoding === undefined) return bytes;
  if (bytes.byteLength === 0) invalid("nothing to be decompressed");
  let inflated;
  try {
    inflated = await inflateBounded(bytes, "either", limit.bytes);
  } catch (e) {
    if (!(e instanceof InflateError)) throw e;
    invalid(`the request body could not be decompressed (${encoding}): ${e.message}`);
  }
  if (inflated === undefined) {
    throw tooLarge("decompressed request body", `more than ${limit.bytes}`, limit);
  }
  return inflated;
}

/** The bytes of `request`'s body as sent, at most `limit.bytes` (see {@link readBody}). */
async function readBytes(request: Request, limit: SizeLimit): Promise<Uint8Array> {
  const max = limit.bytes;
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!/^\d+$/.test(declared.trim())) invalid(`invalid Content-Length '${declared}'`);
    const size = Number(declared.trim());
    if (size > max) {
      request.body?.cancel().catch(() => {});
      throw tooLarge("request body", declared.trim(), limit);
    }
    if (size === 0) return EMPTY;
    // HTTP framing holds the body to its declared size: read it whole (the runtimes' fast path).
    try {
      return new Uint8Array(await request.arrayBuffer());
    } catch (e) {
      invalid(`the request body could not be read: ${e instanceof Error ? e.message : e}`);
    }
  }
  // No declared size (chunked): read it piece by piece, stopping at the cap.
  const body = request.body;
  if (body === null) return EMPTY;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        reader.cancel().catch(() => {});
        throw tooLarge("request body", `more than ${max}`, limit);
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof HttpError) throw e;
    invalid(`the request body could not be read: ${e instanceof Error ? e.message : e}`);
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * A request body that is one JSON object (an empty body is an empty object), read under `limit`.
 * @param what names the document in error messages (`"load model"`: "the load model request").
 * @throws {TritonError} INVALID_ARG for a body that is not JSON or no object; as {@link readBody}.
 * @throws {HttpError} 413 as {@link readBody}.
 */
export async function readJsonObject(
  request: Request,
  limit: SizeLimit,
  what: string,
): Promise<JsonRecord> {
  const bytes = await readBody(request, limit);
  return bytes.byteLength === 0 ? {} : record(parseJson(bytes, what), `the ${what} request`);
}
