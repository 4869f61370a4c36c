/**
 * What every RPC of the service shares — the server, the calls in flight, who may call what, the
 * schema, the traces, the shared memory regions and how protocol state changes — and the making
 * of a unary RPC over it.
 *
 * @module
 */
import type protobuf from "protobufjs";
import type { Server } from "../../../src/server.ts";
import type { Calls } from "../../common/lifecycle.ts";
import type { RestrictedCategory } from "../../common/restricted.ts";
import type { StateChanges } from "../../common/state_changes.ts";
import type { SharedMemoryRegions } from "../shared_memory.ts";
import type { TraceManager } from "../trace_manager.ts";
import { statusOf } from "./status.ts";
import { type CallMetadata, Status, type UnaryHandler } from "./transport.ts";

/** What the RPCs share: the server, the calls in flight, who may call what, the schema. */
export interface RpcContext {
  readonly server: Server;
  readonly calls: Calls;
  /** Why a call may not use `category` (the details of its UNAVAILABLE), or undefined. */
  readonly denied: (
    category: RestrictedCategory,
    call: { readonly metadata: CallMetadata },
  ) => string | undefined;
  /** The protocol's messages. */
  readonly root: protobuf.Root;
  /** The service's trace settings, and the traces of the requests it samples. */
  readonly traces: TraceManager;
  /** The system shared memory regions served; undefined where none are. */
  readonly regions: SharedMemoryRegions | undefined;
  /** Threads serving the service (`serveGrpc()`'s `workers`). */
  readonly threads: number;
  /** How a change of protocol state (../protocol_state.ts: shared memory registered or
   * unregistered, log and trace settings) is made: for the whole service, however many threads
   * serve it. */
  readonly changes: StateChanges;
}

/** A request message as decoded (`longs` as strings, defaults filled in). */
export type Message = Record<string, unknown>;

/** What a unary RPC does: `request` (with the call's `signal`) → the response, a plain object
 * or bytes already encoded (with `encode`, the response type's encoder, where the response must
 * be encoded before something it views is released). */
export type Rpc = (
  ctx: RpcContext,
  request: Message,
  signal: AbortSignal,
  encode: (message: object) => Uint8Array,
) => unknown;

/** How a handler's plain object becomes the response message: as it is, or through protobufjs's
 * `fromObject` (64-bit numbers and enums as they are read). */
export type Conversion = "asIs" | "fromObject";

/** One line of a service's table of unary RPCs: its restricted-API category, its handler, its
 * {@link Conversion} (default `"asIs"`). */
export type RpcLine = readonly [RestrictedCategory, Rpc, Conversion?];

/** A unary RPC over `ctx`: `run` gives the response (a plain object of `responseType`, converted
 * as `conversion` says, or bytes already encoded). */
export function unary(
  ctx: RpcContext,
  category: RestrictedCategory,
  responseType: string,
  run: Rpc,
  conversion: Conversion = "asIs",
): UnaryHandler {
  const res = ctx.root.lookupType(responseType);
  const encode = (message: object): Uint8Array => res.encode(message).finish();
  const convert = conversion === "fromObject";
  const { calls } = ctx;
  return (call, callback) => {
    const denied = ctx.denied(category, call);
    if (denied !== undefined) return callback({ code: Status.UNAVAILABLE, details: denied });
    const controller = calls.begin();
    // grpc-js emits "cancelled" when the call's stream closes, answered or not: only a call
    // still in flight (not yet ended) is cancelled.
    call.on("cancelled", () => {
      if (calls.has(controller)) controller.abort(new Error("the client cancelled the call"));
    });
    new Promise((resolve) => resolve(run(ctx, call.request as Message, controller.signal, encode)))
      .then(
        (value) => {
          calls.end(controller);
          callback(null, convert ? res.fromObject(value as object) : value);
        },
        (e) => {
          calls.end(controller);
          callback(statusOf(e));
        },
      );
  };
}
