/**
 * Inference requests: the options a caller gives, the `TRITONSERVER_InferenceRequest` built from
 * them, and the async generator of responses.
 *
 * @module
 */
import {
  MemoryType,
  type OutputPlacement,
  type Ptr,
  RequestFlag,
  type RequestSubmitter,
  type TritonLibrary,
  writeOutputPlacement,
} from "../ffi/mod.ts";
import { DATA_TYPES } from "./dtypes.ts";
import {
  expectRecord,
  expectString,
  invalidArgument,
  isRecord,
  knownFields,
  optionalBoolean,
} from "./value_checks.ts";
import { check, errorFromPtr, TritonError } from "./errors.ts";
import { modelMetadata } from "./metadata.ts";
import { type RequestParameterValue, setRequestParameters } from "./request_parameters.ts";
import type { InferResponse } from "./response.ts";
import { RequestStream } from "./request_stream.ts";
import type { ServerChildren } from "./server_children.ts";
import { Tensor, type TensorLike } from "./tensor.ts";
import { type PendingTrace, type TraceOptions, traceSettings } from "./trace.ts";
import { type InferenceSpan, startInferenceSpan, traceFor } from "./telemetry.ts";

/**
 * What to infer.
 * @typeParam Inputs what `inputs` takes: any input by name, or (a model typed by its declaration,
 *   see `ModelRequest`) the model's inputs, each of its data type.
 * @typeParam Output an output name `outputs` takes.
 */
export interface InferRequest<
  Inputs = Readonly<Record<string, TensorLike>>,
  Output extends string = string,
> {
  /** Input tensors by input name. Inputs are read in place (no copy) until Triton releases the
   * request; do not modify them while the request is in flight. */
  readonly inputs: Inputs;
  /** Outputs to return (all of the model's outputs when omitted). */
  readonly outputs?: readonly Output[];
  /** Request id (`TRITONSERVER_InferenceRequestSetId`), echoed by responses. */
  readonly id?: string;
  /** Sequence correlation id: an unsigned integer (`TRITONSERVER_InferenceRequestSetCorrelationId`)
   * or a string (`TRITONSERVER_InferenceRequestSetCorrelationIdString`). */
  readonly correlationId?: number | bigint | string;
  /** Priority, 0 = the model's default; lower values run first
   * (`TRITONSERVER_InferenceRequestSetPriorityUInt64`). */
  readonly priority?: number | bigint;
  /** Timeout in microseconds, 0 = none (`TRITONSERVER_InferenceRequestSetTimeoutMicroseconds`). */
  readonly timeoutUs?: number | bigint;
  /** Marks the first request of a sequence (`TRITONSERVER_REQUEST_FLAG_SEQUENCE_START`). */
  readonly sequenceStart?: boolean;
  /** Marks the last request of a sequence (`TRITONSERVER_REQUEST_FLAG_SEQUENCE_END`). */
  readonly sequenceEnd?: boolean;
  /** Request parameters (`TRITONSERVER_InferenceRequestSet{String,Int,Bool,Double}Parameter`):
   * strings (STRING), booleans (BOOL), bigints and safe-integer numbers (INT), other numbers
   * (DOUBLE); `{ type: "DOUBLE", value: 1 }` sends an integral number as DOUBLE (see
   * {@link RequestParameterValue}). */
  readonly parameters?: Readonly<Record<string, RequestParameterValue>>;
  /** Aborting cancels the request (`TRITONSERVER_InferenceRequestCancel`): the stream throws a
   * `TritonError` with code CANCELLED and delivers nothing more. */
  readonly signal?: AbortSignal;
  /** Also hand every response, as it arrives, to this queue (anything with `push`, e.g. an array
   * or a {@link ResponseQueue}), whether or not the generator is being iterated. */
  readonly responseQueue?: { push(response: InferResponse): unknown };
  /** With `false`, a response carrying an error is yielded with its `error` set instead of thrown. */
  readonly raiseOnError?: boolean;
  /**
   * Where outputs land: `"cpu"` (default, pageable host memory from malloc), `"cpu_pinned"`
   * (cudaHostAlloc), `"gpu"` / `"gpu:N"` (cudaMalloc on GPU N, default 0), or `"auto"` (the memory
   * type Triton asks for, host memory when CUDA is absent). Pinned and GPU memory load libcudart.
   */
  readonly outputMemory?: OutputMemory;
  /** Fall back to pageable host memory when pinned/GPU memory cannot be had (no libcudart, or
   * allocation failure) instead of failing. Default false. */
  readonly allowMemoryFallback?: boolean;
  /** Trace the request (`TRITONSERVER_InferenceTraceNew`): its activities go to
   * `trace.onActivity` on a later macrotask. Throws UNSUPPORTED where the core has no tracing. */
  readonly trace?: TraceOptions;
  /**
   * Keep each response's native response (Triton's response and its output buffers) until the
   * response is disposed or collected, also when the server already holds many: what is read from
   * Triton on demand, {@link InferResponse.classificationLabel}, then stays readable. Without it,
   * past a budget of held responses (256, or 64 MiB of outputs viewed in place) a new response is
   * read into JS memory and its native response released at once.
   * @default false
   */
  readonly keepResponses?: boolean;
}

/** Output memory choices; see {@link InferRequest.outputMemory}. */
export type OutputMemory = "cpu" | "cpu_pinned" | "gpu" | `gpu:${number}` | "auto";

/** @internal What the server gives `infer()`. */
export interface InferTarget {
  /** What the server owns: the request joins its requests, its responses become the server's. */
  readonly owner: ServerChildren;
  readonly server: Ptr;
  readonly allocator: Ptr;
  /** The placing allocator (made on first call), for requests that place outputs. */
  readonly placingAllocator: () => Ptr;
  readonly model: string;
  readonly version: number;
  /** Whether the server is attached to one another thread owns (`Server.attach()`): traces,
   * whose callbacks are JS, are refused there. */
  readonly attached?: boolean;
}

/**
 * @internal Builds the native request, submits it with `TRITONSERVER_ServerInferAsync` and returns
 * the async generator of its responses. On any failure before Triton accepts the request the
 * request is deleted and the error thrown.
 * @param placed outputs Triton writes in place, by name: host memory that must stay mapped until
 *   the stream's `finished` resolves (and, as the responses' outputs view it, until they are
 *   disposed). Through the placing allocator: an output larger than its bytes is the response's
 *   INTERNAL error (tritonserver's message). KServe's system shared memory uses it.
 * @throws {TritonError} for bad input (INVALID_ARG), an unknown model (NOT_FOUND), etc.
 */
export function submit(
  target: InferTarget,
  req: InferRequest,
  placed?: ReadonlyMap<string, Uint8Array>,
): AsyncGenerator<InferResponse> {
  const { owner, server } = target;
  const { lib } = owner;
  const { api, ffi } = lib;
  const callbacks = lib.binding.callbacks;
  checkRequest(req);
  const signal = req.signal;
  const policy = lib.binding.outputPolicy(
    req.outputMemory ?? "cpu",
    req.allowMemoryFallback ?? false,
  );
  if (target.attached && req.trace !== undefined) {
    throw new TritonError(
      "UNSUPPORTED",
      "trace: a server attached in a worker (Server.attach()) does not trace requests: Triton " +
        "calls trace callbacks, which are JS, and could call them after the worker ended",
    );
  }
  const tracing = req.trace === undefined ? undefined : traceSettings(req.trace);
  const tensors: [string, Tensor][] = Object.entries(req.inputs).map(([name, value]) => {
    try {
      return [name, Tensor.from(value)];
    } catch (e) {
      if (e instanceof TritonError) throw new TritonError(e.code, `input '${name}': ${e.message}`);
      throw e;
    }
  });
  const placing = placed !== undefined && placed.size > 0;
  const span = startInferenceSpan(lib, server, target, req.id, tensors);
  const submitter = !placing && onlyInputs(req) && span === undefined
    ? lib.binding.requestSubmitter
    : undefined;
  if (submitter) {
    const stream = submitNatively(target, req, tensors, policy, submitter);
    if (stream) return stream;
  }
  const out = lib.binding.outParams;
  // 64-bit arguments go in as BigInt: Deno's fast FFI path takes i64/u64 only as BigInt (a number
  // costs more per call there, bench/README.md's "Costs the code is shaped by"; Node and Bun take
  // either at the same cost).
  check(
    lib,
    api.TRITONSERVER_InferenceRequestNew(
      out.slots[0],
      server,
      target.model,
      BigInt(target.version),
    ),
  );
  const request = out.pointer(0);
  const keep: unknown[] = [];
  let stream: RequestStream | undefined;
  let placement: OutputPlacement | undefined;
  try {
    applyOptions(lib, request, req);
    for (const [name, tensor] of tensors) {
      check(
        lib,
        api.TRITONSERVER_InferenceRequestAddInput(
          request,
          name,
          DATA_TYPES[tensor.dtype].code,
          lib.binding.int64Array(tensor.shape),
          BigInt(tensor.shape.length),
        ),
      );
      const bytes = hostBytes(tensor, keep);
      const base = bytes ? ffi.addressOf(bytes) : ffi.fromAddress(tensor.devicePointer!);
      const byteSize = bytes ? bytes.byteLength : tensor.byteSize;
      if (byteSize > 0) {
        check(
          lib,
          api.TRITONSERVER_InferenceRequestAppendInputData(
            request,
            name,
            base,
            BigInt(byteSize),
            MemoryType[tensor.memoryType],
            BigInt(tensor.memoryTypeId),
          ),
        );
      }
    }
    if (req.outputs) {
      for (const name of req.outputs) {
        check(lib, api.TRITONSERVER_InferenceRequestAddRequestedOutput(request, name));
      }
    }
    stream = newStream(target, req, request, keep, span);
    // Tracked before submitting: the completions are drained on a later macrotask, and find it.
    const userp = stream.track().userp;
    check(
      lib,
      api.TRITONSERVER_InferenceRequestSetReleaseCallback(
        request,
        callbacks.requestRelease,
        userp,
      ),
    );
    let allocator = target.allocator;
    let allocatorUserp = policy;
    if (placing) {
      allocator = target.placingAllocator();
      placement = writeOutputPlacement(
        lib,
        policy,
        [...placed].map(([name, bytes]) => ({
          name,
          address: bytes.byteLength === 0 ? 0 : ffi.address(ffi.addressOf(bytes)),
          byteSize: bytes.byteLength,
        })),
      );
      allocatorUserp = placement.userp;
    }
    check(
      lib,
      api.TRITONSERVER_InferenceRequestSetResponseCallback(
        request,
        allocator,
        allocatorUserp,
        callbacks.responseComplete,
        userp,
      ),
    );
    // An attached server's span goes without Triton's timestamps: they come through trace
    // callbacks, which are JS, and Triton could call them after the worker ended.
    const trace: PendingTrace | undefined = traceFor(
      lib,
      tracing,
      target.attached ? undefined : span,
    );
    const err = api.TRITONSERVER_ServerInferAsync(server, request, trace?.pointer ?? ffi.NULL);
    if (!ffi.isNull(err)) {
      trace?.notSubmitted();
      check(lib, err);
    }
  } catch (e) {
    stream?.untrack();
    api.TRITONSERVER_InferenceRequestDelete(request);
    placement?.free();
    const error = withModelInputs(target, e);
    span?.failed(error, false);
    throw error;
  }
  // Triton owns the request from here on: nothing below may throw.
  stream.submitted(signal);
  // The placing allocator reads the table until the last response is allocated.
  if (placement) stream.finished.then(() => placement.free());
  return stream;
}

/** Whether `req` asks for nothing but inputs (and what `submit()` reads itself): the native
 * request submitter builds such a request in one call. */
function onlyInputs(req: InferRequest): boolean {
  return req.id === undefined && req.outputs === undefined && req.correlationId === undefined &&
    req.priority === undefined && req.timeoutUs === undefined && !req.sequenceStart &&
    !req.sequenceEnd && (req.parameters === undefined || req.parameters === null) &&
    req.trace === undefined;
}

/**
 * {@link submit} through the native request submitter: the request is written to its record,
 * then built and submitted in one call. Undefined, with nothing native done, when the request
 * does not fit the record (the caller builds it call by call); on a failed call the request is
 * deleted and the error thrown, as {@link submit} does.
 */
function submitNatively(
  target: InferTarget,
  req: InferRequest,
  tensors: [string, Tensor][],
  policy: Ptr,
  submitter: RequestSubmitter,
): RequestStream | undefined {
  const { owner, server } = target;
  const { lib } = owner;
  const { api, ffi } = lib;
  const callbacks = lib.binding.callbacks;
  const begun = submitter.begin(
    server,
    target.model,
    target.version,
    target.allocator,
    policy,
    callbacks.responseComplete,
    callbacks.requestRelease,
  );
  if (!begun) return undefined;
  const keep: unknown[] = [];
  for (const [name, tensor] of tensors) {
    const bytes = hostBytes(tensor, keep);
    const byteSize = bytes ? bytes.byteLength : tensor.byteSize;
    let base = tensor.devicePointer ?? 0; // a GPU input's device address
    if (bytes && byteSize > 0) base = ffi.address(ffi.addressOf(bytes));
    const code = DATA_TYPES[tensor.dtype].code;
    const type = MemoryType[tensor.memoryType];
    if (!submitter.input(name, code, tensor.shape, base, byteSize, type, tensor.memoryTypeId)) {
      return undefined;
    }
  }
  const stream = newStream(target, req, ffi.NULL, keep);
  // Tracked before submitting: the completions are drained on a later macrotask, and find it.
  if (submitter.submit(stream.track().address)) {
    stream.submitted(req.signal, submitter.request);
    return stream;
  }
  const request = submitter.request;
  const err = submitter.error;
  stream.untrack();
  if (!ffi.isNull(request)) api.TRITONSERVER_InferenceRequestDelete(request);
  if (ffi.isNull(err)) {
    throw new TritonError("INTERNAL", "the request submitter failed without an error");
  }
  throw withModelInputs(target, errorFromPtr(lib, err, true));
}

/** Where Triton reads input `tensor` in place: its host bytes, kept alive in `keep` until the
 * request is released; undefined in GPU memory (its device address is the data). */
function hostBytes(tensor: Tensor, keep: unknown[]): Uint8Array | undefined {
  if (tensor.memoryType === "GPU") return undefined;
  const bytes = tensor.toBytes();
  keep.push(bytes);
  return bytes;
}

/** The stream of `req`'s responses, for its native `request` (NULL until the native submitter
 * made it), reading inputs from `keep`. */
function newStream(
  target: InferTarget,
  req: InferRequest,
  request: Ptr,
  keep: unknown[],
  span?: InferenceSpan,
): RequestStream {
  return new RequestStream(request, keep, {
    owner: target.owner,
    model: { name: target.model, version: target.version },
    id: req.id ?? "",
    queue: req.responseQueue,
    raiseOnError: req.raiseOnError ?? true,
    keepNative: req.keepResponses ?? false,
    observer: span,
  });
}

/** The fields of {@link InferRequest}. */
const REQUEST_FIELDS = [
  "inputs",
  "outputs",
  "id",
  "correlationId",
  "priority",
  "timeoutUs",
  "sequenceStart",
  "sequenceEnd",
  "parameters",
  "signal",
  "responseQueue",
  "raiseOnError",
  "outputMemory",
  "allowMemoryFallback",
  "trace",
  "keepResponses",
] as const satisfies readonly (keyof InferRequest)[];

/**
 * Checks the kind of every field of `req` before anything is built from it.
 * @throws {TritonError} INVALID_ARG naming the field and what it got.
 */
function checkRequest(req: InferRequest): void {
  const r = expectRecord("infer()'s request", req, "{ inputs: { name: tensor, ... } }");
  knownFields("infer()'s request", r, REQUEST_FIELDS, { timeout: "timeoutUs (microseconds)" });
  expectRecord("inputs", r.inputs, "an object of input tensors by name");
  if (r.outputs !== undefined) {
    if (!Array.isArray(r.outputs)) {
      throw invalidArgument("outputs", "an array of output names", r.outputs);
    }
    r.outputs.forEach((name, i) => expectString(`outputs[${i}]`, name));
  }
  if (r.id !== undefined) expectString("id", r.id);
  const cid = r.correlationId;
  if (cid !== undefined && !["string", "number", "bigint"].includes(typeof cid)) {
    throw invalidArgument("correlationId", "an unsigned integer or a string", cid);
  }
  for (
    const key of [
      "sequenceStart",
      "sequenceEnd",
      "raiseOnError",
      "allowMemoryFallback",
      "keepResponses",
    ]
  ) {
    optionalBoolean(key, r[key]);
  }
  if (r.outputMemory !== undefined) expectString("outputMemory", r.outputMemory);
  if (r.parameters !== undefined && r.parameters !== null) {
    expectRecord("parameters", r.parameters, "an object of parameter values by name");
  }
  const signal = r.signal as { addEventListener?: unknown; aborted?: unknown } | undefined;
  if (
    signal !== undefined &&
    (!isRecord(signal) || typeof signal.addEventListener !== "function" ||
      typeof signal.aborted !== "boolean")
  ) {
    throw invalidArgument("signal", "an AbortSignal", signal);
  }
  const queue = r.responseQueue as { push?: unknown } | undefined;
  if (
    queue !== undefined &&
    (!isRecord(queue) && !Array.isArray(queue) || typeof queue.push !== "function")
  ) {
    throw invalidArgument("responseQueue", "an object with push(response)", queue);
  }
  if (r.trace !== undefined) expectRecord("trace", r.trace);
}

/** Triton's error for an input the model does not have, or a count of inputs it does not take,
 * with the model's inputs listed (`name DTYPE [shape]`); any other error as it is. */
function withModelInputs(target: InferTarget, e: unknown): unknown {
  if (
    !(e instanceof TritonError) || e.code !== "INVALID_ARG" ||
    !/unexpected inference input|expected .*inputs but got/.test(e.message)
  ) {
    return e;
  }
  let inputs: string;
  try {
    const { lib } = target.owner;
    inputs = modelMetadata(lib, target.server, target.model, target.version).inputs
      .map((i) => `${i.name} ${i.datatype} [${i.shape.join(", ")}]`).join(", ");
  } catch {
    return e;
  }
  return new TritonError(e.code, `${e.message} (the model's inputs: ${inputs})`);
}

function u64(name: string, value: number | bigint): bigint {
  const v = typeof value === "bigint" ? value : Number.isInteger(value) ? BigInt(value) : -1n;
  if (v < 0n || v > 0xffffffffffffffffn) {
    throw invalidArgument(name, "an unsigned 64-bit integer", value);
  }
  return v;
}

/** Applies everything but inputs and outputs to a new request. */
function applyOptions(lib: TritonLibrary, request: Ptr, req: InferRequest): void {
  const { api } = lib;
  if (req.id !== undefined) check(lib, api.TRITONSERVER_InferenceRequestSetId(request, req.id));
  const cid = req.correlationId;
  if (typeof cid === "string") {
    check(lib, api.TRITONSERVER_InferenceRequestSetCorrelationIdString(request, cid));
  } else if (cid !== undefined) {
    check(
      lib,
      api.TRITONSERVER_InferenceRequestSetCorrelationId(request, u64("correlationId", cid)),
    );
  }
  if (req.priority !== undefined) {
    check(
      lib,
      api.TRITONSERVER_InferenceRequestSetPriorityUInt64(request, u64("priority", req.priority)),
    );
  }
  if (req.timeoutUs !== undefined) {
    check(
      lib,
      api.TRITONSERVER_InferenceRequestSetTimeoutMicroseconds(
        request,
        u64("timeoutUs", req.timeoutUs),
      ),
    );
  }
  const flags = (req.sequenceStart ? RequestFlag.SEQUENCE_START : 0) |
    (req.sequenceEnd ? RequestFlag.SEQUENCE_END : 0);
  if (flags) check(lib, api.TRITONSERVER_InferenceRequestSetFlags(request, flags));
  if (req.parameters === undefined || req.parameters === null) return;
  setRequestParameters(lib, request, req.parameters);
}
