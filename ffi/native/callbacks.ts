/**
 * The native fast path: the callbacks Triton's threads wait on, as native code instead of JS.
 *
 * - Deno and Node on x86-64 Linux: machine code generated at run time (`x86_64/ring.ts`) for
 *   response-complete and request-release (pushes into the {@link NativeRing}; the wake-up is a
 *   write to a pipe the event loop watches, or to an eventfd read off the JS thread where the
 *   runtime cannot watch a pipe), for the allocator's CPU policy (libc `malloc`/`free`; other
 *   policies jump to the JS allocator), and for the placing allocator's placed outputs
 *   (`x86_64/placing.ts`; the rest jumps to its JS functions).
 * - Bun: the same ring producers in C compiled by `cc()` (`bun_ring.ts`), woken through a
 *   posted `JSCallback`; Bun's allocator is already C (`allocator.ts`).
 *
 * Anything that stands in the way (another OS or CPU, executable memory refused, no C compiler)
 * throws, and `callbacks.ts` falls back to JS callbacks.
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
import { platform } from "../os.ts";
import { env } from "../runtime.ts";
import { compileBunRing } from "./bun_ring.ts";
import { installPlacingThunks, installThunks } from "./install.ts";
import type { NativeLibrary, Ptr } from "../types.ts";

/** Slots of the ring (one per binding; 16384 × 32 bytes = 512 KiB). */
export const RING_CAPACITY = 16384;

/** How long the consumer polls an empty ring before sleeping, µs (`TRITONFFI_POLL_US`). */
export const DEFAULT_POLL_MICROS = 50;

function pollMicros(): number {
  const value = env("TRITONFFI_POLL_US");
  if (value === undefined || value === "") return DEFAULT_POLL_MICROS;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) {
    throw new Error(`TRITONFFI_POLL_US must be a number of microseconds ≥ 0, not "${value}"`);
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
 * Builds the native callbacks for this runtime.
 * @param js the JS allocator (Deno, Node), the target of non-CPU allocations.
 * @throws {Error} where the native path is unavailable (the message says why).
 */
export function nativeCallbacks(lib: NativeLibrary, js: AllocatorFunctions): NativeCallbacks {
  const { ffi } = lib;
  const { arch, linux } = platform();
  if (!linux) throw new Error("the native callbacks need Linux");
  if (arch !== "x86_64") throw new Error(`no native callbacks for ${arch} yet (x86-64 only)`);
  const ring = new NativeRing(ffi, RING_CAPACITY);

  if (!ffi.callbacksReturnToForeignThreads) {
    const waiter = new PostedWaiter();
    const wake = ffi.callback({ parameters: [], result: "void" }, waiter.fire);
    const pushes = compileBunRing(ffi, ring.address, ring.capacity, wake);
    return { ...pushes, consumer: new RingConsumer(ring, waiter, pollMicros()) };
  }

  const waiter = wakeUp(lib);
  const address = (p: Ptr) => BigInt(ffi.address(p));
  const thunks = installThunks(ffi, {
    ring: address(ring.address),
    capacity: ring.capacity,
    eventfd: waiter.fd,
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
    const fast = installPlacingThunks(ffi, {
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
