/**
 * HTTP compression as `tritonserver` answers it: a request body in `Content-Encoding: gzip` or
 * `deflate` is inflated before it is read (an unknown encoding is UNSUPPORTED, and the answer
 * names the ones taken in `Accept-Encoding`), and an inference response is compressed in the
 * encoding the client's `Accept-Encoding` prefers.
 *
 * @module
 */
import type { Encoding } from "./compression.ts";
import { TritonErrorWithHeaders } from "./http_errors.ts";
import { UNSUPPORTED_COMPRESSION } from "./tritonserver_words.ts";

/** The request encodings taken, as the refusal of another lists them. */
export const ACCEPTED_ENCODINGS = "gzip, deflate";

/**
 * The encoding of a request body (`Content-Encoding`): `undefined` for none, empty or
 * `identity`. Names are matched without regard to case, as HTTP defines them (`tritonserver`
 * matches them exactly, and refuses `GZIP`).
 * @throws {TritonError} UNSUPPORTED "Unsupported compression type" (HTTP 501, with
 *   `Accept-Encoding: gzip, deflate`) for any other, as `tritonserver` refuses it.
 */
export function requestEncoding(headers: Headers): Encoding | undefined {
  const given = headers.get("content-encoding");
  if (given === null) return undefined;
  const name = given.trim().toLowerCase();
  if (name === "gzip" || name === "deflate") return name;
  if (name === "" || name === "identity") return undefined;
  throw new TritonErrorWithHeaders("UNSUPPORTED", UNSUPPORTED_COMPRESSION, {
    "accept-encoding": ACCEPTED_ENCODINGS,
  });
}

/**
 * The encoding a response goes in, from the request's `Accept-Encoding`, read as
 * `tritonserver` reads it: comma-separated codings, each optionally `;q=<weight>` (1 when
 * absent); of `identity`, `gzip` and `deflate`, the first with the highest weight above 0 wins;
 * other codings, `*`, and entries whose weight does not parse are passed over. Codings are
 * matched without regard to case or surrounding spaces, as HTTP defines them (`tritonserver`
 * matches them exactly, so `GZIP` or `gzip ;q=1` get it uncompressed). `undefined`:
 * uncompressed (no header, or `identity` wins).
 */
export function responseEncoding(acceptEncoding: string | null): Encoding | undefined {
  if (acceptEncoding === null) return undefined;
  let best: string = "identity";
  let bestWeight = 0;
  for (const entry of acceptEncoding.split(",")) {
    const weightAt = entry.indexOf(";q=");
    const name = (weightAt < 0 ? entry : entry.slice(0, weightAt)).trim().toLowerCase();
    if (name === "") continue;
    let weight = 1;
    if (weightAt >= 0) {
      weight = Number.parseFloat(entry.slice(weightAt + 3));
      if (!Number.isFinite(weight)) continue;
    }
    if ((name === "identity" || name === "gzip" || name === "deflate") && weight > bestWeight) {
      best = name;
      bestWeight = weight;
    }
  }
  return best === "identity" ? undefined : best as Encoding;
}
