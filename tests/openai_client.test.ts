/**
 * `serveOpenAI()` driven by OpenAI's own client, the `openai` npm package (pinned in
 * package.json), as an application would use it: `new OpenAI({ baseURL: service.url + "/v1" })`.
 * The models are the word echo models of tests/models (docs/testing.md): tiny_llm (vLLM's
 * convention, with counts and a chat template), tiny_trtllm (TensorRT-LLM's, no counts of its
 * own: its tokenizer.json counts, one token per word and a BOS token before a prompt),
 * word_stream (a custom model, served through the mapping declared here) and tiny_embed
 * (embeddings). Every text, finish reason, count and vector is computed here from the prompt, as
 * the models define them, and compared exactly: completions and chat, streaming and not, `n`,
 * `stop`, `max_tokens` and `max_completion_tokens`, `stream_options.include_usage`, embeddings as
 * floats and base64, `data: [DONE]` on the wire, errors as the client's APIError subclasses (as the
 * answer, and as a stream's last event when the service closes under it), and a stream aborted
 * mid-way cancelling its request in Triton.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import OpenAI, { APIError, APIUserAbortError, BadRequestError, NotFoundError } from "openai";
import { test } from "./support/test.ts";
import { checkOpenAIBodies } from "./support/openai_bodies.ts";
import type { Server } from "../mod.ts";
import { type OpenAIModel, type OpenAIService, serveOpenAI } from "../openai.ts";
import { idle, inflightCounter, liveCounter, startServer } from "./support/env.ts";

/** Requests in flight for the whole service, its workers' too (see inflightCounter). */
const inflight = await inflightCounter();

/** The models and how each is served; word_stream's mapping is declared here, as a user would. */
const MODELS: Record<string, OpenAIModel> = {
  tiny_llm: { mapping: "vllm" },
  tiny_trtllm: { mapping: "trtllm" },
  word_stream: {
    mapping: {
      prompt: "PROMPT",
      text: "WORD",
      parameters: {
        max_tokens: { parameter: "max_words" },
        response_format: { parameter: "response_format" },
      },
    },
    chatTemplate: "{% for m in messages %}{{ m.role }}: {{ m.content }} {% endfor %}",
  },
  tiny_embed: { embedding: { input: "TEXT", output: "EMBEDDING", tokens: "NUM_TOKENS" } },
};

let server: Server;
let service: OpenAIService;
let client: OpenAI;
/** Every body the client fetches, checked against OpenAI's schemas. */
const bodies = checkOpenAIBodies();
before(async () => {
  server = await startServer({
    modelControlMode: "explicit",
    startupModels: Object.keys(MODELS),
  });
  service = await serveOpenAI(server, { port: 0, models: MODELS });
  // No retries: every request is made once, so that what a test sees is what the server said.
  client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
after(async () => {
  bodies.restore();
  await service?.close();
  await server?.stop();
  bodies.assertValid();
});

/** Waits until nothing is in flight (no HTTP request served, no request in Triton, and on the fake
 * core no live request or response); fails the test otherwise. */
async function settled(timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((service.active > 0 || inflight(server) > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await idle(server, 1);
  assert.equal(service.active, 0, "HTTP requests still being served");
  const live = await liveCounter();
  if (live) {
    assert.equal(live("request"), 0, "live requests");
    assert.equal(live("response"), 0, "live responses");
  }
}

// ---------------------------------------------------------------------------------------------
// What the word echo models answer, computed from the prompt (docs/testing.md, the test models).

/** The prompt's words: split on runs of ASCII whitespace, empty strings dropped. */
function words(prompt: string): string[] {
  return prompt.split(/[ \t\n\v\f\r]+/).filter((w) => w !== "");
}

/** What a word echo model generates for `prompt`: its words again, each as " " + word, at most
 * `maxTokens` of them, ending before a word equal to a stop string. */
function echo(
  prompt: string,
  maxTokens = 16,
  stop: readonly string[] = [],
): { pieces: string[]; text: string; finish: "stop" | "length"; promptTokens: number } {
  const all = words(prompt);
  const pieces: string[] = [];
  let finish: "stop" | "length" = "stop";
  for (const w of all) {
    if (stop.includes(w)) break;
    if (pieces.length === maxTokens) {
      finish = "length";
      break;
    }
    pieces.push(` ${w}`);
  }
  return { pieces, text: pieces.join(""), finish, promptTokens: all.length };
}

/** tiny_llm's chat template (tests/models/tiny_llm/tokenizer_config.json), rendered. */
function tinyLlmChat(messages: readonly { role: string; content: string }[]): string {
  return messages.map((m) => `<|${m.role}|> ${m.content} <|end|> `).join("") + "<|assistant|>";
}

/** tiny_embed's vector for `s` (8 float32 components, from its UTF-8 bytes). */
function embedding(s: string): number[] {
  const bytes = new TextEncoder().encode(s);
  let h = 0;
  for (let k = 0; k < bytes.length; k++) h = (h + bytes[k] * (k + 1)) % 1_000_003;
  return Array.from({ length: 8 }, (_, j) => Math.fround((((h * (j + 1)) % 2001) - 1000) / 1000));
}

/** A vector as base64 of its float32 bytes, little-endian (OpenAI's `encoding_format: base64`). */
function base64Of(vector: readonly number[]): string {
  const bytes = new Uint8Array(Float32Array.from(vector).buffer);
  return btoa(String.fromCharCode(...bytes));
}

/** The chunks of a stream, read to its end. */
async function chunks<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

const PROMPT = "the quick brown fox jumps over the lazy dog";

// ---------------------------------------------------------------------------------------------

describe("models", () => {
  test("models.list names every served model", async () => {
    const models = await chunks(client.models.list());
    assert.deepEqual(models.map((m) => m.id).sort(), Object.keys(MODELS).sort());
    for (const m of models) {
      assert.equal(m.object, "model");
      assert.equal(typeof m.created, "number");
      assert.equal(typeof m.owned_by, "string");
    }
    const one = await client.models.retrieve("tiny_llm");
    assert.equal(one.id, "tiny_llm");
  });
});

describe("completions", () => {
  test("tiny_llm: the text, finish reason length and usage counted by the model", async () => {
    const expected = echo(PROMPT, 4);
    const r = await client.completions.create({ model: "tiny_llm", prompt: PROMPT, max_tokens: 4 });
    assert.equal(r.object, "text_completion");
    assert.equal(r.model, "tiny_llm");
    assert.equal(r.choices.length, 1);
    assert.equal(r.choices[0].index, 0);
    assert.equal(r.choices[0].text, expected.text);
    assert.equal(r.choices[0].text, " the quick brown fox");
    assert.equal(r.choices[0].finish_reason, "length");
    assert.deepEqual(r.usage, { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    await settled();
  });

  test("tiny_llm: every word within the limit finishes with stop", async () => {
    const r = await client.completions.create({ model: "tiny_llm", prompt: "one two three" });
    assert.equal(r.choices[0].text, " one two three");
    assert.equal(r.choices[0].finish_reason, "stop");
    assert.deepEqual(r.usage, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
  });

  test("tiny_llm: a stop string ends the text before it", async () => {
    const r = await client.completions.create({
      model: "tiny_llm",
      prompt: PROMPT,
      stop: ["fox", "dog"],
    });
    assert.equal(r.choices[0].text, " the quick brown");
    assert.equal(r.choices[0].finish_reason, "stop");
  });

  test("tiny_llm streaming: one chunk per word, the finish reason last, then usage", async () => {
    const expected = echo(PROMPT, 5);
    const stream = await client.completions.create({
      model: "tiny_llm",
      prompt: PROMPT,
      max_tokens: 5,
      stream: true,
      stream_options: { include_usage: true },
    });
    const all = await chunks(stream);
    const usage = all.filter((c) => c.usage);
    const texts = all.filter((c) => c.choices.length > 0);
    assert.deepEqual(texts.map((c) => c.choices[0].text).join(""), expected.text);
    assert.deepEqual(
      texts.map((c) => c.choices[0].text).filter((t) => t !== ""),
      expected.pieces,
    );
    assert.equal(texts.at(-1)!.choices[0].finish_reason, "length");
    for (const c of texts.slice(0, -1)) assert.equal(c.choices[0].finish_reason, null);
    for (const c of all) assert.equal(c.object, "text_completion");
    // The usage chunk comes last, with no choices.
    assert.equal(usage.length, 1);
    assert.equal(all.at(-1), usage[0]);
    assert.deepEqual(usage[0].choices, []);
    assert.deepEqual(usage[0].usage, { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 });
    // One id for the whole stream.
    assert.equal(new Set(all.map((c) => c.id)).size, 1);
    await settled();
  });

  test("n = 3: three choices, by index, each the whole answer", async () => {
    const r = await client.completions.create({
      model: "tiny_llm",
      prompt: "alpha beta",
      n: 3,
    });
    assert.deepEqual(r.choices.map((c) => c.index), [0, 1, 2]);
    for (const c of r.choices) {
      assert.equal(c.text, " alpha beta");
      assert.equal(c.finish_reason, "stop");
    }
    assert.deepEqual(r.usage, { prompt_tokens: 2, completion_tokens: 6, total_tokens: 8 });
  });

  test("n = 2 streaming: each choice's chunks carry its index", async () => {
    const stream = await client.completions.create({
      model: "tiny_llm",
      prompt: "alpha beta gamma",
      n: 2,
      stream: true,
    });
    const all = await chunks(stream);
    for (const index of [0, 1]) {
      const mine = all.flatMap((c) => c.choices.filter((ch) => ch.index === index));
      assert.equal(mine.map((ch) => ch.text).join(""), " alpha beta gamma");
      assert.equal(mine.at(-1)!.finish_reason, "stop");
    }
    assert.ok(all.every((c) => c.choices.every((ch) => ch.index === 0 || ch.index === 1)));
  });

  test("tiny_trtllm: the same text, usage and the length counted by its tokenizer", async () => {
    const r = await client.completions.create({
      model: "tiny_trtllm",
      prompt: PROMPT,
      max_tokens: 3,
      stop: ["brown"],
      temperature: 0.5,
      top_p: 0.9,
      seed: 7,
    });
    assert.equal(r.choices[0].text, " the quick");
    assert.equal(r.choices[0].finish_reason, "stop");
    // The prompt's 9 words and the BOS token the tokenizer adds; the 2 words generated.
    assert.deepEqual(r.usage, { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 });
    const long = await client.completions.create({
      model: "tiny_trtllm",
      prompt: PROMPT,
      max_tokens: 3,
    });
    assert.equal(long.choices[0].text, " the quick brown");
    // The model gives no finish reason: its tokenizer counts the 3 tokens max_tokens allowed.
    assert.equal(long.choices[0].finish_reason, "length");
    assert.deepEqual(long.usage, { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
  });

  test("tiny_trtllm streaming with include_usage: the usage chunk its tokenizer counts", async () => {
    const stream = await client.completions.create({
      model: "tiny_trtllm",
      prompt: "one two three",
      stream: true,
      stream_options: { include_usage: true },
    });
    const all = await chunks(stream);
    assert.equal(all.map((c) => c.choices[0]?.text ?? "").join(""), " one two three");
    assert.deepEqual(all.at(-1)!.choices, []);
    assert.deepEqual(all.at(-1)!.usage, {
      prompt_tokens: 4,
      completion_tokens: 3,
      total_tokens: 7,
    });
    assert.ok(all.slice(0, -1).every((c) => c.usage === null), JSON.stringify(all));
    assert.equal(all.at(-2)!.choices[0].finish_reason, "stop");
    await settled();
  });
});

describe("chat completions", () => {
  const messages = [
    { role: "system" as const, content: "Be brief" },
    { role: "user" as const, content: "Hello there" },
  ];
  const prompt = tinyLlmChat(messages);

  test("tiny_llm: the messages go through the model's chat template", async () => {
    const expected = echo(prompt);
    assert.equal(
      expected.text,
      " <|system|> Be brief <|end|> <|user|> Hello there <|end|> <|assistant|>",
    );
    const r = await client.chat.completions.create({ model: "tiny_llm", messages });
    assert.equal(r.object, "chat.completion");
    assert.equal(r.model, "tiny_llm");
    assert.equal(r.choices.length, 1);
    assert.equal(r.choices[0].message.role, "assistant");
    assert.equal(r.choices[0].message.content, expected.text);
    assert.equal(r.choices[0].finish_reason, "stop");
    assert.deepEqual(r.usage, {
      prompt_tokens: expected.promptTokens,
      completion_tokens: expected.pieces.length,
      total_tokens: expected.promptTokens + expected.pieces.length,
    });
    await settled();
  });

  test("max_tokens and max_completion_tokens both cut the answer", async () => {
    const expected = echo(prompt, 3);
    assert.equal(expected.text, " <|system|> Be brief");
    for (
      const limit of [{ max_tokens: 3 }, { max_completion_tokens: 3 }, {
        max_completion_tokens: 3,
        max_tokens: 10,
      }]
    ) {
      const r = await client.chat.completions.create({ model: "tiny_llm", messages, ...limit });
      assert.equal(r.choices[0].message.content, expected.text, JSON.stringify(limit));
      assert.equal(r.choices[0].finish_reason, "length");
      assert.equal(r.usage?.completion_tokens, 3);
    }
  });

  test("stop strings, n and sampling fields together", async () => {
    const r = await client.chat.completions.create({
      model: "tiny_llm",
      messages: [{ role: "user", content: "red green blue" }],
      stop: "blue",
      n: 2,
      temperature: 0,
      top_p: 1,
      seed: 42,
    });
    assert.deepEqual(r.choices.map((c) => c.index), [0, 1]);
    for (const c of r.choices) {
      assert.equal(c.message.content, " <|user|> red green");
      assert.equal(c.finish_reason, "stop");
    }
  });

  test("streaming: the role first, one delta per word, the finish reason, usage, [DONE]", async () => {
    const expected = echo(prompt, 4);
    // A client whose fetch keeps a copy of the bytes it reads: the client itself stops at
    // `data: [DONE]` without saying whether it came.
    const bodies: Promise<string>[] = [];
    const recording = new OpenAI({
      baseURL: `${service.url}/v1`,
      apiKey: "unused",
      maxRetries: 0,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const [mine, theirs] = response.body!.tee();
        bodies.push(new Response(mine).text());
        return new Response(theirs, { status: response.status, headers: response.headers });
      },
    });
    const stream = await recording.chat.completions.create({
      model: "tiny_llm",
      messages,
      max_completion_tokens: 4,
      stream: true,
      stream_options: { include_usage: true },
    });
    const all = await chunks(stream);
    for (const c of all) assert.equal(c.object, "chat.completion.chunk");
    const withChoices = all.filter((c) => c.choices.length > 0);
    assert.equal(withChoices[0].choices[0].delta.role, "assistant");
    const contents = withChoices.map((c) => c.choices[0].delta.content ?? "");
    assert.equal(contents.join(""), expected.text);
    assert.deepEqual(contents.filter((t) => t !== ""), expected.pieces);
    assert.equal(withChoices.at(-1)!.choices[0].finish_reason, "length");
    for (const c of withChoices.slice(0, -1)) assert.equal(c.choices[0].finish_reason, null);
    const usage = all.at(-1)!;
    assert.deepEqual(usage.choices, []);
    assert.deepEqual(usage.usage, {
      prompt_tokens: expected.promptTokens,
      completion_tokens: 4,
      total_tokens: expected.promptTokens + 4,
    });
    assert.equal(new Set(all.map((c) => c.id)).size, 1);
    // On the wire: one event per chunk the client gave, then [DONE], and nothing after it.
    const events = (await bodies[0]).split("\n\n");
    assert.deepEqual(events.slice(-2), ["data: [DONE]", ""]);
    assert.equal(events.length, all.length + 2);
    await settled();
  });

  test("streaming without include_usage has no usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: "tiny_llm",
      messages: [{ role: "user", content: "a b" }],
      stream: true,
    });
    const all = await chunks(stream);
    assert.ok(all.every((c) => !c.usage));
    assert.equal(
      all.map((c) => c.choices[0]?.delta.content ?? "").join(""),
      " <|user|> a b <|end|> <|assistant|>",
    );
  });

  test("tiny_trtllm has no chat template: a 400 that says so", async () => {
    await assert.rejects(
      client.chat.completions.create({ model: "tiny_trtllm", messages }),
      (e: unknown) => {
        assert.ok(e instanceof BadRequestError, String(e));
        assert.equal(e.status, 400);
        assert.equal(e.type, "invalid_request_error");
        assert.match(e.message, /chat template/);
        return true;
      },
    );
  });
});

describe("a custom mapping (word_stream)", () => {
  test("completions: the words gathered into one text; max_tokens as the model's max_words", async () => {
    const r = await client.completions.create({
      model: "word_stream",
      prompt: PROMPT,
      max_tokens: 2,
    });
    assert.equal(r.choices[0].text, " the quick");
    // The mapping reads no finish reason and no counts, but the model sent 2 responses with text,
    // at least one token each: max_tokens cut it.
    assert.equal(r.choices[0].finish_reason, "length");
    assert.equal(r.usage, undefined);
    const all = await client.completions.create({ model: "word_stream", prompt: "one two" });
    assert.equal(all.choices[0].text, " one two");
    assert.equal(all.choices[0].finish_reason, "stop");
  });

  test("streaming, and stop strings cut by the front end (the mapping has no stop)", async () => {
    const stream = await client.completions.create({
      model: "word_stream",
      prompt: PROMPT,
      stop: ["over"],
      stream: true,
    });
    const all = await chunks(stream);
    const choices = all.flatMap((c) => c.choices);
    // The text ends right before the stop string: the space before "over" stays.
    assert.equal(choices.map((c) => c.text).join(""), " the quick brown fox jumps ");
    assert.equal(choices.at(-1)!.finish_reason, "stop");
    await settled();
  });

  test("chat through the template the mapping declares", async () => {
    const r = await client.chat.completions.create({
      model: "word_stream",
      messages: [{ role: "user", content: "hi you" }],
    });
    assert.equal(r.choices[0].message.content, " user: hi you");
  });

  test("response_format travels as the request parameter the mapping names", async () => {
    const format = { type: "json_object" as const };
    const r = await client.chat.completions.create({
      model: "word_stream",
      messages: [{ role: "user", content: "hi" }],
      response_format: format,
    });
    // word_stream answers a response_format with its text as the first response.
    assert.deepEqual(JSON.parse(r.choices[0].message.content!.trim()), format);
  });
});

describe("embeddings", () => {
  const inputs = ["hello", "héllo wörld", "", "the quick brown fox"];

  test("float: each vector computed from the text's bytes, in order", async () => {
    const r = await client.embeddings.create({
      model: "tiny_embed",
      input: inputs,
      encoding_format: "float",
    });
    assert.equal(r.object, "list");
    assert.equal(r.model, "tiny_embed");
    assert.deepEqual(r.data.map((d) => d.index), [0, 1, 2, 3]);
    for (const [i, d] of r.data.entries()) {
      assert.equal(d.object, "embedding");
      assert.deepEqual(d.embedding, embedding(inputs[i]), inputs[i]);
    }
    // NUM_TOKENS: the word counts, 1 + 2 + 0 + 4.
    assert.deepEqual(r.usage, { prompt_tokens: 7, total_tokens: 7 });
  });

  test("base64: the float32 bytes, little-endian", async () => {
    const r = await client.embeddings.create({
      model: "tiny_embed",
      input: inputs,
      encoding_format: "base64",
    });
    for (const [i, d] of r.data.entries()) {
      assert.equal(d.embedding as unknown as string, base64Of(embedding(inputs[i])));
    }
  });

  test("the client's default (base64 on the wire, decoded by the client) and one string", async () => {
    const r = await client.embeddings.create({ model: "tiny_embed", input: "hello" });
    assert.equal(r.data.length, 1);
    assert.deepEqual(r.data[0].embedding, embedding("hello"));
    assert.deepEqual(r.usage, { prompt_tokens: 1, total_tokens: 1 });
  });
});

describe("errors are the client's APIError subclasses", () => {
  /** Asserts that `call` fails with `kind`, and the status, type and param given. */
  async function fails(
    call: Promise<unknown>,
    kind: typeof BadRequestError | typeof NotFoundError,
    expected: { status: number; type: string; param: string | null; message: RegExp },
  ): Promise<void> {
    await assert.rejects(call, (e: unknown) => {
      assert.ok(e instanceof kind, `${(e as Error)?.constructor?.name}: ${e}`);
      assert.ok(e instanceof APIError);
      assert.equal(e.status, expected.status);
      assert.equal(e.type, expected.type);
      assert.equal(e.param, expected.param);
      assert.match(e.message, expected.message);
      return true;
    });
  }

  test("an unknown model: 404", async () => {
    await fails(
      client.chat.completions.create({
        model: "no_such_model",
        messages: [{ role: "user", content: "x" }],
      }),
      NotFoundError,
      { status: 404, type: "invalid_request_error", param: "model", message: /no_such_model/ },
    );
  });

  test("a model of the other kind: 400 naming the route to use", async () => {
    await fails(
      client.embeddings.create({ model: "tiny_llm", input: "x", encoding_format: "float" }),
      BadRequestError,
      { status: 400, type: "invalid_request_error", param: "model", message: /completions/ },
    );
    await fails(
      client.completions.create({ model: "tiny_embed", prompt: "x" }),
      BadRequestError,
      { status: 400, type: "invalid_request_error", param: "model", message: /embeddings/ },
    );
  });

  test("a negative max_tokens, a huge n, a wrong type: 400 naming the field", async () => {
    await fails(
      client.completions.create({ model: "tiny_llm", prompt: "x", max_tokens: -1 }),
      BadRequestError,
      { status: 400, type: "invalid_request_error", param: "max_tokens", message: /max_tokens/ },
    );
    await fails(
      client.completions.create({ model: "tiny_llm", prompt: "x", n: 1_000_000 }),
      BadRequestError,
      { status: 400, type: "invalid_request_error", param: "n", message: /n/ },
    );
    await fails(
      client.chat.completions.create({
        model: "tiny_llm",
        messages: [{ role: "user", content: "x" }],
        temperature: "hot" as unknown as number,
      }),
      BadRequestError,
      { status: 400, type: "invalid_request_error", param: "temperature", message: /temperature/ },
    );
  });

  test("response_format and tools where the mapping does not declare them: 400", async () => {
    await fails(
      client.chat.completions.create({
        model: "tiny_llm",
        messages: [{ role: "user", content: "x" }],
        response_format: { type: "json_object" },
      }),
      BadRequestError,
      {
        status: 400,
        type: "invalid_request_error",
        param: "response_format",
        message: /response_format/,
      },
    );
    await fails(
      client.chat.completions.create({
        model: "tiny_llm",
        messages: [{ role: "user", content: "x" }],
        tools: [{ type: "function", function: { name: "f", parameters: {} } }],
      }),
      BadRequestError,
      { status: 400, type: "invalid_request_error", param: "tools", message: /tools/ },
    );
    await settled();
  });
});

describe("an error after the stream started", () => {
  test("closing the service mid-stream: the client throws an APIError with its message", async () => {
    // A service of its own, closed while a 4 s stream (40 words, 100 ms apart) is being read.
    const closing = await serveOpenAI(server, {
      port: 0,
      models: { word_stream: MODELS.word_stream },
    });
    const own = new OpenAI({ baseURL: `${closing.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    const stream = await own.completions.create(
      { model: "word_stream", prompt: long, max_tokens: 40, stream: true, delay_ms: 100 } as
        & OpenAI.CompletionCreateParamsStreaming
        & { delay_ms: number },
    );
    const seen: string[] = [];
    let closed: Promise<void> | undefined;
    await assert.rejects(
      (async () => {
        for await (const c of stream) {
          seen.push(...c.choices.map((ch) => ch.text));
          closed ??= closing.close({ timeoutMs: 50 });
        }
      })(),
      (e: unknown) => {
        // The error event (OpenAI's shape) comes on a 200 stream: no status of its own.
        assert.ok(e instanceof APIError, String(e));
        assert.equal(e.status, undefined);
        assert.equal(e.type, "server_error");
        assert.match(e.message, /closing/);
        return true;
      },
    );
    assert.deepEqual(seen, [" w0"]);
    await closed;
    await settled();
  });
});

describe("aborting a stream cancels its request in Triton", () => {
  // 40 words, 100 ms apart: 4 s unless cancelled; cancelled, the model stops before its next word.
  const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");

  /** Waits until Triton has nothing in flight; returns how long that took (ms). */
  async function untilIdle(timeoutMs = 10_000): Promise<number> {
    const t0 = performance.now();
    while (inflight(server) > 0 || service.active > 0) {
      if (performance.now() - t0 > timeoutMs) {
        throw new Error(`${inflight(server)} requests still in flight`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - t0;
  }

  test("AbortController: the request ends, the model stops early, nothing is left", async () => {
    const controller = new AbortController();
    const t0 = performance.now();
    const stream = await client.completions.create(
      { model: "word_stream", prompt: long, max_tokens: 40, stream: true, delay_ms: 100 } as
        & OpenAI.CompletionCreateParamsStreaming
        & { delay_ms: number },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    // The client ends the loop quietly once the signal it was given aborts.
    for await (const c of stream) {
      seen.push(...c.choices.map((ch) => ch.text));
      if (seen.length === 2) {
        assert.equal(inflight(server), 1, "the request runs in Triton");
        controller.abort();
      }
    }
    assert.deepEqual(seen, [" w0", " w1"]);
    const wait = await untilIdle();
    const total = performance.now() - t0;
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    assert.ok(total < 2500, `the stream of 4 s ended after ${total.toFixed(0)} ms`);
    await settled();
  });

  test("stream.controller.abort() on a chat stream of tiny_llm", async () => {
    const t0 = performance.now();
    const stream = await client.chat.completions.create(
      {
        model: "tiny_llm",
        messages: [{ role: "user", content: long }],
        max_tokens: 40,
        stream: true,
        delay_ms: 100,
      } as OpenAI.ChatCompletionCreateParamsStreaming & { delay_ms: number },
    );
    const seen: string[] = [];
    for await (const c of stream) {
      const piece = c.choices[0]?.delta.content;
      if (piece) seen.push(piece);
      if (seen.length === 2) {
        assert.equal(inflight(server), 1, "the request runs in Triton");
        stream.controller.abort();
      }
    }
    // The client ends the loop quietly when its own controller aborted the stream.
    assert.deepEqual(seen, [" <|user|>", " w0"]);
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    assert.ok(performance.now() - t0 < 2500);
    await settled();
  });

  test("aborting before the first chunk: create() rejects with APIUserAbortError", async () => {
    // The first word comes after 300 ms; the client gives up at 50 ms, while the service still
    // waits for it (the stream's status is sent with the first chunk).
    const controller = new AbortController();
    const pending = client.completions.create(
      { model: "word_stream", prompt: long, stream: true, delay_ms: 300 } as
        & OpenAI.CompletionCreateParamsStreaming
        & { delay_ms: number },
      { signal: controller.signal },
    );
    for (let i = 0; i < 500 && inflight(server) === 0; i++) {
      await new Promise((r) => setTimeout(r, 2));
    }
    assert.equal(inflight(server), 1, "the request runs in Triton");
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof APIUserAbortError);
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    await settled();
  });

  test("breaking out of the loop", async () => {
    const stream = await client.completions.create(
      { model: "tiny_llm", prompt: long, max_tokens: 40, stream: true, delay_ms: 100 } as
        & OpenAI.CompletionCreateParamsStreaming
        & { delay_ms: number },
    );
    let n = 0;
    for await (const c of stream) {
      if (c.choices[0]?.text) n++;
      if (n === 1) break;
    }
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    await settled();
  });
});
