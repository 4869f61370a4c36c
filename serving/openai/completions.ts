/**
 * `POST /v1/completions` and `POST /v1/chat/completions` over a checked generation mapping: the
 * choices of a call (each prompt × `n`; a chat's one prompt rendered by the model's chat
 * template), run together, answered as one `text_completion` / `chat.completion` object or as an
 * event stream.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import type { EventStream } from "../common/event_stream.ts";
import type { ChatTemplate } from "./chat_template.ts";
import { CHAT_REASONS, COMPLETION_REASONS } from "./choice_tally.ts";
import { badRequest } from "./openai_error.ts";
import { openaiEventStream } from "./chunk_stream.ts";
import { type ChoiceEnd, type ChoiceSpec, Generation } from "./generation.ts";
import type { GenerationPlan } from "./mapping.ts";
import type { ChatRequest, CompletionRequest, GenerationRequest } from "./request.ts";
import type { LatencyHistograms } from "./llm_telemetry.ts";
import {
  type ChatEvents,
  readToolCalls,
  templateMessages,
  type ToolCall,
  type ToolRules,
  toolRules,
  withoutToolFields,
} from "./tool_calls.ts";
import type { ToolCallFormat } from "./tool_call_text.ts";
import {
  callIdentity,
  chatBody,
  completionBody,
  type FinishedChoice,
  usageOf,
} from "./responses.ts";
import type { TokenCounter } from "./tokenizer.ts";

/** A served generation model: its checked mapping, its chat template, its tool call parser and
 * its tokenizer, if any. */
export interface GenerationTarget {
  readonly plan: GenerationPlan;
  readonly template: ChatTemplate | undefined;
  readonly toolCallParser: ToolCallFormat | undefined;
  readonly tokenizer?: TokenCounter | undefined;
}

/** How a call is watched: the service's latency histograms, and when the call arrived
 * (`performance.now()`). */
export interface CallWatch {
  readonly histograms: LatencyHistograms;
  readonly arrivedMs: number;
}

/** An endpoint's answer, and its event stream where it streams. */
export interface Answer {
  readonly response: Response;
  readonly stream?: EventStream;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};
const JSON_HEADERS = { "content-type": "application/json" };

/**
 * Runs `choices` and answers: the whole object once every choice ended, or (`stream`) an event
 * stream once the first event came — an error before it is answered with its own status.
 * @throws the first choice's error when nothing was sent yet (every request is then cancelled
 *   and ended).
 */
async function answer(
  kind: "completion" | "chat",
  target: GenerationTarget,
  request: GenerationRequest,
  choices: readonly ChoiceSpec[],
  signal: AbortSignal,
  watch: CallWatch | undefined,
  tools?: ToolRules,
): Promise<Answer> {
  const call = callIdentity(kind, request.model);
  const { plan } = target;
  const fallback = plan.defaults.get("max_tokens");
  const watcher = watch?.histograms.watch(kind, request, choices, watch.arrivedMs);
  const start = () =>
    new Generation(plan, request, choices, signal, {
      tokenizer: target.tokenizer,
      promptSpecial: kind === "completion",
      reasons: kind === "chat" ? CHAT_REASONS : COMPLETION_REASONS,
      usage: !request.stream || request.includeUsage,
      maxTokens: request.maxTokens ?? (typeof fallback === "number" ? fallback : undefined),
    }, watcher);
  let started: Generation;
  try {
    started = watcher ? watcher.run(start) : start();
  } catch (e) {
    watcher?.failed(e);
    throw e;
  }
  const generation: ChatEvents = tools === undefined ? started : readToolCalls(started, tools);
  const fail = async (e: unknown): Promise<never> => {
    generation.cancel();
    await generation.ended;
    throw e;
  };
  if (request.stream) {
    let first;
    try {
      first = await generation.next();
    } catch (e) {
      return await fail(e);
    }
    // Every choice ends with an event unless the call was cancelled: the client is gone.
    if (first === undefined) {
      return await fail(new TritonError("CANCELLED", "the client went away"));
    }
    const stream = openaiEventStream(
      { kind, call, choices, includeUsage: request.includeUsage },
      generation,
      first,
    );
    // A client that leaves ends the stream before the generation's end is read.
    if (watcher) stream.ended.then(() => watcher.abandoned());
    return { response: new Response(stream.body, { headers: SSE_HEADERS }), stream };
  }
  const texts = new Map<number, string>();
  const ends = new Map<number, ChoiceEnd>();
  const calls = new Map<number, ToolCall[]>();
  try {
    for (let event = await generation.next(); event; event = await generation.next()) {
      if (event.kind === "text") {
        texts.set(event.index, (texts.get(event.index) ?? "") + event.text);
      } else if (event.kind === "tool_call") {
        calls.set(event.index, [...(calls.get(event.index) ?? []), event.call]);
      } else ends.set(event.index, event);
    }
  } catch (e) {
    return await fail(e);
  }
  await generation.ended;
  if (ends.size !== choices.length) throw new TritonError("CANCELLED", "the client went away");
  const finished: FinishedChoice[] = choices.map(({ index }) => ({
    index,
    text: texts.get(index) ?? "",
    finishReason: ends.get(index)!.finishReason,
    toolCalls: calls.get(index),
  }));
  const usage = usageOf(choices, ends);
  const body = kind === "chat"
    ? chatBody(call, finished, usage)
    : completionBody(call, finished, usage);
  return { response: new Response(body, { headers: JSON_HEADERS }) };
}

/**
 * `POST /v1/completions`: `n` choices per prompt, choice `i × n + j` the `j`-th of prompt `i`;
 * with `echo` each choice's text starts with its prompt.
 * @param signal the HTTP request's: aborting it cancels every request in Triton.
 * @throws {OpenAIError} 400 for a field the mapping cannot carry.
 * @throws {TritonError} the model's error (or the binding's, for input it refuses) when nothing
 *   was sent yet.
 */
export async function completion(
  target: GenerationTarget,
  request: CompletionRequest,
  signal: AbortSignal,
  watch?: CallWatch,
): Promise<Answer> {
  const choices: ChoiceSpec[] = [];
  for (const [promptIndex, prompt] of request.prompts.entries()) {
    for (let j = 0; j < request.n; j++) {
      choices.push({
        index: promptIndex * request.n + j,
        prompt,
        prefix: request.echo ? prompt : "",
        promptIndex,
      });
    }
  }
  return await answer("completion", target, request, choices, signal, watch);
}

/**
 * `POST /v1/chat/completions`: the messages rendered by the model's chat template into one
 * prompt, `n` choices of it.
 * @throws {OpenAIError} 400 where the model has no chat template, the template refuses the
 *   messages, or a field the mapping cannot carry.
 * @throws {TritonError} as {@link completion}.
 */
export async function chat(
  target: GenerationTarget,
  request: ChatRequest,
  signal: AbortSignal,
  watch?: CallWatch,
): Promise<Answer> {
  if (target.template === undefined) {
    badRequest(
      `model '${request.model}' has no chat template (no chatTemplate was given and its ` +
        "directory has no tokenizer_config.json with one): use /v1/completions",
      "model",
      "no_chat_template",
    );
  }
  const tools = toolRules(target.toolCallParser, request);
  const prompt = target.template.render(templateMessages(request.messages), request.tools);
  const choices: ChoiceSpec[] = [];
  for (let j = 0; j < request.n; j++) {
    choices.push({ index: j, prompt, prefix: "", promptIndex: 0 });
  }
  const sent = withoutToolFields(target.plan, target.toolCallParser, request);
  return await answer("chat", target, sent, choices, signal, watch, tools);
}
