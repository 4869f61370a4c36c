/**
 * How an OpenAI model name reaches a Triton model: the mappings a user declares
 * ({@link OpenAIModel}: vLLM's convention, TensorRT-LLM's, a {@link CustomMapping}, or an
 * {@link EmbeddingMapping}), and their check against the model's configuration when the service
 * starts, which turns each into a plan ({@link GenerationPlan}, {@link EmbeddingPlan}) naming
 * every tensor with its data type and shape.
 *
 * @module
 */
import type { DataTypeName } from "../../ffi/mod.ts";
import { isRecord as isObject } from "../arguments.ts";
import { TritonError } from "../errors.ts";
import type { Model } from "../model.ts";
import type { ModelConfig, ModelInputConfig } from "../model_config.ts";
import type { Server } from "../server.ts";
import { Tensor, type TensorLike } from "../tensor.ts";
import type { Json } from "../kserve/json.ts";
import { MODEL_FIELDS } from "./request.ts";

/** Where an OpenAI request field goes: the model input of that name, or the request parameter
 * (`TRITONSERVER_InferenceRequestSet*Parameter`) of that name. */
export type ParameterTarget = { readonly input: string } | { readonly parameter: string };

/**
 * A model's own tensor names for what the OpenAI front end sends and reads: a Python-backend
 * model (decoupled, `async def execute`) is served with no code of its own.
 */
export interface CustomMapping {
  /** The input that carries the prompt (BYTES; one element). */
  readonly prompt: string;
  /** The output that carries the generated text (BYTES): each response's text is appended to
   * the choice's (streamed as it comes; gathered for a call without `stream`). */
  readonly text: string;
  /** A BOOL input set to the call's `stream` flag. */
  readonly stream?: string;
  /**
   * Where request fields go, by field name: OpenAI's `max_tokens` (also given as
   * `max_completion_tokens`), `temperature`, `top_p`, `seed`, `stop` (a list of strings),
   * `presence_penalty`, `frequency_penalty`, `response_format`, `tools`, `tool_choice`, or a
   * field of the caller's own (`delay_ms`). An input gets the value as a tensor of its data type
   * (an object, a list or a string into a BYTES input as its JSON text or the string; `stop` as
   * one element per string); a request parameter gets a number as INT (integers) or DOUBLE,
   * a string or boolean as it is, an object or list as its JSON text. A field the mapping does
   * not name: `stop` is applied by the front end (which cuts the text at the first stop string
   * and cancels the request); `response_format` (other than `{"type": "text"}`), `tools` and
   * `tool_choice` are refused (400); `max_tokens`, `temperature`, `top_p`, `seed` and the
   * penalties are left out; a field of the caller's own goes as the request parameter of its
   * name (a string, number or boolean; 400 otherwise).
   */
  readonly parameters?: Readonly<Record<string, ParameterTarget>>;
  /** Outputs (integers, one element) that count the prompt's tokens and the tokens a response
   * generated (summed over a stream's responses). Without both, `usage` is left out. */
  readonly usage?: { readonly promptTokens?: string; readonly completionTokens?: string };
  /** An output (BYTES) giving the finish reason on the last response that carries text (`stop`,
   * `length`). Without it: `stop`, or `length` when the completion tokens reached `max_tokens`. */
  readonly finishReason?: string;
  /** Inputs sent with every request, unchanged. */
  readonly inputs?: Readonly<Record<string, TensorLike>>;
}

/** An embedding model's tensors: one request embeds the call's strings. */
export interface EmbeddingMapping {
  /** The input (BYTES) that takes the strings, one element each. */
  readonly input: string;
  /** The output (FP32, FP64 or FP16) holding one vector per string, row by row. */
  readonly output: string;
  /** An output (integers) counting each string's tokens; `usage` is left out without it. */
  readonly tokens?: string;
}

/** What serves an OpenAI model name: the Triton model, its version, and how it is mapped. */
interface OpenAIModelBase {
  /** The Triton model's name. Default: the OpenAI name (the key in `models`). */
  readonly model?: string;
  /** The Triton model's version. Default -1: the latest ready. */
  readonly version?: number;
}

/** A generation model: completions, and chat where it has a chat template. */
export interface OpenAIGenerationModel extends OpenAIModelBase {
  /** `"vllm"` (Triton's vLLM backend: `text_input`, `stream`, `sampling_parameters` as JSON,
   * `exclude_input_in_output`, the `return_*` flags → `text_output`, `num_input_tokens`,
   * `num_output_tokens`, `finish_reason`), `"trtllm"` (TensorRT-LLM's ensemble or BLS:
   * `text_input`, `max_tokens`, `temperature`, `top_p`, `stop_words`, `random_seed` or `seed`,
   * `presence_penalty`, `frequency_penalty`, `stream` → `text_output`), or a
   * {@link CustomMapping}. */
  readonly mapping: "vllm" | "trtllm" | CustomMapping;
  /** The chat template (Jinja, as `chat_template` of Hugging Face's tokenizer_config.json).
   * Default: `chat_template` of `tokenizer_config.json` in the model's directory of the server's
   * model repository; without one the model serves no chat (400). */
  readonly chatTemplate?: string;
}

/** An embedding model: `/v1/embeddings`. */
export interface OpenAIEmbeddingModel extends OpenAIModelBase {
  /** Its tensors. */
  readonly embedding: EmbeddingMapping;
}

/** A model the OpenAI front end serves; see {@link OpenAIGenerationModel} and
 * {@link OpenAIEmbeddingModel}. */
export type OpenAIModel = OpenAIGenerationModel | OpenAIEmbeddingModel;

/** A model input as a request fills it. */
export interface InputSlot {
  readonly name: string;
  readonly dtype: DataTypeName;
  /** Its dims in the configuration (without the batch dimension). */
  readonly dims: readonly number[];
  /** Whether the model batches (a batch dimension goes first). */
  readonly batched: boolean;
}

/** Where a request field goes, resolved. */
export type Sink =
  | { readonly kind: "input"; readonly slot: InputSlot }
  | { readonly kind: "parameter"; readonly name: string }
  | { readonly kind: "sampling"; readonly key: string };

/** @internal A generation mapping checked against its model's configuration. */
export interface GenerationPlan {
  readonly convention: "vllm" | "trtllm" | "custom";
  readonly model: Model;
  readonly prompt: InputSlot;
  readonly text: string;
  readonly stream: InputSlot | undefined;
  /** vLLM's JSON input of sampling parameters. */
  readonly sampling: InputSlot | undefined;
  /** Where each request field the mapping carries goes. */
  readonly sinks: ReadonlyMap<string, Sink>;
  /** Values sent for a field a request leaves out, where its input is required. */
  readonly defaults: ReadonlyMap<string, Json>;
  /** Where fields of the caller's own go: into the sampling JSON, or as request parameters. */
  readonly extras: "sampling" | "parameter";
  /** Inputs sent with every request. */
  readonly constants: Readonly<Record<string, Tensor>>;
  readonly promptTokens: string | undefined;
  readonly completionTokens: string | undefined;
  readonly finishReason: string | undefined;
}

/** @internal An embedding mapping checked against its model's configuration. */
export interface EmbeddingPlan {
  readonly model: Model;
  readonly input: InputSlot;
  readonly output: string;
  readonly tokens: string | undefined;
  /** The model's `max_batch_size` (0: it does not batch). */
  readonly maxBatchSize: number;
}

/** OpenAI's defaults, sent where the model requires the input and the request leaves it out. */
const OPENAI_DEFAULTS: Readonly<Record<string, Json>> = {
  max_tokens: 16,
  temperature: 1,
  top_p: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
};

const INTEGER_TYPES: readonly DataTypeName[] = [
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "UINT8",
  "UINT16",
  "UINT32",
  "UINT64",
];
const FLOAT_TYPES: readonly DataTypeName[] = ["FP32", "FP64"];

/** The data types each OpenAI field may go into (others: any but FP16 and BF16). */
const FIELD_TYPES: Readonly<Record<string, readonly DataTypeName[]>> = {
  max_tokens: INTEGER_TYPES,
  seed: INTEGER_TYPES,
  temperature: FLOAT_TYPES,
  top_p: FLOAT_TYPES,
  presence_penalty: FLOAT_TYPES,
  frequency_penalty: FLOAT_TYPES,
  stop: ["BYTES"],
  response_format: ["BYTES"],
  tools: ["BYTES"],
  tool_choice: ["BYTES"],
};
const ANY_TYPE: readonly DataTypeName[] = [...INTEGER_TYPES, ...FLOAT_TYPES, "BOOL", "BYTES"];

/** A config data type (`TYPE_STRING`) as Triton's name (`BYTES`). */
function dataTypeOfConfig(type: string): DataTypeName {
  return (type === "TYPE_STRING" ? "BYTES" : type.replace(/^TYPE_/, "")) as DataTypeName;
}

/** What the checks know of one model. */
class ModelTensors {
  readonly #what: string;
  readonly #config: ModelConfig;
  readonly #used = new Map<string, string>();

  constructor(what: string, config: ModelConfig) {
    this.#what = what;
    this.#config = config;
  }

  /** INVALID_ARG naming the model. */
  fail(message: string): never {
    throw new TritonError("INVALID_ARG", `${this.#what}: ${message}`);
  }

  hasInput(name: string): boolean {
    return this.#config.input.some((i) => i.name === name);
  }

  hasOutput(name: string): boolean {
    return this.#config.output.some((o) => o.name === name);
  }

  /** The input `name`, of one of `types`, taken for `role` (once). */
  input(name: unknown, role: string, types: readonly DataTypeName[]): InputSlot {
    if (typeof name !== "string" || name === "") {
      this.fail(`the mapping's ${role} must name an input, not ${JSON.stringify(name)}`);
    }
    const input = this.#config.input.find((i) => i.name === name);
    if (input === undefined) {
      this.fail(
        `the ${role} input '${name}' is not an input of the model (its inputs: ${
          this.#config.input.map((i) => i.name).join(", ") || "none"
        })`,
      );
    }
    const dtype = dataTypeOfConfig(input.data_type);
    if (!types.includes(dtype)) {
      this.fail(
        `input '${name}' (the ${role}) is ${dtype}; it must be ${types.join(" or ")}`,
      );
    }
    const taken = this.#used.get(name);
    if (taken !== undefined) this.fail(`input '${name}' is mapped twice (${taken} and ${role})`);
    this.#used.set(name, role);
    return {
      name,
      dtype,
      dims: input.dims,
      batched: this.#config.max_batch_size > 0,
    };
  }

  /** The output `name`, of one of `types`, for `role`. */
  output(name: unknown, role: string, types: readonly DataTypeName[]): string {
    if (typeof name !== "string" || name === "") {
      this.fail(`the mapping's ${role} must name an output, not ${JSON.stringify(name)}`);
    }
    const output = this.#config.output.find((o) => o.name === name);
    if (output === undefined) {
      this.fail(
        `the ${role} output '${name}' is not an output of the model (its outputs: ${
          this.#config.output.map((o) => o.name).join(", ") || "none"
        })`,
      );
    }
    const dtype = dataTypeOfConfig(output.data_type);
    if (!types.includes(dtype)) {
      this.fail(`output '${name}' (the ${role}) is ${dtype}; it must be ${types.join(" or ")}`);
    }
    return name;
  }

  /** A constant input: `value` as a tensor of the input's data type. */
  constant(name: string, value: TensorLike | boolean, role: string): Tensor {
    const slot = this.input(name, role, [...ANY_TYPE, "FP16", "BF16"]);
    let tensor: Tensor;
    try {
      tensor = typeof value === "boolean"
        ? new Tensor("BOOL", slot.batched ? [1, 1] : [1], new Uint8Array([value ? 1 : 0]))
        : Tensor.from(value);
    } catch (e) {
      this.fail(`input '${name}' (${role}): ${e instanceof Error ? e.message : e}`);
    }
    if (tensor.dtype !== slot.dtype) {
      this.fail(`input '${name}' (${role}) is ${slot.dtype}, the value given is ${tensor.dtype}`);
    }
    return tensor;
  }

  /** Fails for a required input no role fills, or that only `fieldOf` fills without a
   * default. */
  checkRequired(fieldOf: ReadonlyMap<string, string>, defaults: ReadonlyMap<string, Json>): void {
    for (const input of this.#config.input as readonly ModelInputConfig[]) {
      if (input.optional) continue;
      const field = fieldOf.get(input.name);
      if (field !== undefined && !defaults.has(field)) {
        this.fail(
          `input '${input.name}' is required by the model, but the mapping fills it only when a ` +
            `request gives '${field}'`,
        );
      }
      if (field === undefined && !this.#used.has(input.name)) {
        this.fail(
          `input '${input.name}' is required by the model, and the mapping does not fill it`,
        );
      }
    }
  }
}

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
  const count = (flagName: string, output: string): string | undefined => {
    if (!tensors.hasOutput(output)) return undefined;
    const name = tensors.output(output, "token count", INTEGER_TYPES);
    flagIfPresent(tensors, constants, flagName);
    return name;
  };
  const promptTokens = count("return_num_input_tokens", "num_input_tokens");
  const completionTokens = count("return_num_output_tokens", "num_output_tokens");
  let finishReason: string | undefined;
  if (tensors.hasOutput("finish_reason")) {
    finishReason = tensors.output("finish_reason", "finish reason", ["BYTES"]);
    flagIfPresent(tensors, constants, "return_finish_reason");
  }
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
    if (!isObject(target)) {
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
    if (!isObject(mapping.inputs)) tensors.fail("the mapping's inputs must be an object");
    for (const [name, value] of Object.entries(mapping.inputs)) {
      constants[name] = tensors.constant(name, value, "a constant input");
    }
  }
  const usage = mapping.usage;
  if (usage !== undefined && !isObject(usage)) {
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
  if (!isObject(parameters)) tensors.fail("the mapping's parameters must be an object");
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
  if (mapping !== "vllm" && mapping !== "trtllm" && !isObject(mapping)) {
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
  if (!isObject(mapping)) tensors.fail("embedding must be { input, output, tokens? }");
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
