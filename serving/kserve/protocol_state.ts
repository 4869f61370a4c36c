/**
 * The KServe protocol's state, one for a whole service however many threads serve it
 * (../common/state_changes.ts): its changes — system and CUDA shared memory registered and
 * unregistered, log settings, trace settings — as named operations on plain values, applied by
 * the owner and mirrored in every worker.
 *
 * On one thread a change is applied where it is asked for. On several:
 * - system shared memory: the owner's {@link SharedMemoryRegions} is the registry; every region
 *   registered or unregistered there (through any worker, through `serveGrpc()` given the same
 *   regions, or by a call of its own) is mapped or unmapped in each worker's copy, and a call of
 *   the service returns once every worker has done so. A region a request still reads stays
 *   mapped in that request's thread until it is done, as on one thread;
 * - CUDA shared memory: registering is UNSUPPORTED ({@link cudaWithWorkers}: each thread would
 *   open the client's IPC handle again, which CUDA allows once per process);
 * - log settings: Triton's logger is process-wide; the owner changes it, each worker records the
 *   same settings so that every thread answers them;
 * - trace settings: changed in every thread alike; turning tracing on is UNSUPPORTED (each
 *   thread would sample and write the trace file on its own).
 *
 * @module
 */
import type { Server } from "../../src/server.ts";
import type { StateApplier, StateChange } from "../common/state_changes.ts";
import { unsupported } from "../common/refusals.ts";
import type { LogSettingValue, TraceSettingValue } from "./log_trace_settings.ts";
import { logSettings, updateLogSettings, updateTraceSettings } from "./log_trace_settings.ts";
import { sharedMemoryRegister, sharedMemoryUnregister } from "./operations.ts";
import type { SharedMemoryRegions } from "./shared_memory.ts";
import { TraceManager, type TraceServeOptions } from "./trace_manager.ts";

/** The operations (their names, as {@link StateChange.op}). */
export const Op = {
  /** `[name, key?, offset?, byteSize?]` as the client gave them. */
  SHM_REGISTER: "shm.register",
  /** `[name]` ("" for every region). */
  SHM_UNREGISTER: "shm.unregister",
  /** `[update]`: log settings by `tritonserver`'s names. */
  LOG_UPDATE: "log.update",
  /** `[model, update]`: trace settings of `model` ("" for the global ones). */
  TRACE_UPDATE: "trace.update",
} as const;

/** What the operations work on. */
export interface KServeState {
  readonly server: Server;
  readonly regions: SharedMemoryRegions | undefined;
  readonly traces: TraceManager;
  /** Threads serving the service. */
  readonly threads: number;
  /** In the owner of several threads: has every worker apply a change. */
  readonly mirror?: (op: string, args: readonly unknown[]) => void;
}

/** @throws {TritonError} UNSUPPORTED: CUDA shared memory is not registered with workers > 1. */
export function cudaWithWorkers(): never {
  unsupported(
    "CUDA shared memory is not served with workers > 1: each thread would open the client's " +
      "IPC handle, which CUDA opens once per process (serve with workers: 1 for it)",
  );
}

/**
 * `trace` as the workers of a service take it (each makes its own {@link TraceManager} from it).
 * @param what the function served, for messages (`"serve()"`).
 * @throws {TritonError} UNSUPPORTED for a {@link TraceManager} (its settings and file belong to
 *   one thread) or a trace level other than OFF (each thread would sample and write the trace
 *   file on its own).
 */
export function traceForWorkers(
  what: string,
  trace: TraceServeOptions | TraceManager | undefined,
): TraceServeOptions | undefined {
  if (trace instanceof TraceManager) {
    unsupported(
      `${what}: workers > 1 takes trace options, not a TraceManager (its settings and file ` +
        "belong to one thread)",
    );
  }
  const level = trace?.level;
  if (level !== undefined && level !== "OFF" && !(Array.isArray(level) && level.join() === "OFF")) {
    unsupported(
      `${what}: tracing is not served with workers > 1 (each thread would sample and write ` +
        "the trace file on its own); serve with workers: 1 to trace",
    );
  }
  return trace;
}

/** Whether `update` turns tracing on (its `trace_level` given and not only OFF). */
function turnsTracingOn(update: Readonly<Record<string, TraceSettingValue>>): boolean {
  const level = update.trace_level;
  return level !== undefined && level !== null && !(level.length === 1 && level[0] === "OFF");
}

/**
 * The service's {@link StateApplier}. In the owner of several threads it also mirrors every
 * system region its registry registers or unregisters (until `stop` is called).
 */
export function kserveState(state: KServeState): StateApplier & { stop(): void } {
  const { server, regions, traces, threads, mirror } = state;
  const stopWatching = mirror === undefined || regions === undefined
    ? () => {}
    : regions.watch((change) => mirror(change.op, change.args));
  const log = (update: Record<string, LogSettingValue>) => updateLogSettings(server, update);
  const trace = (model: string, update: Record<string, TraceSettingValue>) =>
    updateTraceSettings(server, traces, model, update);
  return {
    apply(op, args) {
      switch (op) {
        case Op.SHM_REGISTER: {
          const [name, key, offset, byteSize] = args as [string, string?, number?, number?];
          return sharedMemoryRegister(regions, name, key, offset, byteSize);
        }
        case Op.SHM_UNREGISTER:
          return sharedMemoryUnregister(regions, args[0] as string);
        case Op.LOG_UPDATE: {
          const update = args[0] as Record<string, LogSettingValue>;
          const settings = log(update);
          mirror?.(op, args);
          return settings;
        }
        case Op.TRACE_UPDATE: {
          const [model, update] = args as [string, Record<string, TraceSettingValue>];
          if (threads > 1 && turnsTracingOn(update)) {
            unsupported(
              "tracing is not served with workers > 1: each thread would sample and write " +
                "the trace file on its own (serve with workers: 1 to trace)",
            );
          }
          const settings = trace(model, update);
          mirror?.(op, args);
          return settings;
        }
      }
      unsupported(`no protocol state operation ${op}`);
    },
    mirror(op, args) {
      switch (op) {
        case Op.SHM_REGISTER: {
          const [name, key, offset, byteSize] = args as [string, string, number, number];
          return regions?.register(name, key, offset, byteSize);
        }
        case Op.SHM_UNREGISTER:
          return regions?.unregister(args[0] as string);
        case Op.LOG_UPDATE:
          return void log(args[0] as Record<string, LogSettingValue>);
        case Op.TRACE_UPDATE:
          return void trace(args[0] as string, args[1] as Record<string, TraceSettingValue>);
      }
      unsupported(`no protocol state operation ${op} to mirror`);
    },
    snapshot() {
      const changes: StateChange[] = [];
      for (const r of regions?.status() ?? []) {
        changes.push({ op: Op.SHM_REGISTER, args: [r.name, r.key, r.offset, r.byteSize] });
      }
      const { log_file: _file, ...settings } = logSettings(server);
      changes.push({ op: Op.LOG_UPDATE, args: [settings] });
      const t = traces.settings("");
      changes.push({
        op: Op.TRACE_UPDATE,
        args: ["", {
          trace_rate: t.trace_rate,
          trace_count: t.trace_count,
          log_frequency: t.log_frequency,
        }],
      });
      return changes;
    },
    stop: stopWatching,
  };
}
