/**
 * JSON Schemas (draft-07, for ajv) of the bodies OpenAI's API answers with, written for this
 * project from the facts of OpenAI's published API description (its OpenAPI document): which
 * fields are required, their types, their enums and which may be null. Only the objects this
 * front end answers with are described: the completion and chat completion objects and their
 * streamed chunks, the embedding list, the model list and a model, and the error object.
 *
 * Like OpenAI's description, the schemas let an object carry fields they do not name (clients
 * ignore fields they do not know). Where the description leaves a choice, they follow what
 * OpenAI's service sends:
 * - a streamed completion chunk is the completion object (OpenAI's description reuses it for
 *   streams) whose `finish_reason` is null until a choice's last chunk, and whose `usage` is null
 *   before the usage chunk, as in the chat chunks;
 * - the error event that ends a stream is the error object.
 *
 * @module
 */

/** A JSON Schema, as these definitions use it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

const integer = { type: "integer" } as const;
const string = { type: "string" } as const;
const nullableString = { type: ["string", "null"] } as const;
/** `{"type": "string", "enum": [value]}`: OpenAI's constants (`object` fields). */
const constant = (value: string) => ({ type: "string", enum: [value] });

/** CompletionUsage: three integers, required; the details objects optional. */
const usage: JsonSchema = {
  type: "object",
  required: ["prompt_tokens", "completion_tokens", "total_tokens"],
  properties: {
    prompt_tokens: integer,
    completion_tokens: integer,
    total_tokens: integer,
    completion_tokens_details: {
      type: "object",
      properties: {
        accepted_prediction_tokens: integer,
        audio_tokens: integer,
        reasoning_tokens: integer,
        text_tokens: integer,
        rejected_prediction_tokens: integer,
      },
    },
    prompt_tokens_details: {
      type: "object",
      properties: {
        audio_tokens: integer,
        cached_tokens: integer,
        text_tokens: integer,
        image_tokens: integer,
        cache_write_tokens: integer,
      },
    },
  },
};

/** ChatCompletionTokenLogprob (with its top_logprobs entries). */
const tokenLogprob: JsonSchema = {
  type: "object",
  required: ["token", "logprob", "bytes", "top_logprobs"],
  properties: {
    token: string,
    logprob: { type: "number" },
    bytes: { anyOf: [{ type: "array", items: integer }, { type: "null" }] },
    top_logprobs: {
      type: "array",
      items: {
        type: "object",
        required: ["token", "logprob", "bytes"],
        properties: {
          token: string,
          logprob: { type: "number" },
          bytes: { anyOf: [{ type: "array", items: integer }, { type: "null" }] },
        },
      },
    },
  },
};

/** A chat choice's `logprobs`: null, or `{content, refusal}` (each a list or null). */
const chatLogprobs: JsonSchema = {
  anyOf: [
    {
      type: "object",
      required: ["content", "refusal"],
      properties: {
        content: { anyOf: [{ type: "array", items: tokenLogprob }, { type: "null" }] },
        refusal: { anyOf: [{ type: "array", items: tokenLogprob }, { type: "null" }] },
      },
    },
    { type: "null" },
  ],
};

/** A completion choice's `logprobs`: null or the legacy lists. */
const completionLogprobs: JsonSchema = {
  anyOf: [
    {
      type: "object",
      properties: {
        text_offset: { type: "array", items: integer },
        token_logprobs: { type: "array", items: { type: "number" } },
        tokens: { type: "array", items: string },
        top_logprobs: {
          type: "array",
          items: { type: "object", additionalProperties: { type: "number" } },
        },
      },
    },
    { type: "null" },
  ],
};

/** The finish reasons of a completion (no tool calls on /v1/completions). */
const COMPLETION_REASONS = ["stop", "length", "content_filter"];
/** The finish reasons of a chat completion. */
const CHAT_REASONS = ["stop", "length", "tool_calls", "content_filter", "function_call"];

/** ServiceTier: one of OpenAI's tiers, or null. */
const serviceTier: JsonSchema = {
  anyOf: [
    { type: "string", enum: ["auto", "default", "flex", "scale", "priority", "fast"] },
    { type: "null" },
  ],
};

/** A function tool call of a chat message (ChatCompletionMessageToolCall), or a custom one. */
const toolCall: JsonSchema = {
  oneOf: [
    {
      type: "object",
      required: ["id", "type", "function"],
      properties: {
        id: string,
        type: constant("function"),
        function: {
          type: "object",
          required: ["name", "arguments"],
          properties: { name: string, arguments: string },
        },
      },
    },
    {
      type: "object",
      required: ["id", "type", "custom"],
      properties: {
        id: string,
        type: constant("custom"),
        custom: {
          type: "object",
          required: ["name", "input"],
          properties: { name: string, input: string },
        },
      },
    },
  ],
};

/** A streamed piece of a tool call (ChatCompletionMessageToolCallChunk). */
const toolCallChunk: JsonSchema = {
  type: "object",
  required: ["index"],
  properties: {
    index: integer,
    id: string,
    type: constant("function"),
    function: { type: "object", properties: { name: string, arguments: string } },
  },
};

/** What the completion object and its chunks share, but the choices, `object` and `usage`. */
const callFields = { id: string, created: integer, model: string, system_fingerprint: string };

/** CreateCompletionResponse: `text_completion`. */
export const completionSchema: JsonSchema = {
  type: "object",
  required: ["id", "object", "created", "model", "choices"],
  properties: {
    ...callFields,
    object: constant("text_completion"),
    choices: {
      type: "array",
      items: {
        type: "object",
        required: ["finish_reason", "index", "logprobs", "text"],
        properties: {
          finish_reason: { type: "string", enum: COMPLETION_REASONS },
          index: integer,
          logprobs: completionLogprobs,
          text: string,
        },
      },
    },
    usage,
  },
};

/** A streamed `text_completion` chunk: the completion object, `finish_reason` null until a
 * choice's last chunk, `usage` null before the usage chunk. */
export const completionChunkSchema: JsonSchema = {
  type: "object",
  required: ["id", "object", "created", "model", "choices"],
  properties: {
    ...callFields,
    object: constant("text_completion"),
    choices: {
      type: "array",
      items: {
        type: "object",
        required: ["finish_reason", "index", "logprobs", "text"],
        properties: {
          finish_reason: { type: ["string", "null"], enum: [...COMPLETION_REASONS, null] },
          index: integer,
          logprobs: completionLogprobs,
          text: string,
        },
      },
    },
    usage: { anyOf: [usage, { type: "null" }] },
  },
};

/** ChatCompletionResponseMessage. */
const chatMessage: JsonSchema = {
  type: "object",
  required: ["role", "content", "refusal"],
  properties: {
    role: constant("assistant"),
    content: nullableString,
    refusal: nullableString,
    tool_calls: { type: "array", items: toolCall },
    annotations: { type: "array" },
    function_call: {
      type: "object",
      required: ["name", "arguments"],
      properties: { name: string, arguments: string },
    },
    audio: { type: ["object", "null"] },
  },
};

/** CreateChatCompletionResponse: `chat.completion`. */
export const chatSchema: JsonSchema = {
  type: "object",
  required: ["choices", "created", "id", "model", "object"],
  properties: {
    ...callFields,
    object: constant("chat.completion"),
    service_tier: serviceTier,
    choices: {
      type: "array",
      items: {
        type: "object",
        required: ["finish_reason", "index", "message", "logprobs"],
        properties: {
          finish_reason: { type: "string", enum: CHAT_REASONS },
          index: integer,
          message: chatMessage,
          logprobs: chatLogprobs,
        },
      },
    },
    usage,
  },
};

/** CreateChatCompletionStreamResponse: `chat.completion.chunk`. */
export const chatChunkSchema: JsonSchema = {
  type: "object",
  required: ["choices", "created", "id", "model", "object"],
  properties: {
    ...callFields,
    object: constant("chat.completion.chunk"),
    service_tier: serviceTier,
    choices: {
      type: "array",
      items: {
        type: "object",
        required: ["delta", "finish_reason", "index"],
        properties: {
          delta: {
            type: "object",
            properties: {
              content: nullableString,
              refusal: nullableString,
              role: { type: "string", enum: ["developer", "system", "user", "assistant", "tool"] },
              tool_calls: { type: "array", items: toolCallChunk },
              function_call: { type: "object", properties: { name: string, arguments: string } },
            },
          },
          logprobs: chatLogprobs,
          finish_reason: { type: ["string", "null"], enum: [...CHAT_REASONS, null] },
          index: integer,
        },
      },
    },
    usage: { anyOf: [usage, { type: "null" }] },
  },
};

/** CreateEmbeddingResponse: the list, each Embedding a list of numbers or (base64) a string. */
export const embeddingsSchema: JsonSchema = {
  type: "object",
  required: ["object", "model", "data", "usage"],
  properties: {
    object: constant("list"),
    model: string,
    data: {
      type: "array",
      items: {
        type: "object",
        required: ["index", "object", "embedding"],
        properties: {
          index: integer,
          // OpenAI's service answers `encoding_format: "base64"` with a string here.
          embedding: { anyOf: [{ type: "array", items: { type: "number" } }, string] },
          object: constant("embedding"),
        },
      },
    },
    usage: {
      type: "object",
      required: ["prompt_tokens", "total_tokens"],
      properties: { prompt_tokens: integer, total_tokens: integer },
    },
  },
};

/** Model. */
export const modelSchema: JsonSchema = {
  type: "object",
  required: ["id", "object", "created", "owned_by"],
  properties: {
    id: string,
    created: integer,
    object: constant("model"),
    owned_by: string,
    shutdown_date: nullableString,
  },
};

/** ListModelsResponse. */
export const modelListSchema: JsonSchema = {
  type: "object",
  required: ["object", "data"],
  properties: { object: constant("list"), data: { type: "array", items: modelSchema } },
};

/** ErrorResponse: `{"error": Error}`, every field of Error required, `param` and `code`
 * nullable. */
export const errorSchema: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["type", "message", "param", "code"],
      properties: { code: nullableString, message: string, param: nullableString, type: string },
    },
  },
};
