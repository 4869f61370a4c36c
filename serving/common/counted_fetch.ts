/**
 * A front end's fetch handler that counts each call while it is served: until its response is
 * returned or, for an event stream, until the stream ends. What `close()` waits for, and what a
 * service's `active` says.
 *
 * @module
 */
import type { EventStream } from "./event_stream.ts";
import type { Calls } from "./lifecycle.ts";
import type { FetchHandler } from "./listen.ts";

/**
 * `handle` as a {@link FetchHandler} counted in `calls`.
 * @param handle the routes (a Hono app's `fetch`).
 * @param onError the response for what `handle` throws.
 * @param streams the event streams of the streamed responses, by response.
 */
export function countedFetch(
  handle: (request: Request) => Response | Promise<Response>,
  onError: (error: unknown) => Response,
  calls: Calls,
  streams: WeakMap<Response, EventStream>,
): FetchHandler {
  return async (request) => {
    const call = calls.begin();
    let response: Response;
    try {
      response = await handle(request);
    } catch (e) {
      response = onError(e);
    }
    const stream = streams.get(response);
    if (stream) stream.ended.then(() => calls.end(call));
    else calls.end(call);
    return response;
  };
}
