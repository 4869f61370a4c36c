/**
 * The process-wide C function pointers Triton calls, and how their calls reach JS.
 *
 * One function pointer per callback kind, created on first use and never closed (closing a
 * callback Triton may still call crashes the runtimes). Requests are told apart by `userp`, an
 * integer the binding passes as `void*`; nothing is created per request.
 *
 * - response complete / request release: push a slot into the {@link CompletionRing} and schedule
 *   one drain on a later macrotask, so user code never resumes inside a callback (Deno's
 *   microtask trap, see shared FFI facts).
 * - the response allocator (`allocator.ts`): on Deno and Node JS callbacks (the Triton thread
 *   waits for them); on Bun, whose callbacks cannot return to a foreign thread, C compiled at run
 *   time.
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
import type { TritonLibrary } from "./loader.ts";
import type { Ptr } from "./types.ts";

/** The function pointers to hand to Triton, and the hook that receives completions. */
export interface CallbackTable {
  /** `TRITONSERVER_InferenceResponseCompleteFn_t` */
  readonly responseComplete: Ptr;
  /** `TRITONSERVER_InferenceRequestReleaseFn_t` */
  readonly requestRelease: Ptr;
  /** The response allocator's functions (alloc, release, query, buffer attributes). */
  readonly allocator: AllocatorFunctions;
  /** Sets the one consumer of drained completions (the request router in `src/`). */
  setHandler(handler: CompletionHandler): void;
  /** Loads `libcudart` on first call and gives it to the allocator; undefined when absent
   * (`cudaLoadFailure` in `cuda.ts` says why). */
  cuda(): CudaRuntime | undefined;
}

let table: CallbackTable | undefined;

/** Runs `fn` on a later macrotask (never inside the current callback's microtask checkpoint). */
const macrotask: (fn: () => void) => void = typeof globalThis.setImmediate === "function"
  ? (fn) => {
    globalThis.setImmediate(fn);
  }
  : (fn) => {
    setTimeout(fn, 0);
  };

/** The process-wide callback table for `lib` (created once). */
export function callbackTable(lib: TritonLibrary): CallbackTable {
  if (table) return table;
  const { ffi } = lib;
  const ring = new CompletionRing();
  let handler: CompletionHandler = () => {};
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

  const responseComplete = ffi.callback(
    callbacks.responseComplete,
    (response, flags, userp) => push(CompletionKind.RESPONSE, response, flags, userp),
  );
  const requestRelease = ffi.callback(
    callbacks.requestRelease,
    (request, flags, userp) => push(CompletionKind.RELEASE, request, flags, userp),
  );

  const allocator = ffi.callbacksReturnToForeignThreads ? jsAllocator(lib) : nativeAllocator(lib);
  let cuda: CudaRuntime | null | undefined;

  table = {
    responseComplete,
    requestRelease,
    allocator,
    setHandler(h: CompletionHandler) {
      handler = h;
    },
    cuda() {
      if (cuda === undefined) {
        cuda = loadCuda(ffi, lib.addressIn) ?? null;
        if (cuda) allocator.useCuda(cuda);
      }
      return cuda ?? undefined;
    },
  };
  return table;
}
