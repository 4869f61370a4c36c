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
import { discard, TritonError } from "./errors.ts";
import { CudaMemcpyKind } from "../ffi/cuda.ts";
import { type DeviceToHost, type InferResponse, readResponse } from "./response.ts";

/** What a waiting consumer gets: a response, or the end of the stream. */
export type StreamItem = InferResponse | { readonly end: true; readonly error?: TritonError };

/** One request between `TRITONSERVER_ServerInferAsync` and its last completion. */
export class InflightRequest {
  /** The integer passed to Triton as `userp`. */
  readonly id: number;
  /** The owning server's set of requests (to cancel them on stop). */
  readonly owner: Set<InflightRequest>;
  /** `TRITONSERVER_InferenceRequest*`, deleted when Triton releases it. */
  request: Ptr;
  /** JS memory Triton reads from until release (input data). */
  keep: unknown[];
  /** Whether FINAL arrived. */
  final = false;
  /** Whether Triton released the request. */
  released = false;
  /** Whether the consumer left; later responses are deleted unread. */
  abandoned = false;
  #items: StreamItem[] = [];
  #wake: (() => void) | undefined;
  #done: { promise: Promise<void>; resolve: () => void };

  /** A user queue that also receives each response. */
  readonly queue: { push(response: InferResponse): unknown } | undefined;

  constructor(
    id: number,
    request: Ptr,
    keep: unknown[],
    owner: Set<InflightRequest>,
    queue?: { push(response: InferResponse): unknown },
  ) {
    this.id = id;
    this.queue = queue;
    this.request = request;
    this.keep = keep;
    this.owner = owner;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.#done = { promise, resolve };
  }

  /** Resolves once FINAL and release have both arrived. */
  get finished(): Promise<void> {
    return this.#done.promise;
  }

  /** Queues an item for the consumer (and the user queue). */
  deliver(item: StreamItem): void {
    if (this.abandoned) return;
    if (this.queue && !("end" in item)) this.queue.push(item);
    this.#items.push(item);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The next item, waiting for one if none is queued. */
  async next(): Promise<StreamItem> {
    while (this.#items.length === 0) {
      await new Promise<void>((r) => (this.#wake = r));
    }
    return this.#items.shift()!;
  }

  /** Ends the stream now with `error`; whatever is queued or still arrives is dropped. */
  fail(error: TritonError): void {
    if (!this.queue) {
      for (const item of this.#items) if (!("end" in item)) item.dispose();
    }
    this.#items = [];
    this.deliver({ end: true, error });
    this.abandoned = true;
  }

  /** Marks the state complete. */
  finish(): void {
    this.#done.resolve();
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
  #nextId = 1;

  constructor(lib: TritonLibrary) {
    this.lib = lib;
    this.callbacks = callbackTable(lib);
    this.callbacks.setHandler((kind, object, flags, userp) =>
      this.#complete(kind, object, flags, userp)
    );
  }

  /** Number of requests in flight. */
  get size(): number {
    return this.#byId.size;
  }

  /** Reserves a `userp` id. */
  reserveId(): number {
    let id = this.#nextId;
    while (this.#byId.has(id)) id = id >= 0x7fffffff ? 1 : id + 1;
    this.#nextId = id >= 0x7fffffff ? 1 : id + 1;
    return id;
  }

  /** Starts tracking a request that Triton accepted. */
  add(state: InflightRequest): void {
    this.#byId.set(state.id, state);
    state.owner.add(state);
    keepalive.hold();
  }

  /** Stops tracking a request: Triton did not accept it (the caller deletes it), or it is done. */
  untrack(state: InflightRequest): void {
    this.#byId.delete(state.id);
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
    if (!state.released) {
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
      api.TRITONSERVER_InferenceRequestDelete(object);
      if (!state) return;
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
          api.TRITONSERVER_InferenceResponseDelete(object);
        } else {
          try {
            state.deliver(readResponse(this.lib, object, final, this.#deviceToHost));
          } catch (e) {
            state.fail(
              e instanceof TritonError ? e : new TritonError("INTERNAL", String(e), { cause: e }),
            );
          }
        }
      }
      if (final) {
        state.final = true;
        state.deliver({ end: true });
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
