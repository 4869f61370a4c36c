/**
 * Why `serveGrpc()` does not serve on Deno unless asked to: both transports run on the runtime's
 * `node:http2` server, and Deno's (2.9, its nghttp2 binding) corrupts memory when it answers
 * gRPC calls. Any client can bring the process down with it: once a connection has carried about
 * 100 calls answered with trailers (as every gRPC call with a message is), the client's GOAWAY
 * or its closed socket makes the process abort inside nghttp2 (`find_stream_on_goaway_func:
 * Assertion 'stream->closed_next == NULL' failed`, `free(): invalid pointer`) or fault (SIGSEGV),
 * before any JavaScript runs. `@grpc/grpc-js` clients do this whenever a channel that made that
 * many calls is closed. Bun's and Node's `node:http2` are not affected.
 *
 * Measured on Deno 2.9.6 (the newest on npm), a fresh server per try, on the fake core and on a
 * bare `node:http2` server alike (tries aborted / tries):
 * - a grpc-js client's 130 concurrent ServerLive calls, then its channel closed: grpc-js transport
 *   16/24, http2 transport 11/24, bare server 3/6; 95–100 calls 18/20, 90 or fewer 0/41; 130 calls
 *   one at a time 6/6.
 * - Only calls whose response waits for trailers (`waitForTrailers`) count: 130 answered with
 *   headers alone, or with a message and no trailers, 0/8 each; with trailers, a message or none,
 *   sent at once or a task later, 4–8/8; with empty trailers (`sendTrailers({})`) 7/8. A client
 *   that destroys its socket instead of sending GOAWAY: 4/6.
 * - Server settings do not avoid it: `maxConcurrentStreams` 16 to 100 (300 calls) 0–8/8, and 8/8
 *   at 32 with the calls one at a time; `peerMaxConcurrentStreams`, the default
 *   `maxSessionMemory`, `maxDeflateDynamicTableSize` 0: 7/8 each; `headerTableSize` 0: 6/8;
 *   destroying the session on "goaway": 5/6 (the abort comes first).
 * - The server closing each connection itself (GOAWAY) after 50 calls: grpc-js clients 0/28, every
 *   call answered; but a client that opens 300 calls at once and sends its own GOAWAY while they
 *   run still brings it down (1/6; 3/8 with `maxConcurrentStreams` 32; 1/8 with the calls past 50
 *   refused), so no setting keeps every client out.
 * - `Deno.serve` speaks HTTP/2 with prior knowledge on cleartext, but a `Response` cannot carry
 *   trailers, which gRPC needs for the status after a message (Deno's internal `addTrailers`
 *   throws "expected external" for a response built by a handler).
 *
 * @module
 */
import { describeValue } from "../../../src/value_checks.ts";
import { TritonError } from "../../../src/errors.ts";
import { env, runtimeName } from "../../../ffi/mod.ts";

/** The environment variable that opts in where the option is not given. */
export const ALLOW_DENO_HTTP2_ENV = "TRITONFFI_ALLOW_DENO_HTTP2";

/**
 * Checks that `serveGrpc()` may serve on this runtime: anywhere but Deno, and on Deno only where
 * `allowDenoHttp2` is true (or, where not given, `TRITONFFI_ALLOW_DENO_HTTP2=1`).
 * @throws {TritonError} INVALID_ARG for an `allowDenoHttp2` other than a boolean or a
 *   `TRITONFFI_ALLOW_DENO_HTTP2` other than `0` or `1`; UNSUPPORTED on Deno without the opt-in,
 *   saying why and naming it.
 */
export function checkRuntimeServesGrpc(allowDenoHttp2: unknown): void {
  if (allowDenoHttp2 !== undefined && typeof allowDenoHttp2 !== "boolean") {
    throw new TritonError(
      "INVALID_ARG",
      `allowDenoHttp2 must be a boolean, not ${describeValue(allowDenoHttp2)}`,
    );
  }
  const fromEnv = allowDenoHttp2 === undefined ? env(ALLOW_DENO_HTTP2_ENV) : undefined;
  if (fromEnv !== undefined && fromEnv !== "" && fromEnv !== "0" && fromEnv !== "1") {
    throw new TritonError(
      "INVALID_ARG",
      `${ALLOW_DENO_HTTP2_ENV} must be "0" or "1", not ${describeValue(fromEnv)}`,
    );
  }
  if (runtimeName() !== "deno" || (allowDenoHttp2 ?? fromEnv === "1")) return;
  const version = (globalThis as { Deno?: { version?: { deno?: string } } }).Deno?.version?.deno;
  throw new TritonError(
    "UNSUPPORTED",
    `serveGrpc() does not serve on Deno${version ? ` ${version}` : ""} by default: its ` +
      "node:http2 server, which carries gRPC here, can be crashed by any client (the process " +
      "aborts inside nghttp2, \"find_stream_on_goaway_func: Assertion 'stream->closed_next == " +
      "NULL' failed\", when a client closes a connection that carried about 100 calls, as " +
      "@grpc/grpc-js clients do; Deno's issue 36788). Serve gRPC from Node or Bun, or accept " +
      `the risk with { allowDenoHttp2: true } (or ${ALLOW_DENO_HTTP2_ENV}=1)`,
  );
}
