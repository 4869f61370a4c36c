/**
 * `RequestStream`: one inference request from `TRITONSERVER_ServerInferAsync` to its end, and the
 * async generator of its responses that `infer()` returns.
 *
 * Two explicit states, each changed only by the events named below:
 *
 * - **native** — what Triton has said: `INFLIGHT` → `FINAL` (the FINAL flag came) or `RELEASED`
 *   (the request was released) → `DONE` (both). Until `DONE` the request object is kept, so that
 *   it can still be cancelled (a decoupled model may release its request before its last
 *   response); at `DONE` it is deleted, its route freed and its inputs let go.
 * - **consumer** — where the reader stands: `OPEN` (responses may still come) → `ENDING` (FINAL
 *   came: what is queued, then the end) or `FAILED` (the next step throws the error — an abort,
 *   the server stopping — and nothing more is delivered) → `CLOSED` (the reader has had the end,
 *   or left).
 *
 * Responses handed out belong to the reader (see `InferResponse`); the stream disposes only
 * those it never handed out. A response queue given with the request receives every response as
 * it arrives, and then the request's end: the FINAL response itself, or a stand-in FINAL response
 * (no outputs; `error` set when the request failed).
 *
 * A hand-written `AsyncGenerator` rather than an `async function*`: a response that is already
 * queued settles `next()` at once, with one promise and no generator resumptions in between.
 *
 * @module
 */
import {
  type Binding,
  CompletionKind,
  type CompletionKindValue,
  type CompletionTarget,
  type Ptr,
  ResponseCompleteFlag,
  type Tracked,
} from "../ffi/mod.ts";
import { TritonError } from "./errors.ts";
import { InferResponse, readResponse } from "./response.ts";
import type { OwnedRequest, ServerChildren } from "./server_children.ts";

/** What Triton has said about the request; see the module documentation. */
const Native = { INFLIGHT: 0, FINAL: 1, RELEASED: 2, DONE: 3 } as const;
type NativeState = (typeof Native)[keyof typeof Native];

/** Where the reader stands; see the module documentation. */
const Consumer = { OPEN: 0, ENDING: 1, FAILED: 2, CLOSED: 3 } as const;
type ConsumerState = (typeof Consumer)[keyof typeof Consumer];

type Result = IteratorResult<InferResponse, undefined>;

/** A `next()` waiting for a response or the end. */
interface Waiter {
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/** A step that throws. */
interface Thrown {
  readonly thrown: unknown;
}

const DONE = (): Result => ({ value: undefined, done: true });

/** What a request stream is given besides its native request. */
export interface StreamOptions {
  /** The server's children: the stream is one of its requests, its responses become its. */
  readonly owner: ServerChildren;
  /** The model and version asked for, and the request id (for stand-in end responses). */
  readonly model: { readonly name: string; readonly version: number };
  readonly id: string;
  /** A user queue that also receives every response, then the end. */
  readonly queue: { push(response: InferResponse): unknown } | undefined;
  /** Whether an error response is thrown (true) or yielded. */
  readonly raiseOnError: boolean;
  /** Whether a response keeps its native response also past the server's budget
   * (`InferRequest.keepResponses`). */
  readonly keepNative: boolean;
  /** Told of each response, a failure and the end (the request's span, `telemetry.ts`). */
  readonly observer?: StreamObserver;
}

/** What a {@link StreamOptions.observer} is told. */
export interface StreamObserver {
  /** A response arrived. */
  response(response: InferResponse): void;
  /** The stream failed (an abort, the server stopping). */
  failed(error: unknown): void;
  /** FINAL came and Triton released the request. */
  finished(): void;
}

/** See the module documentation. */
export class RequestStream
  implements AsyncGenerator<InferResponse, undefined, undefined>, CompletionTarget, OwnedRequest {
  readonly #options: StreamOptions;
  readonly #binding: Binding;
  /** `TRITONSERVER_InferenceRequest*` (set by {@link submitted} where it was made natively). */
  #request: Ptr;
  /** JS memory Triton reads from until release (input data). */
  #keep: unknown[];
  /** Its slot in the owner's table of attached requests (-1: none). */
  #slot = -1;
  /** Its completions' route, while Triton may call back for it. */
  #tracked: Tracked | undefined;
  #native: NativeState = Native.INFLIGHT;
  #consumer: ConsumerState = Consumer.OPEN;
  /** What a FAILED stream throws. */
  #error: unknown;
  /** Responses not yet handed out. */
  #items: InferResponse[] = [];
  /** Responses handed out that the reader has not moved past. */
  #handed: InferResponse[] = [];
  #waiters: Waiter[] = [];
  #signal: AbortSignal | undefined;
  #done: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #onAbort = () => {
    const reason = this.#signal?.reason;
    this.abort(new TritonError("CANCELLED", `request cancelled: ${describe(reason)}`));
  };

  /** @param request the native request, built and not yet submitted (NULL where the native
   * submitter makes it: {@link submitted} gives it); deleted at `DONE`. */
  constructor(request: Ptr, keep: unknown[], options: StreamOptions) {
    this.#request = request;
    this.#keep = keep;
    this.#options = options;
    this.#binding = options.owner.binding;
  }

  /** Routes completions here and counts the request as in flight; returns the route, whose
   * `userp` the request's callbacks are to receive. */
  track(): Tracked {
    this.#tracked = this.#binding.track(this);
    this.#options.owner.started(this);
    return this.#tracked;
  }

  /** Undoes {@link track}: Triton did not take the request (the caller deletes it). */
  untrack(): void {
    this.#tracked?.untrack();
    this.#options.owner.finished(this);
  }

  /** Triton took the request: `signal` may cancel it from now on. Never throws.
   * @param request the request, where the native submitter made it after this stream. */
  submitted(signal: AbortSignal | undefined, request?: Ptr): void {
    if (request !== undefined) this.#request = request;
    this.#slot = this.#options.owner.record(this.#request);
    if (!signal) return;
    this.#signal = signal;
    if (signal.aborted) return this.#onAbort();
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Resolves once Triton has sent FINAL and released the request. */
  get finished(): Promise<void> {
    if (this.#native === Native.DONE) return Promise.resolve();
    if (!this.#done) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#done = { promise, resolve };
    }
    return this.#done.promise;
  }

  // --- Triton's side -----------------------------------------------------------------------

  complete(kind: CompletionKindValue, object: Ptr, flags: number): void {
    const native = this.#native;
    if (kind === CompletionKind.RELEASE) {
      this.#native = native === Native.FINAL ? Native.DONE : Native.RELEASED;
      this.#keep = [];
    } else {
      const final = (flags & ResponseCompleteFlag.FINAL) !== 0;
      const response = this.#binding.lib.ffi.isNull(object)
        ? undefined
        : this.#response(object, final);
      if (final) {
        this.#native = native === Native.RELEASED ? Native.DONE : Native.FINAL;
        if (this.#consumer === Consumer.OPEN) {
          this.#consumer = Consumer.ENDING;
          if (response === undefined) this.#options.queue?.push(this.#end());
        }
      }
    }
    if (this.#native === Native.DONE) this.#finish();
    this.#serve();
  }

  /** Takes a delivered response: queued for the reader, or deleted unread when it is gone. */
  #response(object: Ptr, final: boolean): InferResponse | undefined {
    const owner = this.#options.owner;
    if (owner.closed) return undefined; // its server is deleted: nothing may be touched
    if (this.#consumer !== Consumer.OPEN) {
      owner.drop(object);
      return undefined;
    }
    const native = owner.adopt(object);
    let response: InferResponse;
    try {
      // Many responses held (nobody disposes them): this one lives in JS memory only.
      const inJs = owner.overBudget && !this.#options.keepNative;
      response = readResponse(native, final, inJs);
      if (inJs) response.materialize();
    } catch (e) {
      native.release();
      this.abort(
        e instanceof TritonError ? e : new TritonError("INTERNAL", String(e), { cause: e }),
      );
      return undefined;
    }
    this.#options.queue?.push(response);
    this.#items.push(response);
    this.#options.observer?.response(response);
    return response;
  }

  /** FINAL and release both came: the request is deleted and its route freed. */
  #finish(): void {
    this.#tracked?.untrack();
    this.#options.owner.erase(this.#slot, this.#request);
    this.#slot = -1;
    this.#options.owner.finished(this);
    // Deleted on a later macrotask (off the JS thread when many are pending), unless its server
    // already released everything: then the server is being deleted.
    if (!this.#options.owner.closed) this.#binding.nativeDeletes.request(this.#request);
    this.#done?.resolve();
    this.#options.observer?.finished();
  }

  // --- the reader's side -------------------------------------------------------------------

  /**
   * Ends the stream with `error` (an abort, the server stopping): the next step throws it and
   * nothing more is delivered; the request is cancelled in Triton if it has not sent FINAL.
   * Ignored once the stream failed or closed.
   */
  abort(error: Error): void {
    const consumer = this.#consumer;
    if (consumer === Consumer.FAILED || consumer === Consumer.CLOSED) return;
    this.#consumer = Consumer.FAILED;
    this.#error = error;
    this.#options.observer?.failed(error);
    this.#dropQueued();
    if (consumer === Consumer.OPEN) {
      this.#options.queue?.push(this.#end(error instanceof TritonError ? error : undefined));
    }
    this.#cancel();
    this.#serve();
  }

  /** The reader left (`return()`, `throw()`, `break`, or it threw on an error response). */
  #leave(): void {
    const consumer = this.#consumer;
    if (consumer === Consumer.CLOSED) return;
    this.#close();
    this.#dropQueued();
    if (consumer === Consumer.OPEN) {
      this.#options.queue?.push(this.#end(new TritonError("CANCELLED", "the consumer left")));
      this.#cancel();
    }
  }

  #close(): void {
    this.#consumer = Consumer.CLOSED;
    const signal = this.#signal;
    if (signal) {
      this.#signal = undefined;
      signal.removeEventListener("abort", this.#onAbort);
    }
  }

  /** Asks Triton to stop a request that has not sent FINAL
   * (`TRITONSERVER_InferenceRequestCancel`; the request object lives until `DONE`). */
  #cancel(): void {
    if (this.#native === Native.FINAL || this.#native === Native.DONE) return;
    const { lib } = this.#binding;
    const err = lib.api.TRITONSERVER_InferenceRequestCancel(this.#request);
    if (!lib.ffi.isNull(err)) lib.api.TRITONSERVER_ErrorDelete(err);
  }

  /** Disposes the responses never handed out (unless a user queue got them: they are its). */
  #dropQueued(): void {
    const items = this.#items;
    if (items.length === 0) return;
    this.#items = [];
    if (this.#options.queue) return;
    for (const response of items) response.dispose();
  }

  /** A stand-in FINAL response for the user queue. */
  #end(error?: TritonError): InferResponse {
    return InferResponse.end(this.#options.model, this.#options.id, error);
  }

  /** One step: the next response, the end, or undefined when nothing has arrived yet. */
  #step(): Result | Thrown | undefined {
    const response = this.#items.shift();
    if (response !== undefined) {
      if (response.error && this.#options.raiseOnError) {
        if (!this.#options.queue) response.dispose();
        this.#leave();
        return { thrown: response.error };
      }
      this.#handed.push(response);
      return { value: response, done: false };
    }
    switch (this.#consumer) {
      case Consumer.OPEN:
        return undefined;
      case Consumer.FAILED:
        this.#close();
        return { thrown: this.#error };
      case Consumer.ENDING:
        this.#close();
        return DONE();
      default:
        return DONE();
    }
  }

  /** The reader moved past what it was handed: those responses settle (their native object
   * goes where nothing reads it in place) on the next macrotask, after the next request went out. */
  #moveOn(): void {
    const handed = this.#handed;
    if (handed.length === 0) return;
    this.#handed = [];
    if (this.#options.keepNative) return; // each is kept until disposed or collected
    const deletes = this.#binding.deletes;
    for (const response of handed) deletes.later(settle, response);
  }

  /** Settles waiting `next()` calls, oldest first, while there is something to give them. */
  #serve(): void {
    while (this.#waiters.length > 0) {
      const step = this.#step();
      if (step === undefined) return;
      const waiter = this.#waiters.shift()!;
      if ("thrown" in step) waiter.reject(step.thrown);
      else waiter.resolve(step);
    }
  }

  /** The next response; `done` after the last one.
   * @throws {TritonError} the error a response or the request ended with (CANCELLED after an
   *   abort, UNAVAILABLE when the server stopped). */
  next(): Promise<Result> {
    if (this.#waiters.length === 0) {
      this.#moveOn();
      const step = this.#step();
      if (step !== undefined) {
        return "thrown" in step ? Promise.reject(step.thrown) : Promise.resolve(step);
      }
    }
    return new Promise<Result>((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Leaves the stream: disposes what was never handed out and cancels the request if it has
   * not sent FINAL. Responses already handed out stay the reader's. */
  return(): Promise<Result> {
    this.#moveOn();
    this.#leave();
    this.#serve();
    return Promise.resolve(DONE());
  }

  /** Leaves the stream like {@link return}, then rejects with `error`. */
  throw(error: unknown): Promise<Result> {
    this.#moveOn();
    this.#leave();
    this.#serve();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Same as {@link return}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}

function settle(response: InferResponse): void {
  response.settle();
}

/** An abort reason as text; never throws (a Symbol, an object whose toString throws). */
function describe(reason: unknown): string {
  try {
    return String(reason);
  } catch {
    return "aborted";
  }
}
