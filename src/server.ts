/**
 * `Server`: an in-process Triton server (`TRITONSERVER_Server`) and its lifetime.
 *
 * @module
 */
import type { AllocatorFunctions } from "../ffi/allocator.ts";
import { loadTriton, type TritonLibrary } from "../ffi/loader.ts";
import type { Ptr } from "../ffi/types.ts";
import { check, TritonError } from "./errors.ts";
import { type InflightRequest, inflightTable } from "./inflight.ts";
import { Model } from "./model.ts";
import { createServerOptions, type ServerOptions } from "./options.ts";
import type { InferTarget } from "./request.ts";

/**
 * Creates the server's `TRITONSERVER_ResponseAllocator` with the process-wide allocator functions
 * (alloc, release, query, buffer attributes). The caller deletes it.
 */
function createAllocator(lib: TritonLibrary, fns: AllocatorFunctions): Ptr {
  const { api, ffi } = lib;
  const out = new BigUint64Array(1);
  check(lib, api.TRITONSERVER_ResponseAllocatorNew(out, fns.alloc, fns.release, ffi.NULL));
  const allocator = ffi.fromAddress(out[0]);
  try {
    check(lib, api.TRITONSERVER_ResponseAllocatorSetQueryFunction(allocator, fns.query));
    check(
      lib,
      api.TRITONSERVER_ResponseAllocatorSetBufferAttributesFunction(
        allocator,
        fns.bufferAttributes,
      ),
    );
    return allocator;
  } catch (e) {
    api.TRITONSERVER_ResponseAllocatorDelete(allocator);
    throw e;
  }
}

/** How `start()` behaves. */
export interface StartOptions {
  /** Wait until `TRITONSERVER_ServerIsReady` answers true. Default true. */
  readonly waitUntilReady?: boolean;
  /** Milliseconds to wait for readiness before failing. Default 30000. */
  readonly timeout?: number;
  /** Library path, overriding `$TRITONSERVER_LIB` and the search order. */
  readonly libraryPath?: string;
}

/**
 * An in-process Triton Inference Server.
 *
 * Owns its `TRITONSERVER_Server` and its response allocator; both are deleted by {@link stop}
 * (also run by `await using`).
 *
 * @example
 * ```ts
 * await using server = await new Server({ modelRepository: "tests/models" }).start();
 * const model = server.model("add_sub");
 * ```
 */
export class Server {
  /** The options it was created with. */
  readonly options: ServerOptions;
  #lib: TritonLibrary | undefined;
  #server: Ptr | undefined;
  #allocator: Ptr | undefined;
  #state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  readonly #requests = new Set<InflightRequest>();

  /** @param options see {@link ServerOptions}; validated by `start()`. */
  constructor(options: ServerOptions) {
    this.options = options;
  }

  /**
   * Loads the library, creates the server (`TRITONSERVER_ServerNew`, off the JS thread) and, by
   * default, waits until it is ready.
   * @returns this server.
   * @throws {LibraryLoadError} when no usable library is found.
   * @throws {TritonError} INVALID_ARG for bad options; Triton's error when the server cannot be
   *   created; UNAVAILABLE when it is not ready within `timeout`.
   */
  async start(start: StartOptions = {}): Promise<this> {
    if (this.#state !== "new") {
      throw new TritonError("ALREADY_EXISTS", `server is ${this.#state}; start() runs once`);
    }
    this.#state = "starting";
    try {
      const lib = (this.#lib = await loadTriton(start.libraryPath));
      const { api, apiAsync, ffi } = lib;
      const table = inflightTable(lib);
      const opts = createServerOptions(lib, this.options);
      const out = new BigUint64Array(1);
      try {
        check(lib, await apiAsync.TRITONSERVER_ServerNew(out, opts));
      } finally {
        api.TRITONSERVER_ServerOptionsDelete(opts);
      }
      this.#server = ffi.fromAddress(out[0]);
      try {
        this.#allocator = createAllocator(lib, table.callbacks.allocator);
      } catch (e) {
        await this.#deleteServer();
        throw e;
      }
      this.#state = "running";
      if (start.waitUntilReady ?? true) await this.#waitReady(start.timeout ?? 30_000);
      return this;
    } catch (e) {
      if (this.#state === "running") await this.stop();
      this.#state = "stopped";
      throw e;
    }
  }

  async #waitReady(timeout: number): Promise<void> {
    const deadline = Date.now() + timeout;
    while (!this.ready()) {
      if (Date.now() > deadline) {
        throw new TritonError("UNAVAILABLE", `server not ready after ${timeout} ms`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Whether the server is live (`TRITONSERVER_ServerIsLive`).
   * @throws {TritonError} UNAVAILABLE when the server is not running. */
  live(): boolean {
    return this.#bool("TRITONSERVER_ServerIsLive");
  }

  /** Whether the server is ready (`TRITONSERVER_ServerIsReady`).
   * @throws {TritonError} UNAVAILABLE when the server is not running. */
  ready(): boolean {
    return this.#bool("TRITONSERVER_ServerIsReady");
  }

  #bool(fn: "TRITONSERVER_ServerIsLive" | "TRITONSERVER_ServerIsReady"): boolean {
    const { lib, server } = this.#running();
    const flag = new Uint8Array(1);
    check(lib, lib.api[fn](server, flag));
    return flag[0] !== 0;
  }

  /** Whether a model is ready (`TRITONSERVER_ServerModelIsReady`). */
  modelReady(name: string, version = -1): boolean {
    const { lib, server } = this.#running();
    const flag = new Uint8Array(1);
    check(lib, lib.api.TRITONSERVER_ServerModelIsReady(server, name, BigInt(version), flag));
    return flag[0] !== 0;
  }

  /** A handle on a model; nothing is checked until it is used.
   * @param version -1 (default) lets the server choose. */
  model(name: string, version = -1): Model {
    return new Model(this, name, version);
  }

  /** Number of this server's requests in flight. */
  get inflight(): number {
    return this.#requests.size;
  }

  /** @internal What `Model.infer` needs. */
  inferTarget(model: string, version: number): InferTarget {
    const { lib, server } = this.#running();
    return {
      table: inflightTable(lib),
      server,
      allocator: this.#allocator!,
      requests: this.#requests,
      model,
      version,
    };
  }

  #running(): { lib: TritonLibrary; server: Ptr } {
    if (this.#state !== "running") {
      throw new TritonError(
        "UNAVAILABLE",
        `server is ${this.#state === "new" ? "not started" : this.#state}`,
      );
    }
    return { lib: this.#lib!, server: this.#server! };
  }

  /**
   * Cancels requests still in flight and waits (up to the exit timeout) for them to finish, then
   * stops and deletes the server (`TRITONSERVER_ServerStop`, `TRITONSERVER_ServerDelete`, both off
   * the JS thread) and its response allocator. Safe to call twice.
   */
  async stop(): Promise<void> {
    if (this.#state !== "running") return;
    this.#state = "stopping";
    const lib = this.#lib!;
    const table = inflightTable(lib);
    const pending = [...this.#requests];
    for (const r of pending) table.abort(r, new TritonError("UNAVAILABLE", "server is stopping"));
    const timeoutMs = (this.options.exitTimeout ?? 30) * 1000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(pending.map((r) => r.finished)),
      new Promise((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
    const stopErr = await lib.apiAsync.TRITONSERVER_ServerStop(this.#server!);
    if (!lib.ffi.isNull(stopErr)) lib.api.TRITONSERVER_ErrorDelete(stopErr);
    await this.#deleteServer();
    if (this.#allocator) {
      check(lib, lib.api.TRITONSERVER_ResponseAllocatorDelete(this.#allocator));
      this.#allocator = undefined;
    }
    this.#state = "stopped";
  }

  async #deleteServer(): Promise<void> {
    const lib = this.#lib!;
    const err = await lib.apiAsync.TRITONSERVER_ServerDelete(this.#server!);
    this.#server = undefined;
    check(lib, err);
  }

  /** Same as {@link stop}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
