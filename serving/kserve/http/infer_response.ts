/**
 * The KServe v2 inference response: an {@link InferResponse} written as Triton's HTTP front end
 * writes it, JSON outputs inline and binary ones (the binary tensor data extension) after the
 * JSON header.
 *
 * @module
 */
import type { InferResponse, ParameterValue } from "../../../src/response.ts";
import type { Tensor } from "../../../src/tensor.ts";
import { unsupported } from "../../common/refusals.ts";
import { INFERENCE_HEADER } from "./infer_request.ts";
import { jsonElements } from "../../common/tensor_data.ts";

const encoder = new TextEncoder();

/** A JSON number as Triton writes it: NaN and infinities as `NaN`, `Infinity`, `-Infinity`. */
function numberText(n: number): string {
  return String(n);
}

/**
 * Response parameters as the text of a JSON object: STRING, INT (exact), BOOL, DOUBLE.
 * @throws {TritonError} UNSUPPORTED for a BYTES parameter, which has no JSON form (as in Triton).
 */
export function parametersJson(params: Readonly<Record<string, ParameterValue>>): string {
  let text = "";
  for (const [key, value] of Object.entries(params)) {
    let v: string;
    if (typeof value === "string") v = JSON.stringify(value);
    else if (typeof value === "number") v = numberText(value);
    else if (typeof value === "bigint" || typeof value === "boolean") v = String(value);
    else unsupported(`response parameter '${key}' is BYTES, which has no JSON form`);
    text += `${text ? "," : ""}${JSON.stringify(key)}:${v}`;
  }
  return `{${text}}`;
}

/** An HTTP response's body and headers, before it is compressed or not. */
export interface HttpBody {
  readonly body: string | Uint8Array<ArrayBuffer>;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The HTTP response body for one inference response: `{ id?, model_name, model_version,
 * parameters?, outputs: [{ name, datatype, shape, data | parameters.binary_data_size }] }`. With
 * binary outputs the body is `application/octet-stream`: the JSON header (its length in
 * `Inference-Header-Content-Length`), then each binary output's bytes in output order. Everything
 * is read (and binary data copied) before this returns: the caller may dispose `response` at once.
 * @param binary whether an output goes back as binary data.
 * @param inSharedMemory whether an output went to shared memory: it is described (name, data type,
 *   shape) without its data.
 * @param outputs the outputs to write: the response's, or those with classifications in place
 *   (`classification.ts`).
 * @throws {TritonError} the response's error; INVALID_ARG for an FP16/BF16 output asked for as
 *   JSON; UNSUPPORTED for a BYTES response parameter.
 */
export function inferHttpBody(
  response: InferResponse,
  binary: (output: string) => boolean,
  inSharedMemory: (output: string) => boolean = () => false,
  outputs: Readonly<Record<string, Tensor>> = response.outputs,
): HttpBody {
  if (response.error) throw response.error;
  const { name, version } = response.model;
  let json = "{";
  const id = response.id;
  if (id !== "") json += `"id":${JSON.stringify(id)},`;
  json += `"model_name":${JSON.stringify(name)},"model_version":"${version}"`;
  const params = response.parameters;
  for (const _ in params) {
    json += `,"parameters":${parametersJson(params)}`;
    break;
  }
  json += `,"outputs":[`;
  const blobs: Uint8Array[] = [];
  let blobBytes = 0;
  let first = true;
  for (const [output, tensor] of Object.entries(outputs)) {
    json += `${first ? "" : ","}{"name":${JSON.stringify(output)},"datatype":"${tensor.dtype}",` +
      `"shape":[${tensor.shape.join(",")}],`;
    first = false;
    if (inSharedMemory(output)) {
      json = json.slice(0, -1) + "}"; // no data: it is in the region
    } else if (binary(output)) {
      const bytes = tensor.toBytes();
      json += `"parameters":{"binary_data_size":${bytes.byteLength}}}`;
      if (bytes.byteLength > 0) {
        blobs.push(bytes);
        blobBytes += bytes.byteLength;
      }
    } else {
      json += `"data":${jsonElements(`output '${output}'`, tensor)}}`;
    }
  }
  json += "]}";
  if (blobs.length === 0) {
    return { body: json, headers: { "content-type": "application/json" } };
  }
  const header = encoder.encode(json);
  const body = new Uint8Array(header.byteLength + blobBytes);
  body.set(header, 0);
  let at = header.byteLength;
  for (const b of blobs) {
    body.set(b, at); // a copy: the response's buffers go back to Triton when it is disposed
    at += b.byteLength;
  }
  return {
    body,
    headers: {
      "content-type": "application/octet-stream",
      [INFERENCE_HEADER]: String(header.byteLength),
    },
  };
}
