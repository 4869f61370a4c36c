/**
 * Tool calls on `/v1/chat/completions`: a served model's `toolCallParser` reads its generated
 * text ({@link toolCallText}) into OpenAI's `tool_calls` (`call_…` ids, `type: "function"`,
 * `function.name`, `function.arguments` as JSON text), as `tool_choice` and `parallel_tool_calls`
 * ask as far as the text allows; and the conversation's earlier calls handed to the chat template
 * in the form Hugging Face's templates read them.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import type { Json } from "../common/json.ts";
import { badRequest } from "./openai_error.ts";
import type { ChoiceEvent } from "./generation.ts";
import type { GenerationPlan } from "./mapping.ts";
import type { ChatMessage, ChatRequest, ModelField } from "./request.ts";
import {
  type FunctionCall,
  TOOL_CALL_FORMATS,
  type ToolCallFormat,
  type ToolCallText,
  toolCallText,
} from "./tool_call_text.ts";

/** A tool call of a choice, as it goes out. */
export interface ToolCall {
  /** `call_` and 24 letters and digits. */
  readonly id: string;
  /** Its place among the choice's calls (the `index` of a streamed `delta.tool_calls` item). */
  readonly position: number;
  readonly function: FunctionCall;
}

/** What a chat call's choices say: {@link ChoiceEvent}s, and tool calls. */
export type ChatEvent =
  | ChoiceEvent
  | { readonly kind: "tool_call"; readonly index: number; readonly call: ToolCall };

/** The events of a call's choices, running (a {@link Generation}, or its tool calls read). */
export interface ChatEvents {
  /** The next event; `undefined` once every choice has ended. */
  next(): Promise<ChatEvent | undefined>;
  /** The next event if one is already here, without waiting; `undefined` otherwise (then
   * {@link next} says whether more will come, or throws the error). */
  take(): ChatEvent | undefined;
  /** Cancels every request still running. */
  cancel(reason?: unknown): void;
  /** Resolves once every choice's request has ended. */
  readonly ended: Promise<void>;
}

/** How one call's text is read for tool calls. */
export interface ToolRules {
  readonly format: ToolCallFormat;
  /** The one function `tool_choice` names: calls of others are left out. */
  readonly only: string | undefined;
  /** `parallel_tool_calls: false`: the calls after a choice's first are left out. */
  readonly single: boolean;
}

/**
 * The `toolCallParser` option of model `what`, checked.
 * @throws {TritonError} INVALID_ARG for a name that is not one of {@link TOOL_CALL_FORMATS}.
 */
export function toolCallParserOf(value: unknown, what: string): ToolCallFormat | undefined {
  if (value === undefined) return undefined;
  if (!TOOL_CALL_FORMATS.includes(value as ToolCallFormat)) {
    throw new TritonError(
      "INVALID_ARG",
      `${what}: toolCallParser must be one of ${TOOL_CALL_FORMATS.join(", ")}, not ${
        JSON.stringify(value)
      }`,
    );
  }
  return value as ToolCallFormat;
}

/** The names of the request's function tools. */
function toolNames(tools: readonly unknown[] | undefined): Set<string> {
  const names = new Set<string>();
  for (const tool of tools ?? []) {
    const fn = (tool as { function?: { name?: unknown } }).function;
    if (typeof fn?.name === "string") names.add(fn.name);
  }
  return names;
}

/**
 * The rules a chat request reads its model's text by: none (the text as it is) without a parser,
 * without `tools`, or with `tool_choice: "none"`.
 * @throws {OpenAIError} 400 for a `tool_choice` that names a function not among `tools`, or asks
 *   for a call (`required`, a function) without `tools`.
 */
export function toolRules(
  format: ToolCallFormat | undefined,
  request: ChatRequest,
): ToolRules | undefined {
  const choice = request.toolChoice;
  if (format === undefined || choice === "none") return undefined;
  if (request.tools === undefined) {
    if (choice !== undefined && choice !== "auto") {
      badRequest(
        "'tool_choice' asks for a tool call, but the request gives no 'tools'",
        "tool_choice",
      );
    }
    return undefined;
  }
  let only: string | undefined;
  if (typeof choice === "object" && choice !== null && !Array.isArray(choice)) {
    const fn = (choice as { function?: unknown }).function;
    const name = typeof fn === "object" && fn !== null
      ? (fn as { name?: unknown }).name
      : undefined;
    if (typeof name !== "string") {
      badRequest("'tool_choice.function.name' must be a string", "tool_choice.function.name");
    }
    if (!toolNames(request.tools).has(name)) {
      badRequest(
        `'tool_choice' names the function '${name}', which is not among 'tools'`,
        "tool_choice.function.name",
      );
    }
    only = name;
  }
  return { format, only, single: !request.parallelToolCalls };
}

/**
 * The request as the plan sees it where the front end reads tool calls (the model has a parser)
 * or `tool_choice` is `"none"`: `tools` and `tool_choice` leave its fields unless the mapping
 * carries them (the chat template sees `tools` either way), so they are no longer refused.
 */
export function withoutToolFields<R extends ChatRequest>(
  plan: GenerationPlan,
  format: ToolCallFormat | undefined,
  request: R,
): R {
  if (format === undefined && request.toolChoice !== "none") return request;
  const fields = new Map<ModelField, Json>(request.fields);
  for (const field of ["tools", "tool_choice"] as const) {
    if (!plan.sinks.has(field)) fields.delete(field);
  }
  return { ...request, fields };
}

/** A new call id, as OpenAI writes them. */
function callId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** One choice's text being read. */
class ChoiceCalls {
  readonly #text: ToolCallText;
  readonly #rules: ToolRules;
  /** Whitespace after a call, held: it goes out only with text that follows it. */
  #space = "";
  #calls = 0;

  constructor(rules: ToolRules) {
    this.#rules = rules;
    this.#text = toolCallText(rules.format);
  }

  get called(): boolean {
    return this.#calls > 0;
  }

  /** The events of `pieces` of choice `index`, appended to `out`. */
  events(index: number, text: string | undefined, out: ChatEvent[]): void {
    const pieces = text === undefined ? this.#text.finish() : this.#text.push(text);
    for (const piece of pieces) {
      if (piece.kind === "call") {
        const { call } = piece;
        if (this.#rules.only !== undefined && call.name !== this.#rules.only) continue;
        if (this.#rules.single && this.#calls > 0) continue;
        out.push({
          kind: "tool_call",
          index,
          call: { id: callId(), position: this.#calls++, function: call },
        });
      } else if (this.#calls > 0 && piece.text.trim() === "") {
        this.#space += piece.text;
      } else {
        out.push({ kind: "text", index, text: this.#space + piece.text });
        this.#space = "";
      }
    }
  }
}

/**
 * The events of `generation` with each choice's text read for tool calls by `rules`: text that
 * is no call passes on (a tail that may begin one held until the next piece), each call is one
 * `tool_call` event once complete, and a choice that made a call ends with `tool_calls`.
 */
export function readToolCalls(generation: ChatEvents, rules: ToolRules): ChatEvents {
  const choices = new Map<number, ChoiceCalls>();
  const queue: ChatEvent[] = [];
  const of = (index: number) => {
    let calls = choices.get(index);
    if (calls === undefined) choices.set(index, calls = new ChoiceCalls(rules));
    return calls;
  };
  /** Reads one event of the generation into `queue`. */
  const read = (event: ChatEvent) => {
    if (event.kind === "text") of(event.index).events(event.index, event.text, queue);
    else if (event.kind === "end") {
      const calls = of(event.index);
      calls.events(event.index, undefined, queue);
      queue.push(calls.called ? { ...event, finishReason: "tool_calls" } : event);
    } else queue.push(event);
  };
  return {
    async next() {
      while (queue.length === 0) {
        const event = await generation.next();
        if (event === undefined) return undefined;
        read(event);
      }
      return queue.shift();
    },
    take() {
      while (queue.length === 0) {
        const event = generation.take();
        if (event === undefined) return undefined;
        read(event);
      }
      return queue.shift();
    },
    cancel: (reason) => generation.cancel(reason),
    ended: generation.ended,
  };
}

/**
 * The messages as a chat template reads them: the `function.arguments` of an assistant's
 * `tool_calls`, JSON text in OpenAI's API, as the object it writes (what Hugging Face's templates
 * expect, e.g. `tool_call.arguments | tojson`); arguments that are no JSON object stay text.
 */
export function templateMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (!Array.isArray(message.tool_calls)) return message;
    const calls = message.tool_calls.map((call: unknown) => {
      const fn = (call as { function?: { arguments?: unknown } } | null)?.function;
      if (typeof fn?.arguments !== "string") return call;
      let args: unknown;
      try {
        args = JSON.parse(fn.arguments);
      } catch {
        return call;
      }
      if (typeof args !== "object" || args === null || Array.isArray(args)) return call;
      return { ...(call as object), function: { ...fn, arguments: args } };
    });
    return { ...message, tool_calls: calls };
  });
}
