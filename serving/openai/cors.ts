/**
 * Cross-origin calls from browser pages (CORS) to the OpenAI service, with Hono's `cors`
 * middleware: the origins allowed get `Access-Control-Allow-Origin` on every answer, and a
 * preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the methods
 * (`GET`, `POST`), the headers the page asked for, and `Access-Control-Max-Age: 600`. It wraps
 * the service's whole handler, outside the routes: a preflight needs no restricted API's header,
 * and errors carry the headers too, so that a page can read them.
 *
 * @module
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { describeValue } from "../../src/value_checks.ts";
import { TritonError } from "../../src/errors.ts";
import type { FetchHandler } from "../common/listen.ts";

/** How long a browser may keep a preflight's answer, in seconds. */
const MAX_AGE_S = 600;

/**
 * The `corsOrigins` option, checked: each an origin as browsers send it in `Origin` (scheme,
 * host and port where it is not the scheme's default, e.g. `"http://localhost:5173"`), or `"*"`
 * (any origin).
 * @throws {TritonError} INVALID_ARG naming the entry at fault.
 */
export function corsOriginsOf(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TritonError(
      "INVALID_ARG",
      `corsOrigins must be a list of origins, not ${describeValue(value)}`,
    );
  }
  for (const [i, origin] of value.entries()) {
    let ok = origin === "*";
    if (!ok && typeof origin === "string") {
      try {
        const url = new URL(origin);
        ok = url.origin === origin && url.origin !== "null";
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      throw new TritonError(
        "INVALID_ARG",
        `corsOrigins[${i}] must be "*" or an origin such as "http://localhost:5173" (scheme, ` +
          `host and port, no path or trailing slash), not ${describeValue(origin)}`,
      );
    }
  }
  return value as string[];
}

/**
 * `fetch` with CORS for `origins` ({@link corsOriginsOf}); `fetch` itself where none is given.
 * A request from an origin not listed is served as before, without the headers (the browser
 * then keeps the answer from the page).
 * @param onError the answer to what `fetch` throws.
 */
export function withCors(
  fetch: FetchHandler,
  origins: readonly string[],
  onError: (error: unknown) => Response,
): FetchHandler {
  if (origins.length === 0) return fetch;
  const app = new Hono();
  app.onError((err) => onError(err));
  app.use(cors({
    origin: origins.includes("*") ? "*" : [...origins],
    allowMethods: ["GET", "POST"],
    maxAge: MAX_AGE_S,
  }));
  // The middleware answers with a copy of the handler's response (its headers added): outside
  // the counted handler, which has already tied a streamed response to its stream by then.
  app.all("*", (c) => fetch(c.req.raw));
  // An OPTIONS request that is no preflight is the service's to answer (405).
  return async (request) =>
    request.method === "OPTIONS" && !request.headers.has("access-control-request-method")
      ? await fetch(request)
      : await app.fetch(request);
}
