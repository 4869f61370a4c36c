/**
 * Request tracing: the `trace` option of `infer()`. Each traced request gets a
 * `TRITONSERVER_InferenceTrace` that reports its activities through the binding's trace
 * callbacks (`ffi/trace_callbacks.ts`); they reach the user's `onActivity` on a later macrotask,
 * and the trace is deleted when Triton releases it.
 *
 * @module
 */
import {
  DataType,
  type DataTypeName,
  MemoryType,
  type MemoryTypeName,
  type Ptr,
  TraceActivity as Activity,
  type TraceEvent,
  TraceEventKind,
  TraceLevel,
  type TritonLibrary,
} from "../ffi/mod.ts";
import { discard, errorFromPtr, TritonError } from "./errors.ts";

/** What to trace: activity timestamps, tensors, or both. */
export type TraceLevelName = "timestamps" | "tensors";

/** An activity name (`TRITONSERVER_InferenceTraceActivity` without its prefix). */
export type TraceActivityName =
  | "REQUEST_START"
  | "QUEUE_START"
  | "COMPUTE_START"
  | "COMPUTE_INPUT_END"
  | "COMPUTE_OUTPUT_START"
  | "COMPUTE_END"
  | "REQUEST_END"
  | "TENSOR_QUEUE_INPUT"
  | "TENSOR_BACKEND_INPUT"
  | "TENSOR_BACKEND_OUTPUT"
  | "CUSTOM_ACTIVITY";

/** What every trace activity carries. */
export interface TraceActivityBase {
  /** The activity. */
  readonly activity: TraceActivityName;
  /** Trace id (`TRITONSERVER_InferenceTraceId`); child traces of an ensemble have their own. */
  readonly traceId: bigint;
  /** Parent trace id, 0 for the request's own trace (`TRITONSERVER_InferenceTraceParentId`). */
  readonly parentId: bigint;
  /** Model the traced request ran on (`TRITONSERVER_InferenceTraceModelName`). */
  readonly model: string;
  /** Its version (`TRITONSERVER_InferenceTraceModelVersion`). */
  readonly modelVersion: number;
  /** The request id (`""` when none was set). */
  readonly requestId: string;
}

/** A timestamped activity (level `"timestamps"`). */
export interface TraceTimestampActivity extends TraceActivityBase {
  /** Discriminates timestamp activities. */
  readonly type: "timestamp";
  /** Nanoseconds of a steady clock (not wall time): compare and subtract only. */
  readonly timestampNs: bigint;
}

/** A tensor seen by the trace (level `"tensors"`): an input as queued or given to the backend,
 * or an output from the backend. */
export interface TraceTensorActivity extends TraceActivityBase {
  /** Discriminates tensor activities. */
  readonly type: "tensor";
  /** Tensor name. Absent on Bun, whose callbacks run after Triton freed it. */
  readonly name?: string;
  /** Data type. */
  readonly datatype: DataTypeName | "INVALID";
  /** Shape. Absent on Bun. */
  readonly shape?: readonly number[];
  /** A copy of the tensor's bytes (host memory only). Absent on Bun and for GPU tensors. */
  readonly data?: Uint8Array;
  /** Size of the tensor data in bytes. */
  readonly byteSize: number;
  /** Where the data was. */
  readonly memoryType: MemoryTypeName;
  /** Device id of that memory. */
  readonly memoryTypeId: number;
}

/** One activity of a traced request. */
export type TraceActivity = TraceTimestampActivity | TraceTensorActivity;

/** The `trace` option of `infer()`. */
export interface TraceOptions {
  /** `"timestamps"` (default), `"tensors"`, or both as a list. Only `"tensors"`: no timestamps. */
  readonly level?: TraceLevelName | readonly TraceLevelName[];
  /** Receives each activity, in the order Triton reported them, on a later macrotask (never
   * inside Triton's callback). An exception it throws is reported with `console.error`. */
  readonly onActivity: (activity: TraceActivity) => void;
  /** Called once after the last activity, when Triton releases the trace. */
  readonly onEnd?: () => void;
}

/** Checked trace options. */
export interface TraceSettings {
  readonly level: number;
  readonly tensors: boolean;
  readonly onActivity: (activity: TraceActivity) => void;
  readonly onEnd?: () => void;
}

/**
 * Checks the `trace` option (no C call).
 * @throws {TritonError} INVALID_ARG for an unknown level or a missing `onActivity`.
 */
export function traceSettings(options: TraceOptions): TraceSettings {
  if (options === null || typeof options !== "object" || typeof options.onActivity !== "function") {
    throw new TritonError("INVALID_ARG", "trace needs { onActivity(activity) { ... } }");
  }
  if (options.onEnd !== undefined && typeof options.onEnd !== "function") {
    throw new TritonError("INVALID_ARG", "trace.onEnd must be a function");
  }
  const names = options.level === undefined
    ? ["timestamps"]
    : typeof options.level === "string"
    ? [options.level]
    : options.level;
  if (!Array.isArray(names) || names.length === 0) {
    throw new TritonError("INVALID_ARG", 'trace.level must be "timestamps", "tensors" or both');
  }
  let level = 0;
  for (const n of names) {
    if (n === "timestamps") level |= TraceLevel.TIMESTAMPS;
    else if (n === "tensors") level |= TraceLevel.TENSORS;
    else {
      throw new TritonError(
        "INVALID_ARG",
        `trace.level must be "timestamps", "tensors" or both, not ${JSON.stringify(n)}`,
      );
    }
  }
  return {
    level,
    tensors: (level & TraceLevel.TENSORS) !== 0,
    onActivity: options.onActivity,
    onEnd: options.onEnd,
  };
}

/** @internal A trace created for one request, before `TRITONSERVER_ServerInferAsync` took it. */
export interface PendingTrace {
  /** The `TRITONSERVER_InferenceTrace*` to pass to `TRITONSERVER_ServerInferAsync`. */
  readonly pointer: Ptr;
  /** `TRITONSERVER_ServerInferAsync` failed: deletes the trace unless Triton already attached
   * it to the request (then Triton releases it and the release callback deletes it). */
  notSubmitted(): void;
}

interface TraceInfo {
  readonly traceId: bigint;
  readonly parentId: bigint;
  readonly model: string;
  readonly modelVersion: number;
  readonly requestId: string;
}

interface Route {
  readonly root: number;
  readonly settings: TraceSettings;
  readonly info: Map<number, TraceInfo>;
}

const activityNames = Object.fromEntries(
  Object.entries(Activity).map(([name, value]) => [value, name]),
) as Record<number, TraceActivityName>;
const dataTypeNames = Object.fromEntries(
  Object.entries(DataType).map(([name, value]) => [value, name]),
) as Record<number, DataTypeName | "INVALID">;
const memoryTypeNames = Object.fromEntries(
  Object.entries(MemoryType).map(([name, value]) => [value, name]),
) as Record<number, MemoryTypeName>;

function report(e: unknown): void {
  console.error("tritonffi: a trace callback threw:", e);
}

/** Routes trace events to their request's options by `userp`. One per library (its binding
 * keeps it). */
class TraceRouter {
  readonly #lib: TritonLibrary;
  readonly #routes = new Map<number, Route>();
  #nextId = 1;

  constructor(lib: TritonLibrary) {
    this.#lib = lib;
    lib.binding.traceCallbacks.setHandler((e) => this.#event(e));
  }

  /**
   * Creates the trace (`TRITONSERVER_InferenceTraceNew`, or `…TraceTensorNew` for tensors).
   * @throws {TritonError} UNSUPPORTED where the core was built without tracing.
   */
  create(settings: TraceSettings): PendingTrace {
    const lib = this.#lib;
    const { api, ffi } = lib;
    const callbacks = lib.binding.traceCallbacks;
    let id = this.#nextId;
    while (this.#routes.has(id)) id = id >= 0x7fffffff ? 1 : id + 1;
    this.#nextId = id >= 0x7fffffff ? 1 : id + 1;
    const out = new BigUint64Array(1);
    const userp = ffi.fromAddress(id);
    const err = settings.tensors
      ? api.TRITONSERVER_InferenceTraceTensorNew(
        out,
        settings.level,
        0n,
        callbacks.activity,
        callbacks.tensorActivity,
        callbacks.release,
        userp,
      )
      : api.TRITONSERVER_InferenceTraceNew(
        out,
        settings.level,
        0n,
        callbacks.activity,
        callbacks.release,
        userp,
      );
    if (!ffi.isNull(err)) {
      const e = errorFromPtr(lib, err, true);
      if (out[0] !== 0n) {
        discard(lib, api.TRITONSERVER_InferenceTraceDelete(ffi.fromAddress(out[0])));
      }
      if (e.code === "UNSUPPORTED") {
        throw new TritonError(
          "UNSUPPORTED",
          `request tracing needs a Triton core built with tracing (TRITON_ENABLE_TRACING): ${e.message}`,
          { cause: e },
        );
      }
      throw e;
    }
    const pointer = ffi.fromAddress(out[0]);
    const root = ffi.address(pointer);
    this.#routes.set(id, { root, settings, info: new Map() });
    lib.binding.keepalive.hold();
    return {
      pointer,
      notSubmitted: () => {
        const name = new BigUint64Array(1);
        const nameErr = api.TRITONSERVER_InferenceTraceModelName(pointer, name);
        const attached = ffi.isNull(nameErr) && name[0] !== 0n &&
          ffi.cstring(ffi.fromAddress(name[0])) !== "";
        discard(lib, nameErr);
        // Triton names the trace's model only once it attached the trace to the request; then
        // the request's release releases the trace too, and the release event deletes it.
        if (attached) return;
        this.#routes.delete(id);
        lib.binding.keepalive.release();
        discard(lib, api.TRITONSERVER_InferenceTraceDelete(pointer));
      },
    };
  }

  #info(trace: Ptr, route: Route): TraceInfo {
    const address = this.#lib.ffi.address(trace);
    let info = route.info.get(address);
    if (info) return info;
    const lib = this.#lib;
    const { api, ffi } = lib;
    const u64 = new BigUint64Array(1);
    const i64 = new BigInt64Array(1);
    const str = new BigUint64Array(1);
    const read = (err: Ptr) => {
      const ok = ffi.isNull(err);
      discard(lib, err);
      return ok;
    };
    const traceId = read(api.TRITONSERVER_InferenceTraceId(trace, u64)) ? u64[0] : 0n;
    const parentId = read(api.TRITONSERVER_InferenceTraceParentId(trace, u64)) ? u64[0] : 0n;
    const model = read(api.TRITONSERVER_InferenceTraceModelName(trace, str)) && str[0] !== 0n
      ? ffi.cstring(ffi.fromAddress(str[0]))
      : "";
    const modelVersion = read(api.TRITONSERVER_InferenceTraceModelVersion(trace, i64))
      ? Number(i64[0])
      : -1;
    str[0] = 0n;
    let requestId = "";
    try {
      if (read(api.TRITONSERVER_InferenceTraceRequestId(trace, str)) && str[0] !== 0n) {
        requestId = ffi.cstring(ffi.fromAddress(str[0]));
      }
    } catch {
      // TRITONSERVER_InferenceTraceRequestId needs API 1.19: older cores report no request id.
    }
    info = { traceId, parentId, model, modelVersion, requestId };
    route.info.set(address, info);
    return info;
  }

  #event(e: TraceEvent): void {
    const route = this.#routes.get(e.userp);
    if (e.kind === TraceEventKind.RELEASE) {
      const address = this.#lib.ffi.address(e.trace);
      discard(this.#lib, this.#lib.api.TRITONSERVER_InferenceTraceDelete(e.trace));
      if (!route) return;
      route.info.delete(address);
      if (address !== route.root) return;
      this.#routes.delete(e.userp);
      this.#lib.binding.keepalive.release();
      try {
        route.settings.onEnd?.();
      } catch (err) {
        report(err);
      }
      return;
    }
    if (!route) return;
    const base = {
      activity: activityNames[e.activity] ?? "CUSTOM_ACTIVITY",
      ...this.#info(e.trace, route),
    };
    let activity: TraceActivity;
    if (e.kind === TraceEventKind.ACTIVITY) {
      activity = { type: "timestamp", ...base, timestampNs: e.timestampNs };
    } else {
      const t = e.tensor!;
      activity = {
        type: "tensor",
        ...base,
        name: t.name,
        datatype: dataTypeNames[t.datatype] ?? "INVALID",
        shape: t.shape,
        data: t.data,
        byteSize: t.byteSize,
        memoryType: memoryTypeNames[t.memoryType] ?? "CPU",
        memoryTypeId: t.memoryTypeId,
      };
    }
    try {
      route.settings.onActivity(activity);
    } catch (err) {
      report(err);
    }
  }
}

/**
 * @internal Creates a trace for one request with checked `settings`.
 * @throws {TritonError} UNSUPPORTED where the core was built without tracing.
 */
export function createTrace(lib: TritonLibrary, settings: TraceSettings): PendingTrace {
  return lib.binding.shared(TraceRouter, () => new TraceRouter(lib)).create(settings);
}
