/**
 * Serving a fetch-style service on the runtime's own HTTP server (`Deno.serve`, `Bun.serve`,
 * `node:http`): one adapter per runtime, and the {@link HttpService} every HTTP front end
 * (`serve()`, `serveOpenAI()`) hands back — where it listens, what it is serving, and `close()`.
 * With `workers` > 1 the calling thread serves as one of them and a {@link WorkerPool} runs the
 * others, every listener on the same port with `reusePort` (worker_pool.ts).
 *
 * @module
 */
import { runtimeName } from "../../ffi/mod.ts";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import { cannotListen, type CloseOptions, listenOptions } from "./lifecycle.ts";
import { ServiceOwner } from "./service_owner.ts";
import type { StateApplier, StateChanges } from "./state_changes.ts";
import { checkWorkers, workerOptions } from "./worker_options.ts";

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
  /** Resolves once the service is closed. Rejects with a {@link TritonError} INTERNAL when a
   * worker thread died (or could not apply a change of protocol state) and the service closed
   * itself for it; {@link close} then rejects with the same error. */
  readonly closed: Promise<void>;
  /** Threads serving (the `workers` option): 1 is the calling thread alone. */
  readonly workers: number;
  /** Requests each thread has taken so far, the calling thread first (index 0). */
  requestsPerWorker(): number[];
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
  /** How it applies changes of protocol state, where it has any (state_changes.ts). */
  readonly state?: StateApplier;
}

/** @internal Hooks a runtime adapter gives the service it makes. */
export interface ServiceHooks {
  /** Called when a response starts streaming (Bun lifts its idle timeout for it). */
  readonly onStream?: (request: Request) => void;
  /** Threads serving the service (the `workers` option). @default 1 */
  readonly threads?: number;
  /** Where `threads` > 1: makes changes of protocol state for the whole service. */
  readonly changes?: StateChanges;
  /** In the owner, where `threads` > 1: has every worker apply a change the owner made. */
  readonly mirror?: (op: string, args: readonly unknown[]) => void;
  /** In the owner, where `threads` > 1: every worker's answer to `op` (its state's `mirror`). */
  readonly gather?: (op: string, args: readonly unknown[]) => Promise<unknown[]>;
}

/** @internal What each runtime adapter gives back. */
export interface Listening {
  readonly hostname: string;
  readonly port: number;
  readonly service: ServedService;
  /** Stop accepting connections. */
  stopAccepting(): Promise<void>;
  /** Close every connection left (after the requests in flight finished). */
  closeAll(): Promise<void>;
}

/** @internal What a runtime adapter needs. */
export interface ListenArgs {
  readonly hostname: string;
  readonly port: number;
  /** Listen with `SO_REUSEPORT` (the listeners of a service's threads share the port). */
  readonly reusePort: boolean;
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
      ...(args.reusePort ? { reusePort: true } : {}),
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
    reusePort: boolean;
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
      reusePort: args.reusePort,
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
      // reusePort: Node >= 22.12 (23.1); the package asks for 22.18.
      nodeServer.listen({ port: args.port, host: args.hostname, reusePort: args.reusePort }, () => {
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

/** @internal Listens on this runtime's HTTP server (the adapter of {@link listen}). */
export function listenOn(args: ListenArgs): Listening | Promise<Listening> {
  const runtime = runtimeName();
  return runtime === "deno"
    ? listenDeno(args)
    : runtime === "bun"
    ? listenBun(args)
    : listenNode(args);
}

/** @internal How a front end runs on worker threads (the `workers` option). */
export interface WorkerSupport {
  /** The server served (shared with the workers). */
  readonly server: Server;
  /** The front end's worker module (it calls `runServeWorker`). */
  readonly entry: URL;
  /** The options a worker makes its service with (structured-cloneable): the front end's own,
   * less what cannot cross threads.
   * @throws {TritonError} UNSUPPORTED or INVALID_ARG for an option that cannot be served on
   *   several threads, naming it. */
  readonly options: () => unknown;
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
  /** Where the front end can run on worker threads; absent: `workers` must be 1. */
  readonly workers?: WorkerSupport;
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
  const { workers: threads, allowBunWorkers } = workerOptions(request.what, request.options);
  const support = request.workers;
  const workerInit = threads > 1 ? checkWorkers(request.what, support, allowBunWorkers) : undefined;
  const owner = new ServiceOwner(request.what, threads);
  const hooks = owner.hooks();
  // Each adapter makes the service (which checks the options) before it listens.
  const listening = await listenOn({
    hostname,
    port,
    reusePort: threads > 1,
    service: (adapterHooks) => {
      const made = request.service({ ...adapterHooks, ...hooks });
      owner.setState(made.state);
      return { ...made, fetch: countedBy(owner.counters, 0, made.fetch) };
    },
  });
  const served = listening.service;
  if (threads > 1) {
    try {
      await owner.startWorkers({
        server: support!.server,
        entry: support!.entry,
        hostname: listening.hostname,
        port: listening.port,
        options: workerInit,
      });
    } catch (e) {
      await listening.stopAccepting();
      await listening.closeAll();
      await served.finish?.();
      throw e;
    }
  }
  const { close, closed } = owner.lifecycle({
    // Deno's shutdown resolves only once the requests in flight are done.
    stopAccepting: () => listening.stopAccepting(),
    idle: () => served.idle(),
    endInFlight: () =>
      served.endStreams(new TritonError("UNAVAILABLE", "the HTTP service is closing")),
    finish: () => listening.closeAll().then(() => served.finish?.()),
  }, signal);
  const host = listening.hostname.includes(":") ? `[${listening.hostname}]` : listening.hostname;
  const runtime = runtimeName();
  return {
    hostname: listening.hostname,
    port: listening.port,
    url: `http://${host}:${listening.port}`,
    runtime,
    get active() {
      return served.active();
    },
    workers: threads,
    requestsPerWorker: () => owner.requestsPerWorker(),
    close,
    closed,
    [Symbol.asyncDispose]: () => close(),
    ...(owner.pool === undefined ? {} : { [WORKER_POOL]: owner.pool }),
  };
}

/** @internal The {@link WorkerPool} of a service with workers (tests end its workers). */
export const WORKER_POOL: unique symbol = Symbol("tritonffi.workerPool");

/** @internal `fetch`, counting each request in `counters[index]`. */
export function countedBy(counters: Int32Array, index: number, fetch: FetchHandler): FetchHandler {
  return (request) => {
    Atomics.add(counters, index, 1);
    return fetch(request);
  };
}
