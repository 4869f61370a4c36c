/**
 * `serveOpenAI()` on several threads (its `workers` option): completions and streamed chat
 * completions answered by more than one thread, each the same text as the one-thread service
 * gives; `/metrics` adds up every thread's latency histograms, whichever thread answers.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { serveOpenAI } from "../openai.ts";
import { TritonError } from "../mod.ts";
import { openaiEvents, post, startOpenAI, stopOpenAI, TEST_MODELS } from "./support/openai.ts";
import { UNSTABLE_NET_SKIP } from "./support/env.ts";

const s = await startOpenAI();
const native = s.server.info().callbacks === "native";
after(() => stopOpenAI(s));

const CLOSE = { connection: "close" };

/** The text of a completion of `prompt` from the service at `url`, on a new connection. */
async function completion(url: string, prompt: string): Promise<string> {
  const r = await post(
    `${url}/v1/completions`,
    { model: "tiny_llm", prompt, max_tokens: 8 },
    CLOSE,
  );
  const text = await r.text();
  assert.equal(r.status, 200, text);
  return JSON.parse(text).choices[0].text;
}

/** A metric's value in Prometheus text. */
function metric(text: string, name: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(name + " ") || l.startsWith(name + "{"));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

test("workers: 2 answers completions and streams from both threads, as one thread does", {
  skip: native ? UNSTABLE_NET_SKIP : "workers > 1 needs the native callbacks",
}, async () => {
  await using openai = await serveOpenAI(s.server, { port: 0, models: TEST_MODELS, workers: 2 });
  assert.equal(openai.workers, 2);
  const prompts = Array.from({ length: 60 }, (_, i) => `word${i} and ${i * 7} more`);
  const expected = await Promise.all(prompts.slice(0, 5).map((p) => completion(s.url, p)));
  const texts = await Promise.all(prompts.map((p) => completion(openai.url, p)));
  assert.deepEqual(texts.slice(0, 5), expected);
  for (const [i, text] of texts.entries()) assert.ok(text.length > 0, `${i}: ${text}`);
  // Each thread gives the same text for the same prompt.
  const again = await Promise.all(prompts.map((p) => completion(openai.url, p)));
  assert.deepEqual(again, texts);
  // Streamed chat completions: the chunks' text, whole, from any thread.
  const chats = await Promise.all(Array.from({ length: 20 }, async () => {
    const r = await post(`${openai.url}/v1/chat/completions`, {
      model: "tiny_llm",
      messages: [{ role: "user", content: "Hello there" }],
      stream: true,
    }, CLOSE);
    assert.equal(r.status, 200);
    const { events, done } = openaiEvents(await r.text());
    assert.equal(done, true);
    return events.map((e) =>
      ((e.choices as { delta: { content?: string } }[])[0]?.delta.content) ?? ""
    ).join("");
  }));
  assert.equal(new Set(chats).size, 1, JSON.stringify(chats));
  const counts = openai.requestsPerWorker();
  assert.equal(counts[0] + counts[1], 140);
  assert.ok(counts[0] > 0 && counts[1] > 0, `both threads answered: ${counts}`);
  // /metrics from every thread: the histograms count all 140 calls.
  const name = 'tritonffi:e2e_request_latency_seconds_count{model_name="tiny_llm"}';
  const metrics = await Promise.all(Array.from({ length: 12 }, async () => {
    const r = await fetch(`${openai.url}/metrics`, { headers: CLOSE });
    assert.equal(r.status, 200);
    return metric(await r.text(), name);
  }));
  for (const m of metrics) assert.equal(m, 140);
});

test("serveOpenAI() refuses a bad workers count, and workers > 1 without the native callbacks", async () => {
  const refused = async (workers: unknown, code: string, pattern: RegExp) => {
    await assert.rejects(
      serveOpenAI(s.server, { port: 0, models: TEST_MODELS, workers: workers as number }),
      (e) => {
        assert.ok(e instanceof TritonError, String(e));
        assert.equal(e.code, code, e.message);
        assert.match(e.message, pattern);
        return true;
      },
    );
  };
  await refused(0, "INVALID_ARG", /^serveOpenAI\(\): workers must be an integer in \[1, 256\]/);
  if (!native) await refused(2, "UNSUPPORTED", /needs the native callbacks/);
  // The one-thread service answers as before.
  assert.ok((await completion(s.url, "one two three")).length > 0);
});
