/**
 * `Server`: an in-process Triton server (`TRITONSERVER_Server`) and its lifetime.
 *
 * @module
 */
import { type AllocatorPointers, loadTriton, type Ptr, type TritonLibrary } from "../ffi/mod.ts";
import { check, discard, errorFromPtr, TritonError } from "./errors.ts";
import { duration } from "./durations.ts";
import { applyLogUpdate, logEnabled, type LogLevelName, logMessage } from "./log.ts";
import { type ServerMetadata, serverMetadata } from "./metadata.ts";
import {
  type MetricFamily,
  type MetricFamilyOptions,
  NativeMetricFamily,
} from "./metric_family.ts";
import { prometheusText } from "./metrics.ts";
import { checkModelRef, Model } from "./model.ts";
import type { DeclarationOf, ModelDeclarations } from "./model_types.ts";
import { expectRecord, expectString, knownFields, optionalBoolean } from "./value_checks.ts";
import { createServerOptions, type LogOptions, type ServerOptions } from "./options.ts";
import { exitTimeoutSecs } from "./options_plan.ts";
import {
  loadModel,
  type LoadModelOptions,
  modelIndex,
  type ModelIndexEntry,
  pollModelRepository,
  registerModelRepository,
  unloadModel,
  type UnloadModelOptions,
  unregisterModelRepository,
} from "./repository.ts";
import type { InferTarget } from "./request.ts";
import { EXECUTE_GRACE_MS, ServerChildren } from "./server_children.ts";
import {
  Attachment,
  type AttachOptions,
  checkAttachRuntime,
  checkHandle,
  HANDLE_KIND,
  ownerStopping,
  type SharedServerHandle,
  SharedState,
} from "./shared_server.ts";
import { type ModelStatistics, modelStatistics } from "./statistics.ts";

/**
 * Creates a `TRITONSERVER_ResponseAllocator` with the binding's allocator functions (alloc,
 * release, query, and buffer attributes unless NULL). The caller deletes it.
 */
function createAllocator(lib: TritonLibrary, fns: AllocatorPointers): Ptr {
  const { api, ffi } = lib;
  const out = new BigUint64Array(1);
  check(lib, api.TRITONSERVER_ResponseAllocatorNew(out, fns.alloc, fns.release, ffi.NULL));
  const allocator = ffi.fromAddress(out[0]);
  try {
    check(lib, api.TRITONSERVER_ResponseAllocatorSetQueryFunction(allocator, fns.query));
    if (!ffi.isNull(fns.bufferAttributes)) {
      check(
        lib,
        api.TRITONSERVER_ResponseAllocatorSetBufferAttributesFunction(
          allocator,
          fns.bufferAttributes,
        ),
      );
    }
    return allocator;
  } catch (e) {
    api.TRITONSERVER_ResponseAllocatorDelete(allocator);
    throw e;
  }
}

/**
 * Which native path a server's library runs, and why not where it does not: see
 * {@link Server.info}.
 */
export interface ServerInfo {
  /** The JavaScript runtime. */
  readonly runtime: "deno" | "bun" | "node";
  /** The CPU, as Linux names it (`"x86_64"`, `"aarch64"`, …). */
  readonly arch: string;
  /**
   * How Triton's completions reach JavaScript: `"native"` (native code on Triton's threads pushes
   * them into a ring the JS thread drains; Triton's threads never wait for it) or `"js"` (JS
   * callbacks: each call makes Triton's thread wait for the JS thread; what that costs is in the
   * package's bench/README.md, "Costs the code is shaped by").
   */
  readonly callbacks: "native" | "js";
  /**
   * The native layer in use: `"x86_64"` or `"a64"` (machine code generated at run time, on Deno
   * and Node), `"bun-cc"` (C compiled by Bun's `cc()`), or `"none"` (the JS callbacks).
   */
  readonly nativePath: "x86_64" | "a64" | "bun-cc" | "none";
  /**
   * Why `nativePath` is `"none"`, e.g. `"TRITONFFI_CALLBACKS=js"`, `"the native layer needs
   * Linux"` or the refusal of executable memory; absent when the native path runs.
   */
  readonly fallbackReason?: string;
}

/** How `start()` behaves. */
export interface StartOptions {
  /** Wait until `TRITONSERVER_ServerIsReady` answers true. Default true. */
  readonly waitUntilReady?: boolean;
  /** Milliseconds `start()` may take, creating the server and waiting for readiness included,
   * before it fails UNAVAILABLE. @default 30000 */
  readonly timeoutMs?: number;
  /** Library path, overriding `$TRITONSERVER_LIB` and the search order. */
  readonly libraryPath?: string;
}

/**
 * An in-process Triton Inference Server.
 *
 * Owns its `TRITONSERVER_Server`, its response allocator, its requests in flight and every
 * response not yet released; {@link stop} (also run by `await using`) cancels the requests,
 * releases the responses, then stops and deletes the server and the allocator.
 *
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * console.log(server.ready(), server.modelReady("add_sub")); // true true
 * ```
 * @typeParam M the models' declarations, as `tritonffi types` writes them (`Models`):
 *   `server.model(name)` of a declared model is then typed by its declaration (see
 *   {@link Model}); other names stay untyped. Without it, every model is untyped.
 */
export class Server<M extends ModelDeclarations<M> = Record<never, never>> {
  /** The options it was created with. */
  readonly options: ServerOptions;
  #lib: TritonLibrary | undefined;
  #server: Ptr | undefined;
  #allocator: Ptr | undefined;
  /** The placing allocator (outputs written where a request says: KServe's shared memory),
   * created by the first request that places outputs, deleted with the server. */
  #placingAllocator: Ptr | undefined;
  #state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  /** Its requests in flight and live responses (from `start()` on). */
  #children: ServerChildren | undefined;
  /** Repository operations running off the JS thread; `stop()` waits for them. */
  readonly #operations = new Set<Promise<unknown>>();
  /** Loads running, by model name; an unload of that model waits for them. */
  readonly #loading = new Map<string, Set<Promise<unknown>>>();
  /** What Triton's logger was set to through this server: its `log` options, with the changes of
   * {@link updateLog} since (set at the first {@link logOptions}). */
  #logOptions: LogOptions | undefined;
  /** The state shared with attached workers, from the first {@link share} (the owner). */
  #shared: SharedState | undefined;
  /** This server's uses of a server another thread owns ({@link attach}); undefined in the
   * owner. */
  #attachment: Attachment | undefined;

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
   *   created; UNAVAILABLE when it is not created and ready within `timeoutMs` (counted from the
   *   call: a `TRITONSERVER_ServerNew` still loading models then is left to finish, and the
   *   server it makes is deleted).
   */
  async start(start: StartOptions = {}): Promise<this> {
    if (this.#state !== "new") {
      throw new TritonError("ALREADY_EXISTS", `server is ${this.#state}; start() runs once`);
    }
    expectRecord("start()'s options", start, "{ timeoutMs?, waitUntilReady?, libraryPath? }");
    knownFields("start()'s options", start as Record<string, unknown>, [
      "timeoutMs",
      "waitUntilReady",
      "libraryPath",
    ], {
      timeout: "timeoutMs (milliseconds)",
    });
    optionalBoolean("waitUntilReady", start.waitUntilReady);
    if (start.libraryPath !== undefined) expectString("libraryPath", start.libraryPath);
    const readyMs = duration("timeoutMs", start.timeoutMs, "milliseconds", 30_000);
    this.#state = "starting";
    const deadline = Date.now() + readyMs;
    try {
      const lib = (this.#lib = await loadTriton(start.libraryPath));
      const { api, apiAsync, ffi } = lib;
      const callbacks = lib.binding.callbacks;
      // Made now, so that a TRITONFFI_DELETE_THREAD it does not take is start()'s error rather
      // than one thrown where a response is deleted.
      void lib.binding.nativeDeletes;
      this.#children = new ServerChildren(lib);
      const opts = createServerOptions(lib, this.options);
      const out = new BigUint64Array(1);
      const created = apiAsync.TRITONSERVER_ServerNew(out, opts).then((err) => {
        discard(lib, api.TRITONSERVER_ServerOptionsDelete(opts));
        return err;
      });
      const err = await beforeDeadline(created, deadline, () => {
        // TRITONSERVER_ServerNew loads the startup models and cannot be interrupted: what it
        // creates once it returns is stopped and deleted then, off the JS thread, once its
        // models' backend threads are back from their warm-up (see EXECUTE_GRACE_MS).
        void created.then(async (late) => {
          if (!ffi.isNull(late)) return discard(lib, late);
          const server = ffi.fromAddress(out[0]);
          await new Promise((r) => setTimeout(r, EXECUTE_GRACE_MS));
          return apiAsync.TRITONSERVER_ServerDelete(server).then((e) => discard(lib, e));
        });
        return new TritonError(
          "UNAVAILABLE",
          `server not started within ${readyMs} ms (timeoutMs): TRITONSERVER_ServerNew is ` +
            "still loading its models; the server it makes is deleted once it returns",
        );
      });
      check(lib, err);
      this.#server = ffi.fromAddress(out[0]);
      // Its startup models were just loaded: stopping it waits for their backend threads.
      this.#children.loaded();
      try {
        this.#allocator = createAllocator(lib, callbacks.allocator);
      } catch (e) {
        await this.#children.quiet();
        await this.#deleteServer();
        throw e;
      }
      this.#state = "running";
      if (start.waitUntilReady ?? true) await this.#waitReady(readyMs, deadline);
      return this;
    } catch (e) {
      // The start's own error is the one to report; a stop that times out too says less.
      if (this.#state === "running") await this.stop().catch(() => {});
      this.#state = "stopped";
      throw e;
    }
  }

  async #waitReady(timeout: number, deadline: number): Promise<void> {
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

  /** `TRITONSERVER_ServerIsLive`, false where it fails (UNAVAILABLE "Server exiting" once
   * stopped). */
  #isLive(): boolean {
    const lib = this.#lib!;
    const flag = new Uint8Array(1);
    const err = lib.api.TRITONSERVER_ServerIsLive(this.#server!, flag);
    if (lib.ffi.isNull(err)) return flag[0] !== 0;
    discard(lib, err);
    return false;
  }

  #bool(fn: "TRITONSERVER_ServerIsLive" | "TRITONSERVER_ServerIsReady"): boolean {
    const { lib, server } = this.#running();
    const flag = new Uint8Array(1);
    check(lib, lib.api[fn](server, flag));
    return flag[0] !== 0;
  }

  /** Whether a model is ready (`TRITONSERVER_ServerModelIsReady`). */
  modelReady(name: string, version = -1): boolean {
    checkModelRef(name, version);
    const { lib, server } = this.#running();
    const flag = new Uint8Array(1);
    check(lib, lib.api.TRITONSERVER_ServerModelIsReady(server, name, BigInt(version), flag));
    return flag[0] !== 0;
  }

  /** A handle on a model; nothing is checked until it is used.
   * @param version -1 (default) lets the server choose. */
  model<N extends string>(name: N, version = -1): Model<DeclarationOf<M, N>> {
    return new Model<DeclarationOf<M, N>>(this as Server, name, version);
  }

  /** Number of this server's requests in flight (between `TRITONSERVER_ServerInferAsync` and
   * both their FINAL response and their release). */
  get inflight(): number {
    return this.#children?.requests.size ?? 0;
  }

  /** Number of this server's native responses not yet released (by `dispose()`, garbage
   * collection of everything that reads them, or {@link stop}). */
  get liveResponses(): number {
    return this.#children?.responses.size ?? 0;
  }

  /** @internal What `Model.infer` needs. */
  inferTarget(model: string, version: number): InferTarget {
    const { server } = this.#running();
    this.#attachment?.busy();
    return {
      attached: this.#attachment !== undefined,
      owner: this.#children!,
      server,
      allocator: this.#allocator!,
      placingAllocator: () => this.#placing(),
      model,
      version,
    };
  }

  /** The placing allocator, created on first use.
   * @throws {TritonError} UNAVAILABLE when the server is not running; Triton's error. */
  #placing(): Ptr {
    const { lib } = this.#running();
    this.#placingAllocator ??= createAllocator(lib, lib.binding.callbacks.allocator.placing());
    return this.#placingAllocator;
  }

  /**
   * The repository index (`TRITONSERVER_ServerModelIndex`): every model of the server's
   * repositories, `{ name, version?, state?, reason? }`; `version`/`state` are absent for a model
   * Triton never tried to load. After an unload the state is `"UNAVAILABLE"`, reason
   * `"unloaded"`.
   * @param options.readyOnly only the models ready for inference (`TRITONSERVER_INDEX_FLAG_READY`).
   * @throws {TritonError} UNAVAILABLE when the server is not running; Triton's error.
   */
  models(options: { readonly readyOnly?: boolean } = {}): ModelIndexEntry[] {
    expectRecord("models()'s options", options, "{ readyOnly? }");
    const readyOnly = optionalBoolean("readyOnly", options.readyOnly) ?? false;
    const { lib, server } = this.#running();
    return modelIndex(lib, server, readyOnly);
  }

  /**
   * Loads (or reloads) a model and resolves with a handle on it, once loaded
   * (`TRITONSERVER_ServerLoadModelWithParameters`, off the JS thread). Needs
   * `modelControlMode: "explicit"`.
   * @param options.config a configuration (Triton's JSON form) to use instead of config.pbtxt:
   *   the whole of it, as nothing of config.pbtxt is merged (the example starts from the one in
   *   force).
   * @param options.files model files by relative path (`"1/model.py"`), passed in memory as
   *   `file:<path>` BYTES parameters; needs `config`.
   * @throws {TritonError} INVALID_ARG for bad options (before any C call); Triton's load error
   *   (INTERNAL "failed to poll from model repository" for a configuration Triton refuses, with
   *   what the binding can tell of why: Triton puts its reason in its log only).
   * @example
   * ```ts
   * import { Server } from "tritonffi";
   *
   * await using server = await new Server({
   *   modelRepository: "./models",
   *   modelControlMode: "explicit",
   *   startupModels: ["identity_int32"],
   * }).start();
   * const config = server.model("identity_int32").config();
   * const model = await server.loadModel("identity_int32", {
   *   config: { ...config, max_batch_size: 4 },
   * });
   * console.log(model.config().max_batch_size); // 4
   * ```
   */
  async loadModel<N extends string>(
    name: N,
    options: LoadModelOptions = {},
  ): Promise<Model<DeclarationOf<M, N>>> {
    const { lib, server } = this.#running();
    await this.#trackLoad(name, loadModel(lib, server, name, options));
    return new Model<DeclarationOf<M, N>>(this as Server, name);
  }

  /**
   * Unloads a model (`TRITONSERVER_ServerUnloadModel`, or `…UnloadModelAndDependents` with
   * `unloadDependents`, off the JS thread). Triton returns before in-flight requests finish;
   * `waitUntilUnloaded` waits until the index no longer shows the model READY or UNLOADING.
   * A {@link loadModel} of the same model still running is waited for first, and the call is
   * made once this server's last response, request release and model load are 100 ms old (the
   * real core can crash when a model is torn down while its backend thread returns from its
   * last execute, initialization or warm-up; see docs/api.md, "Requests, streaming and
   * cancellation").
   * @throws {TritonError} Triton's error; UNAVAILABLE when the wait times out (`timeout`, ms).
   */
  unloadModel(name: string, options: UnloadModelOptions = {}): Promise<void> {
    const { lib, server } = this.#running();
    const children = this.#children!;
    const loads = [...(this.#loading.get(name) ?? [])];
    // After the model's loads and the last request's backend call (see EXECUTE_GRACE_MS).
    return this.#track(
      Promise.allSettled(loads)
        .then(() => children.quiet())
        .then(() => unloadModel(lib, server, name, options)),
    );
  }

  /**
   * Adds a model repository (`TRITONSERVER_ServerRegisterModelRepository`, off the JS thread);
   * its models load with {@link loadModel}. Needs `modelControlMode: "explicit"`.
   * @param nameMapping directory in `path` → the model name to serve it as.
   * @throws {TritonError} INVALID_ARG for a bad mapping (before any C call); Triton's error.
   */
  registerModelRepository(
    path: string,
    nameMapping: Readonly<Record<string, string>> = {},
  ): Promise<void> {
    const { lib, server } = this.#running();
    return this.#track(registerModelRepository(lib, server, path, nameMapping));
  }

  /** Removes a repository added by {@link registerModelRepository}
   * (`TRITONSERVER_ServerUnregisterModelRepository`, off the JS thread).
   * @throws {TritonError} Triton's error. */
  unregisterModelRepository(path: string): Promise<void> {
    const { lib, server } = this.#running();
    return this.#track(unregisterModelRepository(lib, server, path));
  }

  /** Rescans the repositories and loads, reloads or unloads models to match
   * (`TRITONSERVER_ServerPollModelRepository`, off the JS thread). Needs
   * `modelControlMode: "poll"`.
   * @throws {TritonError} Triton's error (UNAVAILABLE when polling is not enabled). */
  pollModelRepository(): Promise<void> {
    const { lib, server } = this.#running();
    return this.#trackLoad(undefined, pollModelRepository(lib, server));
  }

  /** {@link #track} for an operation that loads models (of `name`; any, when undefined): its
   * end counts as a load for the next wait before an unload or the stop
   * ({@link ServerChildren.loaded}). */
  #trackLoad<T>(name: string | undefined, operation: Promise<T>): Promise<T> {
    const children = this.#children!;
    const loads = name === undefined ? undefined : this.#loading.get(name) ?? new Set();
    if (name !== undefined) this.#loading.set(name, loads!);
    const done = () => {
      children.loaded();
      if (loads === undefined) return;
      loads.delete(operation);
      if (loads.size === 0 && this.#loading.get(name!) === loads) this.#loading.delete(name!);
    };
    loads?.add(operation);
    operation.then(done, done);
    return this.#track(operation);
  }

  #track<T>(operation: Promise<T>): Promise<T> {
    this.#attachment?.during(operation);
    this.#operations.add(operation);
    const done = () => this.#operations.delete(operation);
    operation.then(done, done);
    return operation;
  }

  /** Server metadata: `{ name, version, extensions }` (`TRITONSERVER_ServerMetadata`).
   * @throws {TritonError} UNAVAILABLE when the server is not running; Triton's error. */
  metadata(): ServerMetadata {
    const { lib, server } = this.#running();
    return serverMetadata(lib, server);
  }

  /** Statistics of every ready model version (`TRITONSERVER_ServerModelStatistics` with no
   * model name); see {@link ModelStatistics}. One model's: `server.model(name).statistics()`.
   * @throws {TritonError} UNSUPPORTED on a core built without statistics; Triton's error. */
  statistics(): ModelStatistics[] {
    const { lib, server } = this.#running();
    return modelStatistics(lib, server, "", -1);
  }

  /** Every metric (Triton's and custom ones) as Prometheus text (`TRITONSERVER_ServerMetrics`,
   * `TRITONSERVER_MetricsFormatted`), e.g. lines `nv_inference_request_success{model="m",version="1"} 3`.
   * @throws {TritonError} UNSUPPORTED on a core built without metrics; Triton's error. */
  metrics(): string {
    const { lib, server } = this.#running();
    return prometheusText(lib, server);
  }

  /**
   * Creates a custom metric family (`TRITONSERVER_MetricFamilyNew`); its metrics appear in
   * {@link metrics}. The caller disposes it (which deletes its metrics first).
   * @throws {TritonError} INVALID_ARG for a bad kind, name or buckets (before any C call);
   *   UNSUPPORTED on a core built without metrics.
   */
  metricFamily(options: MetricFamilyOptions): MetricFamily {
    const { lib } = this.#running();
    return new NativeMetricFamily(lib, options);
  }

  /**
   * Writes to Triton's log (`TRITONSERVER_LogMessage`) when `level` is enabled
   * (`TRITONSERVER_LogIsEnabled`), attributed to `file`:`line` (default `"tritonffi"`:0).
   * @returns whether the message was written.
   * @throws {TritonError} INVALID_ARG for an unknown level or bad line; Triton's error.
   */
  log(level: LogLevelName, message: string, file?: string, line?: number): boolean {
    const { lib } = this.#running();
    return logMessage(lib, level, message, file, line);
  }

  /** Whether Triton logs messages of `level` (`TRITONSERVER_LogIsEnabled`; `"verbose"`: verbose
   * level >= 1). Logging is process-wide: the last server started configured it.
   * @throws {TritonError} INVALID_ARG for an unknown level. */
  logEnabled(level: LogLevelName): boolean {
    const { lib } = this.#running();
    return logEnabled(lib, level);
  }

  /** @internal The log options in force as this server set them: its `log` options, with the
   * changes of {@link updateLog} since (what KServe's logging extension answers).
   * @throws {TritonError} UNAVAILABLE when the server is not running. */
  logOptions(): LogOptions {
    this.#running();
    return this.#logOptions ??= { ...this.options.log };
  }

  /** @internal Changes Triton's logger while the server runs (`TRITONSERVER_ServerOptionsSetLog*`
   * take effect at once; Triton's logger is process-wide) and records the change.
   * @returns the log options in force after.
   * @throws {TritonError} INVALID_ARG for a bad option; Triton's error; UNAVAILABLE when the
   *   server is not running. */
  updateLog(change: LogOptions): LogOptions {
    const { lib } = this.#running();
    const before = this.logOptions();
    applyLogUpdate(lib, change);
    const changed = Object.entries(change).filter(([, value]) => value !== undefined);
    return this.#logOptions = { ...before, ...Object.fromEntries(changed) };
  }

  /**
   * Which native path this server's library runs and, when it fell back to JS callbacks, why
   * (chosen once per loaded library, at its first server's start; `TRITONFFI_CALLBACKS=js`
   * forces the JS path). Makes no C call.
   * @example
   * ```ts
   * import { Server } from "tritonffi";
   *
   * await using server = await new Server({ modelRepository: "./models" }).start();
   * const { callbacks, nativePath, fallbackReason } = server.info();
   * console.log(callbacks, nativePath, fallbackReason ?? ""); // native x86_64 (on x86-64 Linux)
   * ```
   * @throws {TritonError} UNAVAILABLE when the server is not running.
   */
  info(): ServerInfo {
    const { lib } = this.#running();
    const { mode, nativePath } = lib.binding.callbacks;
    const info: ServerInfo = {
      runtime: lib.ffi.name,
      arch: nativePath.arch,
      callbacks: mode,
      nativePath: nativePath.kind,
    };
    return nativePath.reason === undefined ? info : { ...info, fallbackReason: nativePath.reason };
  }

  /** @internal The library and `TRITONSERVER_Server*` (for `Model`'s metadata calls).
   * @throws {TritonError} UNAVAILABLE when the server is not running. */
  native(): { lib: TritonLibrary; server: Ptr } {
    return this.#running();
  }

  #running(): { lib: TritonLibrary; server: Ptr } {
    if (this.#state !== "running") {
      throw new TritonError(
        "UNAVAILABLE",
        `server is ${this.#state === "new" ? "not started" : this.#state}`,
      );
    }
    // An attached server: a use of the shared server for this turn's calls (the owner does not
    // delete it meanwhile), refused once the owner is stopping.
    this.#attachment?.enter("the server");
    return { lib: this.#lib!, server: this.#server! };
  }

  /**
   * A handle on this running server for worker threads (Deno and Bun `Worker`,
   * `node:worker_threads`): a plain object to post to a worker, where {@link Server.attach} makes
   * a server of it that runs on the same `TRITONSERVER_Server` — the same loaded models, each
   * worker with its own callbacks, completion ring and allocator. Its `state` is a
   * `SharedArrayBuffer`: attached workers count their uses there, and {@link stop} waits for
   * them (their streams end `UNAVAILABLE`) before it deletes the server. Makes no C call; every
   * call returns a handle on the same shared state.
   * @example
   * ```ts
   * import { Server } from "tritonffi";
   *
   * await using server = await new Server({ modelRepository: "./models" }).start();
   * const handle = server.share();
   * console.log(handle.kind, handle.state instanceof SharedArrayBuffer); // tritonffi.SharedServer true
   * // new Worker(url, { type: "module" }).postMessage(handle); in the worker:
   * // await using shared = await Server.attach(handle);
   * ```
   * @throws {TritonError} UNAVAILABLE when the server is not running.
   */
  share(): SharedServerHandle {
    const { lib, server } = this.#running();
    let state = this.#attachment?.state ?? this.#shared;
    if (state === undefined) {
      state = this.#shared = new SharedState();
      // From now on unloads and the stop wait for the workers' callbacks too (EXECUTE_GRACE_MS).
      this.#children!.shareCallbacks(state);
    }
    return {
      kind: HANDLE_KIND,
      library: lib.path,
      server: lib.ffi.address(server),
      options: this.options,
      state: state.buffer,
    };
  }

  /**
   * Attaches to a server another thread started and shared ({@link share}): the server it
   * returns calls the same `TRITONSERVER_Server` — `model(name).infer()`, `inferOne`, streams,
   * cancellation, metadata, statistics, model loading (seen by every thread) — with this
   * thread's own callbacks, completion ring and response allocator. Its {@link stop} (or
   * `await using`) detaches: it ends this thread's streams `UNAVAILABLE`, waits until Triton
   * released their requests and deletes this thread's responses, and leaves Triton running. When
   * the owner stops, this server's streams end `UNAVAILABLE` and every later call throws
   * UNAVAILABLE. Stop it before the worker ends: a worker that ends (or is terminated) holding
   * requests or responses keeps the owner's `stop()` waiting for them, until its exit timeout,
   * after which the owner leaves the server undeleted (see docs/api.md, "Workers").
   * @param handle what `share()` returned, posted to this thread.
   * @param options `allowBunWorkers`: attach on Bun anyway (see {@link AttachOptions}).
   * @throws {TritonError} INVALID_ARG for anything but such a handle, or bad options;
   *   UNSUPPORTED on Bun without `allowBunWorkers`; UNAVAILABLE when the
   *   owner is stopping or stopped; UNSUPPORTED where this thread would run JS callbacks
   *   (`TRITONFFI_CALLBACKS=js`, or no native path: `info().fallbackReason`), which Triton's
   *   threads could call after this thread ended; Triton's error creating the allocator.
   * @throws {LibraryLoadError} when this thread cannot load the library.
   */
  static async attach<M extends ModelDeclarations<M> = Record<never, never>>(
    handle: SharedServerHandle,
    options: AttachOptions = {},
  ): Promise<Server<M>> {
    const h = checkHandle(handle);
    checkAttachRuntime(options);
    const state = new SharedState(h.state);
    if (state.stopping) throw ownerStopping("Server.attach()");
    const lib = await loadTriton(h.library);
    const callbacks = lib.binding.callbacks;
    if (callbacks.mode !== "native") {
      throw new TritonError(
        "UNSUPPORTED",
        "Server.attach() needs the native callbacks (Triton's threads could otherwise call a JS " +
          "callback of a thread that has ended, which crashes the process); here the binding " +
          `runs JS callbacks: ${callbacks.fallbackReason ?? "unknown reason"}`,
      );
    }
    void lib.binding.nativeDeletes;
    const attachment = new Attachment(state);
    attachment.enter("Server.attach()");
    const server = new Server<M>(h.options);
    const children = new ServerChildren(lib, {
      idle: () => attachment.maybeIdle(),
      table: state,
      callbacks: state,
    });
    server.#lib = lib;
    server.#server = lib.ffi.fromAddress(h.server);
    server.#children = children;
    server.#attachment = attachment;
    server.#allocator = createAllocator(lib, callbacks.allocator);
    attachment.watch({
      busy: () => children.busy,
      drain: () => server.#drainDeletes(),
      close: () => server.#closeAttached(),
    });
    state.attach();
    server.#state = "running";
    return server;
  }

  /** Whether this server is attached to one another thread owns ({@link attach}). */
  get attached(): boolean {
    return this.#attachment !== undefined;
  }

  /** How many attached servers (in workers) use this one now: attached and not yet stopped. 0
   * before {@link share}. */
  get attachments(): number {
    return (this.#attachment?.state ?? this.#shared)?.attached ?? 0;
  }

  async #drainDeletes(): Promise<void> {
    const lib = this.#lib!;
    lib.binding.deletes.flush();
    await lib.binding.nativeDeletes.drain();
  }

  /** An attached server's work ends: its streams end UNAVAILABLE and their requests are
   * cancelled; once Triton released them, its responses are deleted. Its use of the shared
   * server is kept (the owner waits) while a request is still in flight after the exit timeout. */
  async #closeAttached(): Promise<void> {
    const children = this.#children!;
    const pending = [...children.requests];
    const error = this.#attachment!.state.stopping
      ? ownerStopping("the stream")
      : new TritonError("UNAVAILABLE", "server is stopping");
    for (const r of pending) r.abort(error);
    const timeoutMs = exitTimeoutSecs(this.options) * 1000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(pending.map((r) => r.finished)),
      new Promise((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
    await Promise.allSettled([...this.#operations]);
    if (children.requests.size > 0) {
      // Triton still has requests of this thread, whose callbacks push into this thread's ring:
      // the owner must not delete the server under them.
      throw new TritonError(
        "INTERNAL",
        `${children.requests.size} request(s) not released by Triton within exitTimeoutSecs: ` +
          "the owner's stop() waits for them",
      );
    }
    await this.#drainDeletes();
    children.close();
    await this.#drainDeletes();
  }

  /**
   * Stops the server, closing what it owns first: ends every stream still in flight with
   * `UNAVAILABLE` and cancels its request (`TRITONSERVER_InferenceRequestCancel`), waits (up to
   * the exit timeout) for Triton to finish them, releases every response still held
   * (`TRITONSERVER_InferenceResponseDelete`: a kept response never makes the stop wait; what was
   * read from it stays readable, its output views are detached), then stops and deletes the
   * server (`TRITONSERVER_ServerStop`, `TRITONSERVER_ServerDelete`, both off the JS thread) and
   * its response allocators. Safe to call twice. Where the server was shared ({@link share}),
   * attached workers take no new work from the start of the stop; they end their streams
   * `UNAVAILABLE`, and the stop waits (up to the exit timeout) until they released everything of
   * the server before Triton's stop and delete; requests of a worker that has not within 100 ms
   * (one that ended or was terminated) are cancelled. An attached server's `stop()` detaches it
   * (see {@link attach}). Before `TRITONSERVER_ServerStop` it also waits for this server's
   * repository operations still running, then until 100 ms have passed with no response
   * delivered, no request released and no model load ended (the startup loads included): the
   * real core can crash when a model is torn down while its backend thread is still returning
   * from one of those (at once when the server has been idle that long).
   * @throws {TritonError} INTERNAL when the exit timeout expired before Triton finished (an
   *   inference still running, a model still unloading): the server is then stopped but left
   *   undeleted, as deleting it under its model threads would crash the process; Triton's error
   *   from `TRITONSERVER_ServerDelete`.
   */
  async stop(): Promise<void> {
    if (this.#state !== "running") return;
    this.#state = "stopping";
    if (this.#attachment) return await this.#detach();
    const shared = this.#shared;
    shared?.stop(); // attached workers take no new use from now on
    const lib = this.#lib!;
    const children = this.#children!;
    const pending = [...children.requests];
    const stopping = new TritonError("UNAVAILABLE", "server is stopping");
    for (const r of pending) r.abort(stopping);
    const timeoutMs = exitTimeoutSecs(this.options) * 1000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = Date.now() + timeoutMs;
    await Promise.race([
      Promise.all(pending.map((r) => r.finished)),
      new Promise((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
    // Attached workers end their streams and give their uses back (see shared_server.ts).
    // A worker that ended or was terminated cannot: its requests recorded are cancelled here.
    const workersDone = shared === undefined || await shared.drained(deadline, (address) => {
      discard(lib, lib.api.TRITONSERVER_InferenceRequestCancel(lib.ffi.fromAddress(address)));
    });
    // Loads and unloads run on other threads and use the server: let them finish first.
    await Promise.allSettled([...this.#operations]);
    lib.binding.deletes.flush();
    children.releaseResponses();
    // What was released before is deleted before Triton stops (a live response holds its model).
    await lib.binding.nativeDeletes.drain();
    if (!workersDone) {
      // A worker still holds requests or responses of this server (one that ended without
      // stopping its attached server, or whose requests Triton has not released): deleting the
      // server under them could crash the process. It is left as after an expired exit timeout.
      this.#server = undefined;
      this.#allocator = undefined;
      this.#placingAllocator = undefined;
      this.#state = "stopped";
      throw new TritonError(
        "INTERNAL",
        `attached workers still held ${shared!.uses} use(s) of the server after ` +
          "exitTimeoutSecs (a worker that ended, or was terminated, without stopping its " +
          "attached server, or requests Triton had not released): the server was not stopped " +
          "or deleted; it is freed when the process exits",
      );
    }
    // A server stopped outside this object (TRITONSERVER_ServerStop on its native() handle) is
    // no longer live, and Triton's Stop then returns at once, whether or not its models have
    // finished unloading: nothing in the C API can tell, and deleting it under an unload crashes
    // the process. It is left as after an expired exit timeout.
    const stoppedOutside = !this.#isLive();
    // See EXECUTE_GRACE_MS: after the last callback and the last model load (the startup
    // loads included); once shared, after the workers' too.
    if (!stoppedOutside) await children.quiet();
    const stopErr = stoppedOutside
      ? lib.ffi.NULL
      : await lib.apiAsync.TRITONSERVER_ServerStop(this.#server!);
    lib.binding.deletes.flush();
    // Nothing of this server is deleted after TRITONSERVER_ServerDelete: nothing is queued or in
    // flight past here, nothing below awaits before close(), and close() releases at once and
    // stops anything more from being queued.
    await lib.binding.nativeDeletes.drain();
    if (stoppedOutside || !lib.ffi.isNull(stopErr)) {
      // The exit timeout expired with inferences still running or models still unloading on
      // Triton's threads. TRITONSERVER_ServerDelete would free what they use (the real core
      // crashes), so the server and its allocator are left to the process; its children stay
      // open, so that what Triton still sends and releases is deleted as it comes.
      this.#server = undefined;
      this.#allocator = undefined;
      this.#placingAllocator = undefined;
      this.#state = "stopped";
      if (stoppedOutside) {
        throw new TritonError(
          "INTERNAL",
          "the server was stopped outside this Server (TRITONSERVER_ServerStop on its native " +
            "handle): whether its models finished unloading cannot be known, so it was not " +
            "deleted; it is freed when the process exits",
        );
      }
      const error = errorFromPtr(lib, stopErr, true);
      throw new TritonError(
        error.code,
        `${error.message} (the server was stopped but not deleted: its models had not finished ` +
          `within exitTimeoutSecs; it is freed when the process exits)`,
      );
    }
    children.close();
    await this.#deleteServer();
    shared?.deleted();
    if (this.#allocator) {
      check(lib, lib.api.TRITONSERVER_ResponseAllocatorDelete(this.#allocator));
      this.#allocator = undefined;
    }
    if (this.#placingAllocator) {
      check(lib, lib.api.TRITONSERVER_ResponseAllocatorDelete(this.#placingAllocator));
      this.#placingAllocator = undefined;
    }
    this.#state = "stopped";
  }

  /** An attached server's {@link stop}: its work ends, Triton stays. */
  async #detach(): Promise<void> {
    const lib = this.#lib!;
    try {
      await this.#attachment!.detach();
    } finally {
      this.#server = undefined;
      this.#state = "stopped";
    }
    if (this.#allocator) {
      check(lib, lib.api.TRITONSERVER_ResponseAllocatorDelete(this.#allocator));
      this.#allocator = undefined;
    }
    if (this.#placingAllocator) {
      check(lib, lib.api.TRITONSERVER_ResponseAllocatorDelete(this.#placingAllocator));
      this.#placingAllocator = undefined;
    }
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

/** `work`'s value, or the error `late()` makes if `work` has not settled by `deadline` (a
 * `Date.now()` time). */
async function beforeDeadline<T>(
  work: Promise<T>,
  deadline: number,
  late: () => Error,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
