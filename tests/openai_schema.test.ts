/**
 * Every body of the OpenAI front end against the schemas written from OpenAI's published API
 * description (tests/support/openai_schemas.ts): first that the schemas and the stream check
 * refuse what that description refuses (so that a passing check means something), then every
 * route and case driven once — the model list and a model, completions and chat on each test
 * model (vLLM's convention, TensorRT-LLM's with a tokenizer, a custom mapping that counts
 * nothing), whole and streamed, with and without `include_usage`, `n`, `echo`, `stop`,
 * embeddings (floats, base64, with and without counts), and the errors of every kind (400, 403,
 * 404, 405, 413, a model's error, an error event ending a stream). The other OpenAI test files
 * check their bodies the same way (`startOpenAI`, `checkOpenAIBodies`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { test } from "./support/test.ts";
import { openaiHandler, serveOpenAI } from "../openai.ts";
import {
  type OpenAIServing,
  openaiSettled,
  post,
  startOpenAI,
  stopOpenAI,
  TEST_MODELS,
} from "./support/openai.ts";
import { BodyChecks, checkedHandler, schemaErrors } from "./support/openai_bodies.ts";

let s: OpenAIServing;
before(async () => {
  s = await startOpenAI({ restrictedApis: { metrics: { header: "k", value: "v" } } });
});
after(async () => {
  await stopOpenAI(s);
});

const CALL = { id: "cmpl-1", created: 1700000000, model: "m" };
const USAGE = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };

describe("the schemas refuse what OpenAI's description refuses", () => {
  test("each body: a valid one passes, each broken copy fails", () => {
    const completion = {
      ...CALL,
      object: "text_completion",
      choices: [{ index: 0, text: "x", logprobs: null, finish_reason: "stop" }],
      usage: USAGE,
    };
    const chat = {
      ...CALL,
      object: "chat.completion",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "x", refusal: null },
        logprobs: null,
        finish_reason: "tool_calls",
      }],
    };
    const chatChunk = {
      ...CALL,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: "x" }, logprobs: null, finish_reason: null }],
      usage: null,
    };
    const embeddings = {
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.5] }],
      model: "m",
      usage: { prompt_tokens: 0, total_tokens: 0 },
    };
    const error = {
      error: { message: "m", type: "invalid_request_error", param: null, code: null },
    };
    assert.deepEqual(schemaErrors("completion", completion), []);
    assert.deepEqual(schemaErrors("chat", chat), []);
    assert.deepEqual(schemaErrors("chatChunk", chatChunk), []);
    assert.deepEqual(schemaErrors("embeddings", embeddings), []);
    assert.deepEqual(schemaErrors("error", error), []);
    assert.deepEqual(
      schemaErrors("modelList", {
        object: "list",
        data: [{ id: "m", object: "model", created: 1, owned_by: "o" }],
      }),
      [],
    );
    const broken: [Parameters<typeof schemaErrors>[0], unknown, RegExp][] = [
      // The first bug: usage is required of an embedding list.
      ["embeddings", { ...embeddings, usage: undefined }, /must have required property 'usage'/],
      ["embeddings", { ...embeddings, usage: { prompt_tokens: 1 } }, /total_tokens/],
      // No tool calls on /v1/completions.
      [
        "completion",
        { ...completion, choices: [{ ...completion.choices[0], finish_reason: "tool_calls" }] },
        /allowed values/,
      ],
      // A whole body's finish_reason is never null; a chunk's may be.
      [
        "completion",
        { ...completion, choices: [{ ...completion.choices[0], finish_reason: null }] },
        /must be string/,
      ],
      ["completion", { ...completion, usage: { prompt_tokens: 1 } }, /completion_tokens/],
      ["completion", { ...completion, created: 1.5 }, /must be integer/],
      [
        "chat",
        {
          ...chat,
          choices: [{ ...chat.choices[0], message: { role: "assistant", content: "x" } }],
        },
        /refusal/,
      ],
      ["chat", { ...chat, object: "chat.completion.chunk" }, /allowed values/],
      ["chatChunk", { ...chatChunk, choices: [{ index: 0, delta: {} }] }, /finish_reason/],
      ["error", { error: { message: "m", type: "t" } }, /param/],
      ["model", { id: "m", object: "model", created: 1 }, /owned_by/],
    ];
    for (const [kind, body, expected] of broken) {
      assert.match(schemaErrors(kind, body).join("\n"), expected, JSON.stringify(body));
    }
  });

  test("a stream that promised usage must send its usage chunk before [DONE]", async () => {
    const stream = (events: unknown[]) =>
      new Response(
        events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n",
        {
          headers: { "content-type": "text/event-stream" },
        },
      );
    const chunk = {
      ...CALL,
      object: "text_completion",
      choices: [{ index: 0, text: "x", logprobs: null, finish_reason: "stop" }],
      usage: null,
    };
    const checks = new BodyChecks();
    await checks.check("POST", "http://x/v1/completions", stream([chunk])).text();
    assert.match(checks.violations.join("\n"), /no usage chunk came before \[DONE\]/);
    const good = new BodyChecks();
    const usage = { ...chunk, choices: [], usage: USAGE };
    await good.check("POST", "http://x/v1/completions", stream([chunk, usage])).text();
    assert.deepEqual(good.violations, []);
    assert.equal(good.checked, 2);
    const late = new BodyChecks();
    await late.check("POST", "http://x/v1/completions", stream([chunk, usage, chunk])).text();
    assert.match(late.violations.join("\n"), /a chunk after the usage chunk/);
  });
});

/** POSTs `body` to `route` and reads the answer whole (the global fetch checks it). */
async function call(route: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await post(`${s.url}${route}`, body, headers);
  return { status: response.status, text: await response.text() };
}

/** Asserts that nothing checked so far broke a schema, and that checking went on. */
function valid(before: number): void {
  assert.deepEqual(s.bodies.violations, []);
  assert.ok(s.bodies.checked > before, "bodies were checked");
}

describe("every route and case, checked", () => {
  test("the model list and one model", async () => {
    const before = s.bodies.checked;
    assert.equal((await fetch(`${s.url}/v1/models`)).status, 200);
    await (await fetch(`${s.url}/v1/models`)).text();
    await (await fetch(`${s.url}/v1/models/embed`)).text();
    valid(before);
  });

  for (const model of ["tiny_llm", "tiny_trtllm", "words"]) {
    test(`completions of ${model}: whole, streamed, with usage, n, echo, stop, max_tokens`, async () => {
      const before = s.bodies.checked;
      for (
        const extra of [{}, { stream: true }, {
          stream: true,
          stream_options: { include_usage: true },
        }]
      ) {
        for (const fields of [{}, { n: 2, max_tokens: 2 }, { echo: true }, { stop: ["c"] }]) {
          const r = await call("/v1/completions", {
            model,
            prompt: ["a b c d", "e"],
            ...fields,
            ...extra,
          });
          assert.equal(r.status, 200, r.text);
        }
      }
      await openaiSettled(s);
      valid(before);
    });
  }

  for (const model of ["tiny_llm", "words"]) {
    test(`chat of ${model}: whole, streamed, with usage, n, max_tokens`, async () => {
      const before = s.bodies.checked;
      const messages = [{ role: "user", content: "Hello there" }];
      for (
        const extra of [{}, { stream: true }, {
          stream: true,
          stream_options: { include_usage: true },
        }]
      ) {
        for (const fields of [{}, { n: 2, max_completion_tokens: 2 }, { stop: "there" }]) {
          const r = await call("/v1/chat/completions", { model, messages, ...fields, ...extra });
          // words has no chat template: its 400 is checked as an error body.
          assert.equal(r.status, model === "words" ? 400 : 200, r.text);
        }
      }
      await openaiSettled(s);
      valid(before);
    });
  }

  test("embeddings: floats, base64, several inputs", async () => {
    const before = s.bodies.checked;
    for (const fields of [{}, { encoding_format: "base64" }, { input: ["a", "b", ""] }]) {
      const r = await call("/v1/embeddings", { model: "embed", input: "hello world", ...fields });
      assert.equal(r.status, 200, r.text);
    }
    valid(before);
  });

  test("errors of every kind are OpenAI's error object", async () => {
    const before = s.bodies.checked;
    const statuses = [
      (await call("/v1/completions", "{not json")).status,
      (await call("/v1/completions", { model: "nope", prompt: "a" })).status,
      (await call("/v1/completions", { model: "tiny_llm", prompt: 5 })).status,
      (await call("/v1/embeddings", { model: "tiny_llm", input: "a" })).status,
      (await call("/v1/chat/completions", { model: "tiny_llm", messages: [] })).status,
      (await call("/v1/nothing", {})).status,
      await fetch(`${s.url}/v1/completions`).then(async (r) => (await r.text(), r.status)),
      await fetch(`${s.url}/metrics`).then(async (r) => (await r.text(), r.status)),
      (await call("/v1/completions", { model: "tiny_trtllm", prompt: "a", seed: -1 })).status,
    ];
    assert.deepEqual(statuses, [400, 404, 400, 400, 400, 404, 405, 403, 400]);
    valid(before);
  });

  test("413 over maxRequestBytes, and a model's own error", async () => {
    await using small = await serveOpenAI(s.server, {
      port: 0,
      models: TEST_MODELS,
      maxRequestBytes: 64,
    });
    const before = s.bodies.checked;
    const big = await post(`${small.url}/v1/completions`, {
      model: "words",
      prompt: "x".repeat(100),
    });
    assert.equal(big.status, 413);
    await big.text();
    const failed = await post(`${s.url}/v1/completions`, {
      model: "words",
      prompt: "a",
      delay_ms: -1,
    });
    assert.equal(failed.status, 400);
    await failed.text();
    valid(before);
  });

  test("an error event ending a stream (the service closes under it)", async () => {
    const checks = new BodyChecks();
    const handler = checkedHandler(openaiHandler(s.server, { models: TEST_MODELS }), checks);
    await using closing = await serveOpenAI(s.server, { port: 0, models: TEST_MODELS });
    const response = await fetch(`${closing.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "words",
        prompt: "a b c d e f g h",
        stream: true,
        delay_ms: 100,
      }),
    });
    assert.equal(response.status, 200);
    const text = response.text();
    await closing.close({ timeoutMs: 50 });
    assert.match(await text, /data: \{"error":/);
    // The same through a handler checked on its own.
    const r = await handler(
      new Request("http://x/v1/completions", {
        method: "POST",
        body: JSON.stringify({ model: "words", prompt: "a b", stream: true }),
      }),
    );
    await r.text();
    checks.assertValid();
    await openaiSettled(s);
    valid(0);
  });
});
