/**
 * `ResponseStream`: the async generator of one request's responses, as `infer()` returns it.
 *
 * A hand-written `AsyncGenerator` rather than an `async function*`: a response that is already
 * queued settles `next()` at once, with one promise and no generator resumptions in between.
 *
 * @module
 */
import { macrotask } from "../ffi/macrotask.ts";
import { TritonError } from "./errors.ts";
import type { InflightRequest, InflightTable } from "./inflight.ts";
import type { InferResponse } from "./response.ts";

type Result = IteratorResult<InferResponse, undefined>;

/** A `next()` waiting for a response or the end. */
interface Waiter {
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/** What a step of the stream gives: a result, an error to throw, or nothing yet. */
class Thrown {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

const DONE = (): Result => ({ value: undefined, done: true });

/**
 * The responses of one request, in order. Each response is disposed when the consumer asks for
 * the next one or leaves (unless a user queue also received it: then the queue's consumer owns
 * it): unreadable at once, its native delete (`TRITONSERVER_InferenceResponseDelete`) on the next
 * macrotask. Leaving before FINAL (`return()`, `break`, `throw()`) cancels the request
 * (`TRITONSERVER_InferenceRequestCancel`). Concurrent `next()` calls are served in order; when
 * one of them receives the end, the responses the others received are disposed on a later
 * macrotask.
 */
export class ResponseStream implements AsyncGenerator<InferResponse, undefined, undefined> {
  readonly #table: InflightTable;
  readonly #state: InflightRequest;
  readonly #raiseOnError: boolean;
  /** Whether this stream disposes the responses it hands out (no user queue). */
  readonly #owned: boolean;
  /** Responses handed out and not yet disposed (more than one only with concurrent `next()`). */
  #handed: InferResponse[] = [];
  #done = false;
  #waiters: Waiter[] = [];

  constructor(table: InflightTable, state: InflightRequest, raiseOnError: boolean) {
    this.#table = table;
    this.#state = state;
    this.#raiseOnError = raiseOnError;
    this.#owned = state.queue === undefined;
    state.onReady = () => this.#serve();
  }

  /** The next response; `done` after the last one.
   * @throws {TritonError} the error a response or the request ended with (CANCELLED after an
   *   abort, UNAVAILABLE when the server stopped). */
  next(): Promise<Result> {
    if (this.#waiters.length === 0) {
      // The consumer asks for the next one: the turn of those handed out is over.
      this.#release();
      const step = this.#step();
      if (step !== undefined) {
        return step instanceof Thrown ? Promise.reject(step.error) : Promise.resolve(step);
      }
    }
    return new Promise<Result>((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Leaves the stream: disposes the responses handed out and cancels the request if it is not
   * complete. */
  return(): Promise<Result> {
    this.#leave();
    return Promise.resolve(DONE());
  }

  /** Leaves the stream like {@link return}, then rejects with `error`. */
  throw(error: unknown): Promise<Result> {
    this.#leave();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Same as {@link return}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  #leave(): void {
    if (!this.#done) this.#finish();
    this.#release();
    this.#serve();
  }

  /** Settles waiting `next()` calls, oldest first, while there is something to give them. */
  #serve(): void {
    while (this.#waiters.length > 0) {
      const step = this.#step();
      if (step === undefined) return;
      const waiter = this.#waiters.shift()!;
      if (step instanceof Thrown) waiter.reject(step.error);
      else waiter.resolve(step);
      // The end went to one of several waiters: the others read their responses first.
      if (this.#done && this.#handed.length > 0) macrotask(() => this.#release());
    }
  }

  /** One step: the next response, the end, or undefined when nothing has arrived yet. */
  #step(): Result | Thrown | undefined {
    if (this.#done) return DONE();
    const state = this.#state;
    const response = state.take();
    if (response !== undefined) {
      if (response.error && this.#raiseOnError) {
        if (this.#owned) response.dispose();
        this.#finish();
        return new Thrown(response.error);
      }
      if (this.#owned) this.#handed.push(response);
      return { value: response, done: false };
    }
    if (!state.ended) return undefined;
    this.#finish();
    return state.endError ? new Thrown(state.endError) : DONE();
  }

  /** Disposes the responses handed out so far (those this stream owns). */
  #release(): void {
    const handed = this.#handed;
    if (handed.length === 0) return;
    this.#handed = [];
    for (const response of handed) response.disposeSoon();
  }

  /** Ends the stream; a request not yet complete is cancelled. */
  #finish(): void {
    this.#done = true;
    const state = this.#state;
    state.onReady = undefined;
    if (!state.final) {
      this.#table.abort(state, new TritonError("CANCELLED", "the consumer left"));
    } else if (this.#owned) {
      // FINAL came already, but responses may still be queued (the consumer left, or threw on
      // an error response, before taking them): nobody else will.
      for (let r = state.take(); r !== undefined; r = state.take()) r.disposeSoon();
    }
  }
}
