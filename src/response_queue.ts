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
 * import { ResponseQueue, Server } from "tritonffi";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * const queue = new ResponseQueue();
 * const inputs = {
 *   IN: new Int32Array([1, 2]),
 *   DELAY: new Uint32Array([0, 0]),
 *   WAIT: new Uint32Array([0]),
 * };
 * // The responses go to the queue whether or not anyone iterates the stream.
 * const stream = server.model("repeat_int32").infer({ inputs, responseQueue: queue });
 * for await (const r of queue) {
 *   using _ = r;
 *   if (r.final) break;
 *   console.log(r.output("OUT", "INT32").data[0]); // 1, then 2
 * }
 * await stream.return(undefined);
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
