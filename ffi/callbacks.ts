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
 * - allocator alloc / release: host memory from libc `malloc`/`free`. On Deno and Node a JS
 *   callback does it (the Triton thread waits for it); on Bun, whose callbacks cannot return to a
 *   foreign thread, the runtime's native allocator does.
 *
 * @module
 */
import { callbacks } from "./symbols.ts";
import { ErrorCode, MemoryType } from "./enums.ts";
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
  /** `TRITONSERVER_ResponseAllocatorAllocFn_t` */
  readonly allocatorAlloc: Ptr;
  /** `TRITONSERVER_ResponseAllocatorReleaseFn_t` */
  readonly allocatorRelease: Ptr;
  /** Sets the one consumer of drained completions (the request router in `src/`). */
  setHandler(handler: CompletionHandler): void;
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
  const { ffi, api, libc } = lib;
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

  let allocatorAlloc: Ptr;
  let allocatorRelease: Ptr;
  if (ffi.callbacksReturnToForeignThreads) {
    // Out-parameters are written with libc memcpy from one scratch word.
    const word = new BigUint64Array(1);
    const word32 = new Uint32Array(1);
    const writeWord = (dst: Ptr, value: bigint) => {
      word[0] = value;
      libc.memcpy(dst, word, 8);
    };
    allocatorAlloc = ffi.callback(
      callbacks.allocatorAlloc,
      (
        _allocator,
        _name,
        byteSize,
        _memoryType,
        _memoryTypeId,
        _userp,
        buffer,
        bufferUserp,
        actualMemoryType,
        actualMemoryTypeId,
      ) => {
        const size = Number(byteSize);
        const p = libc.malloc(size === 0 ? 1 : size);
        if (ffi.isNull(p)) {
          return api.TRITONSERVER_ErrorNew(
            ErrorCode.INTERNAL,
            `failed to allocate ${size} bytes of host memory`,
          );
        }
        writeWord(buffer, BigInt(ffi.address(p)));
        writeWord(bufferUserp, 0n);
        word32[0] = MemoryType.CPU;
        libc.memcpy(actualMemoryType, word32, 4);
        writeWord(actualMemoryTypeId, 0n);
        return ffi.NULL;
      },
    );
    allocatorRelease = ffi.callback(
      callbacks.allocatorRelease,
      (_allocator, buffer) => {
        libc.free(buffer);
        return ffi.NULL;
      },
    );
  } else {
    const native = ffi.nativeAllocator?.();
    if (!native) throw new Error(`${ffi.name}: no way to run the response allocator`);
    allocatorAlloc = native.alloc;
    allocatorRelease = native.release;
  }

  table = {
    responseComplete,
    requestRelease,
    allocatorAlloc,
    allocatorRelease,
    setHandler(h: CompletionHandler) {
      handler = h;
    },
  };
  return table;
}
