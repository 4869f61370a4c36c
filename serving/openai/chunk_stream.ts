/**
 * A generation as OpenAI's Server-Sent Events: a `data: <chunk>` event per piece of text (a chat
 * choice's first one giving the role) and per tool call read, a last chunk per choice with its
 * `finish_reason`, the usage chunk where the call asked for it (zeros where neither the model nor
 * its tokenizer counted), then `data: [DONE]`. Pulled as the client reads, an event at a time
 * (with those already generated behind it in the same write); a client that goes away cancels
 * the body, which cancels every request of the call in Triton. A failure after the first event
 * is a last `data: {"error": {...}}` event (OpenAI's shape), without `[DONE]`.
 *
 * @module
 */
import { type EventStream, sseEvent } from "../common/event_stream.ts";
import { errorJson } from "./openai_error.ts";
import type { ChoiceEnd, ChoiceSpec } from "./generation.ts";
import { type CallIdentity, chunk, UNCOUNTED, usageChunk, usageOf } from "./responses.ts";
import type { ChatEvent, ChatEvents } from "./tool_calls.ts";

const encoder = new TextEncoder();
const DONE = encoder.encode("data: [DONE]\n\n");
/** The most events written at once. */
const BATCH = 64;

/** What the stream of one call needs. */
export interface StreamCall {
  readonly kind: "completion" | "chat";
  readonly call: CallIdentity;
  readonly choices: readonly ChoiceSpec[];
  readonly includeUsage: boolean;
}

/**
 * The event stream of `generation`.
 * @param first the event already taken from it (its arrival chose the HTTP status).
 */
export function openaiEventStream(
  stream: StreamCall,
  generation: ChatEvents,
  first: ChatEvent,
): EventStream {
  const { kind, call, includeUsage } = stream;
  const roleSent = new Set<number>();
  const ends = new Map<number, ChoiceEnd>();
  let pending: ChatEvent | undefined = first;
  let done = false;
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  /** The SSE text of one event. */
  const events = (event: ChatEvent): string => {
    let text = "";
    if (kind === "chat" && !roleSent.has(event.index)) {
      roleSent.add(event.index);
      text += `data: ${
        chunk(kind, call, event.index, { role: true, text: "" }, null, includeUsage)
      }\n\n`;
    }
    if (event.kind === "text") {
      text += `data: ${
        chunk(kind, call, event.index, { text: event.text }, null, includeUsage)
      }\n\n`;
    } else if (event.kind === "tool_call") {
      text += `data: ${
        chunk(kind, call, event.index, { toolCall: event.call }, null, includeUsage)
      }\n\n`;
    } else {
      ends.set(event.index, event);
      text += `data: ${chunk(kind, call, event.index, {}, event.finishReason, includeUsage)}\n\n`;
    }
    return text;
  };
  /** Ends once: the requests still running are cancelled. */
  const end = () => {
    if (done) return;
    done = true;
    pending = undefined;
    generation.cancel();
    onClosed();
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      let event: ChatEvent | undefined;
      try {
        event = pending ?? generation.take() ?? await generation.next();
        pending = undefined;
      } catch (e) {
        if (!done) {
          c.enqueue(sseEvent(errorJson(e)));
          c.close();
        }
        end();
        return;
      }
      if (done) return;
      if (event !== undefined) {
        // The events already here go in the same write (the bytes are the same; the client
        // reads events, not writes): a write per token costs more than the token's chunk.
        let text = events(event);
        for (let n = 1, more; n < BATCH && (more = generation.take()) !== undefined; n++) {
          text += events(more);
        }
        c.enqueue(encoder.encode(text));
        return;
      }
      if (includeUsage) {
        const usage = usageOf(stream.choices, ends) ?? UNCOUNTED;
        c.enqueue(sseEvent(usageChunk(kind, call, usage)));
      }
      c.enqueue(DONE);
      c.close();
      end();
    },
    cancel() {
      end();
      return generation.ended;
    },
  }, { highWaterMark: 0 });
  return {
    body,
    ended: Promise.all([closed, generation.ended]).then(() => {}),
    stop(reason) {
      if (done) return;
      try {
        controller.enqueue(sseEvent(errorJson(reason)));
        controller.close();
      } catch {
        // Already closed or errored by the runtime: nothing more to say.
      }
      end();
    },
  };
}
