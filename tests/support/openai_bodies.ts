/**
 * Checks every body an OpenAI service answers a test with against the schemas of
 * `openai_schemas.ts` (ajv): the whole JSON bodies by route (the model list, a model, a
 * completion, a chat completion, an embedding list, an error of any route), and an event
 * stream's chunks one by one as the test reads them, with OpenAI's promise about usage: a stream
 * whose chunks carry `usage: null` (the call asked for `stream_options.include_usage`) sends one
 * more chunk, with no choices and the usage, before `[DONE]`.
 *
 * {@link checkOpenAIBodies} puts a checking `fetch` in place of the global one for the length of
 * a test file (the `openai` client calls the global one too); {@link checkedHandler} wraps a
 * fetch-style handler. Bodies are checked as they pass, without holding them back: a stream the
 * test cancels still cancels the service's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Ajv, type ValidateFunction } from "ajv";
import {
  chatChunkSchema,
  chatSchema,
  completionChunkSchema,
  completionSchema,
  embeddingsSchema,
  errorSchema,
  type JsonSchema,
  modelListSchema,
  modelSchema,
} from "./openai_schemas.ts";

const ajv = new Ajv({ allErrors: true, strict: true });
const compile = (schema: JsonSchema): ValidateFunction => ajv.compile(schema);

/** The validators, by the body they check. */
export const VALIDATORS = {
  completion: compile(completionSchema),
  completionChunk: compile(completionChunkSchema),
  chat: compile(chatSchema),
  chatChunk: compile(chatChunkSchema),
  embeddings: compile(embeddingsSchema),
  model: compile(modelSchema),
  modelList: compile(modelListSchema),
  error: compile(errorSchema),
} as const;

/** The name of a body's validator. */
export type BodyKind = keyof typeof VALIDATORS;

/** What is wrong with `value` as a `kind` body (empty: nothing). */
export function schemaErrors(kind: BodyKind, value: unknown): string[] {
  const validate = VALIDATORS[kind];
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) =>
    `${kind}${e.instancePath} ${e.message}${
      e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""
    }`
  );
}

/** Which route a request is: the path of its URL under /v1. */
function routeOf(
  method: string,
  path: string,
): "models" | "model" | "completions" | "chat" | "embeddings" | undefined {
  if (method === "GET" && path === "/v1/models") return "models";
  if (method === "GET" && path.startsWith("/v1/models/")) return "model";
  if (method !== "POST") return undefined;
  if (path === "/v1/completions") return "completions";
  if (path === "/v1/chat/completions") return "chat";
  if (path === "/v1/embeddings") return "embeddings";
  return undefined;
}

/** The violations found, each naming the request and what was wrong. */
export class BodyChecks {
  readonly violations: string[] = [];
  /** Bodies checked whole, and stream events checked. */
  checked = 0;

  #fail(where: string, problems: readonly string[], text: string): void {
    if (problems.length === 0) return;
    this.violations.push(`${where}: ${problems.join("; ")} in ${text.slice(0, 400)}`);
  }

  /** Checks a whole JSON body of `status` answering `method path`. */
  #whole(where: string, route: ReturnType<typeof routeOf>, status: number, text: string): void {
    if (text === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.#fail(where, ["not JSON"], text);
    }
    this.checked++;
    if (status >= 400) return this.#fail(where, schemaErrors("error", value), text);
    if (status !== 200 || route === undefined) return;
    const kind: BodyKind = {
      models: "modelList",
      model: "model",
      completions: "completion",
      chat: "chat",
      embeddings: "embeddings",
    }[route] as BodyKind;
    this.#fail(where, schemaErrors(kind, value), text);
  }

  /** A checker of one event stream's text, fed as it arrives. */
  #events(where: string, kind: "completionChunk" | "chatChunk") {
    let buffer = "";
    let usageAsked = false;
    let usageSent = false;
    let ended = false;
    const event = (raw: string) => {
      if (!raw.startsWith("data: ")) return this.#fail(where, ["an event without data:"], raw);
      const data = raw.slice("data: ".length);
      if (ended) return this.#fail(where, ["an event after [DONE]"], data);
      if (data === "[DONE]") {
        ended = true;
        if (usageAsked && !usageSent) {
          this.#fail(where, ["include_usage asked, but no usage chunk came before [DONE]"], data);
        }
        return;
      }
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(data);
      } catch {
        return this.#fail(where, ["an event that is not JSON"], data);
      }
      this.checked++;
      if ("error" in value) return this.#fail(where, schemaErrors("error", value), data);
      this.#fail(where, schemaErrors(kind, value), data);
      if (usageSent) this.#fail(where, ["a chunk after the usage chunk"], data);
      if (value.usage === null) usageAsked = true;
      if (value.usage !== null && value.usage !== undefined) {
        usageSent = true;
        if (!Array.isArray(value.choices) || value.choices.length !== 0) {
          this.#fail(where, ["the usage chunk has choices"], data);
        }
      }
    };
    return (text: string) => {
      buffer += text;
      let at;
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        event(buffer.slice(0, at));
        buffer = buffer.slice(at + 2);
      }
    };
  }

  /** `response`, its body checked as it is read (a new `Response` over the same bytes). */
  check(method: string, url: string, response: Response): Response {
    const { pathname } = new URL(url);
    const route = routeOf(method, pathname);
    const where = `${method} ${pathname} (${response.status})`;
    const type = response.headers.get("content-type") ?? "";
    if (response.body === null || method === "HEAD") return response;
    const streaming = type.startsWith("text/event-stream");
    if (!streaming && !type.startsWith("application/json")) return response;
    if (streaming && route !== "completions" && route !== "chat") {
      this.#fail(where, ["an event stream on a route that does not stream"], "");
      return response;
    }
    const decoder = new TextDecoder();
    const feed = streaming
      ? this.#events(where, route === "chat" ? "chatChunk" : "completionChunk")
      : undefined;
    let whole = "";
    const checkWhole = (text: string) => this.#whole(where, route, response.status, text);
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(bytes, controller) {
          const text = decoder.decode(bytes, { stream: true });
          if (feed) feed(text);
          else whole += text;
          controller.enqueue(bytes);
        },
        flush() {
          const text = decoder.decode();
          if (feed) feed(text);
          else checkWhole(whole + text);
        },
      }),
    );
    const checked = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(checked, "url", { value: response.url });
    return checked;
  }

  /** Fails with every violation found, or when nothing was checked. */
  assertValid(): void {
    assert.deepEqual(this.violations, [], "bodies that OpenAI's API description refuses");
    assert.ok(this.checked > 0, "no OpenAI body was checked");
  }
}

/** A fetch-style handler whose answers `checks` checks. */
export function checkedHandler(
  handler: (request: Request) => Response | Promise<Response>,
  checks: BodyChecks,
): (request: Request) => Promise<Response> {
  return async (request) => checks.check(request.method, request.url, await handler(request));
}

/** The global `fetch` replaced by one whose answers are checked, until `restore()`. */
export function checkOpenAIBodies(): BodyChecks & { restore(): void } {
  const checks = new BodyChecks();
  const original = globalThis.fetch;
  const checking = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const url = request?.url ?? String(input);
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    return checks.check(method, url, await original(input, init));
  };
  globalThis.fetch = Object.assign(checking, original) as typeof fetch;
  return Object.assign(checks, {
    restore() {
      if (globalThis.fetch === checking as unknown) globalThis.fetch = original;
    },
  });
}
