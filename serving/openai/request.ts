/**
 * The bodies of `POST /v1/completions`, `/v1/chat/completions` and `/v1/embeddings`, checked
 * field by field into plain values: a field of the wrong kind or out of its range, a missing
 * required field, or a feature this front end does not have (token-id prompts, images, logprobs)
 * is a 400 in OpenAI's shape naming the field. Fields OpenAI does not define are kept as
 * `extras` (what the model's mapping does with them is its own).
 *
 * @module
 */
import { describe, isRecord, type Json, type JsonRecord, MAX_JSON_DEPTH } from "../common/json.ts";
import { badRequest } from "./openai_error.ts";
import { field, flag, int64, integerIn, list, numberIn, object, plain, text } from "./fields.ts";

/** The OpenAI fields a mapping may carry to the model, in the form they go out in: `max_tokens`
 * (from `max_completion_tokens` too), `temperature`, `top_p`, `seed`, `stop` (a list of strings),
 * `presence_penalty`, `frequency_penalty`, `response_format`, `tools`, `tool_choice`. */
export const MODEL_FIELDS = [
  "max_tokens",
  "temperature",
  "top_p",
  "seed",
  "stop",
  "presence_penalty",
  "frequency_penalty",
  "response_format",
  "tools",
  "tool_choice",
] as const;

/** One of {@link MODEL_FIELDS}. */
export type ModelField = (typeof MODEL_FIELDS)[number];

/** What a completion or chat request asks of generation. */
export interface GenerationRequest {
  /** The OpenAI model name. */
  readonly model: string;
  /** Whether to answer as Server-Sent Events. */
  readonly stream: boolean;
  /** `stream_options.include_usage`. */
  readonly includeUsage: boolean;
  /** Choices per prompt. */
  readonly n: number;
  /** The most tokens to generate, where given. */
  readonly maxTokens: number | undefined;
  /** Stop strings, where given (at least one, none empty). */
  readonly stop: readonly string[] | undefined;
  /** The {@link MODEL_FIELDS} given, by name, in the form they go out in. */
  readonly fields: ReadonlyMap<ModelField, Json>;
  /** Fields OpenAI does not define, by name (null ones left out). */
  readonly extras: ReadonlyMap<string, Json>;
}

/** `POST /v1/completions`. */
export interface CompletionRequest extends GenerationRequest {
  /** One prompt per element (`prompt` as a string is one). */
  readonly prompts: readonly string[];
  /** Whether each choice's text starts with its prompt. */
  readonly echo: boolean;
}

/** A chat message as the chat template sees it: `content` as one string. */
export interface ChatMessage {
  readonly role: string;
  readonly content: string;
  readonly [key: string]: unknown;
}

/** `POST /v1/chat/completions`. */
export interface ChatRequest extends GenerationRequest {
  /** The conversation, for the chat template. */
  readonly messages: readonly ChatMessage[];
  /** The tools, for the chat template, where given. */
  readonly tools: readonly unknown[] | undefined;
  /** `tool_choice` as given (`"none"` included), where given. */
  readonly toolChoice: Json | undefined;
  /** `parallel_tool_calls`: whether a choice may make more than one tool call. */
  readonly parallelToolCalls: boolean;
}

/** `POST /v1/embeddings`. */
export interface EmbeddingRequest {
  /** The OpenAI model name. */
  readonly model: string;
  /** The texts to embed. */
  readonly inputs: readonly string[];
  /** How each vector is written: numbers, or base64 of its float32 bytes (little-endian). */
  readonly encoding: "float" | "base64";
  /** The vector length asked for, where given (it must be the model's). */
  readonly dimensions: number | undefined;
}

/** The most inputs one embeddings request takes (OpenAI's limit). */
export const MAX_EMBEDDING_INPUTS = 2048;
/** The most stop strings a request takes. */
export const MAX_STOP_STRINGS = 16;
const INT32_MAX = 2 ** 31 - 1;

/** Fields accepted and not acted on (they describe the caller, or choose among OpenAI's own
 * services), by the endpoints that take them. */
const IGNORED: ReadonlySet<string> = new Set([
  "user",
  "metadata",
  "store",
  "service_tier",
  "parallel_tool_calls",
  "prompt_cache_key",
  "safety_identifier",
  "reasoning_effort",
  "verbosity",
]);

/** Fields whose features this front end does not have: accepted only as given here (absent,
 * null, or the value that asks for nothing). */
const UNSUPPORTED: Readonly<Record<string, (value: Json) => boolean>> = {
  logit_bias: (v) => isRecord(v) && Object.keys(v).length === 0,
  logprobs: (v) => v === false || v === 0,
  top_logprobs: (v) => v === 0,
  best_of: (v) => v === 1,
  suffix: (v) => v === "",
  modalities: (v) => Array.isArray(v) && v.every((m) => m === "text"),
  audio: () => false,
  prediction: () => false,
  web_search_options: () => false,
  functions: (v) => Array.isArray(v) && v.length === 0,
  function_call: (v) => v === "none",
};

/**
 * Checks that `body` nests at most {@link MAX_JSON_DEPTH} levels (so that nothing walking it
 * later runs out of stack).
 * @throws {OpenAIError} 400 otherwise.
 */
export function checkDepth(body: Json): void {
  const stack: [Json, number][] = [[body, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) {
      badRequest(`the request nests deeper than ${MAX_JSON_DEPTH} levels`, null);
    }
    if (Array.isArray(value)) { for (const v of value) stack.push([v, depth + 1]); }
    else if (isRecord(value)) { for (const v of Object.values(value)) stack.push([v, depth + 1]); }
  }
}

/** The stop strings of `value` (a string or a list of strings), none empty. */
function stopStrings(value: Json | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const stops = typeof value === "string" ? [value] : value;
  if (!Array.isArray(stops) || stops.some((s) => typeof s !== "string" || s === "")) {
    badRequest(
      `'stop' must be a non-empty string or a list of them, not ${describe(value)}`,
      "stop",
    );
  }
  if (stops.length > MAX_STOP_STRINGS) {
    badRequest(`'stop' takes at most ${MAX_STOP_STRINGS} strings, not ${stops.length}`, "stop");
  }
  return stops.length === 0 ? undefined : stops as string[];
}

/** The model name of `body`. */
function modelName(body: JsonRecord): string {
  const model = field(body, "model");
  if (model === undefined) badRequest("'model' is required", "model");
  return text(model, "model");
}

/** What every generation request has: `known` lists the fields the endpoint reads itself. */
function generation(
  body: JsonRecord,
  known: ReadonlySet<string>,
  maxChoices: number,
  maxTokensField: "max_tokens" | "max_completion_tokens",
): GenerationRequest {
  const model = modelName(body);
  const stream = flag(field(body, "stream"), "stream") ?? false;
  const options = object(field(body, "stream_options"), "stream_options");
  if (options !== undefined && !stream) {
    badRequest("'stream_options' is only allowed when 'stream' is true", "stream_options");
  }
  const includeUsage = flag(
    options === undefined ? undefined : field(options, "include_usage"),
    "stream_options.include_usage",
  ) ??
    false;
  const n = integerIn(field(body, "n"), "n", 1, maxChoices) ?? 1;
  const fields = new Map<ModelField, Json>();
  const put = (name: ModelField, value: Json | undefined) => {
    if (value !== undefined) fields.set(name, value);
  };
  // Both checked; max_completion_tokens (chat's newer name) wins where both are given.
  const legacy = integerIn(field(body, "max_tokens"), "max_tokens", 1, INT32_MAX);
  const maxTokens = integerIn(field(body, maxTokensField), maxTokensField, 1, INT32_MAX) ?? legacy;
  put("max_tokens", maxTokens);
  put("temperature", numberIn(field(body, "temperature"), "temperature", 0, 2));
  put("top_p", numberIn(field(body, "top_p"), "top_p", 0, 1));
  put("seed", int64(field(body, "seed"), "seed"));
  const stop = stopStrings(field(body, "stop"));
  put("stop", stop);
  for (const penalty of ["presence_penalty", "frequency_penalty"] as const) {
    put(penalty, numberIn(field(body, penalty), penalty, -2, 2));
  }
  const extras = new Map<string, Json>();
  for (const [key, value] of Object.entries(body)) {
    if (value === null || known.has(key) || IGNORED.has(key)) continue;
    const accepts = Object.hasOwn(UNSUPPORTED, key) ? UNSUPPORTED[key] : undefined;
    if (accepts !== undefined) {
      if (!accepts(value)) {
        badRequest(
          `'${key}' is not supported here (${describe(value)})`,
          key,
          "unsupported_parameter",
        );
      }
      continue;
    }
    extras.set(key, value);
  }
  return { model, stream, includeUsage, n, maxTokens, stop, fields, extras };
}

const COMMON = [
  "model",
  "stream",
  "stream_options",
  "n",
  "max_tokens",
  "temperature",
  "top_p",
  "seed",
  "stop",
  "presence_penalty",
  "frequency_penalty",
];
/** Fields that go to the model only where its mapping carries them, on both endpoints. */
const FORMAT_FIELDS = ["response_format", "tools", "tool_choice"];
const COMPLETION_FIELDS: ReadonlySet<string> = new Set([
  ...COMMON,
  ...FORMAT_FIELDS,
  "prompt",
  "echo",
]);
const CHAT_FIELDS: ReadonlySet<string> = new Set([
  ...COMMON,
  "messages",
  "max_completion_tokens",
  ...FORMAT_FIELDS,
]);

/**
 * The texts of `param` (`prompt`, `input`): a string, or a non-empty list of strings.
 * @throws {OpenAIError} 400 when absent, for token ids, and for anything else.
 */
function textList(value: Json | undefined, param: string): string[] {
  if (value === undefined) badRequest(`'${param}' is required`, param);
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.length > 0) {
    if (value.every((p) => typeof p === "string")) return value as string[];
    if (value.every((p) => typeof p !== "string")) {
      badRequest(`'${param}' as token ids is not supported: give the ${param} as text`, param);
    }
  }
  badRequest(
    `'${param}' must be a string or a non-empty list of strings, not ${
      Array.isArray(value) && value.length === 0 ? "an empty array" : describe(value)
    }`,
    param,
  );
}

/**
 * A `POST /v1/completions` body.
 * @param maxChoices the most choices (prompts × `n`) one request may ask for.
 * @throws {OpenAIError} 400 naming the field at fault.
 */
export function completionRequest(body: JsonRecord, maxChoices: number): CompletionRequest {
  const base = generation(body, COMPLETION_FIELDS, maxChoices, "max_tokens");
  const prompts = textList(field(body, "prompt"), "prompt");
  if (prompts.length * base.n > maxChoices) {
    badRequest(
      `${prompts.length} prompts × n = ${base.n} asks for ${
        prompts.length * base.n
      } choices; the limit is ${maxChoices}`,
      "n",
    );
  }
  const echo = flag(field(body, "echo"), "echo") ?? false;
  const fields = new Map(base.fields);
  formatAndTools(body, fields);
  return { ...base, fields, prompts, echo };
}

const ROLES: ReadonlySet<string> = new Set([
  "system",
  "developer",
  "user",
  "assistant",
  "tool",
  "function",
]);

/** The text of a message's `content`: a string, or its text parts joined by newlines. */
function contentText(value: Json | undefined, role: string, param: string): string {
  if (value === undefined) {
    if (role === "assistant") return "";
    badRequest(`'${param}' is required for a message of role '${role}'`, param);
  }
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) {
    badRequest(
      `'${param}' must be a string or a list of content parts, not ${describe(value)}`,
      param,
    );
  }
  const parts: string[] = [];
  for (const [j, part] of value.entries()) {
    const at = `${param}[${j}]`;
    if (!isRecord(part)) badRequest(`'${at}' must be an object, not ${describe(part)}`, at);
    const type = part.type;
    if (type === "text") parts.push(text(part.text, `${at}.text`));
    else if (type === "refusal" && role === "assistant") {
      parts.push(text(part.refusal, `${at}.refusal`));
    } else {
      badRequest(
        `'${at}': only text content is supported, not a part of type ${describe(type)}`,
        at,
        "unsupported_value",
      );
    }
  }
  return parts.join("\n");
}

/** The messages of a chat body, for the template. */
function chatMessages(value: Json | undefined): ChatMessage[] {
  if (value === undefined) badRequest("'messages' is required", "messages");
  if (!Array.isArray(value) || value.length === 0) {
    badRequest(
      Array.isArray(value)
        ? "'messages' must not be empty"
        : `'messages' must be a list of messages, not ${describe(value)}`,
      "messages",
    );
  }
  return value.map((m, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(m)) badRequest(`'${at}' must be an object, not ${describe(m)}`, at);
    const role = text(m.role, `${at}.role`);
    if (!ROLES.has(role)) {
      badRequest(
        `'${at}.role' must be one of ${[...ROLES].join(", ")}, not ${describe(role)}`,
        `${at}.role`,
      );
    }
    const message = Object.fromEntries(
      Object.entries(m).filter(([, v]) => v !== null).map(([k, v]) => [k, plain(v)]),
    );
    if (m.name !== undefined && m.name !== null) text(m.name, `${at}.name`);
    if (m.tool_call_id !== undefined && m.tool_call_id !== null) {
      text(m.tool_call_id, `${at}.tool_call_id`);
    }
    if (m.tool_calls !== undefined && m.tool_calls !== null) list(m.tool_calls, `${at}.tool_calls`);
    const content = m.content === null ? undefined : m.content;
    return { ...message, role, content: contentText(content, role, `${at}.content`) };
  });
}

const FORMATS: ReadonlySet<string> = new Set(["text", "json_object", "json_schema"]);

/**
 * `response_format`, `tools` and `tool_choice`, checked and added to `fields` (the same on
 * completions and chat: each goes to the model only where its mapping carries it).
 * @returns the tools, when any were given.
 * @throws {OpenAIError} 400 naming the field at fault.
 */
function formatAndTools(body: JsonRecord, fields: Map<ModelField, Json>): Json[] | undefined {
  const format = object(field(body, "response_format"), "response_format");
  if (format !== undefined) {
    if (typeof format.type !== "string" || !FORMATS.has(format.type)) {
      badRequest(
        `'response_format.type' must be one of ${[...FORMATS].join(", ")}, not ${
          describe(format.type)
        }`,
        "response_format.type",
      );
    }
    if (
      format.type === "json_schema" &&
      object(field(format, "json_schema"), "response_format.json_schema") === undefined
    ) {
      badRequest(
        "'response_format.json_schema' is required for type json_schema",
        "response_format.json_schema",
      );
    }
    fields.set("response_format", format);
  }
  const tools = list(field(body, "tools"), "tools");
  if (tools !== undefined) {
    for (const [i, tool] of tools.entries()) object(tool, `tools[${i}]`);
    if (tools.length > 0) fields.set("tools", tools);
  }
  const choice = field(body, "tool_choice");
  if (choice !== undefined) {
    if (typeof choice === "string") {
      if (!["none", "auto", "required"].includes(choice)) {
        badRequest(
          `'tool_choice' must be none, auto, required or an object, not ${describe(choice)}`,
          "tool_choice",
        );
      }
    } else object(choice, "tool_choice");
    if (choice !== "none") fields.set("tool_choice", choice);
  }
  return tools === undefined || tools.length === 0 ? undefined : tools;
}

/**
 * A `POST /v1/chat/completions` body.
 * @param maxChoices the most choices (`n`) one request may ask for.
 * @throws {OpenAIError} 400 naming the field at fault.
 */
export function chatRequest(body: JsonRecord, maxChoices: number): ChatRequest {
  const base = generation(body, CHAT_FIELDS, maxChoices, "max_completion_tokens");
  const messages = chatMessages(field(body, "messages"));
  const fields = new Map(base.fields);
  const tools = formatAndTools(body, fields);
  return {
    ...base,
    fields,
    messages,
    tools: tools?.map(plain),
    toolChoice: field(body, "tool_choice"),
    parallelToolCalls: flag(field(body, "parallel_tool_calls"), "parallel_tool_calls") ?? true,
  };
}

/**
 * A `POST /v1/embeddings` body. Fields OpenAI does not define are ignored.
 * @throws {OpenAIError} 400 naming the field at fault.
 */
export function embeddingRequest(body: JsonRecord): EmbeddingRequest {
  const model = modelName(body);
  const inputs = textList(field(body, "input"), "input");
  if (inputs.length > MAX_EMBEDDING_INPUTS) {
    badRequest(
      `'input' takes at most ${MAX_EMBEDDING_INPUTS} strings, not ${inputs.length}`,
      "input",
    );
  }
  const format = field(body, "encoding_format") ?? "float";
  if (format !== "float" && format !== "base64") {
    badRequest(
      `'encoding_format' must be float or base64, not ${describe(format)}`,
      "encoding_format",
    );
  }
  const dimensions = integerIn(field(body, "dimensions"), "dimensions", 1, INT32_MAX);
  return { model, inputs, encoding: format, dimensions };
}
