/**
 * The OpenAI front end's streams and lifetime: a client that goes away mid-stream (or before the
 * first chunk) cancels every request of its call in Triton, a stop string cut by the front end
 * cancels the model's request, a model's error before the first chunk gets its status, and
 * closing the service lets streams finish or ends them with an error event in OpenAI's shape;
 * the size limit and restricted routes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { test } from "./support/test.ts";
import { serveOpenAI } from "../openai.ts";
import {
  assertOpenAIError,
  eventReader,
  type Obj,
  openaiEvents,
  type OpenAIServing,
  openaiSettled,
  post,
  startOpenAI,
  stopOpenAI,
  TEST_MODELS,
} from "./support/openai.ts";
import { inflightCounter } from "./support/env.ts";

/** Requests in flight for the whole service, its workers' too (see inflightCounter). */
const inflight = await inflightCounter();

let s: OpenAIServing;
before(async () => {
  s = await startOpenAI();
});
after(async () => {
  await stopOpenAI(s);
});

/** `count` words: `w0 w1 …`. */
const manyWords = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(" ");

/** Waits until the server has nothing in flight; returns how long that took (ms). */
async function untilIdle(timeoutMs = 10_000): Promise<number> {
  const t0 = performance.now();
  while (inflight(s.server) > 0 || s.service.active > 0) {
    if (performance.now() - t0 > timeoutMs) {
      throw new Error(`${inflight(s.server)} requests still in flight`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
}

/** A call of 100 words 50 ms apart (5 s) unless cancelled. */
const long = (extra: Obj = {}) => ({
  model: "words",
  prompt: manyWords(100),
  max_tokens: 100,
  delay_ms: 50,
  stream: true,
  ...extra,
});

describe("a client that goes away cancels its call's requests", () => {
  test("aborting the fetch mid-stream", async () => {
    const controller = new AbortController();
    const t0 = performance.now();
    const r = await fetch(`${s.url}/v1/completions`, {
      method: "POST",
      body: JSON.stringify(long()),
      signal: controller.signal,
    });
    const events = eventReader(r.body!);
    assert.equal(((await events.next()) as Obj).object, "text_completion");
    await events.next();
    assert.equal(inflight(s.server), 1);
    controller.abort();
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    assert.ok(performance.now() - t0 < 3000, "the 5 s stream ended early");
    await openaiSettled(s);
  });

  test("cancelling the body reader mid-stream, n = 4: every choice's request ends", async () => {
    const r = await post(`${s.url}/v1/completions`, long({ n: 4 }));
    const events = eventReader(r.body!);
    await events.next();
    assert.equal(inflight(s.server), 4);
    await events.reader.cancel();
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the requests ended ${wait.toFixed(0)} ms after the client left`);
    await openaiSettled(s);
  });

  test("a chat stream through vLLM's convention (delay_ms in sampling_parameters)", async () => {
    const controller = new AbortController();
    const r = await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "tiny_llm",
        messages: [{ role: "user", content: manyWords(100) }],
        max_tokens: 200,
        delay_ms: 50,
        stream: true,
      }),
      signal: controller.signal,
    });
    const events = eventReader(r.body!);
    assert.deepEqual(((await events.next()) as { choices: Obj[] }).choices[0].delta, {
      role: "assistant",
      content: "",
    });
    await events.next();
    controller.abort();
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    await openaiSettled(s);
  });

  test("leaving before the first chunk", async () => {
    const controller = new AbortController();
    const pending = fetch(`${s.url}/v1/completions`, {
      method: "POST",
      body: JSON.stringify(long({ delay_ms: 100 })),
      signal: controller.signal,
    }).catch((e) => e);
    for (let i = 0; i < 500 && inflight(s.server) === 0; i++) {
      await new Promise((r) => setTimeout(r, 2));
    }
    assert.equal(inflight(s.server), 1);
    await new Promise((r) => setTimeout(r, 30));
    controller.abort();
    assert.ok((await pending) instanceof Error);
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    await openaiSettled(s);
  });

  test("a stop string cut by the front end cancels the model's request", async () => {
    const t0 = performance.now();
    const r = await post(`${s.url}/v1/completions`, long({ stop: "w3" }));
    const { events, done } = openaiEvents(await r.text());
    assert.ok(done);
    const text = events.map((e) => (e.choices as Obj[])[0].text).join("");
    assert.equal(text, " w0 w1 w2 ");
    await untilIdle();
    assert.ok(performance.now() - t0 < 2000, "the 5 s stream ended at the stop string");
    await openaiSettled(s);
  });
});

describe("the model's errors", () => {
  test("before the first chunk: the error's status, in OpenAI's shape", async () => {
    // tiny_llm refuses a negative delay_ms: INVALID_ARG.
    for (const stream of [false, true]) {
      const error = await assertOpenAIError(
        await post(`${s.url}/v1/completions`, {
          model: "tiny_llm",
          prompt: "a b",
          delay_ms: -1,
          stream,
        }),
        400,
      );
      assert.equal(error.code, "INVALID_ARG");
      assert.match(error.message as string, /delay_ms/);
    }
    await openaiSettled(s);
  });
});

describe("closing the service", () => {
  test("close() lets a stream in flight finish", async () => {
    const service = await serveOpenAI(s.server, { port: 0, models: TEST_MODELS });
    const r = await post(`${service.url}/v1/completions`, long({ prompt: "a b c", delay_ms: 80 }));
    const text = r.text();
    assert.equal(service.active, 1);
    const t0 = performance.now();
    await service.close();
    assert.ok(performance.now() - t0 > 100, "close() waited for the stream");
    const { events, done } = openaiEvents(await text);
    assert.ok(done);
    assert.equal(events.map((e) => (e.choices as Obj[])[0].text).join(""), " a b c");
    await assert.rejects(fetch(`${service.url}/v1/models`));
    await service.closed;
    await openaiSettled(s);
  });

  test("close({ timeoutMs }) ends the open streams with an error event and cancels", async () => {
    const service = await serveOpenAI(s.server, { port: 0, models: TEST_MODELS });
    const r = await post(`${service.url}/v1/completions`, long({ n: 2 }));
    const text = r.text();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const t0 = performance.now();
    await service.close({ timeoutMs: 200 });
    const closedAfter = performance.now() - t0;
    assert.ok(closedAfter >= 190 && closedAfter < 2000, `closed after ${closedAfter} ms`);
    const { events, done } = openaiEvents(await text);
    assert.ok(!done, "no [DONE] after an error");
    assert.deepEqual(events.at(-1), {
      error: {
        message: "the HTTP service is closing",
        type: "server_error",
        param: null,
        code: "UNAVAILABLE",
      },
    });
    assert.ok(events.length > 2 && events.length < 100, `${events.length} events`);
    await untilIdle();
    await openaiSettled(s);
  });

  test("the signal option and await using close it", async () => {
    const controller = new AbortController();
    const service = await serveOpenAI(s.server, {
      port: 0,
      models: TEST_MODELS,
      signal: controller.signal,
    });
    assert.equal((await fetch(`${service.url}/health/ready`)).status, 200);
    controller.abort();
    await service.closed;
    await assert.rejects(fetch(`${service.url}/health/ready`));
    let url: string;
    {
      await using openai = await serveOpenAI(s.server, { port: 0, models: TEST_MODELS });
      url = openai.url;
      assert.equal(
        openai.runtime,
        "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node",
      );
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    }
    await assert.rejects(fetch(`${url}/v1/models`));
  });
});

describe("limits and restrictions", () => {
  test("a body over maxRequestBytes: 413, declared or chunked", async () => {
    await using service = await serveOpenAI(s.server, {
      port: 0,
      models: TEST_MODELS,
      maxRequestBytes: 1000,
    });
    const big = JSON.stringify({ model: "tiny_llm", prompt: "x".repeat(2000) });
    await assertOpenAIError(await post(`${service.url}/v1/completions`, big), 413);
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 4; i++) {
          c.enqueue(new TextEncoder().encode(big.slice(i * 600, (i + 1) * 600)));
        }
        c.close();
      },
    });
    await assertOpenAIError(
      await fetch(`${service.url}/v1/completions`, {
        method: "POST",
        body: chunked,
        // @ts-ignore: Node's fetch needs it for a stream body; the others ignore it
        duplex: "half",
      }),
      413,
    );
    const small = await post(`${service.url}/v1/completions`, { model: "tiny_llm", prompt: "a" });
    assert.equal(small.status, 200);
    await small.text();
  });

  test("restricted categories need their header; the others stay open", async () => {
    await using service = await serveOpenAI(s.server, {
      port: 0,
      models: TEST_MODELS,
      restrictedApis: {
        inference: { header: "api-key", value: "secret" },
        metrics: { header: "admin", value: "yes" },
      },
    });
    const body = { model: "tiny_llm", prompt: "a" };
    const denied = await assertOpenAIError(await post(`${service.url}/v1/completions`, body), 403);
    assert.match(denied.message as string, /api-key/);
    await assertOpenAIError(
      await post(`${service.url}/v1/embeddings`, { model: "embed", input: "a" }, {
        "api-key": "no",
      }),
      403,
    );
    const allowed = await post(`${service.url}/v1/completions`, body, { "api-key": "secret" });
    assert.equal(allowed.status, 200);
    await allowed.text();
    await assertOpenAIError(await fetch(`${service.url}/metrics`), 403);
    const models = await fetch(`${service.url}/v1/models`);
    assert.equal(models.status, 200);
    await models.text();
  });

  test("bad options reject before anything listens", async () => {
    const bad: [Obj, RegExp][] = [
      [
        { restrictedApis: { "model-repository": { header: "a", value: "b" } } },
        /unknown restricted API category/,
      ],
      [{ maxRequestBytes: -1 }, /maxRequestBytes/],
      [{ maxChoices: 0 }, /maxChoices/],
      [{ port: 70000 }, /port/],
      [{ models: { x: { model: "tiny_llm" } } }, /either mapping/],
      [{ models: { x: { mapping: "vllm" } } }, /'x'/],
    ];
    for (const [options, message] of bad) {
      await assert.rejects(serveOpenAI(s.server, options), message);
    }
  });
});
