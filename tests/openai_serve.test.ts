/**
 * `serveOpenAI()` over fetch: the model list, completions and chat completions (whole and
 * streamed as OpenAI's Server-Sent Events ending with `[DONE]`) through vLLM's convention
 * (tiny_llm), TensorRT-LLM's (tiny_trtllm) and a custom mapping (word_stream), embeddings
 * (tiny_embed), `n`, `stop` (by the model, or cut by the front end), `usage` where the model
 * or its tokenizer (tiny_trtllm's tokenizer.json: one token per word, a BOS token before a
 * completion's prompt) counts, and what is reported where nothing counts (word_stream),
 * counts and absent where it does not, `finish_reason`, and the errors in OpenAI's shape.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { test } from "./support/test.ts";
import { openaiHandler } from "../openai.ts";
import {
  assertOpenAIError,
  embedVector,
  type Obj,
  openaiEvents,
  type OpenAIServing,
  openaiSettled,
  post,
  startOpenAI,
  stopOpenAI,
  streamedTexts,
} from "./support/openai.ts";
import { checkedHandler } from "./support/openai_bodies.ts";

let s: OpenAIServing;
before(async () => {
  s = await startOpenAI();
});
after(async () => {
  await stopOpenAI(s);
});

const completions = (body: Obj) => post(`${s.url}/v1/completions`, body);
const chat = (body: Obj) => post(`${s.url}/v1/chat/completions`, body);

/** A successful JSON answer. */
async function ok(response: Response): Promise<Obj> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get("content-type"), "application/json");
  return JSON.parse(text);
}

/** A successful event stream, read whole. */
async function streamed(response: Response): Promise<{ events: Obj[]; done: boolean }> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  return openaiEvents(text);
}

/** The chat prompt tiny_llm's template renders for one user message, word by word echoed. */
const HELLO = " <|user|> Hello there <|end|> <|assistant|>";

describe("the model list", () => {
  test("GET /v1/models lists the served models; /v1/models/{id} one of them", async () => {
    const list = await ok(await fetch(`${s.url}/v1/models`));
    assert.equal(list.object, "list");
    const data = list.data as Obj[];
    assert.deepEqual(data.map((m) => m.id), ["tiny_llm", "tiny_trtllm", "words", "embed"]);
    for (const m of data) {
      assert.equal(m.object, "model");
      assert.equal(m.owned_by, "Triton Inference Server");
      assert.ok(
        Number.isInteger(m.created) && Math.abs((m.created as number) - Date.now() / 1000) < 600,
      );
    }
    assert.deepEqual(await ok(await fetch(`${s.url}/v1/models/words`)), data[2]);
    const missing = await assertOpenAIError(await fetch(`${s.url}/v1/models/nope`), 404, "model");
    assert.equal(missing.code, "model_not_found");
  });
});

describe("completions, vLLM's convention (tiny_llm)", () => {
  test("the text, finish_reason stop and the model's usage", async () => {
    const body = await ok(await completions({ model: "tiny_llm", prompt: "a b c d" }));
    assert.equal(body.object, "text_completion");
    assert.match(body.id as string, /^cmpl-/);
    assert.equal(body.model, "tiny_llm");
    assert.deepEqual(body.choices, [
      { index: 0, text: " a b c d", logprobs: null, finish_reason: "stop" },
    ]);
    assert.deepEqual(body.usage, { prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 });
  });

  test("max_tokens cuts it: finish_reason length", async () => {
    const body = await ok(
      await completions({ model: "tiny_llm", prompt: "a b c d", max_tokens: 2 }),
    );
    assert.deepEqual(body.choices, [
      { index: 0, text: " a b", logprobs: null, finish_reason: "length" },
    ]);
    assert.deepEqual(body.usage, { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  });

  test("stop goes to the model (sampling_parameters), which ends before the stop word", async () => {
    const body = await ok(
      await completions({ model: "tiny_llm", prompt: "a b c d", stop: ["x", "c"] }),
    );
    assert.deepEqual((body.choices as Obj[])[0], {
      index: 0,
      text: " a b",
      logprobs: null,
      finish_reason: "stop",
    });
  });

  test("echo starts the text with the prompt", async () => {
    const body = await ok(await completions({ model: "tiny_llm", prompt: "a b", echo: true }));
    assert.equal((body.choices as Obj[])[0].text, "a b a b");
  });

  test("n choices per prompt, several prompts: usage counts each prompt once", async () => {
    const body = await ok(
      await completions({ model: "tiny_llm", prompt: ["a b", "c"], n: 2, max_tokens: 5 }),
    );
    assert.deepEqual(
      (body.choices as Obj[]).map((c) => [c.index, c.text, c.finish_reason]),
      [[0, " a b", "stop"], [1, " a b", "stop"], [2, " c", "stop"], [3, " c", "stop"]],
    );
    assert.deepEqual(body.usage, { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 });
  });

  test("an empty prompt generates nothing", async () => {
    const body = await ok(await completions({ model: "tiny_llm", prompt: "" }));
    assert.deepEqual((body.choices as Obj[])[0], {
      index: 0,
      text: "",
      logprobs: null,
      finish_reason: "stop",
    });
  });

  test("streamed: a chunk per word, the finish chunk, [DONE]", async () => {
    const { events, done } = await streamed(
      await completions({ model: "tiny_llm", prompt: "a b c", stream: true }),
    );
    assert.ok(done);
    const ids = new Set(events.map((e) => e.id));
    assert.equal(ids.size, 1);
    for (const e of events) {
      assert.equal(e.object, "text_completion");
      assert.equal(e.model, "tiny_llm");
      assert.ok(!("usage" in e), "no usage field unless asked for");
    }
    assert.deepEqual(
      events.map((e) => (e.choices as Obj[])[0]),
      [
        { index: 0, text: " a", logprobs: null, finish_reason: null },
        { index: 0, text: " b", logprobs: null, finish_reason: null },
        { index: 0, text: " c", logprobs: null, finish_reason: null },
        { index: 0, text: "", logprobs: null, finish_reason: "stop" },
      ],
    );
  });

  test("streamed with include_usage: usage null on each chunk, then the usage chunk", async () => {
    const { events, done } = await streamed(
      await completions({
        model: "tiny_llm",
        prompt: "a b c",
        max_tokens: 2,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    assert.ok(done);
    const last = events.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    for (const e of events.slice(0, -1)) assert.equal(e.usage, null);
    assert.equal(streamedTexts(events.slice(0, -1)).get(0), " a b");
    assert.equal((events.at(-2)!.choices as Obj[])[0].finish_reason, "length");
  });

  test("streamed n = 3: every choice's text, each ends once", async () => {
    const { events } = await streamed(
      await completions({ model: "tiny_llm", prompt: "x y", n: 3, stream: true }),
    );
    const texts = streamedTexts(events);
    assert.deepEqual([...texts.entries()].sort(), [[0, " x y"], [1, " x y"], [2, " x y"]]);
    const ends = events.flatMap((e) => e.choices as Obj[]).filter((c) => c.finish_reason !== null);
    assert.deepEqual(ends.map((c) => c.index).sort(), [0, 1, 2]);
  });
});

describe("chat completions", () => {
  test("the messages through the model's chat template (tokenizer_config.json)", async () => {
    const body = await ok(
      await chat({ model: "tiny_llm", messages: [{ role: "user", content: "Hello there" }] }),
    );
    assert.equal(body.object, "chat.completion");
    assert.match(body.id as string, /^chatcmpl-/);
    assert.deepEqual(body.choices, [{
      index: 0,
      message: { role: "assistant", content: HELLO, refusal: null },
      logprobs: null,
      finish_reason: "stop",
    }]);
    assert.deepEqual(body.usage, { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });
  });

  test("content parts, several messages, max_completion_tokens", async () => {
    const body = await ok(
      await chat({
        model: "tiny_llm",
        messages: [
          { role: "system", content: "Be brief" },
          { role: "user", content: [{ type: "text", text: "Hi" }, { type: "text", text: "you" }] },
        ],
        max_completion_tokens: 6,
        max_tokens: 100,
      }),
    );
    const choice = (body.choices as Obj[])[0];
    assert.deepEqual(choice.message, {
      role: "assistant",
      content: " <|system|> Be brief <|end|> <|user|> Hi",
      refusal: null,
    });
    assert.equal(choice.finish_reason, "length");
  });

  test("streamed: the role first, a chunk per word, the finish chunk, [DONE]", async () => {
    const { events, done } = await streamed(
      await chat({
        model: "tiny_llm",
        messages: [{ role: "user", content: "Hello there" }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    assert.ok(done);
    for (const e of events) assert.equal(e.object, "chat.completion.chunk");
    const choices = events.slice(0, -1).map((e) => (e.choices as Obj[])[0]);
    assert.deepEqual(choices[0], {
      index: 0,
      delta: { role: "assistant", content: "" },
      logprobs: null,
      finish_reason: null,
    });
    assert.deepEqual(
      choices.slice(1, -1).map((c) => (c.delta as Obj).content),
      HELLO.split(/(?= )/),
    );
    assert.deepEqual(choices.at(-1), {
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: "stop",
    });
    assert.deepEqual(events.at(-1)!.usage, {
      prompt_tokens: 5,
      completion_tokens: 5,
      total_tokens: 10,
    });
  });

  test("n = 2 streamed: each choice gets its role chunk", async () => {
    const { events } = await streamed(
      await chat({
        model: "tiny_llm",
        messages: [{ role: "user", content: "a" }],
        n: 2,
        stream: true,
      }),
    );
    const roles = events.flatMap((e) => e.choices as Obj[]).filter((c) => (c.delta as Obj).role);
    assert.deepEqual(roles.map((c) => c.index).sort(), [0, 1]);
    const texts = streamedTexts(events);
    assert.equal(texts.get(0), " <|user|> a <|end|> <|assistant|>");
    assert.equal(texts.get(1), texts.get(0));
  });

  test("a model without a chat template: 400 naming the model", async () => {
    const error = await assertOpenAIError(
      await chat({ model: "tiny_trtllm", messages: [{ role: "user", content: "a" }] }),
      400,
      "model",
    );
    assert.match(error.message as string, /tiny_trtllm.*no chat template/);
  });

  test("tools and a non-text response_format need the mapping: 400 otherwise", async () => {
    const tools = [{ type: "function", function: { name: "f", parameters: {} } }];
    await assertOpenAIError(
      await chat({ model: "tiny_llm", messages: [{ role: "user", content: "a" }], tools }),
      400,
      "tools",
    );
    await assertOpenAIError(
      await chat({
        model: "tiny_llm",
        messages: [{ role: "user", content: "a" }],
        response_format: { type: "json_object" },
      }),
      400,
      "response_format",
    );
    // {"type": "text"} asks for nothing.
    await ok(
      await chat({
        model: "tiny_llm",
        messages: [{ role: "user", content: "a" }],
        response_format: { type: "text" },
      }),
    );
    // The same rule on /v1/completions: not passed on silently.
    const refused = await assertOpenAIError(
      await completions({
        model: "tiny_llm",
        prompt: "a",
        response_format: { type: "json_object" },
      }),
      400,
      "response_format",
    );
    assert.equal(refused.code, "unsupported_parameter");
    await assertOpenAIError(
      await completions({ model: "tiny_llm", prompt: "a", tools }),
      400,
      "tools",
    );
  });

  test("a body that is no JSON object, or an empty prompt list: 400 without a Triton code", async () => {
    const bad = await assertOpenAIError(
      await fetch(`${s.url}/v1/completions`, { method: "POST", body: "{bad json" }),
      400,
      null,
    );
    assert.equal(bad.code, null);
    assert.match(bad.message as string, /failed to parse the request JSON/);
    const array = await assertOpenAIError(
      await fetch(`${s.url}/v1/completions`, { method: "POST", body: "[]" }),
      400,
      null,
    );
    assert.equal(array.code, null);
    const empty = await assertOpenAIError(
      await completions({ model: "tiny_llm", prompt: [] }),
      400,
      "prompt",
    );
    assert.match(empty.message as string, /not an empty array$/);
  });
});

describe("TensorRT-LLM's convention (tiny_trtllm)", () => {
  test("max_tokens, stop_words and the text; usage counted by the model's tokenizer", async () => {
    const body = await ok(await completions({ model: "tiny_trtllm", prompt: "a b c d e" }));
    assert.deepEqual(body.choices, [
      { index: 0, text: " a b c d e", logprobs: null, finish_reason: "stop" },
    ]);
    // 5 words and the BOS token; 5 words generated.
    assert.deepEqual(body.usage, { prompt_tokens: 6, completion_tokens: 5, total_tokens: 11 });
    const cut = await ok(
      await completions({
        model: "tiny_trtllm",
        prompt: "a b c d e",
        max_tokens: 3,
        temperature: 0.5,
        top_p: 0.9,
        seed: 7,
      }),
    );
    assert.equal((cut.choices as Obj[])[0].text, " a b c");
    assert.equal((cut.choices as Obj[])[0].finish_reason, "length");
    assert.deepEqual(cut.usage, { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 });
    const stopped = await ok(
      await completions({ model: "tiny_trtllm", prompt: "a b c d e", stop: "d" }),
    );
    assert.equal((stopped.choices as Obj[])[0].text, " a b c");
    assert.equal((stopped.choices as Obj[])[0].finish_reason, "stop");
  });

  test("without max_tokens the model gets OpenAI's 16, and reaching it reads length", async () => {
    const prompt = Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ");
    const body = await ok(await completions({ model: "tiny_trtllm", prompt }));
    const choice = (body.choices as Obj[])[0];
    assert.equal((choice.text as string).split(" ").length - 1, 16);
    assert.equal(choice.finish_reason, "length");
    assert.deepEqual(body.usage, { prompt_tokens: 21, completion_tokens: 16, total_tokens: 37 });
  });

  test("chat: the rendered prompt counted without the tokenizer's BOS", async () => {
    // tiny_trtllm has no chat template of its own: the same model served with one.
    const handler = checkedHandler(
      openaiHandler(s.server, {
        models: {
          t: {
            model: "tiny_trtllm",
            mapping: "trtllm",
            chatTemplate: "{% for m in messages %}{{ m.content }} {% endfor %}",
          },
        },
      }),
      s.bodies,
    );
    const response = await handler(
      new Request("http://x/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ model: "t", messages: [{ role: "user", content: "unlike x y" }] }),
      }),
    );
    const body = await ok(response);
    assert.equal(((body.choices as Obj[])[0].message as Obj).content, " unlike x y");
    // "unlike" is two tokens of this tokenizer (un, ##like): 4 tokens each way, no BOS.
    assert.deepEqual(body.usage, { prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 });
  });

  test("streamed with include_usage: the usage chunk its tokenizer counts", async () => {
    const { events, done } = await streamed(
      await completions({
        model: "tiny_trtllm",
        prompt: "a b",
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    assert.ok(done);
    assert.equal(streamedTexts(events).get(0), " a b");
    for (const e of events.slice(0, -1)) assert.equal(e.usage, null);
    assert.equal((events.at(-2)!.choices as Obj[])[0].finish_reason, "stop");
    assert.deepEqual(events.at(-1)!.choices, []);
    assert.deepEqual(events.at(-1)!.usage, {
      prompt_tokens: 3,
      completion_tokens: 2,
      total_tokens: 5,
    });
  });

  test("a seed out of the model's UINT64 range: 400 naming seed", async () => {
    await assertOpenAIError(
      await completions({ model: "tiny_trtllm", prompt: "a", seed: -1 }),
      400,
      "seed",
    );
  });
});

describe("a custom mapping (word_stream)", () => {
  test("a streaming-only model answers a call without stream as one text", async () => {
    const body = await ok(await completions({ model: "words", prompt: "one two three" }));
    assert.deepEqual(body.choices, [
      { index: 0, text: " one two three", logprobs: null, finish_reason: "stop" },
    ]);
    assert.ok(!("usage" in body), "nothing counts: usage is left out, not invented");
    const cut = await ok(
      await completions({ model: "words", prompt: "one two three", max_tokens: 1 }),
    );
    assert.equal((cut.choices as Obj[])[0].text, " one");
    // No counts, no finish reason: the response that carried text was at least one token.
    assert.equal((cut.choices as Obj[])[0].finish_reason, "length");
  });

  test("streamed with include_usage where nothing counts: the usage chunk reads zeros", async () => {
    const { events, done } = await streamed(
      await completions({
        model: "words",
        prompt: "one two",
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    assert.ok(done);
    assert.equal(streamedTexts(events).get(0), " one two");
    for (const e of events.slice(0, -1)) assert.equal(e.usage, null);
    assert.deepEqual(events.at(-1)!.choices, []);
    assert.deepEqual(events.at(-1)!.usage, {
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
    });
  });

  test("stop strings the mapping does not carry are cut by the front end", async () => {
    const body = await ok(
      await completions({ model: "words", prompt: "one two stop three four", stop: ["stop"] }),
    );
    assert.deepEqual((body.choices as Obj[])[0], {
      index: 0,
      text: " one two ",
      logprobs: null,
      finish_reason: "stop",
    });
    // A stop string spanning two responses, streamed: the text before it, nothing after.
    const { events, done } = await streamed(
      await completions({ model: "words", prompt: "ab cd ef gh", stop: "d e", stream: true }),
    );
    assert.ok(done);
    assert.equal(streamedTexts(events).get(0), " ab c");
    assert.equal((events.at(-1)!.choices as Obj[])[0].finish_reason, "stop");
    await openaiSettled(s);
  });

  test("response_format and tools go where the mapping names them, or are refused", async () => {
    // A chat template of its own for word_stream, and tools carried as a request parameter.
    const handler = openaiHandler(s.server, {
      models: {
        words: {
          model: "word_stream",
          chatTemplate: "{% for m in messages %}{{ m.content }} {% endfor %}",
          mapping: {
            prompt: "PROMPT",
            text: "WORD",
            parameters: {
              response_format: { parameter: "response_format" },
              tools: { parameter: "tools_json" },
            },
          },
        },
      },
    });
    const call = async (body: Obj) =>
      await handler(
        new Request("http://localhost/v1/chat/completions", {
          method: "POST",
          body: JSON.stringify({
            model: "words",
            messages: [{ role: "user", content: "hi" }],
            ...body,
          }),
        }),
      );
    const format = { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } };
    const body = await ok(await call({ response_format: format }));
    // word_stream answers with the response_format parameter's text itself.
    assert.deepEqual(
      JSON.parse(((body.choices as Obj[])[0].message as Obj).content as string),
      format,
    );
    const tools = [{ type: "function", function: { name: "f" } }];
    assert.equal(((await ok(await call({ tools }))).choices as Obj[])[0].finish_reason, "stop");
    await assertOpenAIError(await call({ tool_choice: "required", tools }), 400, "tool_choice");
    await assertOpenAIError(
      await call({ response_format: { type: "xml" } }),
      400,
      "response_format.type",
    );
  });

  test("fields of the caller's own go as request parameters (delay_ms)", async () => {
    const t0 = performance.now();
    const body = await ok(
      await completions({ model: "words", prompt: "a b c", delay_ms: 60 }),
    );
    assert.equal((body.choices as Obj[])[0].text, " a b c");
    assert.ok(performance.now() - t0 >= 150, "the model slept before each word");
    await assertOpenAIError(
      await completions({ model: "words", prompt: "a", delay_ms: { x: 1 } }),
      400,
      "delay_ms",
    );
  });
});

describe("embeddings (tiny_embed)", () => {
  test("usage without a count output: the tokenizer's count, else 0", async () => {
    const handler = checkedHandler(
      openaiHandler(s.server, {
        models: {
          plain: { model: "tiny_embed", embedding: { input: "TEXT", output: "EMBEDDING" } },
          counted: {
            model: "tiny_embed",
            embedding: { input: "TEXT", output: "EMBEDDING" },
            tokenizer: "tests/models/tiny_trtllm",
          },
        },
      }),
      s.bodies,
    );
    const embed = async (model: string, input: string | string[]) =>
      await ok(
        await handler(
          new Request("http://x/v1/embeddings", {
            method: "POST",
            body: JSON.stringify({ model, input }),
          }),
        ),
      );
    const plain = await embed("plain", "hello world");
    assert.deepEqual((plain.data as Obj[])[0].embedding, embedVector("hello world"));
    // OpenAI's API requires usage; nothing counts, so it reads 0.
    assert.deepEqual(plain.usage, { prompt_tokens: 0, total_tokens: 0 });
    // Each input with its BOS token: 3 + 2 ("unlike" is un, ##like) + 1.
    const counted = await embed("counted", ["hello world", "unlike", ""]);
    assert.deepEqual(counted.usage, { prompt_tokens: 7, total_tokens: 7 });
  });

  test("one vector per input, in order, and the model's token counts", async () => {
    const inputs = ["hello", "héllo wörld", ""];
    const body = await ok(await post(`${s.url}/v1/embeddings`, { model: "embed", input: inputs }));
    assert.equal(body.object, "list");
    assert.equal(body.model, "embed");
    assert.deepEqual(
      body.data,
      inputs.map((text, index) => ({ object: "embedding", index, embedding: embedVector(text) })),
    );
    assert.deepEqual(body.usage, { prompt_tokens: 3, total_tokens: 3 });
  });

  test("base64: the float32 bytes, little-endian", async () => {
    const body = await ok(
      await post(`${s.url}/v1/embeddings`, {
        model: "embed",
        input: "abc",
        encoding_format: "base64",
        dimensions: 8,
      }),
    );
    const b64 = ((body.data as Obj[])[0].embedding) as string;
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    assert.deepEqual(Array.from(new Float32Array(bytes.buffer)), embedVector("abc"));
  });

  test("dimensions other than the model's, token ids, a generation model: 400", async () => {
    await assertOpenAIError(
      await post(`${s.url}/v1/embeddings`, { model: "embed", input: "a", dimensions: 4 }),
      400,
      "dimensions",
    );
    await assertOpenAIError(
      await post(`${s.url}/v1/embeddings`, { model: "embed", input: [1, 2, 3] }),
      400,
      "input",
    );
    await assertOpenAIError(
      await post(`${s.url}/v1/embeddings`, { model: "tiny_llm", input: "a" }),
      400,
      "model",
    );
    await assertOpenAIError(await completions({ model: "embed", prompt: "a" }), 400, "model");
  });
});

describe("errors in OpenAI's shape", () => {
  test("bad bodies: 400 naming the field", async () => {
    const cases: [Obj | string, string | null][] = [
      ["{not json", null],
      ["[1, 2]", null],
      [{ prompt: "a" }, "model"],
      [{ model: 3, prompt: "a" }, "model"],
      [{ model: "tiny_llm" }, "prompt"],
      [{ model: "tiny_llm", prompt: "a", max_tokens: -1 }, "max_tokens"],
      [{ model: "tiny_llm", prompt: "a", max_tokens: 1.5 }, "max_tokens"],
      [{ model: "tiny_llm", prompt: "a", n: 0 }, "n"],
      [{ model: "tiny_llm", prompt: "a", n: 1e9 }, "n"],
      [{ model: "tiny_llm", prompt: "a", temperature: "hot" }, "temperature"],
      [{ model: "tiny_llm", prompt: "a", top_p: 2 }, "top_p"],
      [{ model: "tiny_llm", prompt: "a", stop: [1] }, "stop"],
      [{ model: "tiny_llm", prompt: "a", stream: "yes" }, "stream"],
      [
        { model: "tiny_llm", prompt: "a", stream_options: { include_usage: true } },
        "stream_options",
      ],
      [{ model: "tiny_llm", prompt: [1, 2, 3] }, "prompt"],
      [{ model: "tiny_llm", prompt: "a", logprobs: 2 }, "logprobs"],
      [{ model: "tiny_llm", prompt: "a", best_of: 3 }, "best_of"],
    ];
    for (const [body, param] of cases) {
      await assertOpenAIError(await completions(body as Obj), 400, param);
    }
    const chatCases: [Obj, string][] = [
      [{ model: "tiny_llm" }, "messages"],
      [{ model: "tiny_llm", messages: [] }, "messages"],
      [{ model: "tiny_llm", messages: [{ role: "king", content: "a" }] }, "messages[0].role"],
      [{ model: "tiny_llm", messages: [{ role: "user" }] }, "messages[0].content"],
      [
        {
          model: "tiny_llm",
          messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }],
        },
        "messages[0].content[0]",
      ],
    ];
    for (const [body, param] of chatCases) await assertOpenAIError(await chat(body), 400, param);
  });

  test("an unknown model: 404 model_not_found", async () => {
    const error = await assertOpenAIError(
      await completions({ model: "gpt-9", prompt: "a" }),
      404,
      "model",
    );
    assert.equal(error.code, "model_not_found");
  });

  test("an unknown route: 404; another method: 405", async () => {
    await assertOpenAIError(await fetch(`${s.url}/v1/nothing`), 404);
    await assertOpenAIError(await fetch(`${s.url}/v1/completions`), 405);
    await assertOpenAIError(await fetch(`${s.url}/v1/models`, { method: "POST" }), 405);
  });

  test("health and metrics", async () => {
    for (const path of ["/health/ready", "/v2/health/ready", "/v2/health/live"]) {
      const r = await fetch(`${s.url}${path}`);
      assert.equal(r.status, 200, path);
      await r.body?.cancel();
    }
    const metrics = await fetch(`${s.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get("content-type") ?? "", /^text\/plain/);
    await metrics.text();
  });

  test("nothing is left in flight", async () => {
    await openaiSettled(s);
  });
});
