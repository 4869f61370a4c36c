/**
 * `ResponseQueue`: an async-iterable queue that `infer({ responseQueue })` feeds, so responses can
 * be consumed apart from the generator (or by several requests into one queue).
 *
 * @module
 */
import type { InferResponse } from "./response.ts";

/**
 * A FIFO of responses that is also an async iterable. Responses pushed here are owned by whoever
 * takes them from the queue: dispose them (or let `using` do it) when done.
 *
 * @example
 * ```ts
 * const queue = new ResponseQueue();
 * const stream = model.infer({ inputs, responseQueue: queue });
 * for await (const r of queue) { using _ = r; if (r.final) break; }
 * ```
 */
export class ResponseQueue implements AsyncIterable<InferResponse> {
  #items: InferResponse[] = [];
  #waiters: ((r: IteratorResult<InferResponse>) => void)[] = [];
  #closed = false;

  /** Number of responses waiting. */
  get size(): number {
    return this.#items.length;
  }

  /** Adds a response (called by the binding as responses arrive). */
  push(response: InferResponse): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter({ value: response, done: false });
    else this.#items.push(response);
  }

  /** Ends iteration once the queued responses are taken. */
  close(): void {
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w({ value: undefined, done: true });
  }

  /** The next response, waiting for one; `undefined` once closed and empty. */
  async get(): Promise<InferResponse | undefined> {
    const r = await this.#next();
    return r.done ? undefined : r.value;
  }

  #next(): Promise<IteratorResult<InferResponse>> {
    const item = this.#items.shift();
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<InferResponse> {
    return { next: () => this.#next() };
  }
}
