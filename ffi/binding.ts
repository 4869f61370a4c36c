/**
 * `Binding`: what one loaded Triton library owns in this process, created with it by
 * `loadTriton` and reached as `lib.binding`. Nothing of it is module state: a second library
 * (another path) has a binding of its own.
 *
 * It owns the C function pointers Triton calls (one per callback kind, created on first use and
 * never closed), the completion ring and its consumer behind them, the `userp` routes, the
 * deferred deletes, the native deletes (off the JS thread when they are many), the keep-alive
 * count, the CUDA runtime once loaded, the scratch out-parameters the JS thread reads Triton's
 * answers through, and the native response reader.
 *
 * @module
 */
import { type CallbackTable, createCallbackTable } from "./callbacks.ts";
import { CompletionKind, type CompletionKindValue } from "./completion_ring.ts";
import { CompletionRoutes, type CompletionTarget } from "./completion_routes.ts";
import { CudaMemcpyKind } from "./cuda.ts";
import { DeferredDeletes } from "./deferred_deletes.ts";
import { NativeDeletes } from "./native/deletes.ts";
import { createRequestSubmitter, type RequestSubmitter } from "./native/request_submitter.ts";
import { KeepAlive } from "./keepalive.ts";
import { OutParams } from "./out_params.ts";
import { outputPolicy } from "./output_policy.ts";
import { ResponseFields, SLOTS_NEEDED } from "./response_fields.ts";
import { createResponseReader, type ResponseReader } from "./native/response_reader.ts";
import { createTraceCallbackTable, type TraceCallbackTable } from "./trace_callbacks.ts";
import { TritonError } from "./triton_error.ts";
import type { NativeLibrary, Ptr } from "./types.ts";

/** Number of 8-byte slots in {@link Binding.outParams}. */
export const OUT_PARAM_SLOTS = Math.max(10, SLOTS_NEEDED);

/** A request's completions routed to its target (see {@link Binding.track}). */
export interface Tracked {
  /** The `void* userp` to give Triton (the request release and response callbacks). */
  readonly userp: Ptr;
  /** {@link userp}'s address, as a number. */
  readonly address: number;
  /** Stops routing to the target and stops counting it as in flight. Idempotent. */
  untrack(): void;
}

/** Everything `src/` needs to call Triton: the adapter, the bound API, libc, and the
 * {@link Binding} that owns the native pieces made for this library. */
export interface TritonLibrary extends NativeLibrary {
  /** What this library owns in the process: callbacks, ring, routes, deferred deletes, scratch. */
  readonly binding: Binding;
}

/** The per-library native pieces; see the module documentation. */
export class Binding {
  /** The library it belongs to. */
  readonly lib: NativeLibrary;
  /** Native work in flight (requests, traces): keeps the process alive while there is some. */
  readonly keepalive: KeepAlive = new KeepAlive();
  /** Work moved off the hot path (settling the responses a reader moved past). */
  readonly deletes: DeferredDeletes = new DeferredDeletes();
  /** `userp` → the object that receives a request's completions. */
  readonly routes: CompletionRoutes;
  #callbacks: CallbackTable | undefined;
  #traceCallbacks: TraceCallbackTable | undefined;
  #outParams: OutParams | undefined;
  #reader: ResponseReader | null | undefined;
  #nativeDeletes: NativeDeletes | undefined;
  #submitter: RequestSubmitter | string | undefined;
  #responses: ResponseFields | undefined;
  /** Scratch `int64_t` arrays by length (see {@link int64Array}). */
  readonly #int64s: Int32Array[] = [];
  /** Allocator policies as the `userp` pointers passed to Triton, by policy. */
  readonly #policies = new Map<number, Ptr>();
  readonly #shared = new Map<object, unknown>();

  constructor(lib: NativeLibrary) {
    this.lib = lib;
    this.routes = new CompletionRoutes(lib.ffi);
  }

  /**
   * The inference callbacks and response allocator functions, created on first use; their
   * completions are routed by `userp` through {@link routes}.
   * @throws {TritonError} INVALID_ARG for a `TRITONFFI_CALLBACKS` or `TRITONFFI_POLL_US` it does
   *   not take; UNSUPPORTED when `TRITONFFI_CALLBACKS=native` and the native path is unavailable.
   */
  get callbacks(): CallbackTable {
    if (this.#callbacks) return this.#callbacks;
    const table = createCallbackTable(this.lib, this.keepalive);
    table.setHandler((kind, object, flags, userp) => this.#dispatch(kind, object, flags, userp));
    return (this.#callbacks = table);
  }

  /**
   * The deletes of responses and released requests (`native/deletes.ts`), made on first use:
   * off the JS thread in batches with the native callbacks.
   * @throws {TritonError} INVALID_ARG when `TRITONFFI_DELETE_THREAD` is neither `on` nor `off`.
   */
  get nativeDeletes(): NativeDeletes {
    return (this.#nativeDeletes ??= new NativeDeletes(this.lib, this.callbacks.nativePath));
  }

  /**
   * The native request submitter (`native/request_submitter.ts`), made on first use; `undefined`
   * where there is none ({@link noRequestSubmitter} says why): requests are then built call by
   * call.
   * @throws {TritonError} INVALID_ARG when `TRITONFFI_REQUEST_SUBMITTER` is neither `on` nor
   *   `off`.
   */
  get requestSubmitter(): RequestSubmitter | undefined {
    this.#submitter ??= createRequestSubmitter(this.lib, this.callbacks.nativePath);
    return typeof this.#submitter === "string" ? undefined : this.#submitter;
  }

  /** Why there is no {@link requestSubmitter}; `undefined` when there is one. */
  get noRequestSubmitter(): string | undefined {
    void this.requestSubmitter;
    return typeof this.#submitter === "string" ? this.#submitter : undefined;
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
   * The native response reader (`native/response_reader.ts`), made on first use; `undefined` with
   * the JS callbacks, or where it cannot be made (responses are then read field by field).
   */
  get responseReader(): ResponseReader | undefined {
    if (this.#reader === undefined) {
      try {
        const path = this.callbacks.nativePath;
        this.#reader = path.kind === "none" ? null : createResponseReader(this.lib, path);
      } catch {
        this.#reader = null;
      }
    }
    return this.#reader ?? undefined;
  }

  /**
   * `values` (integers in ±2^53) as the `int64_t` array a Triton call reads, written as
   * little-endian (low, high) 32-bit halves (no `BigInt` per value), in scratch reused for every
   * call with as many values: only for a call that copies the array before it returns (a shape
   * given to `TRITONSERVER_InferenceRequestAddInput`), on the JS thread.
   */
  int64Array(values: readonly number[]): Int32Array {
    const n = values.length;
    const a = (this.#int64s[n] ??= new Int32Array(new ArrayBuffer(n * 8)));
    for (let i = 0; i < n; i++) {
      const v = values[i];
      a[2 * i] = v % 4294967296;
      a[2 * i + 1] = Math.floor(v / 4294967296);
    }
    return a;
  }

  /** Reads responses into plain values (with the native reader where there is one). */
  get responses(): ResponseFields {
    return (this.#responses ??= new ResponseFields(
      this.lib,
      this.outParams,
      this.responseReader,
    ));
  }

  /**
   * The response allocator's `userp` for a request's output memory choice (NULL for `"cpu"`):
   * `"cpu"`, `"cpu_pinned"`, `"gpu"`, `"gpu:N"` or `"auto"`; all but `"cpu"` load libcudart.
   * @param allowFallback pageable host memory when pinned/GPU memory cannot be had.
   * @throws {TritonError} INVALID_ARG for an unknown choice or GPU id; UNAVAILABLE when CUDA is
   *   needed, absent, and `allowFallback` is false.
   */
  outputPolicy(choice: string, allowFallback: boolean): Ptr {
    const policy = outputPolicy(this.callbacks, choice, allowFallback);
    let p = this.#policies.get(policy);
    if (p === undefined) {
      p = policy === 0 ? this.lib.ffi.NULL : this.lib.ffi.fromAddress(policy);
      this.#policies.set(policy, p);
    }
    return p;
  }

  /**
   * Routes the completions of a request to `target` (by the `userp` returned) and counts it as
   * native work in flight, which keeps the process alive until `untrack()`.
   */
  track(target: CompletionTarget): Tracked {
    this.keepalive.hold();
    return new Route(this, this.routes.add(target));
  }

  /**
   * Copies `byteSize` bytes of GPU memory at `pointer` on device `deviceId` into a new host array
   * (`cudaSetDevice`, `cudaMemcpy`), through the CUDA runtime the allocator loaded.
   * @throws {TritonError} UNAVAILABLE when no CUDA runtime is loaded; INTERNAL when a CUDA call
   *   fails.
   */
  copyToHost(pointer: Ptr, byteSize: number, deviceId: number): Uint8Array {
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

/** A {@link Tracked} request: its route and its count in the keep-alive. */
class Route implements Tracked {
  readonly userp: Ptr;
  readonly address: number;
  readonly #binding: Binding;
  #id: number;

  constructor(binding: Binding, id: number) {
    this.#binding = binding;
    this.#id = id;
    this.userp = binding.routes.userp(id);
    this.address = id; // a route's userp is its id
  }

  untrack(): void {
    if (this.#id === 0) return;
    this.#binding.routes.remove(this.#id);
    this.#binding.keepalive.release();
    this.#id = 0;
  }
}
