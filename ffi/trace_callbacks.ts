/**
 * The process-wide C function pointers for request tracing, and how their calls reach JS.
 *
 * Three function pointers (activity, tensor activity, release), created on first use and never
 * closed; traces are told apart by `userp`, an integer the binding passes as `void*`. Each call
 * is copied into a {@link TraceEvent} and queued; the queue is drained on a later macrotask, so
 * no user code runs inside a callback.
 *
 * What a callback may read: activity and release calls carry plain values (and the trace
 * pointer, which only the binding deletes, on the JS thread, after the release event is drained).
 * A tensor activity points at a name, a shape and tensor data that Triton frees once the callback
 * returns. Where the calling thread waits for the callback (Deno, Node) they are copied inside
 * the callback; on Bun, whose callbacks are posted and run after the thread went on, they are not
 * read at all (the event then has no name, shape or data).
 *
 * @module
 */
import { macrotask } from "./macrotask.ts";
import { callbacks } from "./symbols.ts";
import type { NativeLibrary, Ptr } from "./types.ts";

/** What a {@link TraceEvent} reports. */
export const TraceEventKind = {
  /** `TRITONSERVER_InferenceTraceActivityFn_t`: a timestamped activity. */
  ACTIVITY: 1,
  /** `TRITONSERVER_InferenceTraceTensorActivityFn_t`: a tensor seen by the trace. */
  TENSOR: 2,
  /** `TRITONSERVER_InferenceTraceReleaseFn_t`: the trace may be deleted. */
  RELEASE: 3,
} as const;

/** A {@link TraceEventKind} value. */
export type TraceEventKindValue = (typeof TraceEventKind)[keyof typeof TraceEventKind];

/** The tensor of a TENSOR event, as far as it could be copied. */
export interface TraceTensorCopy {
  /** Tensor name (absent where the runtime cannot read it in time: Bun). */
  readonly name?: string;
  /** `TRITONSERVER_DataType`. */
  readonly datatype: number;
  /** Shape (absent on Bun). */
  readonly shape?: readonly number[];
  /** A copy of the bytes, for tensors in host memory (absent on Bun and for GPU memory). */
  readonly data?: Uint8Array;
  /** Size of the tensor data in bytes. */
  readonly byteSize: number;
  /** `TRITONSERVER_MemoryType`. */
  readonly memoryType: number;
  /** Memory type id (device). */
  readonly memoryTypeId: number;
}

/** One trace callback call, as queued for the JS thread. */
export interface TraceEvent {
  readonly kind: TraceEventKindValue;
  /** The `TRITONSERVER_InferenceTrace*` the call was about (the root or a child trace). */
  readonly trace: Ptr;
  /** The integer passed as `trace_userp`. */
  readonly userp: number;
  /** `TRITONSERVER_InferenceTraceActivity` (ACTIVITY and TENSOR). */
  readonly activity: number;
  /** Timestamp in nanoseconds of a steady clock (ACTIVITY). */
  readonly timestampNs: bigint;
  /** The tensor (TENSOR). */
  readonly tensor?: TraceTensorCopy;
}

/** The function pointers to hand to `TRITONSERVER_InferenceTraceNew`/`TensorNew`. */
export interface TraceCallbackTable {
  /** `TRITONSERVER_InferenceTraceActivityFn_t` */
  readonly activity: Ptr;
  /** `TRITONSERVER_InferenceTraceTensorActivityFn_t` */
  readonly tensorActivity: Ptr;
  /** `TRITONSERVER_InferenceTraceReleaseFn_t` */
  readonly release: Ptr;
  /** Sets the one consumer of drained events (the trace router in `src/`). */
  setHandler(handler: (event: TraceEvent) => void): void;
}

const MEMORY_TYPE_GPU = 2;

/** Creates the trace callback table of `lib` (its `Binding` does, once). */
export function createTraceCallbackTable(lib: NativeLibrary): TraceCallbackTable {
  const { ffi } = lib;
  const canRead = ffi.callbacksReturnToForeignThreads;
  let queue: TraceEvent[] = [];
  let handler: (event: TraceEvent) => void = () => {};
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    const events = queue;
    queue = [];
    for (const e of events) handler(e);
  };
  const push = (event: TraceEvent) => {
    queue.push(event);
    if (!scheduled) {
      scheduled = true;
      macrotask(drain);
    }
  };

  const activity = ffi.callback(callbacks.traceActivity, (trace, act, timestampNs, userp) => {
    push({
      kind: TraceEventKind.ACTIVITY,
      trace,
      userp: ffi.address(userp),
      activity: act,
      timestampNs: BigInt(timestampNs),
    });
  });

  const tensorActivity = ffi.callback(
    callbacks.traceTensorActivity,
    (trace, act, name, datatype, base, byteSize, shape, dimCount, memType, memTypeId, userp) => {
      const size = Number(byteSize);
      let copy: TraceTensorCopy = {
        datatype,
        byteSize: size,
        memoryType: memType,
        memoryTypeId: Number(memTypeId),
      };
      if (canRead) {
        try {
          const dims = Number(dimCount);
          const shapeView = dims > 0 && !ffi.isNull(shape)
            ? Array.from(new BigInt64Array(ffi.view(shape, dims * 8).slice(0)), Number)
            : [];
          const data = memType !== MEMORY_TYPE_GPU && !ffi.isNull(base)
            ? new Uint8Array(ffi.view(base, size).slice(0))
            : undefined;
          copy = { ...copy, name: ffi.cstring(name), shape: shapeView, data };
        } catch {
          // Nothing may be thrown into C; the event goes out without the copies.
        }
      }
      push({
        kind: TraceEventKind.TENSOR,
        trace,
        userp: ffi.address(userp),
        activity: act,
        timestampNs: 0n,
        tensor: copy,
      });
    },
  );

  const release = ffi.callback(callbacks.traceRelease, (trace, userp) => {
    push({
      kind: TraceEventKind.RELEASE,
      trace,
      userp: ffi.address(userp),
      activity: 0,
      timestampNs: 0n,
    });
  });

  return {
    activity,
    tensorActivity,
    release,
    setHandler(h) {
      handler = h;
    },
  };
}
