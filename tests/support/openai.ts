/**
 * What the OpenAI front end's tests share: the test models' mappings, a server with an OpenAI
 * service on a free port, reading OpenAI's Server-Sent Events (`data: <json>` … `data: [DONE]`),
 * and tiny_embed's vectors computed as the model computes them.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Server, ServerOptions } from "../../mod.ts";
import {
  type OpenAIModel,
  type OpenAIService,
  serveOpenAI,
  type ServeOpenAIOptions,
} from "../../openai.ts";
import { liveCounter, SERVE_WORKERS, startServer } from "./env.ts";
import { type BodyChecks, checkOpenAIBodies } from "./openai_bodies.ts";

/** The test models (tests/models): vLLM's and TensorRT-LLM's conventions, a custom mapping of
 * word_stream, and tiny_embed. */
export const TEST_MODELS: Readonly<Record<string, OpenAIModel>> = {
  tiny_llm: { mapping: "vllm" },
  tiny_trtllm: { mapping: "trtllm" },
  words: {
    model: "word_stream",
    mapping: {
      prompt: "PROMPT",
      text: "WORD",
      parameters: {
        max_tokens: { parameter: "max_words" },
        response_format: { parameter: "response_format" },
      },
    },
  },
  embed: {
    model: "tiny_embed",
    embedding: { input: "TEXT", output: "EMBEDDING", tokens: "NUM_TOKENS" },
  },
};

/** The Triton models {@link TEST_MODELS} serve. */
export const TEST_MODEL_NAMES = ["tiny_llm", "tiny_trtllm", "word_stream", "tiny_embed"];

/** A running server and an OpenAI service over it. */
export interface OpenAIServing {
  readonly server: Server;
  readonly service: OpenAIService;
  readonly url: string;
  /** Every body fetched while it serves, checked against OpenAI's schemas (see
   * `openai_bodies.ts`); {@link stopOpenAI} fails on a violation. */
  readonly bodies: BodyChecks & { restore(): void };
}

/** Starts a server with the test models loaded and serves {@link TEST_MODELS} (unless `options`
 * says otherwise) on a free loopback port. */
export async function startOpenAI(
  options: ServeOpenAIOptions = {},
  serverOptions: Partial<ServerOptions> = {},
): Promise<OpenAIServing> {
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: TEST_MODEL_NAMES,
    ...serverOptions,
  });
  try {
    const service = await serveOpenAI(server, {
      port: 0,
      models: TEST_MODELS,
      workers: SERVE_WORKERS,
      ...options,
    });
    return { server, service, url: service.url, bodies: checkOpenAIBodies() };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** Closes the service, then stops the server; fails if a body fetched meanwhile broke OpenAI's
 * schemas. */
export async function stopOpenAI(s: OpenAIServing | undefined): Promise<void> {
  if (!s) return;
  s.bodies.restore();
  await s.service.close();
  await s.server.stop();
  s.bodies.assertValid();
}

/** Waits until nothing is in flight (HTTP, Triton, the fake core's live objects); fails the test
 * otherwise. */
export async function openaiSettled(s: OpenAIServing, timeoutMs = 10_000): Promise<void> {
  const live = await liveCounter();
  const deadline = Date.now() + timeoutMs;
  const busy = () =>
    s.service.active > 0 || s.server.inflight > 0 ||
    (live !== undefined && (live("request") > 0 || live("response") > 0));
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(s.service.active, 0, "HTTP requests still being served");
  assert.equal(s.server.inflight, 0, "requests in flight in Triton");
  if (live) {
    assert.equal(live("request"), 0, "live requests");
    assert.equal(live("response"), 0, "live responses");
  }
}

/** POSTs JSON (a string is sent as it is). */
export function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A JSON object, as the tests read them. */
export type Obj = Record<string, unknown>;

/** The events of an OpenAI event stream: each `data:` event's JSON, and whether `[DONE]` ended
 * it (it must be the last event when present). */
export function openaiEvents(text: string): { events: Obj[]; done: boolean } {
  const raw = text.split("\n\n");
  assert.equal(
    raw.at(-1),
    "",
    `the stream ends with a blank line: ${JSON.stringify(text.slice(-40))}`,
  );
  const events: Obj[] = [];
  let done = false;
  for (const event of raw.slice(0, -1)) {
    assert.match(event, /^data: /, `an SSE data event: ${event}`);
    assert.ok(!done, "nothing after [DONE]");
    const data = event.slice("data: ".length);
    if (data === "[DONE]") done = true;
    else events.push(JSON.parse(data));
  }
  return { events, done };
}

const decoder = new TextDecoder();

/** Reads OpenAI events one by one from a body: `undefined` at the end, `"[DONE]"` for it. */
export function eventReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  let buffer = "";
  return {
    reader,
    async next(): Promise<Obj | "[DONE]" | undefined> {
      while (!buffer.includes("\n\n")) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
      const at = buffer.indexOf("\n\n");
      const event = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      assert.match(event, /^data: /);
      const data = event.slice("data: ".length);
      return data === "[DONE]" ? data : JSON.parse(data);
    },
  };
}

/** The text of each choice of a stream's chunks (completion `text` or chat `delta.content`),
 * by index. */
export function streamedTexts(events: readonly Obj[]): Map<number, string> {
  const texts = new Map<number, string>();
  for (const e of events) {
    for (const c of e.choices as Obj[]) {
      const piece = (c.text ?? (c.delta as Obj | undefined)?.content ?? "") as string;
      texts.set(c.index as number, (texts.get(c.index as number) ?? "") + piece);
    }
  }
  return texts;
}

/** tiny_embed's vector of `s`, as the model computes it (float32). */
export function embedVector(s: string): number[] {
  const bytes = new TextEncoder().encode(s);
  let h = 0;
  for (let k = 0; k < bytes.length; k++) h = (h + bytes[k] * (k + 1)) % 1_000_003;
  return Array.from({ length: 8 }, (_, j) => Math.fround((((h * (j + 1)) % 2001) - 1000) / 1000));
}

/** The words of `s` as the word echo models count them (runs of ASCII whitespace split them). */
export function words(s: string): string[] {
  return s.split(/[ \t\n\v\f\r]+/).filter((w) => w !== "");
}

/** Asserts an error answer in OpenAI's shape with `status`; returns its error object. */
export async function assertOpenAIError(
  response: Response,
  status: number,
  param?: string | null,
): Promise<Obj> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  assert.equal(response.headers.get("content-type"), "application/json");
  const body = JSON.parse(text) as Obj;
  assert.deepEqual(Object.keys(body), ["error"], text);
  const error = body.error as Obj;
  assert.deepEqual(Object.keys(error).sort(), ["code", "message", "param", "type"], text);
  assert.equal(typeof error.message, "string");
  assert.ok((error.message as string).length > 0);
  assert.equal(
    error.type,
    status >= 500 ? "server_error" : status === 403 ? "permission_error" : "invalid_request_error",
  );
  if (param !== undefined) assert.equal(error.param, param, text);
  return error;
}
