/**
 * `CompletionRoutes`: which object receives the completions Triton sends with a given `userp`.
 *
 * Triton is given one function pointer per callback kind for the whole library; what tells
 * requests apart is `userp`, a small integer passed as `void*`. This table only maps that integer
 * to its target. Ids are reused (freed ones first), and so are their pointer objects; id 0 is never
 * handed out (it would be NULL).
 *
 * @module
 */
import type { CompletionKindValue } from "./completion_ring.ts";
import type { FfiRuntime, Ptr } from "./types.ts";

/** What receives a request's completions, on the JS thread, on a later macrotask. */
export interface CompletionTarget {
  /**
   * A response (`object` may be NULL with only the FINAL flag) or the request's release.
   * Must not throw.
   */
  complete(kind: CompletionKindValue, object: Ptr, flags: number): void;
}

/** The `userp` → target map of one library. */
export class CompletionRoutes {
  readonly #ffi: FfiRuntime;
  /** Targets by id; `undefined` where the id is free. */
  readonly #targets: (CompletionTarget | undefined)[] = [undefined];
  /** `userp` pointers by id. */
  readonly #userps: Ptr[];
  readonly #free: number[] = [];

  constructor(ffi: FfiRuntime) {
    this.#ffi = ffi;
    this.#userps = [ffi.NULL];
  }

  /** Routes an id to `target` and returns it (a freed id first, else a new one). */
  add(target: CompletionTarget): number {
    let id = this.#free.pop();
    if (id === undefined) {
      id = this.#targets.length;
      this.#targets.push(undefined);
      this.#userps.push(this.#ffi.fromAddress(id));
    }
    this.#targets[id] = target;
    return id;
  }

  /** The pointer to give Triton as `userp` for `id`. */
  userp(id: number): Ptr {
    return this.#userps[id];
  }

  /** Frees `id`; later completions with it find no target. */
  remove(id: number): void {
    if (this.#targets[id] === undefined) return;
    this.#targets[id] = undefined;
    this.#free.push(id);
  }

  /** The target of `userp`, if any. */
  get(userp: number): CompletionTarget | undefined {
    return this.#targets[userp];
  }
}
