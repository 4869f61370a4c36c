/**
 * Serving a fetch-style service on the runtime's own HTTP server (`Deno.serve`, `Bun.serve`,
 * `node:http`): one adapter per runtime, and the {@link HttpService} every HTTP front end
 * (`serve()`, `serveOpenAI()`) hands back — where it listens, what it is serving, and `close()`.
 *
 * @module
 */
import { runtimeName } from "../../ffi/mod.ts";
import { TritonError } from "../../src/errors.ts";
import { cannotListen, type CloseOptions, closing, listenOptions } from "./lifecycle.ts";

/** A fetch-style handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** A running HTTP service (of `serve()` or `serveOpenAI()`). */
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
   * then closes the idle connections. The `Server` keeps running. Safe to call twice (the first
   * call's options hold).
   * @param options.timeoutMs milliseconds to wait before ending the event streams still open
   *   (each gets a last event saying that the HTTP service is closing, in its protocol's error
   *   form, and its requests are cancelled in Triton); other requests in flight are still waited
   *   for. Default: no limit.
   * @throws {TritonError} INVALID_ARG for a bad timeout or an unknown option (`timeout`, the old
   *   name, included), as the rejection.
   */
  close(options?: CloseOptions): Promise<void>;
  /** Resolves once the service is closed. */
  readonly closed: Promise<void>;
}

/** @internal What a front end gives the adapters: its handler and what closing needs. */
export interface ServedService {
  /** The handler. */
  readonly fetch: FetchHandler;
  /** Requests being served (a streamed response counts until its stream ends). */
  readonly active: () => number;
  /** Resolves when no request is being served. */
  readonly idle: () => Promise<void>;
  /** Ends the event streams still open, each with a last event giving `reason`; their requests
   * are cancelled in Triton. */
  readonly endStreams: (reason: unknown) => void;
  /** What is left to do once the connections are closed (the KServe front end's traces). */
  readonly finish?: () => Promise<void>;
}

/** @internal Hooks a runtime adapter gives the service it makes. */
export interface ServiceHooks {
  /** Called when a response starts streaming (Bun lifts its idle timeout for it). */
  readonly onStream?: (request: Request) => void;
}

/** What each runtime adapter gives back. */
interface Listening {
  readonly hostname: string;
  readonly port: number;
  readonly service: ServedService;
  /** Stop accepting connections. */
  stopAccepting(): Promise<void>;
  /** Close every connection left (after the requests in flight finished). */
  closeAll(): Promise<void>;
}

interface ListenArgs {
  readonly hostname: string;
  readonly port: number;
  readonly service: (hooks: ServiceHooks) => ServedService;
}

/** `Deno.serve`. */
function listenDeno(args: ListenArgs): Listening {
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
function listenBun(args: ListenArgs): Listening {
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
      // stops at its limit) answers with the error JSON, so Bun's is lifted.
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
async function listenNode(args: ListenArgs): Promise<Listening> {
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

/** @internal What {@link listen} needs of a front end. */
export interface ListenRequest {
  /** The function that listens, for messages (`"serve()"`). */
  readonly what: string;
  /** Its options (`hostname`, `port`, `signal` are read here; the rest by `service`). */
  readonly options: unknown;
  /** The options it takes, for the message when `options` is no record. */
  readonly fields: string;
  /** The port when none is given. */
  readonly defaultPort: number;
  /** Makes the service; it checks the rest of the options (and throws for bad ones) before
   * anything listens. */
  readonly service: (hooks: ServiceHooks) => ServedService;
}

/**
 * @internal Serves a front end's fetch handler on this runtime's HTTP server: `Deno.serve` on
 * Deno (needs `--allow-net`), `Bun.serve` on Bun, `node:http` on Node through `@hono/node-server`,
 * which makes its lightweight `Request` and `Response` the globals. Resolves once it listens.
 * @throws {TritonError} INVALID_ARG for bad options (`hostname`, `port`, `signal`, and what
 *   `service` checks); UNAVAILABLE when it cannot listen (the port is taken, the address is not
 *   this machine's).
 */
export async function listen(request: ListenRequest): Promise<HttpService> {
  const { hostname, port, signal } = listenOptions(
    request.what,
    request.options,
    request.fields,
    request.defaultPort,
  );
  const args: ListenArgs = { hostname, port, service: request.service };
  // Each adapter makes the service (which checks the options) before it listens.
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
    finish: () => listening.closeAll().then(() => service.finish?.()),
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
