/**
 * `ServerChildren`: every native object a server owns besides itself — its requests in flight
 * and the responses not yet deleted — so that the server can close them all before it stops, as
 * a database closes its statements before it closes.
 *
 * Responses are known by their {@link NativeResponse} handles, never by the `InferResponse`
 * objects users hold: a response nobody references is garbage-collected, and this set does not
 * keep it alive.
 *
 * @module
 */
import type { Binding, Ptr, TritonLibrary } from "../ffi/mod.ts";
import { NativeResponse, type ResponseOwner } from "./native_response.ts";

/**
 * How many native responses a server keeps at once before it reads further ones into JS memory
 * on arrival (see {@link ServerChildren.overBudget}).
 */
export const HELD_RESPONSES_BUDGET = 256;

/** How many bytes of output buffers viewed in place a server keeps at once before it reads
 * further responses into JS memory on arrival: 64 MiB. */
export const VIEWED_BYTES_BUDGET = 64 * 2 ** 20;

/**
 * How long after Triton last called back for one of its requests (a response, a release), or
 * last finished loading a model, the server waits before a call that may unload a model
 * (`TRITONSERVER_ServerStop`, `…UnloadModel`): 100 ms. Triton delivers a request's responses and
 * release from inside its backend's execute, and a load returns once each instance's backend
 * thread has run its initialization and warm-up; the backend thread is still returning from that
 * call for a moment after. When the model's instances are torn down then, the core's teardown
 * (`TritonBackendThread::StopBackendThread`, on another thread) reads the backend thread's
 * instance list while it is empty and crashes the process — which a loaded machine, descheduling
 * the backend thread, makes happen (on the real core, unloading a model with two instances right
 * after its load did so within a few hundred loads). The wait lets it return first. It narrows
 * that window; only the core can close it.
 */
export const EXECUTE_GRACE_MS = 100;

/** Where an attached server records its requests in flight (`SharedState` of
 * `shared_server.ts`). */
export interface RequestTable {
  record(address: number): number;
  erase(slot: number, address: number): void;
}

/** The count of responses delivered and requests released that every thread sharing a server
 * adds to (`SharedState` of `shared_server.ts`), so that {@link ServerChildren.quiet} waits for
 * the other threads' callbacks too. */
export interface CallbackCount {
  bump(): void;
  count(): number;
}

/** A request in flight, as the server sees it. */
export interface OwnedRequest {
  /** Ends the request's stream with `error` and cancels it in Triton. */
  abort(error: Error): void;
  /** Resolves once Triton has sent FINAL and released the request. */
  readonly finished: Promise<void>;
}

/** See the module documentation. */
export class ServerChildren implements ResponseOwner {
  readonly lib: TritonLibrary;
  readonly binding: Binding;
  /** Requests between `TRITONSERVER_ServerInferAsync` and their FINAL and release. */
  readonly requests: Set<OwnedRequest> = new Set();
  /** Responses not yet deleted. */
  readonly responses: Set<NativeResponse> = new Set();
  /** Bytes of output buffers viewed in place by its live responses. */
  #viewedBytes = 0;
  readonly #registry = new FinalizationRegistry<NativeResponse>((r) => r.collected());
  #closed = false;
  /** How many times Triton delivered a response or released a request (a count, not a time: the
   * hot path only adds one). */
  #callbacks = 0;
  /** {@link #callbacks} when a {@link quiet} wait last ended. */
  #quietAt = 0;
  /** When a model load of this server last ended (`performance.now()`): see {@link loaded}. */
  #loadedAt = -Infinity;

  /** Told when the last request in flight or response held went away (an attached server's
   * use of the shared server ends then: `shared_server.ts`). */
  readonly #idle: (() => void) | undefined;
  /** Where an attached server records its requests for the owner to cancel. */
  readonly #table: RequestTable | undefined;
  /** The count shared with the other threads, once the server is shared. */
  #shared: CallbackCount | undefined;

  constructor(
    lib: TritonLibrary,
    attached?: { idle(): void; table: RequestTable; callbacks: CallbackCount },
  ) {
    this.lib = lib;
    this.binding = lib.binding;
    this.#idle = attached && (() => attached.idle());
    this.#table = attached?.table;
    this.#shared = attached?.callbacks;
  }

  /** The server is shared from now on: its callbacks count in `count`, and {@link quiet} waits
   * for every thread's. */
  shareCallbacks(count: CallbackCount): void {
    this.#shared = count;
  }

  /** Callbacks so far: every thread's once shared, else this server's. */
  #count(): number {
    return this.#shared ? this.#shared.count() : this.#callbacks;
  }

  /** Records a request Triton took (an attached server's, for its owner to cancel): its slot,
   * -1 when not recorded. */
  record(request: Ptr): number {
    return this.#table ? this.#table.record(this.lib.ffi.address(request)) : -1;
  }

  /** The request recorded at `slot` is about to be deleted (waits while the owner cancels it). */
  erase(slot: number, request: Ptr): void {
    if (slot >= 0) this.#table!.erase(slot, this.lib.ffi.address(request));
  }

  /** Whether a request is in flight or a response not yet deleted. */
  get busy(): boolean {
    return this.requests.size > 0 || this.responses.size > 0;
  }

  #maybeIdle(): void {
    if (this.#idle !== undefined && !this.busy) this.#idle();
  }

  /** Whether {@link close} ran: nothing native of this server may be touched any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Whether the responses still held are past the budget ({@link HELD_RESPONSES_BUDGET} native
   * responses, or {@link VIEWED_BYTES_BUDGET} of outputs viewed in place). A response that
   * arrives then is read into JS memory at once and its native object released: the memory of
   * responses nobody disposes is then JS memory, which the garbage collector sees and bounds,
   * and the native memory is bounded by the budget, whatever the user keeps.
   */
  get overBudget(): boolean {
    return this.responses.size > HELD_RESPONSES_BUDGET || this.#viewedBytes > VIEWED_BYTES_BUDGET;
  }

  /** Counts a request in flight (between `TRITONSERVER_ServerInferAsync` and its release). */
  started(request: OwnedRequest): void {
    this.requests.add(request);
  }

  /** A request is no longer in flight: Triton released it, or never took it. */
  finished(request: OwnedRequest): void {
    if (this.requests.delete(request)) {
      this.#callbacks++;
      this.#shared?.bump();
    }
    this.#maybeIdle();
  }

  /** A model load ended (the startup loads of `TRITONSERVER_ServerNew`, a load, a repository
   * poll), successfully or not: the next {@link quiet} waits until {@link EXECUTE_GRACE_MS} have
   * passed since (a server shared with workers: a grace from every thread's next wait). */
  loaded(): void {
    this.#loadedAt = performance.now();
    this.#shared?.bump();
  }

  /** Resolves once {@link EXECUTE_GRACE_MS} have passed with no response delivered and no
   * request released, waiting again while more come, for at most ten times that (a stream that
   * goes on sending ends the wait), and at once when none came since the last wait ended; and
   * once that grace has passed since the last model load ended (at once when it has): call it
   * before a Triton call that may unload a model. */
  async quiet(): Promise<void> {
    if (this.#count() !== this.#quietAt) {
      for (let i = 0; i < 10; i++) {
        const before = this.#count();
        await sleep(EXECUTE_GRACE_MS);
        if (this.#count() === before) break;
      }
      this.#quietAt = this.#count();
    }
    for (let i = 0; i < 10; i++) {
      const left = EXECUTE_GRACE_MS - (performance.now() - this.#loadedAt);
      if (left <= 0) break;
      await sleep(left);
    }
  }

  /** Takes ownership of a response Triton delivered. */
  adopt(pointer: Ptr): NativeResponse {
    this.#callbacks++;
    this.#shared?.bump();
    const response = new NativeResponse(this, pointer);
    this.responses.add(response);
    return response;
  }

  /** Deletes a response Triton delivered for a request whose consumer is gone. */
  drop(pointer: Ptr): void {
    this.#callbacks++;
    this.#shared?.bump();
    if (!this.#closed) this.lib.binding.nativeDeletes.response(pointer);
  }

  hold(holder: object, response: NativeResponse): void {
    this.#registry.register(holder, response, response);
  }

  /** Bytes of output buffers viewed in place by its live responses. */
  get viewedBytes(): number {
    return this.#viewedBytes;
  }

  viewing(bytes: number): void {
    this.#viewedBytes += bytes;
  }

  released(response: NativeResponse): void {
    this.responses.delete(response);
    this.#registry.unregister(response);
    this.#maybeIdle();
  }

  /** Deletes every response still owned, here and now (what users kept becomes unreadable:
   * views detached). */
  releaseResponses(): void {
    for (const response of [...this.responses]) response.release(true);
  }

  /**
   * Marks everything released: from now on nothing of this server is deleted (a late
   * completion, a `dispose()` after stop, a collected holder), since the server is about to be
   * deleted. Responses still owned are released first.
   */
  close(): void {
    this.releaseResponses();
    this.#closed = true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
