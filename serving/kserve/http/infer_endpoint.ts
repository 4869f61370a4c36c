/**
 * The infer endpoint (`POST .../infer`): one request, one response, as Triton's HTTP front end
 * serves it.
 *
 * @module
 */
import type { Model } from "../../../src/model.ts";
import type { TraceOptions } from "../../../src/trace.ts";
import { readBody, type RequestLimits, tooLarge } from "../../common/body.ts";
import { classifiedOutputs, respondingModelBatches } from "../classification.ts";
import { checkOneResponse } from "../inference.ts";
import { INFERENCE_HEADER, parseInferRequest } from "./infer_request.ts";
import { inferHttpBody } from "./infer_response.ts";
import { requestEncoding, responseEncoding } from "../../common/content_encoding.ts";
import { compress } from "../../common/compression.ts";
import { inferOneWithSharedMemory } from "../request_shared_memory.ts";
import type { SharedMemoryRegions } from "../shared_memory.ts";

/**
 * Answers an inference request: checks the model answers one response per request, reads
 * (inflating a gzip or deflate body) and checks the body, runs the inference (cancelled if
 * `request.signal` aborts: the client left) and writes its response, disposing it once written;
 * the response is compressed in the encoding the request's `Accept-Encoding` prefers
 * (`Content-Encoding: gzip` or `deflate`), as `tritonserver` compresses it.
 * @throws {TritonError} UNSUPPORTED for a decoupled model (as Triton), or one that sends other than
 *   one response, or an unknown `Content-Encoding`; INVALID_ARG for a malformed request (a
 *   compressed body that does not inflate included), or an output asked for as a classification
 *   that cannot be one; the model's error.
 * @throws {HttpError} 413 for a body over `limits.body` (sent, or inflated), or JSON (the body, or
 *   a binary request's header) over `limits.json`, before the body is read where `Content-Length`
 *   declares its size.
 */
export async function inferEndpoint(
  model: Model,
  request: Request,
  limits: RequestLimits,
  regions?: SharedMemoryRegions,
  trace?: TraceOptions,
): Promise<Response> {
  checkOneResponse(model, "http");
  const header = request.headers.get(INFERENCE_HEADER);
  // Binary data counts against the body's limit only; the JSON it follows against the JSON's. A
  // JSON header over its limit in a body that holds it is refused before the body is read, or
  // once read where the body's size is not declared; one longer than its body is malformed (400).
  const jsonBytes = Number(header?.trim());
  const overJson = (bodyBytes: number) => {
    if (jsonBytes > limits.json.bytes && jsonBytes <= bodyBytes) {
      request.body?.cancel().catch(() => {});
      throw tooLarge("JSON header (Inference-Header-Content-Length)", jsonBytes, limits.json);
    }
  };
  // A compressed body's Content-Length says nothing of what it inflates to. (An unknown
  // encoding is refused by readBody, which also drops the body.)
  let compressed = true;
  try {
    compressed = requestEncoding(request.headers) !== undefined;
  } catch { /* refused below */ }
  overJson(compressed ? NaN : Number(request.headers.get("content-length") ?? NaN));
  const body = await readBody(request, header === null ? limits.json : limits.body);
  overJson(body.byteLength);
  const parsed = parseInferRequest(body, header, regions);
  const shm = parsed.sharedMemory;
  // One response per request: awaited as one promise, without iterating a stream
  // (bench/README.md, "Where a served request's time goes").
  const response = await inferOneWithSharedMemory(model, {
    ...parsed.request,
    signal: request.signal,
    trace,
  }, shm);
  let written;
  try {
    const outputs = classifiedOutputs(
      response,
      parsed.classification,
      () => respondingModelBatches(model.server, response),
    );
    written = inferHttpBody(response, parsed.binary, (output) => shm.isOutput(output), outputs);
  } finally {
    response.dispose();
    shm.releaseOutputs(); // its outputs in shared memory viewed their regions until now
  }
  // As tritonserver: the response (never an error) in the encoding Accept-Encoding prefers; its
  // Inference-Header-Content-Length still counts the JSON header before compression.
  const encoding = responseEncoding(request.headers.get("accept-encoding"));
  if (encoding === undefined) return new Response(written.body, { headers: written.headers });
  const bytes = typeof written.body === "string" ? encoder.encode(written.body) : written.body;
  return new Response(await compress(bytes, encoding), {
    headers: { ...written.headers, "content-encoding": encoding },
  });
}

const encoder = new TextEncoder();
