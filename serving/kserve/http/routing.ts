/**
 * What a route of the KServe HTTP service is: a line of its table (method, paths, restricted-API
 * category, handler), the handler a small function of what the service's routes share
 * ({@link Served}) and the request, and the parts of the URL handlers read.
 *
 * @module
 */
import type { Context } from "hono";
import type { Server } from "../../../src/server.ts";
import type { RequestLimits } from "../../common/body.ts";
import type { EventStream } from "../../common/event_stream.ts";
import { withoutNul } from "../../common/json.ts";
import type { RestrictedCategory } from "../../common/restricted.ts";
import type { Method } from "../../common/routes.ts";
import { versionOf } from "../operations.ts";
import type { SharedMemoryRegions } from "../shared_memory.ts";
import type { TraceManager } from "../trace_manager.ts";
import type { StateChanges } from "../../common/state_changes.ts";

/** What the routes of one service share. */
export interface Served {
  readonly server: Server;
  /** The shared memory regions served; undefined where none are. */
  readonly regions: SharedMemoryRegions | undefined;
  readonly limits: RequestLimits;
  readonly traces: TraceManager;
  /** Threads serving the service (its `workers`). */
  readonly threads: number;
  /** Changes protocol state (shared memory, log and trace settings) for the whole service,
   * whichever thread answers (../protocol_state.ts). */
  readonly changes: StateChanges;
  /** Keeps the event stream of a streamed `response` (to `request`): the call counts until the
   * stream ends, and closing the service ends it. */
  readonly keepStream: (request: Request, response: Response, stream: EventStream) => void;
}

/** A route's handler. */
export type Handler = (served: Served, c: Context) => Response | Promise<Response>;

/** One line of a route table: the method (or methods), the paths, the restricted-API category,
 * the handler. */
export type RouteLine = readonly [
  Method | readonly Method[],
  readonly string[],
  RestrictedCategory,
  Handler,
];

/** The model name in the URL (percent-decoded).
 * @throws {TritonError} INVALID_ARG for a name holding a NUL character. */
export function modelName(c: Context): string {
  return withoutNul(c.req.param("name")!, "the model name");
}

/** The model version in the URL, -1 when none. */
export function versionIn(c: Context): number {
  return versionOf(c.req.param("version"));
}

/** A JSON response, `text` already JSON. */
export function json(text: string, status = 200): Response {
  return new Response(text, { status, headers: { "content-type": "application/json" } });
}

/** An empty 200. */
export function ok(): Response {
  return new Response(null, { status: 200 });
}
