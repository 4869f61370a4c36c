/**
 * `serve()`: the KServe v2 HTTP/REST protocol over a running {@link Server}, on the runtime's own
 * HTTP server (`Deno.serve`, `Bun.serve`, `node:http`), from one fetch-style handler.
 *
 * @module
 */
import { type KServeOptions, kserveService } from "./handler.ts";
import type { Server } from "../../../src/server.ts";
import { type HttpService, listen } from "../../common/listen.ts";

export type { HttpService };

/** Where and how {@link serve} listens, and what it accepts. */
export interface ServeOptions extends KServeOptions {
  /** The address to listen on. Default `"127.0.0.1"`: only this machine can connect. Give
   * `"0.0.0.0"` (or `"::"`) to accept connections from other machines — a container, a
   * Kubernetes pod — and then consider {@link KServeOptions.restrictedApis} for the model
   * repository endpoints. */
  readonly hostname?: string;
  /** TCP port. Default 8000 (Triton's HTTP port); 0 = any free port (see {@link HttpService.port}). */
  readonly port?: number;
  /** Aborting it closes the service, as {@link HttpService.close} does. */
  readonly signal?: AbortSignal;
}

/**
 * Serves the KServe v2 HTTP/REST protocol for `server` (see `kserveHandler` for the endpoints)
 * on this runtime's HTTP server: `Deno.serve` on Deno (needs `--allow-net`), `Bun.serve` on Bun,
 * `node:http` on Node through `@hono/node-server`, which makes its lightweight `Request` and
 * `Response` the globals (they pass `instanceof` and behave as the standard ones). Resolves once
 * it listens. Closing it ({@link HttpService.close}) ends the event streams still open after its
 * timeout with a last event `{"error": "the HTTP service is closing"}`.
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serve } from "tritonffi/serve";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using http = await serve(server, { port: 0 }); // 0: any free port (default 8000)
 * const ready = await fetch(`${http.url}/v2/health/ready`);
 * console.log(`KServe v2 on ${http.url}: ready ${ready.status}`); // ready 200
 * ```
 * @throws {TritonError} INVALID_ARG for bad options; UNAVAILABLE when it cannot listen (the
 *   port is taken, the address is not this machine's).
 */
export function serve(server: Server, options: ServeOptions = {}): Promise<HttpService> {
  return listen({
    what: "serve()",
    options,
    fields: "{ hostname?, port?, signal?, … }",
    defaultPort: 8000,
    service: (hooks) => kserveService(server, options, hooks),
  });
}
