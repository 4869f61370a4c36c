/**
 * Requests in flight: the table that routes each drained completion to its request by `userp`,
 * and the per-request state an async generator consumes.
 *
 * A request's state lives until both its FINAL response and its release have arrived, whichever
 * comes last; then its id is freed and its inputs may be collected.
 *
 * @module
 */
import { type CallbackTable, callbackTable } from "../ffi/callbacks.ts";
import { CompletionKind, type CompletionKindValue } from "../ffi/completion_ring.ts";
import { ResponseCompleteFlag } from "../ffi/enums.ts";
import * as keepalive from "../ffi/keepalive.ts";
import type { TritonLibrary } from "../ffi/loader.ts";
import type { Ptr } from "../ffi/types.ts";
import { deleteLater } from "./deferred_delete.ts";
import { discard, TritonError } from "./errors.ts";
import { CudaMemcpyKind } from "../ffi/cuda.ts";
import { type DeviceToHost, type InferResponse, readResponseFrom } from "./response.ts";

/**
 * Whether a server's objects may still be deleted: false from just before
 * `TRITONSERVER_ServerDelete`. A request or response deleted after that would touch a server that
 * is gone (a `FinalizationRegistry` callback, a dispose() after stop()): it is left alone instead.
 */
export interface ServerLife {
  readonly alive: boolean;
}

/** One request between `TRITONSERVER_ServerInferAsync` and its last completion. */
export class InflightRequest {
  /** The integer passed to Triton as `userp`. */
  readonly id: number;
  /** The owning server's set of requests (to cancel them on stop). */
  readonly owner: Set<InflightRequest>;
  /** Whether the owning server still exists. */
  readonly life: ServerLife;
  /** `TRITONSERVER_InferenceRequest*`, deleted once Triton has released it and FINAL has arrived
   * (until then it can be cancelled). */
  request: Ptr;
  /** JS memory Triton reads from until release (input data). */
  keep: unknown[];
  /** Whether FINAL arrived. */
  final = false;
  /** Whether Triton released the request. */
  released = false;
  /** Whether the consumer left; later responses are deleted unread. */
  abandoned = false;
  /** A user queue that also receives each response. */
  readonly queue: { push(response: InferResponse): unknown } | undefined;
  /** Called when a response or the end becomes available (set by the stream). */
  onReady: (() => void) | undefined;
  #items: InferResponse[] = [];
  #ended = false;
  #endError: TritonError | undefined;
  #finished = false;
  #done: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    id: number,
    request: Ptr,
    keep: unknown[],
    owner: Set<InflightRequest>,
    life: ServerLife,
    queue?: { push(response: InferResponse): unknown },
  ) {
    this.id = id;
    this.life = life;
    this.queue = queue;
    this.request = request;
    this.keep = keep;
    this.owner = owner;
  }

  /** Resolves once FINAL and release have both arrived. */
  get finished(): Promise<void> {
    if (this.#finished) return Promise.resolve();
    if (!this.#done) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#done = { promise, resolve };
    }
    return this.#done.promise;
  }

  /** Whether the stream has ended (FINAL, or {@link fail}); responses may still be queued. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The error the stream ended with, if any. */
  get endError(): TritonError | undefined {
    return this.#endError;
  }

  /** The oldest response not yet taken, if any. */
  take(): InferResponse | undefined {
    return this.#items.length === 0 ? undefined : this.#items.shift();
  }

  /** Queues a response for the consumer (and the user queue). */
  deliver(response: InferResponse): void {
    this.queue?.push(response);
    this.#items.push(response);
    this.onReady?.();
  }

  /** Ends the stream (after the responses queued so far). */
  end(error?: TritonError): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endError = error;
    this.onReady?.();
  }

  /** Ends the stream now with `error`; whatever is queued or still arrives is dropped. */
  fail(error: TritonError): void {
    if (!this.queue) { for (const item of this.#items) item.dispose(); }
    this.#items = [];
    this.#ended = true;
    this.#endError = error;
    this.abandoned = true;
    this.onReady?.();
  }

  /** Marks the state complete. */
  finish(): void {
    this.#finished = true;
    this.#done?.resolve();
  }
}

/** Routes completions to requests. One per process (the callback table is process-wide). */
export class InflightTable {
  readonly lib: TritonLibrary;
  readonly callbacks: CallbackTable;
  #byId = new Map<number, InflightRequest>();
  #deviceToHost: DeviceToHost = (pointer, byteSize, deviceId) => {
    const cuda = this.callbacks.cuda();
    if (!cuda) throw new TritonError("UNAVAILABLE", "no CUDA runtime is loaded");
    const out = new Uint8Array(byteSize);
    let rc = cuda.api.cudaSetDevice(deviceId);
    if (rc === 0 && byteSize > 0) {
      rc = cuda.api.cudaMemcpy(
        this.lib.ffi.addressOf(out),
        pointer,
        byteSize,
        CudaMemcpyKind.DeviceToHost,
      );
    }
    if (rc !== 0) {
      throw new TritonError(
        "INTERNAL",
        `cudaMemcpy to host failed: ${cuda.api.cudaGetErrorString(rc)}`,
      );
    }
    return out;
  };
  /** `userp` pointers by id; id 0 is never handed out (it would be NULL). */
  readonly #userps: Ptr[];
  /** Ids not in use; reused first. */
  readonly #freeIds: number[] = [];
  readonly #deleteRequest = (state: InflightRequest) => {
    if (state.life.alive) this.lib.api.TRITONSERVER_InferenceRequestDelete(state.request);
  };
  /** What every response read through this table shares. */
  readonly #source: { lib: TritonLibrary; deviceToHost: DeviceToHost };

  constructor(lib: TritonLibrary) {
    this.lib = lib;
    this.#source = { lib, deviceToHost: this.#deviceToHost };
    this.#userps = [lib.ffi.NULL];
    this.callbacks = callbackTable(lib);
    this.callbacks.setHandler((kind, object, flags, userp) =>
      this.#complete(kind, object, flags, userp)
    );
  }

  /** Number of requests in flight. */
  get size(): number {
    return this.#byId.size;
  }

  /** Reserves a `userp` id: a freed one first (so their pointers are reused), else a new one. */
  reserveId(): number {
    const id = this.#freeIds.pop();
    if (id !== undefined) return id;
    const fresh = this.#userps.length;
    this.#userps.push(this.lib.ffi.fromAddress(fresh));
    return fresh;
  }

  /** Gives back an id that was reserved but never tracked. */
  releaseId(id: number): void {
    this.#freeIds.push(id);
  }

  /** The pointer Triton is given as `userp` for `id`. */
  userp(id: number): Ptr {
    return this.#userps[id];
  }

  /** Starts tracking a request that Triton accepted. */
  add(state: InflightRequest): void {
    this.#byId.set(state.id, state);
    state.owner.add(state);
    keepalive.hold();
  }

  /** Stops tracking a request: Triton did not accept it (the caller deletes it), or it is done
   * (FINAL and release arrived: the request is deleted). */
  untrack(state: InflightRequest): void {
    if (state.released) deleteLater(this.#deleteRequest, state);
    this.#byId.delete(state.id);
    this.releaseId(state.id);
    state.owner.delete(state);
    state.finish();
    keepalive.release();
  }

  /**
   * The consumer left early: asks Triton to cancel (`TRITONSERVER_InferenceRequestCancel`), and
   * deletes whatever still arrives for the request without reading it.
   */
  cancel(state: InflightRequest): void {
    state.abandoned = true;
    // Until FINAL the request object is alive (a released one is kept until then), and a model
    // still sending responses — a decoupled one releases its request early — sees the cancel.
    if (!state.final) {
      discard(this.lib, this.lib.api.TRITONSERVER_InferenceRequestCancel(state.request));
    }
  }

  /** Ends the request's stream with `error` now and cancels it in Triton. */
  abort(state: InflightRequest, error: TritonError): void {
    if (state.abandoned) return;
    state.fail(error);
    this.cancel(state);
  }

  #complete(kind: CompletionKindValue, object: Ptr, flags: number, userp: number): void {
    const state = this.#byId.get(userp);
    const { api, ffi } = this.lib;
    if (kind === CompletionKind.RELEASE) {
      if (!state) {
        api.TRITONSERVER_InferenceRequestDelete(object);
        return;
      }
      // Deleted when the state is untracked (after FINAL too): until then it can be cancelled.
      state.released = true;
      state.keep = [];
    } else {
      const final = (flags & ResponseCompleteFlag.FINAL) !== 0;
      if (!state) {
        if (!ffi.isNull(object)) api.TRITONSERVER_InferenceResponseDelete(object);
        return;
      }
      if (!ffi.isNull(object)) {
        if (state.abandoned) {
          if (state.life.alive) api.TRITONSERVER_InferenceResponseDelete(object);
        } else {
          try {
            state.deliver(readResponseFrom(this.#source, object, final, state.life));
          } catch (e) {
            state.fail(
              e instanceof TritonError ? e : new TritonError("INTERNAL", String(e), { cause: e }),
            );
          }
        }
      }
      if (final) {
        state.final = true;
        state.end();
      }
    }
    if (state.final && state.released) this.untrack(state);
  }
}

let table: InflightTable | undefined;

/** The process-wide in-flight table for `lib`. */
export function inflightTable(lib: TritonLibrary): InflightTable {
  table ??= new InflightTable(lib);
  return table;
}
