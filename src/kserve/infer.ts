/**
 * The infer endpoint (`POST .../infer`): one request, one response, as Triton's HTTP front end
 * serves it.
 *
 * @module
 */
import { TritonError } from "../errors.ts";
import type { Model } from "../model.ts";
import { readBody } from "./body.ts";
import { unsupported } from "./errors.ts";
import { INFERENCE_HEADER, parseInferRequest } from "./infer_request.ts";
import { inferHttpResponse } from "./infer_response.ts";

/**
 * Answers an inference request: checks the model answers one response per request, reads and
 * checks the body, runs the inference (cancelled if `request.signal` aborts: the client left) and
 * writes its response, disposing it once written.
 * @throws {TritonError} UNSUPPORTED for a decoupled model (as Triton); INVALID_ARG for a malformed
 *   request; the model's error; INTERNAL when the model sends other than one response.
 * @throws {HttpError} 413 for a body over `maxBytes`.
 */
export async function inferEndpoint(
  model: Model,
  request: Request,
  maxBytes: number,
): Promise<Response> {
  if (model.transactionProperties().decoupled) {
    unsupported(
      `model '${model.name}' is decoupled: the infer endpoint answers one response per request; ` +
        "use generate_stream",
    );
  }
  const body = await readBody(request, maxBytes);
  const parsed = parseInferRequest(body, request.headers.get(INFERENCE_HEADER));
  let answer: Response | undefined;
  for await (const response of model.infer({ ...parsed.request, signal: request.signal })) {
    try {
      if (answer !== undefined) {
        throw new TritonError("INTERNAL", "expected one response, the model sent more");
      }
      answer = inferHttpResponse(response, parsed.binary);
    } finally {
      response.dispose();
    }
  }
  if (answer === undefined) throw new TritonError("INTERNAL", "the model sent no response");
  return answer;
}
