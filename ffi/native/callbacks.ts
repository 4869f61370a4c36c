/**
 * The native fast path: the callbacks Triton's threads wait on, as native code instead of JS,
 * built for the {@link NativePath} the binding chose (`platform.ts`):
 *
 * - `"x86_64"` / `"a64"` (Deno and Node): code generated at run time (`routines.ring`) for
 *   response-complete and request-release (pushes into the {@link NativeRing}; the wake-up is a
 *   write to a pipe the event loop watches, or to an eventfd read off the JS thread where the
 *   runtime cannot watch a pipe), for the allocator's CPU policy (libc `malloc`/`free`; other
 *   policies jump to the JS allocator), and for the placing allocator's placed outputs
 *   (`routines.placing`; the rest jumps to its JS functions).
 * - `"bun-cc"`: the same ring producers in C compiled by `cc()` (`bun_ring.ts`), woken through a
 *   posted `JSCallback`; Bun's allocator is already C (`../allocator.ts`).
 *
 * Anything that stands in the way (path `"none"`, executable memory refused, no C compiler)
 * throws, and `../callbacks.ts` falls back to JS callbacks.
 *
 * @module
 */
import type { AllocatorFunctions, AllocatorPointers } from "../allocator.ts";
import { LIBC_PATH } from "../libc.ts";
import {
  EventfdWaiter,
  NativeRing,
  PipeWaiter,
  PostedWaiter,
  RingConsumer,
  type RingWaiter,
} from "./ring.ts";
import { env } from "../runtime.ts";
import { TritonError } from "../triton_error.ts";
import { compileBunRing } from "./bun_ring.ts";
import { installPlacingThunks, installThunks } from "./install.ts";
import type { NativeLibrary, Ptr } from "../types.ts";
import type { NativePath } from "./platform.ts";

/** Slots of the ring (one per binding; 16384 × 32 bytes = 512 KiB). */
export const RING_CAPACITY = 16384;

/** How long the consumer polls an empty ring before sleeping, µs (`TRITONFFI_POLL_US`). */
export const DEFAULT_POLL_MICROS = 50;

function pollMicros(): number {
  const value = env("TRITONFFI_POLL_US");
  if (value === undefined || value === "") return DEFAULT_POLL_MICROS;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) {
    throw new TritonError(
      "INVALID_ARG",
      `TRITONFFI_POLL_US must be a number of microseconds ≥ 0, not ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** The native producers, the allocator functions where they are native, and the consumer. */
export interface NativeCallbacks {
  readonly responseComplete: Ptr;
  readonly requestRelease: Ptr;
  /** The allocator with its CPU policy native (Deno, Node); undefined on Bun (already C). */
  readonly allocator?: AllocatorPointers;
  /** The placing allocator with its placed outputs native (Deno, Node; made on first call);
   * undefined on Bun (already C). */
  readonly placing?: () => AllocatorPointers;
  readonly consumer: RingConsumer;
}

/**
 * Builds the native callbacks of `path`.
 * @param js the JS allocator (Deno, Node), the target of non-CPU allocations.
 * @throws {TritonError} INVALID_ARG for a `TRITONFFI_POLL_US` it does not take; {Error} where
 * the native path is unavailable (the message says why).
 */
export function nativeCallbacks(
  lib: NativeLibrary,
  js: AllocatorFunctions,
  path: NativePath,
): NativeCallbacks {
  const { ffi } = lib;
  const { kind, routines } = path;
  if (kind === "none") throw new Error(path.reason ?? "the native layer is off");
  if (kind !== "bun-cc" && routines === undefined) {
    throw new Error(`no native routines for ${path.arch}`);
  }
  const ring = new NativeRing(ffi, RING_CAPACITY);

  if (kind === "bun-cc") {
    const waiter = new PostedWaiter();
    const wake = ffi.callback({ parameters: [], result: "void" }, waiter.fire);
    const pushes = compileBunRing(ffi, ring.address, ring.capacity, wake, routines);
    return { ...pushes, consumer: new RingConsumer(ring, waiter, pollMicros()) };
  }

  const waiter = wakeUp(lib);
  const address = (p: Ptr) => BigInt(ffi.address(p));
  const thunks = installThunks(ffi, routines!, {
    ring: address(ring.address),
    capacity: ring.capacity,
    eventfd: waiter.fd,
    write: address(lib.addressIn(LIBC_PATH, "write")),
    schedYield: address(lib.addressIn(LIBC_PATH, "sched_yield")),
    malloc: address(lib.addressIn(LIBC_PATH, "malloc")),
    free: address(lib.addressIn(LIBC_PATH, "free")),
    errorNew: address(lib.symbolAddress("TRITONSERVER_ErrorNew")),
    setMemoryType: address(lib.symbolAddress("TRITONSERVER_BufferAttributesSetMemoryType")),
    setMemoryTypeId: address(lib.symbolAddress("TRITONSERVER_BufferAttributesSetMemoryTypeId")),
    jsAlloc: address(js.alloc),
    jsRelease: address(js.release),
    jsQuery: address(js.query),
    jsBufferAttributes: address(js.bufferAttributes),
  });
  let placing: AllocatorPointers | undefined;
  const makePlacing = (): AllocatorPointers => {
    const slow = js.placing();
    const fast = installPlacingThunks(ffi, routines!, {
      jsAlloc: address(slow.alloc),
      release: address(thunks.release),
    });
    return { ...slow, alloc: fast.alloc, release: fast.release };
  };
  return {
    responseComplete: thunks.responseComplete,
    requestRelease: thunks.requestRelease,
    placing: () => (placing ??= makePlacing()),
    allocator: {
      alloc: thunks.alloc,
      release: thunks.release,
      query: thunks.query,
      bufferAttributes: thunks.bufferAttributes,
    },
    consumer: new RingConsumer(ring, waiter, pollMicros()),
  };
}

/** The pipe the event loop watches where the runtime can, otherwise the eventfd read. */
function wakeUp(lib: NativeLibrary): RingWaiter {
  try {
    return new PipeWaiter(lib.ffi);
  } catch {
    return new EventfdWaiter(lib.ffi);
  }
}
