/**
 * The C function pointers Triton calls (one set per library, owned by its `Binding`), and how
 * their calls reach JS.
 *
 * One function pointer per callback kind, created on first use and never closed (closing a
 * callback Triton may still call crashes the runtimes). Requests are told apart by `userp`, an
 * integer the binding passes as `void*`; nothing is created per request.
 *
 * Two ways to deliver completions, both as `(kind, object, flags, userp)` on a later macrotask of
 * the JS thread (never inside a callback: on Deno, a promise resolved in a threadsafe callback runs
 * its `await` continuations before Triton's thread is released, so a blocking call there would
 * deadlock; docs/ffi-facts.md):
 *
 * - `"native"` (default where available): response-complete and request-release are native code
 *   (`native/callbacks.ts`) that pushes into a native ring drained by JS; on Deno and Node the
 *   allocator's CPU policy is native too. Triton's threads never wait for the JS thread.
 * - `"js"`: JS callbacks push into a JS {@link CompletionRing}; on Deno and Node each call makes
 *   Triton's thread wait for the JS thread (bench/README.md, "Costs the code is shaped by"). The
 *   allocator is JS on Deno and Node, C
 *   compiled at run time on Bun (whose callbacks cannot return to a foreign thread).
 *
 * `TRITONFFI_CALLBACKS=native|js` forces one; `auto` (or unset) uses the native path where it
 * can and the JS one where executable memory or a C compiler is refused.
 *
 * @module
 */
import { type AllocatorFunctions, jsAllocator, nativeAllocator } from "./allocator.ts";
import { type CudaRuntime, loadCuda } from "./cuda.ts";
import { callbacks } from "./symbols.ts";
import {
  type CompletionHandler,
  CompletionKind,
  type CompletionKindValue,
  CompletionRing,
} from "./completion_ring.ts";
import type { KeepAlive } from "./keepalive.ts";
import { macrotask } from "./macrotask.ts";
import { nativeCallbacks } from "./native/callbacks.ts";
import { chooseNativePath, type NativePath, noNativePath } from "./native/platform.ts";
import { env } from "./runtime.ts";
import { TritonError } from "./triton_error.ts";
import type { NativeLibrary, Ptr } from "./types.ts";

/** The function pointers to hand to Triton, and the hook that receives completions. */
export interface CallbackTable {
  /** `TRITONSERVER_InferenceResponseCompleteFn_t` */
  readonly responseComplete: Ptr;
  /** `TRITONSERVER_InferenceRequestReleaseFn_t` */
  readonly requestRelease: Ptr;
  /** The response allocator's functions (alloc, release, query, buffer attributes), and the
   * placing allocator's (`placing()`: JS on Deno and Node in either mode, C on Bun). */
  readonly allocator: AllocatorFunctions;
  /** Sets the one consumer of drained completions (the request router in `src/`); returns the
   * previous one. */
  setHandler(handler: CompletionHandler): CompletionHandler;
  /** Loads `libcudart` on first call and gives it to the allocator; undefined when absent
   * ({@link cudaFailure} says why). */
  cuda(): CudaRuntime | undefined;
  /** Why no CUDA runtime could be loaded, once {@link cuda} found none. */
  readonly cudaFailure: string | undefined;
  /** How completions arrive: native producers and ring, or JS callbacks. */
  readonly mode: CallbackMode;
  /** Why the native path is not in use, when it is not (`nativePath.reason`). */
  readonly fallbackReason?: string;
  /** The native path this binding runs (`native/platform.ts`), chosen once: `"none"` with the
   * JS callbacks, its `reason` then saying why. */
  readonly nativePath: NativePath;
}

/** See {@link CallbackTable.mode}. */
export type CallbackMode = "native" | "js";

/**
 * The mode `TRITONFFI_CALLBACKS` asks for (undefined: `auto` or unset, native where available,
 * else JS).
 * @throws {TritonError} INVALID_ARG for any other value, naming the accepted ones.
 */
function requestedMode(): CallbackMode | undefined {
  const value = env("TRITONFFI_CALLBACKS");
  if (value === undefined || value === "" || value === "auto") return undefined;
  if (value === "native" || value === "js") return value;
  throw new TritonError(
    "INVALID_ARG",
    `TRITONFFI_CALLBACKS must be "native", "js" or "auto" (or unset), not ${JSON.stringify(value)}`,
  );
}

/**
 * Creates the callback table of `lib` (its {@link Binding} does, once).
 * @param keepalive told of the native consumer, which keeps the event loop alive while busy.
 * @throws {TritonError} INVALID_ARG for a `TRITONFFI_CALLBACKS` or `TRITONFFI_POLL_US` it does not
 *   take; UNSUPPORTED when `TRITONFFI_CALLBACKS=native` and the native path is unavailable.
 */
export function createCallbackTable(lib: NativeLibrary, keepalive: KeepAlive): CallbackTable {
  const { ffi } = lib;
  const requested = requestedMode();
  const allocator = ffi.callbacksReturnToForeignThreads ? jsAllocator(lib) : nativeAllocator(lib);
  let handler: CompletionHandler = () => {};
  let responseComplete: Ptr;
  let requestRelease: Ptr;
  let mode: CallbackMode = "js";
  let fns = allocator;

  let native: ReturnType<typeof nativeCallbacks> | undefined;
  let nativePath: NativePath;
  if (requested !== "js") {
    nativePath = chooseNativePath(ffi);
    try {
      native = nativeCallbacks(lib, allocator, nativePath);
    } catch (e) {
      // A setting refused (TRITONFFI_POLL_US) is the user's to correct, not a reason to fall back.
      if (e instanceof TritonError && e.code === "INVALID_ARG") throw e;
      const why = e instanceof Error ? e.message : String(e);
      if (requested === "native") {
        throw new TritonError("UNSUPPORTED", `TRITONFFI_CALLBACKS=native, but ${why}`, {
          cause: e,
        });
      }
      nativePath = noNativePath(why);
    }
  } else {
    nativePath = noNativePath("TRITONFFI_CALLBACKS=js");
  }

  if (native) {
    const { consumer } = native;
    mode = "native";
    responseComplete = native.responseComplete;
    requestRelease = native.requestRelease;
    if (native.allocator) {
      fns = {
        ...native.allocator,
        useCuda: (c) => allocator.useCuda(c),
        placing: native.placing ?? (() => allocator.placing()),
      };
    }
    keepalive.watch(consumer);
  } else {
    const ring = new CompletionRing();
    let scheduled = false;
    const drain = () => {
      scheduled = false;
      ring.drain(handler);
    };
    const push = (kind: CompletionKindValue, object: Ptr, flags: number, userp: Ptr) => {
      ring.push(kind, object, flags, ffi.address(userp));
      if (!scheduled) {
        scheduled = true;
        macrotask(drain);
      }
    };
    responseComplete = ffi.callback(
      callbacks.responseComplete,
      (response, flags, userp) => push(CompletionKind.RESPONSE, response, flags, userp),
    );
    requestRelease = ffi.callback(
      callbacks.requestRelease,
      (request, flags, userp) => push(CompletionKind.RELEASE, request, flags, userp),
    );
  }

  let cuda: CudaRuntime | string | undefined;
  return {
    responseComplete,
    requestRelease,
    allocator: fns,
    mode,
    fallbackReason: nativePath.reason,
    nativePath,
    setHandler(h: CompletionHandler) {
      const previous = handler;
      handler = h;
      native?.consumer.setHandler(h);
      return previous;
    },
    cuda() {
      if (cuda === undefined) {
        cuda = loadCuda(ffi, lib.addressIn);
        if (typeof cuda !== "string") allocator.useCuda(cuda);
      }
      return typeof cuda === "string" ? undefined : cuda;
    },
    get cudaFailure() {
      return typeof cuda === "string" ? cuda : undefined;
    },
  };
}
