/**
 * `Binding`: what one loaded Triton library owns in this process, created with it by
 * `loadTriton` and reached as `lib.binding`. Nothing of it is module state: a second library
 * (another path) has a binding of its own.
 *
 * It owns the C function pointers Triton calls (one per callback kind, created on first use and
 * never closed), the completion ring and its consumer behind them, the `userp` routes, the
 * deferred deletes, the keep-alive count, the CUDA runtime once loaded, the scratch
 * out-parameters the JS thread reads Triton's answers through, and the native response reader.
 *
 * @module
 */
import { type CallbackTable, createCallbackTable } from "./callbacks.ts";
import { CompletionKind, type CompletionKindValue } from "./completion_ring.ts";
import { CompletionRoutes } from "./completion_routes.ts";
import { DeferredDeletes } from "./deferred_deletes.ts";
import { KeepAlive } from "./keepalive.ts";
import type { TritonLibrary } from "./loader.ts";
import { OutParams } from "./out_params.ts";
import { createResponseReader, type ResponseReader } from "./response_reader.ts";
import { createTraceCallbackTable, type TraceCallbackTable } from "./trace_callbacks.ts";
import type { Ptr } from "./types.ts";

/** Number of 8-byte slots in {@link Binding.outParams}. */
export const OUT_PARAM_SLOTS = 10;

/** The per-library native pieces; see the module documentation. */
export class Binding {
  /** The library it belongs to. */
  readonly lib: TritonLibrary;
  /** Native work in flight (requests, traces): keeps the process alive while there is some. */
  readonly keepalive: KeepAlive = new KeepAlive();
  /** Native deletes moved off the hot path. */
  readonly deletes: DeferredDeletes = new DeferredDeletes();
  /** `userp` → the object that receives a request's completions. */
  readonly routes: CompletionRoutes;
  #callbacks: CallbackTable | undefined;
  #traceCallbacks: TraceCallbackTable | undefined;
  #outParams: OutParams | undefined;
  #reader: ResponseReader | null | undefined;
  readonly #shared = new Map<object, unknown>();

  constructor(lib: TritonLibrary) {
    this.lib = lib;
    this.routes = new CompletionRoutes(lib.ffi);
  }

  /**
   * The inference callbacks and response allocator functions, created on first use; their
   * completions are routed by `userp` through {@link routes}.
   * @throws {Error} when `TRITONFFI_CALLBACKS=native` and the native path is unavailable.
   */
  get callbacks(): CallbackTable {
    if (this.#callbacks) return this.#callbacks;
    const table = createCallbackTable(this.lib, this.keepalive);
    table.setHandler((kind, object, flags, userp) => this.#dispatch(kind, object, flags, userp));
    return (this.#callbacks = table);
  }

  /** The trace callbacks, created on first use. */
  get traceCallbacks(): TraceCallbackTable {
    return (this.#traceCallbacks ??= createTraceCallbackTable(this.lib));
  }

  /** {@link OUT_PARAM_SLOTS} out-parameter slots in native memory, mapped on first use. Not
   * reentrant: read a slot before the next call that writes it (all calls are on the JS thread). */
  get outParams(): OutParams {
    return (this.#outParams ??= new OutParams(this.lib.ffi, OUT_PARAM_SLOTS));
  }

  /**
   * The native response reader (`response_reader.ts`), made on first use; `undefined` with the JS
   * callbacks, or where it cannot be made (responses are then read field by field).
   */
  get responseReader(): ResponseReader | undefined {
    if (this.#reader === undefined) {
      try {
        this.#reader = this.callbacks.mode === "native" ? createResponseReader(this.lib) : null;
      } catch {
        this.#reader = null;
      }
    }
    return this.#reader ?? undefined;
  }

  /** One object per binding and `key`, made by `create` on first use (for the layers above
   * `ffi/` that keep per-library state, such as the trace router). */
  shared<T>(key: object, create: () => T): T {
    let value = this.#shared.get(key) as T | undefined;
    if (value === undefined) {
      value = create();
      this.#shared.set(key, value);
    }
    return value;
  }

  #dispatch(kind: CompletionKindValue, object: Ptr, flags: number, userp: number): void {
    const target = this.routes.get(userp);
    if (target) return target.complete(kind, object, flags);
    // Nothing waits for it (cannot happen while routes outlive their requests): free it.
    const { api, ffi } = this.lib;
    if (kind === CompletionKind.RELEASE) api.TRITONSERVER_InferenceRequestDelete(object);
    else if (!ffi.isNull(object)) api.TRITONSERVER_InferenceResponseDelete(object);
  }
}
