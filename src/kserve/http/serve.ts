/**
 * `serve()`: the KServe v2 HTTP/REST protocol over a running {@link Server}, on the runtime's own
 * HTTP server (`Deno.serve`, `Bun.serve`, `node:http`), from one fetch-style handler.
 *
 * @module
 */
import { runtimeName } from "../../../ffi/mod.ts";
import { TritonError } from "../../errors.ts";
import {
  type KServeHooks,
  type KServeOptions,
  type KServeService,
  kserveService,
} from "./handler.ts";
import type { Server } from "../../server.ts";
import { cannotListen, type CloseOptions, closing, listenOptions } from "../lifecycle.ts";

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

/** A running HTTP service; see {@link serve}. */
export interface HttpService extends AsyncDisposable {
  /** The address it listens on. */
  readonly hostname: string;
  /** The port it listens on (the one chosen when `port` was 0). */
  readonly port: number;
  /** `http://<hostname>:<port>` (IPv6 addresses in brackets). */
  readonly url: string;
  /** The runtime's server it runs on. */
  readonly runtime: "deno" | "bun" | "node";
  /** Requests being served now (a streamed response counts until its stream ends). */
  readonly active: number;
  /**
   * Stops accepting connections, waits for the requests in flight to finish (streams included),
   * then closes the idle connections. The {@link Server} keeps running. Safe to call twice (the
   * first call's options hold).
   * @param options.timeoutMs milliseconds to wait before ending the event streams still open
   *   (each gets a last event, `{"error": "the HTTP service is closing"}`, and its request is
   *   cancelled in Triton); other requests in flight are still waited for. Default: no limit.
   * @throws {TritonError} INVALID_ARG for a bad timeout or an unknown option (`timeout`, the old
   *   name, included), as the rejection.
   */
  close(options?: CloseOptions): Promise<void>;
  /** Resolves once the service is closed. */
  readonly closed: Promise<void>;
}

/** What each runtime adapter gives back. */
interface Listening {
  readonly hostname: string;
  readonly port: number;
  /** Stop accepting connections. */
  stopAccepting(): Promise<void>;
  /** Close every connection left (after the requests in flight finished). */
  closeAll(): Promise<void>;
}

interface ListenArgs {
  readonly hostname: string;
  readonly port: number;
  readonly service: (hooks: KServeHooks) => KServeService;
}

/** `Deno.serve`. */
function listenDeno(args: ListenArgs): Listening & { service: KServeService } {
  const service = args.service({});
  let httpServer: Deno.HttpServer<Deno.NetAddr>;
  try {
    httpServer = Deno.serve({
      hostname: args.hostname,
      port: args.port,
      onListen() {},
    }, (request) => service.fetch(request));
  } catch (e) {
    throw cannotListen(args.hostname, args.port, e);
  }
  return {
    service,
    hostname: httpServer.addr.hostname,
    port: httpServer.addr.port,
    // Deno's shutdown stops accepting and waits for the responses in flight.
    stopAccepting: () => httpServer.shutdown(),
    closeAll: () => httpServer.finished,
  };
}

/** The part of `Bun.serve` used here (Bun's types are not a dependency). */
interface BunServer {
  readonly port: number;
  readonly hostname: string;
  stop(closeActiveConnections?: boolean): unknown;
  timeout(request: Request, seconds: number): void;
}
interface BunGlobal {
  serve(options: {
    hostname: string;
    port: number;
    fetch(request: Request): Promise<Response>;
    maxRequestBodySize: number;
  }): BunServer;
}

/** `Bun.serve`. */
function listenBun(args: ListenArgs): Listening & { service: KServeService } {
  const bun = (globalThis as unknown as { Bun: BunGlobal }).Bun;
  let bunServer: BunServer | undefined;
  // Bun closes a connection idle for 10 s, a quiet event stream included: lift it for streams.
  const service = args.service({ onStream: (request) => bunServer?.timeout(request, 0) });
  try {
    bunServer = bun.serve({
      hostname: args.hostname,
      port: args.port,
      fetch: (request) => service.fetch(request),
      // Bun's own cap answers 413 without a word; the handler's (which streams the body and
      // stops at maxRequestBytes) answers with the error JSON, so Bun's is lifted.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    });
  } catch (e) {
    throw cannotListen(args.hostname, args.port, e);
  }
  const s = bunServer;
  return {
    service,
    hostname: s.hostname,
    port: s.port,
    stopAccepting: async () => {
      await s.stop(false);
    },
    closeAll: async () => {
      await s.stop(true);
    },
  };
}

/** `node:http`, with `@hono/node-server` turning its requests into `Request`s and back. */
async function listenNode(args: ListenArgs): Promise<Listening & { service: KServeService }> {
  const { createServer } = await import("node:http");
  const { getRequestListener } = await import("@hono/node-server");
  const service = args.service({});
  // The adapter's default: its lightweight Request and Response become the globals. Without
  // them each response is read back through undici's body stream, which costs Node about twice
  // the requests per second (bench/README.md).
  const nodeServer = createServer(getRequestListener((request) => service.fetch(request)));
  try {
    await new Promise<void>((resolve, reject) => {
      nodeServer.once("error", reject);
      nodeServer.listen(args.port, args.hostname, () => {
        nodeServer.off("error", reject);
        resolve();
      });
    });
  } catch (e) {
    throw cannotListen(args.hostname, args.port, e);
  }
  const address = nodeServer.address();
  const port = typeof address === "object" && address !== null ? address.port : args.port;
  const closed = new Promise<void>((resolve) => nodeServer.once("close", () => resolve()));
  return {
    service,
    hostname: args.hostname,
    port,
    stopAccepting: () => {
      nodeServer.close();
      return Promise.resolve();
    },
    closeAll: () => {
      nodeServer.closeAllConnections();
      return closed;
    },
  };
}

/**
 * Serves the KServe v2 HTTP/REST protocol for `server` (see `kserveHandler` for the endpoints)
 * on this runtime's HTTP server: `Deno.serve` on Deno (needs `--allow-net`), `Bun.serve` on Bun,
 * `node:http` on Node through `@hono/node-server`, which makes its lightweight `Request` and
 * `Response` the globals (they pass `instanceof` and behave as the standard ones). Resolves once
 * it listens.
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
export async function serve(server: Server, options: ServeOptions = {}): Promise<HttpService> {
  const { hostname, port, signal } = listenOptions(
    "serve()",
    options,
    "{ hostname?, port?, signal?, … }",
    8000,
  );
  const args: ListenArgs = {
    hostname,
    port,
    service: (hooks) => kserveService(server, options, hooks),
  };
  // Each adapter makes the service (kserveService checks the options) before it listens.
  const runtime = runtimeName();
  const listening = runtime === "deno"
    ? listenDeno(args)
    : runtime === "bun"
    ? listenBun(args)
    : await listenNode(args);
  const { service } = listening;
  const { close, closed } = closing({
    // Deno's shutdown resolves only once the requests in flight are done.
    stopAccepting: () => listening.stopAccepting(),
    idle: () => service.idle(),
    endInFlight: () =>
      service.endStreams(new TritonError("UNAVAILABLE", "the HTTP service is closing")),
    finish: () => listening.closeAll().then(() => service.closeTraces()),
  }, signal);
  const host = listening.hostname.includes(":") ? `[${listening.hostname}]` : listening.hostname;
  return {
    hostname: listening.hostname,
    port: listening.port,
    url: `http://${host}:${listening.port}`,
    runtime,
    get active() {
      return service.active();
    },
    close,
    closed,
    [Symbol.asyncDispose]: () => close(),
  };
}
