/**
 * Property tests of the OpenAI front end's request bodies (fast-check), through `openaiHandler`
 * (no socket), against the test models: valid completion, chat and embedding bodies, and the same
 * bodies broken — bad JSON, JSON that is no object, a field of the wrong kind, a required field
 * missing, a huge `n`, a negative `max_tokens`, an unknown model, integers past 2^64, nesting past
 * the limit, fields of the caller's own. A valid body is answered 200 (a stream ends with
 * `[DONE]`); a broken one 4xx in OpenAI's error shape; never a 500, never a hang; afterwards
 * nothing is in flight.
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 150) and `FUZZ_SEED=s` run more or other cases.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before } from "node:test";
import fc from "fast-check";
import { test } from "./support/test.ts";
import type { Server } from "../mod.ts";
import { openaiHandler } from "../openai.ts";
import { BodyChecks, checkedHandler } from "./support/openai_bodies.ts";
import { idle, liveCounter, startServer } from "./support/env.ts";
import { type Obj, openaiEvents, TEST_MODEL_NAMES, TEST_MODELS } from "./support/openai.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20261217);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true };
/** Longer than any valid case takes: a case still unanswered then is a hang. */
const CASE_TIMEOUT_MS = 15_000;

let server: Server;
before(async () => {
  server = await startServer({ modelControlMode: "explicit", startupModels: TEST_MODEL_NAMES });
});
after(async () => {
  await server?.stop();
});

type Endpoint = "completions" | "chat/completions" | "embeddings";

/** What a case should get: 200, a given status, or any 4xx (a value that may be fine). */
type Expect = 200 | 400 | 404 | "4xx-or-200";

interface Case {
  readonly endpoint: Endpoint;
  readonly body: string;
  readonly expect: Expect;
  readonly why: string;
}

const word = fc.stringMatching(/^[a-z]{1,6}$/);
const prompt = fc.array(word, { maxLength: 6 }).map((w) => w.join(" "));

/** A valid body of each endpoint. */
const validBodies: fc.Arbitrary<{ endpoint: Endpoint; body: Obj }> = fc.oneof(
  fc.record({
    endpoint: fc.constant<Endpoint>("completions"),
    body: fc.record({
      model: fc.constantFrom("tiny_llm", "tiny_trtllm", "words"),
      prompt: fc.oneof(prompt, fc.array(prompt, { minLength: 1, maxLength: 3 })),
      max_tokens: fc.integer({ min: 1, max: 8 }),
      n: fc.integer({ min: 1, max: 3 }),
      stream: fc.boolean(),
      echo: fc.boolean(),
      stop: fc.option(fc.oneof(word, fc.array(word, { minLength: 1, maxLength: 2 })), {
        nil: undefined,
      }),
      temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }),
    }, { requiredKeys: ["model", "prompt"] }),
  }),
  fc.record({
    endpoint: fc.constant<Endpoint>("chat/completions"),
    body: fc.record({
      model: fc.constant("tiny_llm"),
      messages: fc.array(
        fc.record({ role: fc.constantFrom("system", "user", "assistant"), content: prompt }),
        { minLength: 1, maxLength: 3 },
      ),
      max_completion_tokens: fc.integer({ min: 1, max: 8 }),
      stream: fc.boolean(),
      stream_options: fc.constant({ include_usage: true }),
      seed: fc.integer(),
    }, { requiredKeys: ["model", "messages"] }).map((b) =>
      b.stream ? b : { ...b, stream_options: undefined }
    ),
  }),
  fc.record({
    endpoint: fc.constant<Endpoint>("embeddings"),
    body: fc.record({
      model: fc.constant("embed"),
      input: fc.oneof(prompt, fc.array(prompt, { minLength: 1, maxLength: 4 })),
      encoding_format: fc.constantFrom("float", "base64"),
    }, { requiredKeys: ["model", "input"] }),
  }),
);

/** JSON values of any kind, for fields that expect one kind. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);

/** The fields of each endpoint that a mutation may set to junk. */
const FIELDS: Readonly<Record<Endpoint, readonly string[]>> = {
  completions: [
    "prompt",
    "max_tokens",
    "n",
    "stream",
    "echo",
    "stop",
    "temperature",
    "top_p",
    "seed",
    "stream_options",
    "logprobs",
    "presence_penalty",
  ],
  "chat/completions": [
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "n",
    "stream",
    "stop",
    "top_p",
    "response_format",
    "tools",
    "tool_choice",
    "stream_options",
    "logprobs",
  ],
  embeddings: ["input", "encoding_format", "dimensions"],
};
const REQUIRED: Readonly<Record<Endpoint, readonly string[]>> = {
  completions: ["model", "prompt"],
  "chat/completions": ["model", "messages"],
  embeddings: ["model", "input"],
};

const cases: fc.Arbitrary<Case> = fc.tuple(
  validBodies,
  fc.nat(10),
  fc.nat(1000),
  junk,
  fc.string({ maxLength: 8 }),
)
  .map(([{ endpoint, body }, mutation, pick, value, text]): Case => {
    const json = (b: Obj) => JSON.stringify(b);
    const fields = FIELDS[endpoint];
    switch (mutation) {
      case 1: {
        const field = fields[pick % fields.length];
        return {
          endpoint,
          body: json({ ...body, [field]: value }),
          expect: "4xx-or-200",
          why: `${field} = ${JSON.stringify(value)}`,
        };
      }
      case 2: {
        const field = REQUIRED[endpoint][pick % 2];
        const { [field]: _, ...rest } = body;
        return { endpoint, body: json(rest), expect: 400, why: `no ${field}` };
      }
      case 3: {
        if (endpoint === "embeddings") break;
        const n = [129, 1e6, 2 ** 40, 1.5, -3, 0][pick % 6];
        return { endpoint, body: json({ ...body, n }), expect: 400, why: `n = ${n}` };
      }
      case 4: {
        if (endpoint === "embeddings") break;
        const field = endpoint === "completions" ? "max_tokens" : "max_completion_tokens";
        return {
          endpoint,
          body: json({ ...body, [field]: -(pick % 5) }),
          expect: 400,
          why: `${field} = ${-(pick % 5)}`,
        };
      }
      case 5:
        return {
          endpoint,
          body: json({ ...body, model: `no-such-${text}` }),
          expect: 404,
          why: "unknown model",
        };
      case 6: {
        const whole = json(body);
        return {
          endpoint,
          body: whole.slice(0, pick % whole.length) + text.replace(/[}\]"]/g, ""),
          expect: 400,
          why: "truncated JSON",
        };
      }
      case 7:
        return {
          endpoint,
          body: JSON.stringify([[body], 1, "x", null][pick % 4]),
          expect: 400,
          why: "JSON that is no object",
        };
      case 8: {
        // An integer past 2^64 where a number goes.
        const field = endpoint === "embeddings" ? "dimensions" : "max_tokens";
        const { [field]: _, ...rest } = body;
        return {
          endpoint,
          body: json(rest).replace(/^\{/, `{"${field}": 184467440737095516160${pick},`),
          expect: 400,
          why: `${field} past 2^64`,
        };
      }
      case 9: {
        const depth = 101 + (pick % 50);
        return {
          endpoint,
          body: json(body).replace(/^\{/, `{"deep": ${"[".repeat(depth)}${"]".repeat(depth)},`),
          expect: 400,
          why: `nested ${depth} deep`,
        };
      }
      case 10: {
        // A field of the caller's own (a short key: never one a test model reads).
        const key = `x${text.slice(0, 3)}`;
        return {
          endpoint,
          body: json({ ...body, [key]: value }),
          expect: "4xx-or-200",
          why: `extra ${key} = ${JSON.stringify(value)}`,
        };
      }
    }
    return { endpoint, body: json(body), expect: 200, why: "valid" };
  });

/** The handler's answer, or a failure after {@link CASE_TIMEOUT_MS}. */
async function answered(promise: Promise<Response>, why: string): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${CASE_TIMEOUT_MS} ms: ${why}`)),
      CASE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

test("generated request bodies: 200, or 4xx in OpenAI's shape; never 500, never a hang", async () => {
  // Every answer is also checked against OpenAI's schemas (tests/support/openai_bodies.ts).
  const checks = new BodyChecks();
  const handler = checkedHandler(openaiHandler(server, { models: TEST_MODELS }), checks);
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const response = await answered(
        handler(
          new Request(`http://localhost/v1/${c.endpoint}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: c.body,
          }),
        ),
        c.why,
      );
      const text = await response.text();
      const what = `${c.why}: ${response.status} ${text.slice(0, 300)}`;
      assert.ok(response.status < 500, what);
      if (c.expect === 200 || (c.expect === "4xx-or-200" && response.status === 200)) {
        assert.equal(response.status, 200, what);
        if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
          assert.ok(openaiEvents(text).done, `the stream ends with [DONE]: ${what}`);
        } else {
          assert.ok(Array.isArray(JSON.parse(text).choices ?? JSON.parse(text).data), what);
        }
        return;
      }
      if (c.expect !== "4xx-or-200") assert.equal(response.status, c.expect, what);
      assert.ok(response.status >= 400, what);
      const error = JSON.parse(text).error;
      assert.equal(typeof error?.message, "string", what);
      assert.equal(error.type, "invalid_request_error", what);
      assert.ok("param" in error && "code" in error, what);
    }),
    params,
  );
  checks.assertValid();
  await idle(server);
  const live = await liveCounter();
  if (live) {
    assert.equal(live("request"), 0, "requests left in the fake core");
    assert.equal(live("response"), 0, "responses left in the fake core");
  }
});
