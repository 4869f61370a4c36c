/**
 * Triton's generate extension (`POST .../generate`, `.../generate_stream`): a flat JSON object
 * whose keys name model inputs (a value or a 1-D array, shaped by the model's metadata) or request
 * parameters, answered with one flat JSON object per response (its outputs, its parameters,
 * `model_name`, `model_version`, `id`); the stream sends each as a Server-Sent Event.
 *
 * @module
 */
import { TritonError } from "../../../src/errors.ts";
import type { ModelMetadata } from "../../../src/metadata.ts";
import type { Model } from "../../../src/model.ts";
import type { InferRequest } from "../../../src/request.ts";
import type { InferResponse } from "../../../src/response.ts";
import type { Tensor } from "../../../src/tensor.ts";
import { readBody, type SizeLimit } from "../../common/body.ts";
import { HTTP_STATUS } from "../../common/http_errors.ts";
import { invalid, unsupported } from "../../common/refusals.ts";
import { type EventStream, eventStream } from "../../common/event_stream.ts";
import {
  flatten,
  isRecord,
  type Json,
  type JsonRecord,
  parseJson,
  record,
  string,
  withoutNul,
} from "../../common/json.ts";
import { parameterValue } from "../inference.ts";
import { dataType, jsonElements, shapeHolding, tensorFromJson } from "../../common/tensor_data.ts";

/**
 * Builds the inference request of a generate body: `id` is the request id; a key naming a model
 * input is that input; `parameters` (an object) is read the same way one level down; every other
 * key is a request parameter (a string, number or boolean).
 * @throws {TritonError} INVALID_ARG for a value that fits neither.
 */
export function generateRequest(body: JsonRecord, metadata: ModelMetadata): InferRequest {
  const inputsMeta = new Map(metadata.inputs.map((i) => [i.name, i]));
  const inputs: Record<string, Tensor> = {};
  const parameters: Record<string, string | number | bigint | boolean> = {};
  let id: string | undefined;
  const take = (key: string, value: Json): void => {
    const meta = inputsMeta.get(withoutNul(key, "a key of the generate request"));
    if (meta === undefined) {
      parameters[key] = parameterValue(value, `parameter '${key}'`);
      return;
    }
    const what = `input '${key}'`;
    const leaves = Array.isArray(value) ? flatten(value, what) : [value];
    const dtype = dataType(meta.datatype, what);
    inputs[key] = tensorFromJson(
      what,
      dtype,
      shapeHolding(what, meta.shape, leaves.length),
      leaves,
    );
  };
  for (const [key, value] of Object.entries(body)) {
    if (key === "id") id = string(value, "'id'");
    else if (key === "parameters" && !inputsMeta.has(key)) {
      if (!isRecord(value)) invalid("'parameters' must be a JSON object");
      for (const [k, v] of Object.entries(value)) take(k, v);
    } else take(key, value);
  }
  return { inputs, parameters, ...(id === undefined ? {} : { id }) };
}

/**
 * One generate response as the text of a flat JSON object: `id` (when set), `model_name`,
 * `model_version`, each response parameter, and each output (its elements as an array, or the
 * element itself when there is one). A key already written is not written again.
 * @throws {TritonError} the response's error; INVALID_ARG for an FP16/BF16 output; UNSUPPORTED
 *   for a BYTES parameter.
 */
export function generateJson(response: InferResponse): string {
  if (response.error) throw response.error;
  const seen = new Set<string>();
  let text = "";
  const put = (key: string, value: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    text += `${text ? "," : ""}${JSON.stringify(key)}:${value}`;
  };
  if (response.id !== "") put("id", JSON.stringify(response.id));
  const { name, version } = response.model;
  put("model_name", JSON.stringify(name));
  put("model_version", `"${version}"`);
  for (const [key, value] of Object.entries(response.parameters)) {
    if (typeof value === "string") put(key, JSON.stringify(value));
    else if (value instanceof Uint8Array) {
      unsupported(`response parameter '${key}' is BYTES, which has no JSON form`);
    } else put(key, String(value));
  }
  for (const [output, tensor] of Object.entries(response.outputs)) {
    const data = jsonElements(`output '${output}'`, tensor);
    let count = 1;
    for (const d of tensor.shape) count *= d;
    put(output, count === 1 ? data.slice(1, -1) : data);
  }
  return `{${text}}`;
}

const ONE_RESPONSE = "generate expects the model to send exactly one response";

/**
 * Answers a generate request: reads the body, builds the inference from the model's metadata and
 * runs it (cancelled if `request.signal` aborts). `generate` answers the one response as JSON;
 * `generate_stream` waits for the first response, whose error (if any) sets the status, then
 * sends each response as an SSE event as it comes (`stream` is returned with it).
 * @throws {TritonError} INVALID_ARG for a malformed request; the model's error (generate, or the
 *   stream failing before its first response); INTERNAL when generate gets other than one
 *   response.
 * @throws {HttpError} 413 for a body over `limit`.
 */
export async function generateEndpoint(
  model: Model,
  request: Request,
  limit: SizeLimit,
  streaming: boolean,
): Promise<{ response: Response; stream?: EventStream }> {
  const metadata = model.metadata();
  const body = await readBody(request, limit);
  const json = body.byteLength === 0
    ? {}
    : record(parseJson(body, "generate request"), "the generate request");
  const inferRequest = generateRequest(json, metadata);
  if (!streaming) {
    let text: string | undefined;
    for await (const response of model.infer({ ...inferRequest, signal: request.signal })) {
      try {
        if (text !== undefined) {
          throw new TritonError("INTERNAL", `${ONE_RESPONSE}; use generate_stream`);
        }
        text = generateJson(response);
      } finally {
        response.dispose();
      }
    }
    if (text === undefined) throw new TritonError("INTERNAL", `${ONE_RESPONSE}; it sent none`);
    return { response: new Response(text, { headers: { "content-type": "application/json" } }) };
  }
  const responses = model.infer({ ...inferRequest, signal: request.signal, raiseOnError: false });
  const first = await responses.next();
  const head = first.done ? undefined : first.value;
  const stream = eventStream(head, responses, generateJson);
  const response = new Response(stream.body, {
    status: head?.error ? HTTP_STATUS[head.error.code] ?? 400 : 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
  return { response, stream };
}
