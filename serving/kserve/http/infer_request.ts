/**
 * The KServe v2 inference request (`POST .../infer`): its JSON, the binary tensor data extension
 * (`Inference-Header-Content-Length`, `binary_data_size`), requested outputs and request
 * parameters, read into an {@link InferRequest} after checking every part of it.
 *
 * @module
 */
import type { InferRequest } from "../../../src/request.ts";
import type { Tensor } from "../../../src/tensor.ts";
import { labelsKept } from "../classification.ts";
import { invalid, unsupported } from "../../common/refusals.ts";
import { array, parseJson, record, string, unsigned } from "../../common/json.ts";
import {
  inputSharedMemory,
  outputOptions,
  type RequestOptions,
  requestParameters,
} from "../inference.ts";
import { RequestSharedMemory } from "../request_shared_memory.ts";
import type { SharedMemoryRegions } from "../shared_memory.ts";
import { dataType, shapeOf, tensorFromBinary, tensorFromJson } from "../../common/tensor_data.ts";

/** The header that gives the JSON part's length in a binary request or response. */
export const INFERENCE_HEADER = "inference-header-content-length";

/** A parsed inference request. */
export interface ParsedInfer {
  /** What goes to `model.infer()` (all but the signal). */
  readonly request: InferRequest;
  /** Whether an output goes back as binary data (`binary_data` of the output, else the request's
   * `binary_data_output`). */
  readonly binary: (output: string) => boolean;
  /** The shared memory regions it reads and writes (release them when done). */
  readonly sharedMemory: RequestSharedMemory;
  /** Outputs asked for as classifications: classes per batch row, by output name. */
  readonly classification: ReadonlyMap<string, number>;
}

/** The length of the JSON part: the `Inference-Header-Content-Length` header, else the body's.
 * @throws {TritonError} INVALID_ARG for a malformed or too large value; UNSUPPORTED for 0 (a
 *   raw binary request, which needs Triton's raw input). */
function headerLength(header: string | null, bodyLength: number): number {
  if (header === null) return bodyLength;
  const text = header.trim();
  if (!/^\d+$/.test(text)) invalid(`invalid Inference-Header-Content-Length '${header}'`);
  const n = Number(text);
  if (n > bodyLength) {
    invalid(
      `Inference-Header-Content-Length is ${text}, but the request body has only ` +
        `${bodyLength} bytes`,
    );
  }
  if (n === 0) {
    unsupported(
      "raw binary requests (Inference-Header-Content-Length: 0) are not supported; " +
        "describe the inputs in a JSON header",
    );
  }
  return n;
}

/**
 * Parses an inference request body; inputs in shared memory are read in place from `regions`
 * (leased until the request is done: release `sharedMemory` of the result, or it is released
 * here when parsing fails).
 * @param header the `Inference-Header-Content-Length` header (null when absent: all JSON).
 * @throws {TritonError} INVALID_ARG for anything malformed: not JSON, a missing or mistyped
 *   field, data that does not fit its shape and data type, binary sizes past the body or bytes
 *   left over, a part past its shared memory region, a `classification` that is no count;
 *   NOT_FOUND for a region not registered.
 */
export function parseInferRequest(
  body: Uint8Array,
  header: string | null,
  regions?: SharedMemoryRegions,
): ParsedInfer {
  const sharedMemory = new RequestSharedMemory(regions);
  try {
    return parse(body, header, sharedMemory);
  } catch (e) {
    sharedMemory.release();
    throw e;
  }
}

function parse(
  body: Uint8Array,
  header: string | null,
  sharedMemory: RequestSharedMemory,
): ParsedInfer {
  const jsonLength = headerLength(header, body.byteLength);
  const json = record(parseJson(body.subarray(0, jsonLength), "inference request"), "the request");
  const options: RequestOptions = {};
  if (json.id !== undefined) options.id = string(json.id, "'id'");
  const binaryOutput = json.parameters === undefined
    ? false
    : requestParameters(record(json.parameters, "'parameters'"), options);

  const inputs: Record<string, Tensor> = {};
  let at = jsonLength;
  for (const [i, raw] of array(json.inputs, "'inputs'").entries()) {
    const input = record(raw, `input ${i}`);
    const name = string(input.name, `the name of input ${i}`);
    const what = `input '${name}'`;
    if (Object.hasOwn(inputs, name)) invalid(`${what} is given twice`);
    const dtype = dataType(input.datatype, what);
    const shape = shapeOf(input.shape, what);
    const params = input.parameters === undefined
      ? {}
      : record(input.parameters, `${what} parameters`);
    const shm = inputSharedMemory(params, what);
    const hasData = input.data !== undefined;
    const hasBinary = params.binary_data_size !== undefined;
    const given = [hasData && "'data'", hasBinary && "'binary_data_size'", shm && "a region"]
      .filter(Boolean);
    if (given.length !== 1) {
      invalid(
        `${what} must give exactly one of 'data', 'binary_data_size' in 'parameters' and ` +
          `'shared_memory_region' in 'parameters', ` +
          (given.length === 0 ? "gives none" : `gives ${given.join(" and ")}`),
      );
    }
    if (shm) {
      inputs[name] = sharedMemory.inputTensor(what, dtype, shape, shm);
    } else if (hasBinary) {
      const size = unsigned(params.binary_data_size, `${what} binary_data_size`);
      const left = body.byteLength - at;
      if (size > left) {
        invalid(
          `${what} has binary_data_size ${size}, but only ${left} bytes of binary data remain`,
        );
      }
      const bytes = body.subarray(at, at + Number(size));
      at += Number(size);
      inputs[name] = tensorFromBinary(what, dtype, shape, bytes);
    } else {
      inputs[name] = tensorFromJson(what, dtype, shape, array(input.data, `${what} 'data'`));
    }
  }
  if (at !== body.byteLength) {
    invalid(
      `${body.byteLength - at} bytes after the JSON header are not claimed by any input's ` +
        "binary_data_size",
    );
  }

  let requested: string[] | undefined;
  const binaryByName = new Map<string, boolean>();
  const classification = new Map<string, number>();
  if (json.outputs !== undefined) {
    requested = [];
    for (const [i, raw] of array(json.outputs, "'outputs'").entries()) {
      const output = record(raw, `output ${i}`);
      const name = string(output.name, `the name of output ${i}`);
      const what = `output '${name}'`;
      requested.push(name);
      if (output.parameters === undefined) continue;
      const options = outputOptions(record(output.parameters, `${what} parameters`), what);
      if (options.binary !== undefined) binaryByName.set(name, options.binary);
      if (options.sharedMemory) sharedMemory.output(name, options.sharedMemory);
      if (options.classification !== undefined) classification.set(name, options.classification);
    }
  }
  const request: InferRequest = {
    ...options,
    inputs,
    ...(requested ? { outputs: requested } : {}),
    ...labelsKept(classification),
  };
  return {
    request,
    binary: (output) => binaryByName.get(output) ?? binaryOutput,
    sharedMemory,
    classification,
  };
}
