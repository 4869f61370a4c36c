/**
 * `DeferredDeletes`: work that the inference hot path moves off its critical path (settling the
 * responses a reader moved past, which then queue their native delete with `NativeDeletes`). It
 * runs together on a later macrotask, after the code the completions resumed (typically the
 * next `infer()`) has run;
 * {@link DeferredDeletes.flush} runs them at once (before a server stops). One per
 * {@link Binding}.
 *
 * @module
 */
import { macrotask } from "./macrotask.ts";

/** A queue of `fn(arg)` calls run on a later macrotask. */
export class DeferredDeletes {
  #fns: ((arg: never) => void)[] = [];
  #args: unknown[] = [];
  readonly #flush = () => this.flush();

  /** Runs every pending delete now, oldest first. Never throws. */
  flush(): void {
    while (this.#fns.length > 0) {
      const f = this.#fns;
      const a = this.#args;
      this.#fns = [];
      this.#args = [];
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

  /** Calls `fn(arg)` on a later macrotask (or at the next {@link flush}). Never throws. */
  later<T>(fn: (arg: T) => void, arg: T): void {
    if (this.#fns.length === 0) macrotask(this.#flush);
    this.#fns.push(fn as (arg: never) => void);
    this.#args.push(arg);
  }
}
