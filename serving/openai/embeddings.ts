/**
 * `POST /v1/embeddings` over a checked embedding mapping: the call's strings into the model's
 * input (one request, or one per `max_batch_size` strings where the model batches), one vector
 * per string out of its output, the token counts summed: the model's where it gives them, else
 * its tokenizer's, else 0.
 *
 * @module
 */
import { fp16ToNumber } from "../../src/half.ts";
import { shapeHolding, tensorFromJson } from "../common/tensor_data.ts";
import { TritonError } from "../../src/errors.ts";
import { badRequest } from "./openai_error.ts";
import type { EmbeddingPlan } from "./mapping.ts";
import type { EmbeddingRequest } from "./request.ts";
import { embeddingBody } from "./responses.ts";
import type { TokenCounter } from "./tokenizer.ts";

/** The elements of a float output as numbers. */
function floats(data: ArrayLike<number>, dtype: string): number[] {
  const out = Array.from(data);
  // FP16 without Float16Array: half bits in a Uint16Array.
  if (dtype === "FP16" && data instanceof Uint16Array) return out.map(fp16ToNumber);
  return out;
}

/** The vectors of one request's strings, and their token count where the model counts. */
interface EmbeddingBatch {
  readonly vectors: number[][];
  readonly tokens: number | undefined;
}

/** Runs one request for `strings`: their vectors and token count (where the model counts). */
async function embedBatch(
  plan: EmbeddingPlan,
  strings: readonly string[],
  signal: AbortSignal,
): Promise<EmbeddingBatch> {
  const { input } = plan;
  const what = `input '${input.name}'`;
  const k = strings.length;
  const shape = plan.maxBatchSize > 0
    ? [k, ...shapeHolding(what, input.dims, 1)]
    : shapeHolding(what, input.dims, k);
  const tensor = tensorFromJson(what, "BYTES", shape, [...strings]);
  // try/finally, not `using`: Node 22 cannot parse a `using` declaration, and this is shipped.
  const response = await plan.model.inferOne({ inputs: { [input.name]: tensor }, signal });
  try {
    const output = response.outputs[plan.output];
    if (output === undefined) {
      throw new TritonError(
        "INTERNAL",
        `model '${plan.model.name}' sent no output '${plan.output}'`,
      );
    }
    const values = floats(output.data as ArrayLike<number>, output.dtype);
    if (values.length === 0 || values.length % k !== 0) {
      throw new TritonError(
        "INTERNAL",
        `model '${plan.model.name}' sent ${values.length} values in '${plan.output}' for ${k} inputs`,
      );
    }
    const size = values.length / k;
    const vectors: number[][] = [];
    for (let i = 0; i < k; i++) vectors.push(values.slice(i * size, (i + 1) * size));
    let tokens: number | undefined;
    const counts = plan.tokens === undefined ? undefined : response.outputs[plan.tokens];
    if (counts !== undefined && counts.dtype !== "BYTES") {
      tokens = 0;
      for (const c of counts.data as Iterable<number | bigint>) tokens += Number(c);
    }
    return { vectors, tokens };
  } finally {
    response[Symbol.dispose]();
  }
}

/** The tokenizer's count of every input, summed; `undefined` without a tokenizer or where it
 * fails on one. */
function tokenizedCount(
  inputs: readonly string[],
  tokenizer: TokenCounter | undefined,
): number | undefined {
  if (tokenizer === undefined) return undefined;
  let sum = 0;
  for (const input of inputs) {
    const n = tokenizer.count(input, true);
    if (n === undefined) return undefined;
    sum += n;
  }
  return sum;
}

/**
 * Answers an embeddings call with OpenAI's embedding list. Its `usage` counts the inputs' tokens
 * as the model does where its mapping names a count output, else as the model's tokenizer does
 * (each input with the tokens the tokenizer adds around it), else as 0 (OpenAI's API requires
 * the field).
 * @param signal the HTTP request's: aborting it cancels the requests in Triton.
 * @param tokenizer the model's tokenizer, if any.
 * @throws {OpenAIError} 400 when `dimensions` is not the model's vector length.
 * @throws {TritonError} the model's error; INVALID_ARG for strings that do not fit the input's
 *   shape; INTERNAL for an output that does not hold one vector per string.
 */
export async function embeddings(
  plan: EmbeddingPlan,
  request: EmbeddingRequest,
  signal: AbortSignal,
  tokenizer?: TokenCounter,
): Promise<Response> {
  const { inputs } = request;
  const batch = plan.maxBatchSize > 0 ? plan.maxBatchSize : inputs.length;
  const parts: Promise<EmbeddingBatch>[] = [];
  for (let at = 0; at < inputs.length; at += batch) {
    parts.push(embedBatch(plan, inputs.slice(at, at + batch), signal));
  }
  // Every request ends before the answer, a failed one's error first.
  const settled = await Promise.allSettled(parts);
  const failed = settled.find((p) => p.status === "rejected");
  if (failed) throw failed.reason;
  const done = settled.map((p) => (p as PromiseFulfilledResult<EmbeddingBatch>).value);
  const vectors = done.flatMap((p) => p.vectors);
  const size = vectors[0].length;
  if (request.dimensions !== undefined && request.dimensions !== size) {
    badRequest(
      `model '${request.model}' gives vectors of ${size} dimensions, not ${request.dimensions}`,
      "dimensions",
    );
  }
  const tokens = done.every((p) => p.tokens !== undefined)
    ? done.reduce((sum, p) => sum + p.tokens!, 0)
    : tokenizedCount(inputs, tokenizer) ?? 0;
  return new Response(embeddingBody(request.model, vectors, request.encoding, tokens), {
    headers: { "content-type": "application/json" },
  });
}
