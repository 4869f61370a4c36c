/**
 * A stream of responses as Server-Sent Events: one `data: <json>` event per response, written
 * while the response is held and disposed right after, pulled one at a time as the client reads.
 * A client that goes away cancels the body, which leaves the response stream and so cancels the
 * request in Triton.
 *
 * @module
 */
import type { InferResponse } from "../../src/response.ts";
import { statusOf } from "./http_errors.ts";

const encoder = new TextEncoder();

/** One SSE event carrying `json`. */
export function sseEvent(json: string): Uint8Array {
  return encoder.encode(`data: ${json}\n\n`);
}

/** The SSE event of an error: `data: {"error": "..."}`. */
export function sseError(error: unknown): Uint8Array {
  return sseEvent(JSON.stringify({ error: statusOf(error).message }));
}

/** A response stream as an SSE body, and its end. */
export interface EventStream {
  /** The body to send. */
  readonly body: ReadableStream<Uint8Array>;
  /** Resolves once the stream ended, was cancelled by the client, failed or was stopped. */
  readonly ended: Promise<void>;
  /** Ends the stream now: a last event says why (`reason`'s message), and the request is
   * cancelled in Triton. Does nothing once ended. */
  stop(reason: unknown): void;
}

/**
 * The event stream of `responses`.
 * @param first a response already taken from `responses` (its status chose the HTTP status).
 * @param write the JSON of one response; what it throws (a response carrying an error, an output
 *   without a JSON form) becomes an error event and the stream goes on.
 */
export function eventStream(
  first: InferResponse | undefined,
  responses: AsyncGenerator<InferResponse>,
  write: (response: InferResponse) => string,
): EventStream {
  let pending = first;
  let done = false;
  let onEnded!: () => void;
  const ended = new Promise<void>((resolve) => (onEnded = resolve));
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Ends once: disposes what is held, leaves the response stream (cancelling the request if it
   * is not complete). */
  const end = () => {
    if (done) return;
    done = true;
    pending?.dispose();
    pending = undefined;
    responses.return(undefined).finally(onEnded);
  };
  const event = (response: InferResponse): Uint8Array => {
    try {
      return sseEvent(write(response));
    } catch (e) {
      return sseError(e);
    } finally {
      response.dispose();
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      if (pending !== undefined) {
        const response = pending;
        pending = undefined;
        c.enqueue(event(response));
        return;
      }
      let next: IteratorResult<InferResponse>;
      try {
        next = await responses.next();
      } catch (e) {
        // The request ended with an error (cancelled, the server stopping): say so and end.
        if (!done) {
          c.enqueue(sseError(e));
          c.close();
        }
        end();
        return;
      }
      if (done) {
        // Stopped or cancelled while waiting: the response stream was left already.
        if (!next.done) next.value.dispose();
        return;
      }
      if (next.done) {
        c.close();
        end();
        return;
      }
      c.enqueue(event(next.value));
    },
    cancel() {
      end();
      return ended;
    },
  }, { highWaterMark: 0 });
  return {
    body,
    ended,
    stop(reason) {
      if (done) return;
      try {
        controller.enqueue(sseError(reason));
        controller.close();
      } catch {
        // Already closed or errored by the runtime: nothing more to say.
      }
      end();
    },
  };
}
