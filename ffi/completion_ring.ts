/**
 * The completion ring of the JS-callback path: how Triton's completions reach the JS thread when
 * the producers are JS callbacks (`TRITONFFI_CALLBACKS=js`, or where the native path is refused).
 *
 * One contract for every producer: a completion is a fixed-size slot `(kind, object, flags,
 * userp)` drained on a later macrotask. The native path (`native/ring.ts`) keeps the same
 * contract with slots in native memory filled by native code, so `src/` sees no difference.
 *
 * This ring grows (doubling) instead of dropping: JS-callback producers run on the JS thread and
 * cannot wait for the consumer, and the number of slots in use is bounded by the responses and
 * releases in flight.
 *
 * @module
 */
import type { Ptr } from "./types.ts";

/** What a slot holds. */
export const CompletionKind = {
  /** `TRITONSERVER_InferenceResponseCompleteFn_t`: object is a response (may be NULL). */
  RESPONSE: 1,
  /** `TRITONSERVER_InferenceRequestReleaseFn_t`: object is the request. */
  RELEASE: 2,
} as const;

/** A completion's kind. */
export type CompletionKindValue = (typeof CompletionKind)[keyof typeof CompletionKind];

/** Receives each drained completion. `userp` is the integer the binding passed as `void*`. */
export type CompletionHandler = (
  kind: CompletionKindValue,
  object: Ptr,
  flags: number,
  userp: number,
) => void;

/** A multi-slot FIFO of completions, drained in order on the JS thread. */
export class CompletionRing {
  #objects: Ptr[];
  #kinds: Uint8Array;
  #flags: Uint32Array;
  #userps: Float64Array;
  #head = 0;
  #size = 0;

  /** @param capacity initial number of slots (a power of two). */
  constructor(capacity = 1024) {
    this.#objects = new Array(capacity);
    this.#kinds = new Uint8Array(capacity);
    this.#flags = new Uint32Array(capacity);
    this.#userps = new Float64Array(capacity);
  }

  /** Slots in use. */
  get size(): number {
    return this.#size;
  }

  /** Appends one completion. */
  push(kind: CompletionKindValue, object: Ptr, flags: number, userp: number): void {
    if (this.#size === this.#kinds.length) this.#grow();
    const i = (this.#head + this.#size) & (this.#kinds.length - 1);
    this.#objects[i] = object;
    this.#kinds[i] = kind;
    this.#flags[i] = flags;
    this.#userps[i] = userp;
    this.#size++;
  }

  /** Hands every completion in the ring to `handler`, oldest first. */
  drain(handler: CompletionHandler): void {
    while (this.#size > 0) {
      const i = this.#head;
      const object = this.#objects[i];
      this.#objects[i] = undefined as unknown as Ptr;
      this.#head = (i + 1) & (this.#kinds.length - 1);
      this.#size--;
      handler(this.#kinds[i] as CompletionKindValue, object, this.#flags[i], this.#userps[i]);
    }
  }

  #grow(): void {
    const n = this.#kinds.length;
    const objects: Ptr[] = new Array(n * 2);
    const kinds = new Uint8Array(n * 2);
    const flags = new Uint32Array(n * 2);
    const userps = new Float64Array(n * 2);
    for (let k = 0; k < this.#size; k++) {
      const i = (this.#head + k) & (n - 1);
      objects[k] = this.#objects[i];
      kinds[k] = this.#kinds[i];
      flags[k] = this.#flags[i];
      userps[k] = this.#userps[i];
    }
    this.#objects = objects;
    this.#kinds = kinds;
    this.#flags = flags;
    this.#userps = userps;
    this.#head = 0;
  }
}
