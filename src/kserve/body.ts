/**
 * Reading a request body under a size cap: a declared size over the cap is refused before
 * anything is read, and a body without a declared size (chunked) is refused as soon as it grows
 * past the cap, so no allocation ever exceeds it.
 *
 * @module
 */
import { HttpError, invalid } from "./errors.ts";

const EMPTY = new Uint8Array(0);

function tooLarge(size: number | string, max: number): HttpError {
  return new HttpError(
    413,
    `request body of ${size} bytes exceeds the limit of ${max} bytes (maxRequestBytes)`,
  );
}

/**
 * The whole body of `request`, at most `max` bytes.
 * @throws {HttpError} 413 when `Content-Length` or the bytes received exceed `max`.
 * @throws {TritonError} INVALID_ARG for a malformed `Content-Length`, or a body that ends before
 *   its declared size.
 */
export async function readBody(request: Request, max: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!/^\d+$/.test(declared.trim())) invalid(`invalid Content-Length '${declared}'`);
    const size = Number(declared.trim());
    if (size > max) {
      request.body?.cancel().catch(() => {});
      throw tooLarge(declared.trim(), max);
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
        throw tooLarge(`more than ${max}`, max);
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
