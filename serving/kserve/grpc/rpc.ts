/**
 * What every RPC of the service shares — the server, the calls in flight, who may call what, the
 * schema, the traces and the shared memory regions — and the making of a unary RPC over it.
 *
 * @module
 */
import type protobuf from "protobufjs";
import type { Server } from "../../../src/server.ts";
import type { Calls } from "../../common/lifecycle.ts";
import type { RestrictedCategory } from "../../common/restricted.ts";
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
}

/** A request message as decoded (`longs` as strings, defaults filled in). */
export type Message = Record<string, unknown>;

/** A unary RPC over `ctx`: `run` gives the response (a plain object of `responseType`, converted
 * with `fromObject` where `convert`, or bytes already encoded). */
export function unary(
  ctx: RpcContext,
  category: RestrictedCategory,
  responseType: string,
  run: (request: Message, signal: AbortSignal) => unknown,
  convert = false,
): UnaryHandler {
  const res = ctx.root.lookupType(responseType);
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
    new Promise((resolve) => resolve(run(call.request as Message, controller.signal))).then(
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
