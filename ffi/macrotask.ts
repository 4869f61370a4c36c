/**
 * Runs a function on a later macrotask: never inside the current callback or its microtask
 * checkpoint (on Deno, promise continuations queued in a threadsafe callback run before Triton's
 * thread is released, so a blocking call among them deadlocks: docs/ffi-facts.md).
 * `setImmediate` where the runtime has it (Deno, Bun, Node: a few µs); `setTimeout(0)` otherwise
 * (clamped to milliseconds when nested).
 *
 * @module
 */

/** Queues `fn` on a later macrotask. */
export const macrotask: (fn: () => void) => void = typeof globalThis.setImmediate === "function"
  ? (fn) => {
    globalThis.setImmediate(fn);
  }
  : (fn) => {
    setTimeout(fn, 0);
  };
