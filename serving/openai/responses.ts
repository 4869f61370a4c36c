/**
 * The bodies OpenAI's API answers with: `text_completion` and `chat.completion` objects, their
 * streamed chunks (`text_completion` and `chat.completion.chunk`), the usage chunk, the
 * embedding list, and the model list.
 *
 * @module
 */
import type { ChoiceEnd, ChoiceSpec } from "./generation.ts";
import type { ToolCall } from "./tool_calls.ts";

/** Token counts of a call. */
export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** The usage reported where OpenAI's API requires one (the `include_usage` chunk) but neither
 * the model nor its tokenizer counted: zeros, as typed clients read an absent usage. */
export const UNCOUNTED: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** What a call's chunks and bodies share. */
export interface CallIdentity {
  /** `cmpl-…` or `chatcmpl-…`. */
  readonly id: string;
  /** Unix time of the call, in seconds. */
  readonly created: number;
  /** The OpenAI model name asked for. */
  readonly model: string;
}

/** A new call's identity. */
export function callIdentity(kind: "completion" | "chat", model: string): CallIdentity {
  return {
    id: `${kind === "chat" ? "chatcmpl" : "cmpl"}-${crypto.randomUUID().replaceAll("-", "")}`,
    created: Math.floor(Date.now() / 1000),
    model,
  };
}

/**
 * The usage of a call, where the model or its tokenizer counted every choice: the prompt tokens
 * of each prompt once (its choices share it), the completion tokens of every choice; `undefined`
 * otherwise (left out of a whole body rather than invented).
 */
export function usageOf(
  choices: readonly ChoiceSpec[],
  ends: ReadonlyMap<number, ChoiceEnd>,
): Usage | undefined {
  let prompt = 0;
  let completion = 0;
  const counted = new Set<number>();
  for (const choice of choices) {
    const end = ends.get(choice.index);
    if (end?.promptTokens === undefined || end.completionTokens === undefined) return undefined;
    if (!counted.has(choice.promptIndex)) {
      counted.add(choice.promptIndex);
      prompt += end.promptTokens;
    }
    completion += end.completionTokens;
  }
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** A finished choice's text and end. */
export interface FinishedChoice {
  readonly index: number;
  readonly text: string;
  readonly finishReason: string;
  /** The tool calls read from its text, where any were. */
  readonly toolCalls?: readonly ToolCall[];
}

/** A tool call as OpenAI writes it in a message (and, with its `index`, in a delta). */
function toolCallJson(call: ToolCall) {
  return { id: call.id, type: "function", function: call.function };
}

/** A `text_completion` object. */
export function completionBody(
  call: CallIdentity,
  choices: readonly FinishedChoice[],
  usage: Usage | undefined,
): string {
  return JSON.stringify({
    id: call.id,
    object: "text_completion",
    created: call.created,
    model: call.model,
    choices: choices.map((c) => ({
      index: c.index,
      text: c.text,
      logprobs: null,
      finish_reason: c.finishReason,
    })),
    ...(usage === undefined ? {} : { usage }),
  });
}

/** A `chat.completion` object. */
export function chatBody(
  call: CallIdentity,
  choices: readonly FinishedChoice[],
  usage: Usage | undefined,
): string {
  return JSON.stringify({
    id: call.id,
    object: "chat.completion",
    created: call.created,
    model: call.model,
    choices: choices.map((c) => ({
      index: c.index,
      message: c.toolCalls === undefined ? { role: "assistant", content: c.text, refusal: null } : {
        role: "assistant",
        content: c.text === "" ? null : c.text,
        refusal: null,
        tool_calls: c.toolCalls.map(toolCallJson),
      },
      logprobs: null,
      finish_reason: c.finishReason,
    })),
    ...(usage === undefined ? {} : { usage }),
  });
}

/**
 * One streamed chunk of a choice: `text_completion` (`text`) or `chat.completion.chunk`
 * (`delta`, whose first chunk per choice also gives the role). `usage: null` where the call asked
 * for usage (OpenAI's chunks carry it then, null until the last).
 */
export function chunk(
  kind: "completion" | "chat",
  call: CallIdentity,
  index: number,
  content: { readonly text?: string; readonly role?: boolean; readonly toolCall?: ToolCall },
  finishReason: string | null,
  withUsage: boolean,
): string {
  // Written as text, field by field in the order JSON.stringify of the object would give (the
  // same bytes): this runs once per token.
  const reason = finishReason === null ? "null" : JSON.stringify(finishReason);
  let choice: string;
  if (kind === "chat") {
    const role = content.role ? '"role":"assistant"' : "";
    const text = content.text === undefined ? "" : `"content":${JSON.stringify(content.text)}`;
    const calls = content.toolCall === undefined
      ? ""
      : `"tool_calls":${
        JSON.stringify([{ index: content.toolCall.position, ...toolCallJson(content.toolCall) }])
      }`;
    const delta = [role, text, calls].filter((part) => part !== "").join(",");
    choice = `{"index":${index},"delta":{${delta}},` +
      `"logprobs":null,"finish_reason":${reason}}`;
  } else {
    choice = `{"index":${index},"text":${JSON.stringify(content.text ?? "")},` +
      `"logprobs":null,"finish_reason":${reason}}`;
  }
  return `{"id":${JSON.stringify(call.id)},"object":"${
    kind === "chat" ? "chat.completion.chunk" : "text_completion"
  }","created":${JSON.stringify(call.created)},"model":${JSON.stringify(call.model)},` +
    `"choices":[${choice}]${withUsage ? ',"usage":null' : ""}}`;
}

/** The last chunk of a call that asked for usage: no choices, the usage. */
export function usageChunk(kind: "completion" | "chat", call: CallIdentity, usage: Usage): string {
  return JSON.stringify({
    id: call.id,
    object: kind === "chat" ? "chat.completion.chunk" : "text_completion",
    created: call.created,
    model: call.model,
    choices: [],
    usage,
  });
}

/** Base64 of a vector's float32 values, little-endian (OpenAI's `encoding_format: base64`). */
function base64Float32(values: readonly number[]): string {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i], true);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** An embedding list: one `embedding` object per input, in order, and the usage (OpenAI's API
 * requires it): `promptTokens` as both counts. */
export function embeddingBody(
  model: string,
  vectors: readonly (readonly number[])[],
  encoding: "float" | "base64",
  promptTokens: number,
): string {
  return JSON.stringify({
    object: "list",
    data: vectors.map((v, index) => ({
      object: "embedding",
      index,
      embedding: encoding === "base64" ? base64Float32(v) : v,
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  });
}

/** One entry of the model list. */
export function modelObject(id: string, created: number): Record<string, unknown> {
  return { id, object: "model", created, owned_by: "Triton Inference Server" };
}
