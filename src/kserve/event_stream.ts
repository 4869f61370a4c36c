/**
 * A stream of responses as Server-Sent Events: one `data: <json>` event per response, written
 * while the response is held and disposed right after, pulled one at a time as the client reads.
 * A client that goes away cancels the body, which leaves the response stream and so cancels the
 * request in Triton.
 *
 * @module
 */
import type { InferResponse } from "../response.ts";
import { statusOf } from "./errors.ts";

const encoder = new TextEncoder();

/** One SSE event carrying `json`. */
export function sseEvent(json: string): Uint8Array {
  return encoder.encode(`data: ${json}\n\n`);
}

/** The SSE event of an error: `data: {"error": "..."}`. */
export function sseError(error: unknown): Uint8Array {
  return sseEvent(JSON.stringify({ error: statusOf(error).message }));
}

/**
 * The event stream of `responses`.
 * @param first a response already taken from `responses` (its status chose the HTTP status).
 * @param write the JSON of one response; what it throws (a response carrying an error, an output
 *   without a JSON form) becomes an error event and the stream goes on.
 * @param onEnd called once when the stream ends, is cancelled or fails.
 */
export function eventStream(
  first: InferResponse | undefined,
  responses: AsyncGenerator<InferResponse>,
  write: (response: InferResponse) => string,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  let pending = first;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
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
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending !== undefined) {
        const response = pending;
        pending = undefined;
        controller.enqueue(event(response));
        return;
      }
      let next: IteratorResult<InferResponse>;
      try {
        next = await responses.next();
      } catch (e) {
        // The request ended with an error (cancelled, the server stopping): say so and end.
        if (!ended) {
          controller.enqueue(sseError(e));
          controller.close();
        }
        end();
        return;
      }
      if (ended) {
        // Cancelled while waiting: the response stream was left already.
        if (!next.done) next.value.dispose();
        return;
      }
      if (next.done) {
        controller.close();
        end();
        return;
      }
      controller.enqueue(event(next.value));
    },
    async cancel() {
      pending?.dispose();
      pending = undefined;
      end();
      await responses.return(undefined);
    },
  }, { highWaterMark: 0 });
}
