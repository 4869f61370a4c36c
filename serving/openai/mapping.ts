/**
 * How an OpenAI model name reaches a Triton model: the mappings a user declares
 * ({@link OpenAIModel}: vLLM's convention, TensorRT-LLM's, a {@link CustomMapping}, or an
 * {@link EmbeddingMapping}), and the plans their check against the model's configuration makes
 * of them (`plans.ts`: {@link GenerationPlan}, {@link EmbeddingPlan}), naming every tensor with
 * its data type and dims.
 *
 * @module
 */
import type { DataTypeName } from "../../ffi/mod.ts";
import type { Model } from "../../src/model.ts";
import type { Tensor, TensorLike } from "../../src/tensor.ts";
import type { Json } from "../common/json.ts";
import type { ToolCallFormat } from "./tool_call_text.ts";

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
   * one element per string; an input of `max_tokens`, `temperature`, `top_p` or a penalty gets
   * OpenAI's default, 16, 1, 1 or 0, where a request leaves the field out); a request parameter
   * gets a number as INT (integers) or DOUBLE, a string or boolean as it is, an object or list as
   * its JSON text. A field the mapping does
   * not name: `stop` is applied by the front end (which cuts the text at the first stop string
   * and cancels the request); `response_format` (other than `{"type": "text"}`), `tools` and
   * `tool_choice` are refused (400); `max_tokens`, `temperature`, `top_p`, `seed` and the
   * penalties are left out; a field of the caller's own goes as the request parameter of its
   * name (a string, number or boolean; 400 otherwise).
   */
  readonly parameters?: Readonly<Record<string, ParameterTarget>>;
  /** Outputs (integers, one element) that count the prompt's tokens and the tokens a response
   * generated (summed over a stream's responses). A count the model does not give is the
   * model's tokenizer's (the model's `tokenizer`); without either, `usage` is left
   * out of a whole answer and reads 0 in the `include_usage` chunk. */
  readonly usage?: { readonly promptTokens?: string; readonly completionTokens?: string };
  /** An output (BYTES) giving the finish reason on the last response that carries text (`stop`,
   * `length`). Without it: `stop`, or `length` when the completion tokens (counted, or at least
   * one per response that carried text) reached `max_tokens`. */
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
  /** An output (integers) counting each string's tokens. Without it, `usage` counts with the
   * model's tokenizer, or reads 0 where there is none. */
  readonly tokens?: string;
}

/** What serves an OpenAI model name: the Triton model, its version, and how it is mapped. */
interface OpenAIModelBase {
  /** The Triton model's name. Default: the OpenAI name (the key in `models`). */
  readonly model?: string;
  /** The Triton model's version. Default -1: the latest ready. */
  readonly version?: number;
  /** A Hugging Face `tokenizer.json` (or a directory holding one, with its
   * `tokenizer_config.json`), read in JavaScript, that counts the tokens the model does not count
   * itself (`usage`; whether `max_tokens` cut a completion). Default: `tokenizer.json` in the
   * model's directory of the server's model repository, where there is one. */
  readonly tokenizer?: string;
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
  /** How tool calls are read out of the model's chat text: `"llama3_json"` (or `"llama3"`:
   * Llama 3.1's JSON, `{"name": …, "parameters": {…}}`, objects separated by `;`, where the text
   * begins with one, after an optional `<|python_tag|>`) or `"hermes"` (`<tool_call>{"name": …,
   * "arguments": {…}}</tool_call>` anywhere in the text; Hermes, Qwen 2.5 and later). With it, a
   * chat request's `tools` go to the chat template (and to the model where the mapping carries
   * them) and its calls come back as `tool_calls` with `finish_reason: "tool_calls"`. Default:
   * none, the text comes back as text and `tools` need the mapping to carry them. */
  readonly toolCallParser?: ToolCallFormat;
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
  /** Inputs that ask the model for its token counts, sent only when the call reports usage (it
   * does not stream, or asks for `stream_options.include_usage`): each count is an output more
   * per response. Empty where the counts also decide the finish reason. */
  readonly usageConstants: Readonly<Record<string, Tensor>>;
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
