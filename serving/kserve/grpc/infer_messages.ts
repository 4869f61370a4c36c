/**
 * `ModelInferRequest` → {@link InferRequest}, and {@link InferResponse} → `ModelInferResponse`, as
 * Triton's gRPC front end reads and writes them: typed `contents` or `raw_input_contents` (never
 * both), request parameters as over HTTP, outputs always in `raw_output_contents`, one entry per
 * output.
 *
 * @module
 */
import type { InferRequest } from "../../../src/request.ts";
import type { InferResponse, ParameterValue } from "../../../src/response.ts";
import { Tensor } from "../../../src/tensor.ts";
import { labelsKept } from "../classification.ts";
import { invalid } from "../../common/refusals.ts";
import { inputSharedMemory, outputOptions, requestParameters } from "../inference.ts";
import { RequestSharedMemory } from "../request_shared_memory.ts";
import type { SharedMemoryRegions } from "../shared_memory.ts";
import type { Json, JsonRecord } from "../../common/json.ts";
import type { CallParameter } from "../operations.ts";
import {
  dataType,
  elementCount,
  shapeOf,
  tensorFromBinary,
  tensorFromJson,
} from "../../common/tensor_data.ts";

/** An `InferParameter` as decoded (`longs` as strings): one of its fields set. */
export interface GrpcParameter {
  readonly bool_param?: boolean;
  readonly int64_param?: string;
  readonly string_param?: string;
  readonly double_param?: number;
  readonly uint64_param?: string;
  readonly bytes_param?: Uint8Array;
}

type Contents = Readonly<Record<string, readonly (number | string | boolean | Uint8Array)[]>>;

/** A `ModelInferRequest` as decoded (`longs` as strings, `arrays` and `objects` filled in). */
export interface GrpcInferRequest {
  readonly model_name: string;
  readonly model_version: string;
  readonly id: string;
  readonly parameters: Readonly<Record<string, GrpcParameter>>;
  readonly inputs: readonly {
    readonly name: string;
    readonly datatype: string;
    readonly shape: readonly string[];
    readonly parameters: Readonly<Record<string, GrpcParameter>>;
    readonly contents?: Contents | null;
  }[];
  readonly outputs: readonly {
    readonly name: string;
    readonly parameters: Readonly<Record<string, GrpcParameter>>;
  }[];
  readonly raw_input_contents: readonly Uint8Array[];
}

/** Which `InferTensorContents` field holds a data type's elements (FP16 and BF16: none). */
const CONTENTS_FIELD: Readonly<Record<string, string>> = {
  BOOL: "bool_contents",
  INT8: "int_contents",
  INT16: "int_contents",
  INT32: "int_contents",
  INT64: "int64_contents",
  UINT8: "uint_contents",
  UINT16: "uint_contents",
  UINT32: "uint_contents",
  UINT64: "uint64_contents",
  FP32: "fp32_contents",
  FP64: "fp64_contents",
  BYTES: "bytes_contents",
};

/** A parameter's value: the field it sets (64-bit integers as bigint).
 * @throws {TritonError} INVALID_ARG for a parameter that sets none. */
export function grpcParameter(p: GrpcParameter, what: string): CallParameter {
  if (p.bool_param !== undefined) return p.bool_param;
  if (p.string_param !== undefined) return p.string_param;
  if (p.double_param !== undefined) return p.double_param;
  if (p.int64_param !== undefined) return BigInt(p.int64_param);
  if (p.uint64_param !== undefined) return BigInt(p.uint64_param);
  if (p.bytes_param !== undefined) return p.bytes_param;
  invalid(`${what} has no value`);
}

/** A parameter's value, as the HTTP front end's JSON would give it.
 * @throws {TritonError} INVALID_ARG for a parameter that sets none, or bytes (no JSON form). */
function parameterJson(p: GrpcParameter, what: string): Json {
  const value = grpcParameter(p, what);
  if (value instanceof Uint8Array) {
    invalid(`${what} must be a string, number or boolean, not bytes`);
  }
  return value;
}

/** A parameters map as the HTTP front end's JSON would give it. */
function parametersJson(params: Readonly<Record<string, GrpcParameter>>, what: string): JsonRecord {
  const json: JsonRecord = {};
  for (const [key, p] of Object.entries(params)) {
    json[key] = parameterJson(p, `${what} parameter '${key}'`);
  }
  return json;
}

/** The model-facing request parameters; also whether the client asked for an empty final
 * response (`triton_enable_empty_final_response`, which perf_analyzer always sends). */
function parameters(
  params: Readonly<Record<string, GrpcParameter>>,
  options: Record<string, unknown>,
): { emptyFinal: boolean } {
  const json: JsonRecord = {};
  let emptyFinal = false;
  for (const [key, p] of Object.entries(params)) {
    const value = parameterJson(p, `parameter '${key}'`);
    if (key === "triton_enable_empty_final_response") {
      if (typeof value !== "boolean") invalid(`parameter '${key}' must be a boolean`);
      emptyFinal = value;
    } else if (key === "sequence_id" && typeof value === "bigint") {
      json[key] = value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
    } else json[key] = value;
  }
  requestParameters(json, options);
  return { emptyFinal };
}

/** A request read: what goes to `model.infer()` (all but its signal), whether the client asked
 * for an empty final response, and the shared memory it reads and writes (release it when
 * done). */
export interface ReadInfer {
  readonly request: InferRequest;
  readonly emptyFinal: boolean;
  readonly sharedMemory: RequestSharedMemory;
  /** Outputs asked for as classifications: classes per batch row, by output name. */
  readonly classification: ReadonlyMap<string, number>;
}

/** Reads a request; inputs in shared memory are read in place from `regions` (leased until
 * released; released here when reading fails).
 * @throws {TritonError} INVALID_ARG for anything malformed, contents and raw contents both given,
 *   FP16/BF16 as typed contents, a part past its shared memory region, a `classification` that
 *   is no count; NOT_FOUND for a region not registered. */
export function readInferRequest(
  message: GrpcInferRequest,
  regions?: SharedMemoryRegions,
): ReadInfer {
  const sharedMemory = new RequestSharedMemory(regions);
  try {
    return read(message, sharedMemory);
  } catch (e) {
    sharedMemory.release();
    throw e;
  }
}

function read(message: GrpcInferRequest, sharedMemory: RequestSharedMemory): ReadInfer {
  const options: Record<string, unknown> = {};
  if (message.id !== "") options.id = message.id;
  const { emptyFinal } = parameters(message.parameters, options);
  const raw = message.raw_input_contents;
  // Raw contents come one per input not in shared memory, in order.
  const shm = message.inputs.map((input) => {
    const what = `input '${input.name}'`;
    return inputSharedMemory(parametersJson(input.parameters, what), what);
  });
  const inMessage = shm.filter((ref) => ref === undefined).length;
  if (raw.length > 0 && raw.length !== inMessage) {
    invalid(
      `expected ${inMessage} raw_input_contents (one per input not in shared memory), got ` +
        `${raw.length}`,
    );
  }
  const inputs: Record<string, Tensor> = {};
  let next = 0;
  message.inputs.forEach((input, i) => {
    const what = `input '${input.name}'`;
    if (Object.hasOwn(inputs, input.name)) invalid(`${what} is given twice`);
    const dtype = dataType(input.datatype, what);
    const shape = shapeOf(input.shape.map(Number), what);
    const contents = input.contents ?? undefined;
    const field = CONTENTS_FIELD[dtype];
    const typed = contents !== undefined &&
      Object.values(contents).some((values) => values.length > 0);
    const ref = shm[i];
    if (ref !== undefined) {
      if (typed) invalid(`${what}: contents must not be given for an input in shared memory`);
      inputs[input.name] = sharedMemory.inputTensor(what, dtype, shape, ref);
      return;
    }
    if (raw.length > 0) {
      if (typed) {
        invalid(`contents field must not be specified when using raw_input_contents for ${what}`);
      }
      inputs[input.name] = tensorFromBinary(what, dtype, shape, raw[next++]);
      return;
    }
    if (field === undefined) {
      invalid(`${what}: ${dtype} data must be sent in raw_input_contents`);
    }
    const values = contents?.[field] ?? [];
    for (const [other, given] of Object.entries(contents ?? {})) {
      if (other !== field && given.length > 0) {
        invalid(`${what}: ${dtype} data goes in ${field}, not ${other}`);
      }
    }
    if (dtype === "BYTES") {
      if (values.length !== elementCount(shape)) {
        invalid(
          `${what}: shape [${shape.join(", ")}] holds ${elementCount(shape)} elements, ` +
            `bytes_contents has ${values.length}`,
        );
      }
      inputs[input.name] = new Tensor("BYTES", shape, values as Uint8Array[]);
      return;
    }
    const elements = dtype === "INT64" || dtype === "UINT64"
      ? values.map((v) => BigInt(v as string))
      : (values as Json[]);
    inputs[input.name] = tensorFromJson(what, dtype, shape, elements as Json[]);
  });
  let outputs: string[] | undefined;
  const classification = new Map<string, number>();
  if (message.outputs.length > 0) {
    outputs = message.outputs.map((o) => {
      const what = `output '${o.name}'`;
      const options = outputOptions(parametersJson(o.parameters, what), what);
      if (options.sharedMemory) sharedMemory.output(o.name, options.sharedMemory);
      if (options.classification !== undefined) classification.set(o.name, options.classification);
      return o.name;
    });
  }
  const keep = labelsKept(classification);
  return {
    request: { ...options, inputs, ...(outputs ? { outputs } : {}), ...keep } as InferRequest,
    emptyFinal,
    sharedMemory,
    classification,
  };
}

/** A response parameter as an `InferParameter`: STRING, INT (bigint), BOOL, DOUBLE (number);
 * BYTES go as their UTF-8 text. */
function parameterOf(value: ParameterValue): Record<string, unknown> {
  switch (typeof value) {
    case "boolean":
      return { bool_param: value };
    case "string":
      return { string_param: value };
    case "bigint":
      return { int64_param: value.toString() };
    case "number": // a DOUBLE parameter (INT ones are bigints)
      return { double_param: value };
    default:
      return { string_param: new TextDecoder().decode(value) };
  }
}

/** The `ModelInferResponse` of `response`, with `triton_final_response` set where the request
 * streams. Its `raw_output_contents` may view the response's buffers (outputs past the copy
 * limit): encode it before the response is disposed. `outputs` are the outputs to write: the
 * response's, or those with classifications in place (`classification.ts`). */
export function inferResponseMessage(
  response: InferResponse,
  final: boolean | undefined,
  inSharedMemory: (output: string) => boolean = () => false,
  outputs: Readonly<Record<string, Tensor>> = response.outputs,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(response.parameters)) params[k] = parameterOf(v);
  if (final !== undefined) params.triton_final_response = { bool_param: final };
  const described: Record<string, unknown>[] = [];
  const raw: Uint8Array[] = [];
  for (const [name, tensor] of Object.entries(outputs)) {
    if (inSharedMemory(name)) {
      // Described, its data in the region: an empty entry keeps one raw content per output.
      described.push({ name, datatype: tensor.dtype, shape: tensor.shape, parameters: {} });
      raw.push(new Uint8Array(0));
      continue;
    }
    const t = tensor.memoryType === "GPU" ? tensor.toHost() : tensor;
    described.push({ name, datatype: t.dtype, shape: t.shape, parameters: {} });
    raw.push(t.toBytes());
  }
  return {
    model_name: response.model.name,
    model_version: String(response.model.version),
    id: response.id,
    parameters: params,
    outputs: described,
    raw_output_contents: raw,
  };
}

/** The empty response that ends a stream whose FINAL came without a response, where the request
 * asked for it. */
export function emptyFinalMessage(
  model: { readonly name: string; readonly version: number },
  id: string,
): Record<string, unknown> {
  return {
    model_name: model.name,
    model_version: model.version < 0 ? "" : String(model.version),
    id,
    parameters: { triton_final_response: { bool_param: true } },
    outputs: [],
    raw_output_contents: [],
  };
}
