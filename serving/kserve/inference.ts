/**
 * The inference rules of both protocols: request parameters, the parameters of each input and
 * requested output (binary data, and the extensions: shared memory, classification), and one
 * response for one request. `http/infer_request.ts` and `grpc/infer_messages.ts` decode their
 * encodings into these and nothing more.
 *
 * @module
 */
import type { Model } from "../../src/model.ts";
import type { InferRequest } from "../../src/request.ts";
import { invalid, unsupported } from "../common/refusals.ts";
import {
  CLASSIFICATION_NEGATIVE,
  classificationNotInteger,
  DECOUPLED_REFUSED,
} from "../common/tritonserver_words.ts";
import {
  boolean,
  describe,
  type Json,
  type JsonRecord,
  string,
  unsigned,
  withoutNul,
} from "../common/json.ts";

/** Request parameters with a meaning of their own (KServe's and Triton's); the others go to the
 * model as request parameters. */
export type RequestOptions =
  & {
    -readonly [
      K in
        | "id"
        | "correlationId"
        | "priority"
        | "timeoutUs"
        | "sequenceStart"
        | "sequenceEnd"
    ]?: InferRequest[K];
  }
  & { parameters?: Record<string, string | number | bigint | boolean> };

/**
 * Reads request parameters (`parameters` of the request; over gRPC their values as JSON would give
 * them) the way Triton's front ends do:
 * `sequence_id` (unsigned integer or string), `sequence_start`, `sequence_end`, `priority`,
 * `timeout` (µs), `binary_data_output` are Triton's; keys starting with `triton_` are reserved;
 * every other string, boolean or number goes to the model as a request parameter.
 * @returns the request options and `binary_data_output`.
 * @throws {TritonError} INVALID_ARG for a value of the wrong type.
 */
export function requestParameters(
  params: JsonRecord,
  options: RequestOptions,
): boolean {
  let binaryOutput = false;
  const model: Record<string, string | number | bigint | boolean> = {};
  for (const [key, value] of Object.entries(params)) {
    const what = `parameter '${key}'`;
    switch (key) {
      case "sequence_id":
        options.correlationId = typeof value === "string"
          ? withoutNul(value, what)
          : unsigned(value, what);
        break;
      case "sequence_start":
        options.sequenceStart = boolean(value, what);
        break;
      case "sequence_end":
        options.sequenceEnd = boolean(value, what);
        break;
      case "priority":
        options.priority = unsigned(value, what);
        break;
      case "timeout":
        options.timeoutUs = unsigned(value, what);
        break;
      case "binary_data_output":
        binaryOutput = boolean(value, what);
        break;
      default:
        if (key.startsWith("triton_")) {
          invalid(`parameter keys starting with 'triton_' are reserved for Triton: '${key}'`);
        }
        model[withoutNul(key, "a parameter key")] = parameterValue(value, what);
    }
  }
  options.parameters = model;
  return binaryOutput;
}

/** A request parameter's value: a string, boolean or number.
 * @throws {TritonError} INVALID_ARG for anything else. */
export function parameterValue(value: Json, what: string): string | number | bigint | boolean {
  if (typeof value === "string") return withoutNul(value, what);
  if (typeof value === "boolean" || typeof value === "number" || typeof value === "bigint") {
    return value;
  }
  invalid(`${what} must be a string, number or boolean, not ${describe(value)}`);
}

/** Where a tensor lies in a registered shared memory region (`shared_memory_region`,
 * `shared_memory_offset`, `shared_memory_byte_size`). */
export interface SharedMemoryRef {
  readonly region: string;
  /** Bytes from the region's start. @default 0 */
  readonly offset: number;
  /** Bytes of the tensor. @default 0 */
  readonly byteSize: number;
}

/** A tensor's shared memory parameters, where it has `shared_memory_region`.
 * @throws {TritonError} INVALID_ARG for a region name that is no string, or an offset or size
 *   that is no byte count. */
function sharedMemoryRef(params: JsonRecord, what: string): SharedMemoryRef | undefined {
  const region = params.shared_memory_region;
  if (region === undefined) return undefined;
  const count = (key: string) => {
    const value = params[key];
    if (value === undefined) return 0;
    const n = unsigned(value, `${what} parameter '${key}'`);
    if (typeof n === "number") return n;
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) {
      invalid(`${what} parameter '${key}' is past 2^53 bytes`);
    }
    return Number(n);
  };
  return {
    region: string(region, `${what} parameter 'shared_memory_region'`),
    offset: count("shared_memory_offset"),
    byteSize: count("shared_memory_byte_size"),
  };
}

/** Reads an input's parameters (`binary_data_size` is the HTTP layer's to read): where its data
 * lies in shared memory, if it does.
 * @throws {TritonError} INVALID_ARG for malformed shared memory parameters. */
export function inputSharedMemory(params: JsonRecord, what: string): SharedMemoryRef | undefined {
  return sharedMemoryRef(params, what);
}

/** What a requested output's parameters ask for. */
export interface OutputOptions {
  /** `binary_data` (HTTP's binary tensor data extension), where given. */
  readonly binary?: boolean;
  /** Where the output is to be written, where the request puts it in shared memory. */
  readonly sharedMemory?: SharedMemoryRef;
  /** `classification`: the output comes back as the top this many classes of each batch row
   * (see `classification.ts`), where given and not 0. */
  readonly classification?: number;
}

/** Classes per row past which every class is returned anyway (tritonserver counts in 32 bits). */
const MAX_CLASSES = 2 ** 32 - 1;

/**
 * A requested output's `classification` parameter: how many classes of each row to return, 0 for
 * none (the output as it is, as tritonserver's HTTP front end takes 0). A count past 2^32 - 1
 * returns every class.
 * @throws {TritonError} INVALID_ARG for a value that is no integer, or a negative one
 *   (tritonserver's message).
 */
function classCount(value: Json): number {
  if (!(typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value)))) {
    invalid(classificationNotInteger(describe(value)));
  }
  if (value < 0) invalid(CLASSIFICATION_NEGATIVE);
  return value > MAX_CLASSES ? MAX_CLASSES : Number(value);
}

/** Reads a requested output's parameters.
 * @throws {TritonError} INVALID_ARG for a mistyped `binary_data`, malformed shared memory
 *   parameters, shared memory with binary data or classification, a `classification` that is no
 *   integer or is negative. */
export function outputOptions(params: JsonRecord, what: string): OutputOptions {
  const binary = params.binary_data === undefined
    ? undefined
    : boolean(params.binary_data, `${what} binary_data`);
  const sharedMemory = sharedMemoryRef(params, what);
  if (sharedMemory !== undefined) {
    if (params.classification !== undefined) {
      invalid("Output can't set both 'shared_memory_region' and 'classification'");
    }
    if (binary === true) invalid("Output can't set both 'shared_memory_region' and 'binary_data'");
    return { sharedMemory };
  }
  const classes = params.classification === undefined ? 0 : classCount(params.classification);
  return {
    ...(binary === undefined ? {} : { binary }),
    ...(classes === 0 ? {} : { classification: classes }),
  };
}

/**
 * Checks that `model` answers one response per request, as one-response inference (HTTP's infer,
 * gRPC's ModelInfer) needs: called before the request is read, then `model.inferOne()` runs it
 * (UNSUPPORTED where a model still sends other than one).
 * @param transport whose words refuse a decoupled model (tritonserver's, then our hint).
 * @throws {TritonError} UNSUPPORTED for a decoupled model; Triton's error for an unknown one.
 */
export function checkOneResponse(model: Model, transport: keyof typeof DECOUPLED_REFUSED): void {
  if (model.transactionProperties().decoupled) {
    unsupported(
      `${DECOUPLED_REFUSED[transport]}: model '${model.name}' is decoupled, and one-response ` +
        "inference does not serve it; stream its responses (ModelStreamInfer over gRPC, " +
        "generate_stream over HTTP)",
    );
  }
}
