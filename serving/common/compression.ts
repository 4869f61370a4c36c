/**
 * gzip and deflate for both front ends, on `node:zlib` (Deno, Bun and Node all provide it):
 * inflating a compressed body or message under a bound on what it inflates to, so that a small
 * "zip bomb" is refused once its output passes the bound instead of filling memory; and
 * compressing a response.
 *
 * `deflate` is the zlib format (RFC 1950: a 2-byte header, raw deflate data, an Adler-32), as
 * HTTP's `Content-Encoding: deflate`, gRPC's `grpc-encoding: deflate` and Triton's clients mean
 * it; `gzip` is RFC 1952.
 *
 * @module
 */
import * as zlib from "node:zlib";

/** A compression both front ends speak. */
export type Encoding = "gzip" | "deflate";

/** What an inflater reads: one format, or `"either"` (zlib or gzip, told apart by their
 * headers, as `tritonserver`'s HTTP front end reads both `Content-Encoding`s). */
export type InflateFormat = Encoding | "either";

/** The piece an inflater hands out at a time: large pieces, few events. */
const CHUNK_BYTES = 64 * 1024;

/** Compressed data that does not inflate: its format's error, in zlib's words. */
export class InflateError extends Error {
  override name = "InflateError";
}

/**
 * `compressed` inflated, or `undefined` once its output passes `max` bytes: inflating stops
 * there, so at most `max` plus one piece (64 KiB) is ever held.
 * @param format the format `compressed` is in.
 * @param max the most bytes it may inflate to.
 * @throws {InflateError} for data that is not in `format`, is corrupt, or ends early.
 */
export function inflateBounded(
  compressed: Uint8Array,
  format: InflateFormat,
  max: number,
): Promise<Uint8Array | undefined> {
  const options = { chunkSize: CHUNK_BYTES };
  const inflater = format === "gzip"
    ? zlib.createGunzip(options)
    : format === "deflate"
    ? zlib.createInflate(options)
    : zlib.createUnzip(options);
  return new Promise((resolve, reject) => {
    const pieces: Uint8Array[] = [];
    let total = 0;
    let over = false;
    inflater.on("data", (piece: Uint8Array) => {
      if (over) return;
      total += piece.byteLength;
      if (total > max) {
        over = true;
        pieces.length = 0;
        inflater.destroy();
        return resolve(undefined);
      }
      pieces.push(piece);
    });
    inflater.on("error", (e: Error) => {
      if (!over) reject(new InflateError(e.message));
    });
    inflater.on("end", () => resolve(joined(pieces, total)));
    inflater.end(compressed);
  });
}

/** `pieces` (of `total` bytes) as one array: the piece itself when there is one. */
function joined(pieces: readonly Uint8Array[], total: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.byteLength;
  }
  return out;
}

/** `bytes` compressed as `encoding` at zlib's default level, off the event loop (zlib's
 * thread pool). */
export function compress(
  bytes: Uint8Array,
  encoding: Encoding,
): Promise<Uint8Array<ArrayBuffer>> {
  const run = encoding === "gzip" ? zlib.gzip : zlib.deflate;
  return new Promise((resolve, reject) => {
    run(bytes, (e, out) => e ? reject(e) : resolve(out as Uint8Array<ArrayBuffer>));
  });
}

/** `bytes` compressed as `encoding` at zlib's default level, on this thread. */
export function compressSync(bytes: Uint8Array, encoding: Encoding): Uint8Array {
  return encoding === "gzip" ? zlib.gzipSync(bytes) : zlib.deflateSync(bytes);
}
