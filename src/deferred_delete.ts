/**
 * Native deletes that the inference hot path moves off its critical path: a response the stream
 * has moved past, a request Triton released. They run together on a later macrotask, after the
 * code the completions resumed (typically the next `infer()`) has run; {@link flushDeletes} runs
 * them at once (before the server stops).
 *
 * @module
 */
import { macrotask } from "../ffi/macrotask.ts";

let fns: ((arg: never) => void)[] = [];
let args: unknown[] = [];

/** Runs every pending delete now, oldest first. */
export function flushDeletes(): void {
  while (fns.length > 0) {
    const [f, a] = [fns, args];
    fns = [];
    args = [];
    for (let i = 0; i < f.length; i++) {
      try {
        (f[i] as (arg: unknown) => void)(a[i]);
      } catch (e) {
        // A delete never throws by design; if one does, the others still run.
        console.error("tritonffi: a deferred delete failed:", e);
      }
    }
  }
}

/** Calls `fn(arg)` on a later macrotask (or at the next {@link flushDeletes}). Never throws; nor
 * does {@link flushDeletes}. */
export function deleteLater<T>(fn: (arg: T) => void, arg: T): void {
  if (fns.length === 0) macrotask(flushDeletes);
  fns.push(fn as (arg: never) => void);
  args.push(arg);
}
