/**
 * The check of a mapping against its model's configuration, which makes the plan the requests
 * follow: vLLM's convention, TensorRT-LLM's, a custom mapping, an embedding mapping; and which
 * convention, if any, a configuration follows (for the models served without a `models` option).
 *
 * @module
 */
import { isRecord } from "../../src/value_checks.ts";
import { TritonError } from "../../src/errors.ts";
import type { Model } from "../../src/model.ts";
import type { ModelConfig } from "../../src/model_config.ts";
import type { Server } from "../../src/server.ts";
import type { Tensor } from "../../src/tensor.ts";
import type { Json } from "../common/json.ts";
import type {
  CustomMapping,
  EmbeddingPlan,
  GenerationPlan,
  OpenAIEmbeddingModel,
  OpenAIGenerationModel,
  ParameterTarget,
  Sink,
} from "./mapping.ts";
import {
  ANY_TYPE,
  dataTypeOfConfig,
  FIELD_TYPES,
  FLOAT_TYPES,
  INTEGER_TYPES,
  ModelTensors,
} from "./model_tensors.ts";
import { MODEL_FIELDS } from "./request.ts";

/** OpenAI's defaults, sent where the model requires the input and the request leaves it out. */
const OPENAI_DEFAULTS: Readonly<Record<string, Json>> = {
  max_tokens: 16,
  temperature: 1,
  top_p: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
};

/** A bool constant input set to true where the model has it. */
function flagIfPresent(
  tensors: ModelTensors,
  constants: Record<string, Tensor>,
  name: string,
): boolean {
  if (!tensors.hasInput(name)) return false;
  constants[name] = tensors.constant(name, true, "a flag");
  return true;
}

/** vLLM's convention (Triton's vllm_backend). */
function vllmPlan(model: Model, tensors: ModelTensors): GenerationPlan {
  const prompt = tensors.input("text_input", "prompt", ["BYTES"]);
  const text = tensors.output("text_output", "text", ["BYTES"]);
  const stream = tensors.hasInput("stream")
    ? tensors.input("stream", "stream flag", ["BOOL"])
    : undefined;
  const sampling = tensors.hasInput("sampling_parameters")
    ? tensors.input("sampling_parameters", "sampling parameters", ["BYTES"])
    : undefined;
  const constants: Record<string, Tensor> = {};
  if (tensors.hasInput("exclude_input_in_output")) {
    constants.exclude_input_in_output = tensors.constant("exclude_input_in_output", true, "flag");
  }
  let finishReason: string | undefined;
  if (tensors.hasOutput("finish_reason")) {
    finishReason = tensors.output("finish_reason", "finish reason", ["BYTES"]);
    flagIfPresent(tensors, constants, "return_finish_reason");
  }
  // With the model's finish reason, the counts serve usage alone: asked for only when reported.
  const usageConstants: Record<string, Tensor> = {};
  const countFlags = finishReason === undefined ? constants : usageConstants;
  const count = (flagName: string, output: string): string | undefined => {
    if (!tensors.hasOutput(output)) return undefined;
    const name = tensors.output(output, "token count", INTEGER_TYPES);
    flagIfPresent(tensors, countFlags, flagName);
    return name;
  };
  const promptTokens = count("return_num_input_tokens", "num_input_tokens");
  const completionTokens = count("return_num_output_tokens", "num_output_tokens");
  const sinks = new Map<string, Sink>();
  if (sampling) {
    for (const f of MODEL_FIELDS) {
      if (f !== "response_format" && f !== "tools" && f !== "tool_choice") {
        sinks.set(f, { kind: "sampling", key: f });
      }
    }
  }
  tensors.checkRequired(new Map(), new Map());
  return {
    convention: "vllm",
    model,
    prompt,
    text,
    stream,
    sampling,
    sinks,
    defaults: new Map(),
    extras: sampling ? "sampling" : "parameter",
    constants,
    usageConstants,
    promptTokens,
    completionTokens,
    finishReason,
  };
}

/** The TensorRT-LLM inputs each OpenAI field goes to, where the model has them (the first
 * present of each list). */
const TRTLLM_INPUTS: readonly [string, readonly string[]][] = [
  ["max_tokens", ["max_tokens"]],
  ["temperature", ["temperature"]],
  ["top_p", ["top_p"]],
  ["seed", ["random_seed", "seed"]],
  ["stop", ["stop_words"]],
  ["presence_penalty", ["presence_penalty"]],
  ["frequency_penalty", ["frequency_penalty"]],
];

/** Resolves the input sinks of `parameters` and the fields' defaults; checks required inputs. */
function inputSinks(
  tensors: ModelTensors,
  parameters: Iterable<[string, ParameterTarget]>,
): { sinks: Map<string, Sink>; defaults: Map<string, Json> } {
  const sinks = new Map<string, Sink>();
  const defaults = new Map<string, Json>();
  const fieldOf = new Map<string, string>();
  for (const [field, target] of parameters) {
    if (!isRecord(target)) {
      tensors.fail(`parameters['${field}'] must be { input } or { parameter }`);
    }
    if ("input" in target) {
      const types = Object.hasOwn(FIELD_TYPES, field) ? FIELD_TYPES[field] : ANY_TYPE;
      const slot = tensors.input(target.input, `'${field}'`, types);
      sinks.set(field, { kind: "input", slot });
      fieldOf.set(slot.name, field);
      if (Object.hasOwn(OPENAI_DEFAULTS, field)) defaults.set(field, OPENAI_DEFAULTS[field]);
    } else if ("parameter" in target) {
      const name = (target as { parameter: unknown }).parameter;
      if (typeof name !== "string" || name === "" || name.includes("\0")) {
        tensors.fail(`parameters['${field}'].parameter must be a parameter name`);
      }
      sinks.set(field, { kind: "parameter", name });
    } else tensors.fail(`parameters['${field}'] must be { input } or { parameter }`);
  }
  tensors.checkRequired(fieldOf, defaults);
  return { sinks, defaults };
}

/** TensorRT-LLM's convention (its ensemble or BLS model). */
function trtllmPlan(model: Model, tensors: ModelTensors): GenerationPlan {
  const prompt = tensors.input("text_input", "prompt", ["BYTES"]);
  const text = tensors.output("text_output", "text", ["BYTES"]);
  const stream = tensors.hasInput("stream")
    ? tensors.input("stream", "stream flag", ["BOOL"])
    : undefined;
  const present: [string, ParameterTarget][] = [];
  for (const [field, names] of TRTLLM_INPUTS) {
    const name = names.find((n) => tensors.hasInput(n));
    if (name !== undefined) present.push([field, { input: name }]);
  }
  const constants: Record<string, Tensor> = {};
  // The tensorrt_llm model's own flag, where it takes it as an input: the text without the prompt.
  if (tensors.hasInput("exclude_input_in_output")) {
    constants.exclude_input_in_output = tensors.constant("exclude_input_in_output", true, "flag");
  }
  const { sinks, defaults } = inputSinks(tensors, present);
  return {
    convention: "trtllm",
    model,
    prompt,
    text,
    stream,
    sampling: undefined,
    sinks,
    defaults,
    extras: "parameter",
    constants,
    usageConstants: {},
    promptTokens: undefined,
    completionTokens: undefined,
    finishReason: undefined,
  };
}

const CUSTOM_FIELDS = [
  "prompt",
  "text",
  "stream",
  "parameters",
  "usage",
  "finishReason",
  "inputs",
];

/** A {@link CustomMapping}. */
function customPlan(model: Model, tensors: ModelTensors, mapping: CustomMapping): GenerationPlan {
  for (const key of Object.keys(mapping)) {
    if (!CUSTOM_FIELDS.includes(key)) {
      tensors.fail(
        `the mapping has an unknown field '${key}' (it takes ${CUSTOM_FIELDS.join(", ")})`,
      );
    }
  }
  const prompt = tensors.input(mapping.prompt, "prompt", ["BYTES"]);
  const text = tensors.output(mapping.text, "text", ["BYTES"]);
  const stream = mapping.stream === undefined
    ? undefined
    : tensors.input(mapping.stream, "stream flag", ["BOOL"]);
  const constants: Record<string, Tensor> = {};
  if (mapping.inputs !== undefined) {
    if (!isRecord(mapping.inputs)) tensors.fail("the mapping's inputs must be an object");
    for (const [name, value] of Object.entries(mapping.inputs)) {
      constants[name] = tensors.constant(name, value, "a constant input");
    }
  }
  const usage = mapping.usage;
  if (usage !== undefined && !isRecord(usage)) {
    tensors.fail("the mapping's usage must be an object");
  }
  const promptTokens = usage?.promptTokens === undefined
    ? undefined
    : tensors.output(usage.promptTokens, "prompt token count", INTEGER_TYPES);
  const completionTokens = usage?.completionTokens === undefined
    ? undefined
    : tensors.output(usage.completionTokens, "completion token count", INTEGER_TYPES);
  const finishReason = mapping.finishReason === undefined
    ? undefined
    : tensors.output(mapping.finishReason, "finish reason", ["BYTES"]);
  const parameters = mapping.parameters ?? {};
  if (!isRecord(parameters)) tensors.fail("the mapping's parameters must be an object");
  const { sinks, defaults } = inputSinks(tensors, Object.entries(parameters));
  return {
    convention: "custom",
    model,
    prompt,
    text,
    stream,
    sampling: undefined,
    sinks,
    defaults,
    extras: "parameter",
    constants,
    usageConstants: {},
    promptTokens,
    completionTokens,
    finishReason,
  };
}

/** How the checks name a model in their messages. */
function describeModel(openaiName: string, model: Model): string {
  return openaiName === model.name
    ? `model '${model.name}'`
    : `model '${model.name}' (served as '${openaiName}')`;
}

/** The configuration of `model`.
 * @throws {TritonError} Triton's error (the model is not ready), naming the OpenAI model. */
function configOf(openaiName: string, model: Model): ModelConfig {
  try {
    return model.config();
  } catch (e) {
    if (!(e instanceof TritonError)) throw e;
    throw new TritonError(e.code, `${describeModel(openaiName, model)}: ${e.message}`, {
      cause: e,
    });
  }
}

/**
 * @internal Checks a generation mapping against the model's configuration.
 * @throws {TritonError} INVALID_ARG naming the model and the tensor at fault (unknown, of the
 *   wrong data type, mapped twice, required and not filled); Triton's error when the model is
 *   not ready.
 */
export function generationPlan(
  server: Server,
  openaiName: string,
  spec: OpenAIGenerationModel,
): GenerationPlan {
  const model = server.model(spec.model ?? openaiName, spec.version ?? -1);
  const mapping = spec.mapping;
  if (mapping !== "vllm" && mapping !== "trtllm" && !isRecord(mapping)) {
    throw new TritonError(
      "INVALID_ARG",
      `${describeModel(openaiName, model)}: mapping must be "vllm", "trtllm" or a custom ` +
        `mapping, not ${JSON.stringify(mapping)}`,
    );
  }
  const tensors = new ModelTensors(describeModel(openaiName, model), configOf(openaiName, model));
  if (mapping === "vllm") return vllmPlan(model, tensors);
  if (mapping === "trtllm") return trtllmPlan(model, tensors);
  return customPlan(model, tensors, mapping);
}

/**
 * @internal Checks an embedding mapping against the model's configuration.
 * @throws {TritonError} as {@link generationPlan}.
 */
export function embeddingPlan(
  server: Server,
  openaiName: string,
  spec: OpenAIEmbeddingModel,
): EmbeddingPlan {
  const model = server.model(spec.model ?? openaiName, spec.version ?? -1);
  const config = configOf(openaiName, model);
  const tensors = new ModelTensors(describeModel(openaiName, model), config);
  const mapping = spec.embedding;
  if (!isRecord(mapping)) tensors.fail("embedding must be { input, output, tokens? }");
  const input = tensors.input(mapping.input, "embedding input", ["BYTES"]);
  const output = tensors.output(mapping.output, "embedding", [...FLOAT_TYPES, "FP16"]);
  const tokens = mapping.tokens === undefined
    ? undefined
    : tensors.output(mapping.tokens, "token count", INTEGER_TYPES);
  tensors.checkRequired(new Map(), new Map());
  return { model, input, output, tokens, maxBatchSize: config.max_batch_size };
}

/**
 * @internal The convention `config` follows, if any: vLLM's (`text_input` and
 * `sampling_parameters` BYTES inputs, a `text_output` BYTES output) or TensorRT-LLM's
 * (`text_input` BYTES and `max_tokens` integer inputs, a `text_output` BYTES output).
 */
export function conventionOf(config: ModelConfig): "vllm" | "trtllm" | undefined {
  const input = (name: string) => config.input.find((i) => i.name === name);
  const typeOf = (name: string) => {
    const i = input(name);
    return i === undefined ? undefined : dataTypeOfConfig(i.data_type);
  };
  const output = config.output.find((o) => o.name === "text_output");
  if (
    typeOf("text_input") !== "BYTES" || output === undefined ||
    dataTypeOfConfig(output.data_type) !== "BYTES"
  ) {
    return undefined;
  }
  if (typeOf("sampling_parameters") === "BYTES") return "vllm";
  const maxTokens = typeOf("max_tokens");
  if (maxTokens !== undefined && INTEGER_TYPES.includes(maxTokens)) return "trtllm";
  return undefined;
}
