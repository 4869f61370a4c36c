/**
 * One choice's inference through a {@link GenerationPlan}: the Triton request for a prompt and
 * the fields of an OpenAI request, and what each of the model's responses says (its text, token
 * counts, finish reason).
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import type { InferRequest } from "../../src/request.ts";
import type { RequestParameterValue } from "../../src/request_parameters.ts";
import type { InferResponse } from "../../src/response.ts";
import type { Tensor } from "../../src/tensor.ts";
import { isRecord, type Json } from "../common/json.ts";
import { shapeHolding, tensorFromJson } from "../common/tensor_data.ts";
import { badRequest, OpenAIError } from "./openai_error.ts";
import { jsonText } from "./fields.ts";
import type { GenerationPlan, InputSlot, Sink } from "./mapping.ts";
import type { GenerationRequest } from "./request.ts";
import type { Utf8Pieces } from "./utf8_pieces.ts";

/** The fields whose value is a fraction: sent as DOUBLE request parameters even when integral. */
const FRACTIONS: ReadonlySet<string> = new Set([
  "temperature",
  "top_p",
  "presence_penalty",
  "frequency_penalty",
]);

/** A tensor of `values` for `slot`, batch of one where the model batches.
 * @throws {OpenAIError} 400 naming `param` for values that do not fit the input. */
function inputTensor(slot: InputSlot, values: Json[], param: string | null): Tensor {
  const what = `input '${slot.name}'`;
  try {
    const leaves = slot.dtype === "BYTES"
      ? values.map((v) => (typeof v === "string" ? v : jsonText(v)))
      : values;
    const shape = shapeHolding(what, slot.dims, leaves.length);
    return tensorFromJson(what, slot.dtype, slot.batched ? [1, ...shape] : shape, leaves);
  } catch (e) {
    if (!(e instanceof TritonError)) throw e;
    throw new OpenAIError(400, param === null ? e.message : `'${param}': ${e.message}`, param);
  }
}

/** A request parameter's value for field `field`. */
function parameterValue(field: string, value: Json): RequestParameterValue {
  if (typeof value === "number" && FRACTIONS.has(field)) return { type: "DOUBLE", value };
  if (
    typeof value === "string" || typeof value === "number" || typeof value === "bigint" ||
    typeof value === "boolean"
  ) {
    return value;
  }
  return jsonText(value);
}

/**
 * Checks what a request asks of a plan before anything is submitted: `response_format` (other
 * than `{"type": "text"}`), `tools` and `tool_choice` need the mapping to carry them, and a field
 * of the caller's own that goes as a request parameter of its name must be a string, number or
 * boolean (with a name that can be one).
 * @returns whether the front end applies the stop strings itself (the mapping does not carry
 *   `stop`).
 * @throws {OpenAIError} 400 naming the field.
 */
export function checkFields(plan: GenerationPlan, request: GenerationRequest): boolean {
  for (const [field, value] of request.fields) {
    if (plan.sinks.has(field)) continue;
    if (field === "response_format" && isRecord(value) && value.type === "text") continue;
    if (field === "response_format" || field === "tools" || field === "tool_choice") {
      badRequest(
        `'${field}' is not supported by model '${request.model}': its mapping does not pass it on`,
        field,
        "unsupported_parameter",
      );
    }
  }
  if (plan.extras === "parameter") {
    for (const [field, value] of request.extras) {
      if (plan.sinks.has(field)) continue;
      if (typeof value === "object") {
        badRequest(
          `'${field}' is not an OpenAI field of this request, so it goes to the model as a ` +
            `request parameter named '${field}', which must be a string, number or boolean`,
          field,
        );
      }
      if (field.includes("\0")) badRequest("a field name must not contain a NUL character", field);
    }
  }
  return request.stop !== undefined && !plan.sinks.has("stop");
}

/**
 * The Triton request of one choice: `prompt` into the prompt input, the stream flag, the
 * constant inputs, and each field where the plan sends it (input, request parameter, or vLLM's
 * sampling JSON); a required input the request leaves out gets OpenAI's default.
 * @throws {OpenAIError} 400 for a value that does not fit its input.
 */
export function inferRequest(
  plan: GenerationPlan,
  prompt: string,
  request: GenerationRequest,
  signal: AbortSignal,
): InferRequest {
  // No prototype: a field named `__proto__` is a key like any other.
  const inputs: Record<string, Tensor> = Object.assign(Object.create(null), plan.constants);
  if (!request.stream || request.includeUsage) Object.assign(inputs, plan.usageConstants);
  const parameters: Record<string, RequestParameterValue> = Object.create(null);
  const sampling: Record<string, Json> = Object.create(null);
  inputs[plan.prompt.name] = inputTensor(plan.prompt, [prompt], null);
  if (plan.stream) inputs[plan.stream.name] = inputTensor(plan.stream, [request.stream], "stream");
  const send = (field: string, sink: Sink, value: Json) => {
    if (sink.kind === "sampling") sampling[sink.key] = value;
    else if (sink.kind === "parameter") parameters[sink.name] = parameterValue(field, value);
    else {
      const values = field === "stop" && Array.isArray(value) ? value : [value];
      inputs[sink.slot.name] = inputTensor(sink.slot, values, field);
    }
  };
  for (const [field, sink] of plan.sinks) {
    const value = (request.fields as ReadonlyMap<string, Json>).get(field) ??
      request.extras.get(field) ??
      plan.defaults.get(field);
    if (value !== undefined) send(field, sink, value);
  }
  for (const [field, value] of request.extras) {
    if (plan.sinks.has(field)) continue;
    if (plan.extras === "sampling") sampling[field] = value;
    else parameters[field] = parameterValue(field, value);
  }
  if (plan.sampling) {
    inputs[plan.sampling.name] = inputTensor(plan.sampling, [jsonText(sampling)], null);
  }
  return { inputs, parameters, signal };
}

/** What one response of the model says. */
export interface ResponsePiece {
  /** Its text, decoded (a character split between responses is completed by the next). */
  readonly text: string;
  /** The prompt's tokens, where the model counts them. */
  readonly promptTokens: number | undefined;
  /** The tokens this response generated, where the model counts them. */
  readonly completionTokens: number | undefined;
  /** The model's finish reason, where it gives one. */
  readonly finishReason: string | undefined;
}

/** The first element of an integer output, as a number. */
function count(response: InferResponse, name: string | undefined): number | undefined {
  if (name === undefined) return undefined;
  const tensor = response.outputs[name];
  if (tensor === undefined || tensor.dtype === "BYTES") return undefined;
  const data = tensor.data as ArrayLike<number | bigint>;
  return data.length === 0 ? undefined : Number(data[0]);
}

const reasonDecoder = new TextDecoder();

/** Whether `bytes` is the UTF-8 of "None". */
function isNone(bytes: Uint8Array): boolean {
  return bytes.length === 4 && bytes[0] === 0x4e && bytes[1] === 0x6f && bytes[2] === 0x6e &&
    bytes[3] === 0x65;
}

/**
 * Reads one response through the plan's outputs; an output the response lacks reads as absent.
 * @param decoder the choice's UTF-8 decoder (a character may span two responses).
 */
export function readPiece(
  plan: GenerationPlan,
  response: InferResponse,
  decoder: Utf8Pieces,
): ResponsePiece {
  const outputs = response.outputs;
  let text = "";
  const t = outputs[plan.text];
  if (t !== undefined && t.dtype === "BYTES") {
    for (const element of t.data as Uint8Array[]) text += decoder.decode(element);
  }
  let finishReason: string | undefined;
  const f = plan.finishReason === undefined ? undefined : outputs[plan.finishReason];
  if (f !== undefined && f.dtype === "BYTES") {
    // vLLM's backend sends "None" on the responses before the last: told by its bytes, so that
    // only a real reason is decoded.
    const first = (f.data as Uint8Array[])[0];
    if (first !== undefined && first.length !== 0 && !isNone(first)) {
      finishReason = reasonDecoder.decode(first);
    }
  }
  return {
    text,
    promptTokens: count(response, plan.promptTokens),
    completionTokens: count(response, plan.completionTokens),
    finishReason,
  };
}
