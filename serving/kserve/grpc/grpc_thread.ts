/**
 * One thread's part of `serveGrpc()`'s service, the calling thread's and each worker's alike
 * (`workers` > 1): the RPCs over the server with their context, the service's protocol state
 * (../protocol_state.ts), the transport listening, each call counted in its thread's slot, and
 * the steps of closing it.
 *
 * @module
 */
import { TritonError } from "../../../src/errors.ts";
import type { Server } from "../../../src/server.ts";
import { Calls, type ClosingSteps } from "../../common/lifecycle.ts";
import { type RestrictedApis, restrictionCheck } from "../../common/restricted.ts";
import type { StateApplier, StateChange, StateChanges } from "../../common/state_changes.ts";
import { kserveState } from "../protocol_state.ts";
import type { SharedMemoryRegions } from "../shared_memory.ts";
import { type TraceManager, traceOption, type TraceServeOptions } from "../trace_manager.ts";
import { serviceDefinitions } from "./definitions.ts";
import { healthHandlers, inferenceHandlers } from "./handlers.ts";
import { listenGrpcJs } from "./grpcjs_transport.ts";
import { listenHttp2 } from "./h2_transport.ts";
import type { RpcContext } from "./rpc.ts";
import { tracedService } from "./rpc_span.ts";
import { protocolRoot } from "./schema.ts";
import type { CompressionLevel, GrpcTransportName, ServiceImplementation } from "./transport.ts";

/** What one thread serves, and how (its options checked). */
export interface GrpcThreadOptions {
  readonly hostname: string;
  /** 0 picks a free one (the calling thread's; workers take the port it got). */
  readonly port: number;
  readonly transport: GrpcTransportName;
  /** The largest message either way, in bytes. */
  readonly maxMessageBytes: number;
  readonly level: CompressionLevel;
  readonly restrictedApis: RestrictedApis | undefined;
  readonly trace: TraceServeOptions | TraceManager | undefined;
  /** This thread's copy of the regions (the owner's is the registry). */
  readonly regions: SharedMemoryRegions | undefined;
  /** Threads serving the service. @default 1 */
  readonly threads?: number;
  /** Where `threads` > 1: makes changes of protocol state for the whole service. Absent: a
   * change is applied in this thread at once. */
  readonly changes?: StateChanges;
  /** In the owner, where `threads` > 1: has every worker apply a change the owner made. */
  readonly mirror?: (op: string, args: readonly unknown[]) => void;
  /** In a worker: the owner's protocol state, applied before it listens. */
  readonly snapshot?: readonly StateChange[];
  /** Calls taken, one `Int32Array` slot per thread, and this thread's index. */
  readonly counters: Int32Array;
  readonly index: number;
}

/** One thread's service, listening. */
export interface GrpcThread {
  /** The port it listens on. */
  readonly port: number;
  /** Calls being served in this thread. */
  readonly active: () => number;
  /** The service's protocol state, as this thread applies it. */
  readonly state: StateApplier;
  /** How this thread's part closes (`closing()`'s steps). */
  readonly steps: ClosingSteps;
}

/** `implementation` with each call counted in `counters[index]` as it begins. */
function counted(
  implementation: ServiceImplementation,
  counters: Int32Array,
  index: number,
): ServiceImplementation {
  return Object.fromEntries(
    Object.entries(implementation).map(([name, handler]) => [
      name,
      (...args: unknown[]) => {
        Atomics.add(counters, index, 1);
        return (handler as (...a: unknown[]) => void)(...args);
      },
    ]),
  ) as ServiceImplementation;
}

/**
 * Serves the RPCs of `serveGrpc()` for `server` in this thread, as `o` says, and resolves once
 * it listens.
 * @throws {TritonError} INVALID_ARG for bad `restrictedApis`; UNAVAILABLE when it cannot listen.
 */
export async function listenGrpcThread(server: Server, o: GrpcThreadOptions): Promise<GrpcThread> {
  const restricted = restrictionCheck(o.restrictedApis);
  const traces = traceOption(server, o.trace);
  const threads = o.threads ?? 1;
  const state = kserveState({
    server,
    regions: o.regions,
    traces: traces.manager,
    threads,
    mirror: o.mirror,
  });
  const ctx: RpcContext = {
    server,
    calls: new Calls(),
    denied: (category, call) =>
      restricted(category, (header) => {
        const values = call.metadata.get(header);
        return values.length > 0 ? String(values[0]) : null;
      }),
    root: protocolRoot(),
    traces: traces.manager,
    regions: o.regions,
    threads,
    // One thread: a change is applied here, at once.
    changes: o.changes ?? { change: async (op, args) => await state.apply(op, args) },
  };
  for (const change of o.snapshot ?? []) state.mirror(change.op, change.args);
  const definitions = serviceDefinitions(ctx.root);
  const implement = (definition: keyof typeof definitions, handlers: ServiceImplementation) =>
    counted(tracedService(definitions[definition], handlers), o.counters, o.index);
  let listener;
  try {
    listener = await (o.transport === "http2" ? listenHttp2 : listenGrpcJs)({
      hostname: o.hostname,
      port: o.port,
      reusePort: threads > 1,
      maxMessageBytes: o.maxMessageBytes,
      responseCompression: {
        level: o.level,
        methods: new Set([
          definitions.inference.ModelInfer.path,
          definitions.inference.ModelStreamInfer.path,
        ]),
      },
      services: [
        {
          definition: definitions.inference,
          implementation: implement("inference", inferenceHandlers(ctx)),
        },
        {
          definition: definitions.health,
          implementation: implement("health", healthHandlers(ctx)),
        },
      ],
    });
  } catch (e) {
    state.stop();
    if (traces.owned) await traces.manager.close();
    throw e;
  }
  const l = listener;
  return {
    port: l.port,
    active: () => ctx.calls.size,
    state,
    steps: {
      stopAccepting: () => l.stopAccepting(),
      idle: () => ctx.calls.idle(),
      endInFlight: () => {
        ctx.calls.abortAll(new TritonError("UNAVAILABLE", "the gRPC service is closing"));
        l.endInFlight();
      },
      finish: () => {
        state.stop();
        return traces.owned ? traces.manager.close() : Promise.resolve();
      },
    },
  };
}
