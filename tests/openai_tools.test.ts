/**
 * Tool calls through `serveOpenAI()`, driven by OpenAI's own client (the `openai` npm package):
 * the test model `tool_llm` (tests/models/tool_llm; it says the conversation's last message
 * again, in pieces of 4 bytes) served with each `toolCallParser`, so that a user message written
 * as a tool call comes back as one. Non-streaming `message.tool_calls` and streamed
 * `delta.tool_calls`, the text around calls, `finish_reason: "tool_calls"`, `tool_choice` (none,
 * auto, required, a named function) and `parallel_tool_calls`, `tools` reaching the chat template
 * of a mapping that has no tools input, assistant tool calls and tool results rendered through the
 * template, and the client's own agent loop (`chat.completions.runTools`, streaming and not)
 * calling a function and answering with its result.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import OpenAI, { BadRequestError } from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { type OpenAIModel, type OpenAIService, serveOpenAI } from "../openai.ts";
import { idle, liveCounter, startServer } from "./support/env.ts";

const TOOL_LLM = { model: "tool_llm", mapping: { prompt: "PROMPT", text: "TEXT" } } as const;

/** tool_llm under four names: each parser, none, and a template that writes the tools' names. */
const MODELS: Record<string, OpenAIModel> = {
  hermes: { ...TOOL_LLM, toolCallParser: "hermes" },
  llama: { ...TOOL_LLM, toolCallParser: "llama3_json" },
  plain: TOOL_LLM,
  tool_names: {
    ...TOOL_LLM,
    toolCallParser: "hermes",
    chatTemplate: "{% for t in tools %}{{ t.function.name }} {% endfor %}<|end|>",
  },
};

let server: Server;
let service: OpenAIService;
let client: OpenAI;
before(async () => {
  server = await startServer({ modelControlMode: "explicit", startupModels: ["tool_llm"] });
  service = await serveOpenAI(server, { port: 0, models: MODELS });
  client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
after(async () => {
  await service?.close();
  await server?.stop();
});

/** Waits until nothing is in flight; on the fake core, no live request or response either. */
async function settled(timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((service.active > 0 || server.inflight > 0) && Date.now() < deadline) {
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

const TOOLS: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "The weather in a city",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
  {
    type: "function",
    function: { name: "get_time", parameters: { type: "object", properties: {} } },
  },
];

const WEATHER_ARGS = '{"city": "Paris", "unit": "°C", "n": 12345678901234567890}';
const HERMES =
  `Let me look that up.\n<tool_call>{"name": "get_weather", "arguments": ${WEATHER_ARGS}}` +
  `</tool_call>\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\n`;
const LLAMA = `<|python_tag|>{"name": "get_weather", "parameters": ${WEATHER_ARGS}}; ` +
  `{"name": "get_time", "parameters": {}}`;
const CALL_ID = /^call_[0-9a-f]{24}$/;

const user = (content: string): ChatCompletionMessageParam[] => [{ role: "user", content }];

/** The chunks of a stream, read to its end. */
async function chunks<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

describe("non-streaming", () => {
  test("hermes: tool_calls with ids, the text before them as content", async () => {
    const r = await client.chat.completions.create({
      model: "hermes",
      messages: user(HERMES),
      tools: TOOLS,
    });
    const [choice] = r.choices;
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, "Let me look that up.\n");
    const calls = choice.message.tool_calls!;
    assert.equal(calls.length, 2);
    assert.deepEqual(
      calls.map((c) => c.type === "function" && [c.type, c.function.name, c.function.arguments]),
      [["function", "get_weather", WEATHER_ARGS], ["function", "get_time", "{}"]],
    );
    for (const c of calls) assert.match(c.id, CALL_ID);
    assert.notEqual(calls[0].id, calls[1].id);
    await settled();
  });

  test("llama3_json: the whole text a list of calls, content null", async () => {
    const r = await client.chat.completions.create({
      model: "llama",
      messages: user(LLAMA.replace("<|python_tag|>", "")),
      tools: TOOLS,
    });
    const { message, finish_reason } = r.choices[0];
    assert.equal(finish_reason, "tool_calls");
    assert.equal(message.content, null);
    assert.deepEqual(
      message.tool_calls!.map((c) =>
        c.type === "function" && [c.function.name, c.function.arguments]
      ),
      [["get_weather", WEATHER_ARGS], ["get_time", "{}"]],
    );
    // A text that is no call is text.
    const text = await client.chat.completions.create({
      model: "llama",
      messages: user("It is sunny."),
      tools: TOOLS,
    });
    assert.equal(text.choices[0].message.content, "It is sunny.");
    assert.equal(text.choices[0].message.tool_calls, undefined);
    assert.equal(text.choices[0].finish_reason, "stop");
    await settled();
  });

  test("tool_choice none, no tools, or no parser: the text as it is", async () => {
    for (
      const [model, extra] of [
        ["hermes", { tools: TOOLS, tool_choice: "none" as const }],
        ["hermes", {}],
        ["plain", { tools: TOOLS, tool_choice: "none" as const }],
      ] as const
    ) {
      const r = await client.chat.completions.create({ model, messages: user(HERMES), ...extra });
      assert.equal(r.choices[0].message.content, HERMES, model);
      assert.equal(r.choices[0].message.tool_calls, undefined);
      assert.equal(r.choices[0].finish_reason, "stop");
    }
    // Without a parser, tools the mapping does not carry (and a call asked for) are refused.
    await assert.rejects(
      client.chat.completions.create({ model: "plain", messages: user("x"), tools: TOOLS }),
      (e) => e instanceof BadRequestError && e.param === "tools",
    );
    await settled();
  });

  test("parallel_tool_calls false: the first call alone", async () => {
    const r = await client.chat.completions.create({
      model: "hermes",
      messages: user(HERMES),
      tools: TOOLS,
      parallel_tool_calls: false,
    });
    const calls = r.choices[0].message.tool_calls!;
    assert.deepEqual(calls.map((c) => c.type === "function" && c.function.name), ["get_weather"]);
    assert.equal(r.choices[0].finish_reason, "tool_calls");
    await settled();
  });

  test("tool_choice naming a function: its calls alone; required: as auto", async () => {
    const named = await client.chat.completions.create({
      model: "hermes",
      messages: user(HERMES),
      tools: TOOLS,
      tool_choice: { type: "function", function: { name: "get_time" } },
    });
    assert.deepEqual(
      named.choices[0].message.tool_calls!.map((c) => c.type === "function" && c.function.name),
      ["get_time"],
    );
    const required = await client.chat.completions.create({
      model: "hermes",
      messages: user("No call here."),
      tools: TOOLS,
      tool_choice: "required",
    });
    // The front end cannot make the model call: its text comes back.
    assert.equal(required.choices[0].message.content, "No call here.");
    assert.equal(required.choices[0].finish_reason, "stop");
    for (
      const [tool_choice, param] of [
        [{ type: "function", function: { name: "nope" } }, "tool_choice.function.name"],
        ["required", "tool_choice"],
      ] as const
    ) {
      await assert.rejects(
        client.chat.completions.create({
          model: "hermes",
          messages: user("x"),
          tool_choice,
          ...(param === "tool_choice" ? {} : { tools: TOOLS }),
        }),
        (e) => e instanceof BadRequestError && e.param === param,
      );
    }
    await settled();
  });

  test("tools reach the chat template of a mapping without a tools input", async () => {
    const r = await client.chat.completions.create({
      model: "tool_names",
      messages: user("x"),
      tools: TOOLS,
    });
    assert.equal(r.choices[0].message.content, "get_weather get_time ");
    await settled();
  });

  test("a conversation with the assistant's calls and the tools' results renders", async () => {
    // tool_llm says the last message again: here the tool's result, after the assistant's call
    // (rendered by its template as a <tool_call> with the arguments as an object).
    const messages: ChatCompletionMessageParam[] = [
      ...user(HERMES),
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_1",
          type: "function",
          function: { name: "get_weather", arguments: WEATHER_ARGS },
        }],
      },
      { role: "tool", tool_call_id: "call_1", content: "22 °C, sunny" },
    ];
    const r = await client.chat.completions.create({ model: "hermes", messages, tools: TOOLS });
    assert.equal(r.choices[0].message.content, "22 °C, sunny");
    assert.equal(r.choices[0].finish_reason, "stop");
    // The assistant's turn as the template wrote it: the model says it when it is last.
    const last = await client.chat.completions.create({
      model: "plain",
      messages: messages.slice(0, 2),
    });
    assert.equal(
      last.choices[0].message.content,
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "unit": "°C", ' +
        '"n": 12345678901234567000}}</tool_call>',
    );
    await settled();
  });
});

describe("streaming", () => {
  /** The deltas of a streamed chat call of `model`. */
  async function streamed(model: string, content: string, extra: object = {}) {
    const stream = await client.chat.completions.create({
      model,
      messages: user(content),
      tools: TOOLS,
      stream: true,
      ...extra,
    });
    return await chunks<ChatCompletionChunk>(stream);
  }

  test("hermes: text as it comes, each call one delta with id, name and arguments", async () => {
    const all = await streamed("hermes", HERMES);
    const deltas = all.map((c) => c.choices[0].delta);
    assert.equal(deltas[0].role, "assistant");
    const text = deltas.map((d) => d.content ?? "").join("");
    assert.equal(text, "Let me look that up.\n");
    // The text came in several pieces, before any call.
    assert.ok(deltas.filter((d) => d.content).length > 2);
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    assert.deepEqual(
      calls.map((c) => [c.index, c.type, c.function?.name, c.function?.arguments]),
      [[0, "function", "get_weather", WEATHER_ARGS], [1, "function", "get_time", "{}"]],
    );
    for (const c of calls) assert.match(c.id!, CALL_ID);
    const last = all.at(-1)!.choices[0];
    assert.equal(last.finish_reason, "tool_calls");
    await settled();
  });

  test("the client's stream helper gathers the same message as the plain answer", async () => {
    for (const [model, content] of [["hermes", HERMES], ["llama", LLAMA]]) {
      const runner = client.chat.completions.stream({
        model,
        messages: user(content),
        tools: TOOLS,
      });
      const done = await runner.finalChatCompletion();
      const plain = await client.chat.completions.create({
        model,
        messages: user(content),
        tools: TOOLS,
      });
      const strip = (m: typeof plain.choices[0]["message"]) => ({
        content: m.content || null,
        calls: m.tool_calls?.map((c) =>
          c.type === "function" && [c.function.name, c.function.arguments]
        ),
      });
      assert.deepEqual(strip(done.choices[0].message), strip(plain.choices[0].message), model);
      assert.equal(done.choices[0].finish_reason, "tool_calls");
    }
    await settled();
  });
});

describe("the option", () => {
  test("n choices each read their own calls, streamed by choice index", async () => {
    const stream = await client.chat.completions.create({
      model: "hermes",
      messages: user(HERMES),
      tools: TOOLS,
      n: 2,
      stream: true,
    });
    const calls = new Map<number, string[]>();
    const ends = new Map<number, string | null>();
    for await (const c of stream) {
      const [choice] = c.choices;
      for (const t of choice.delta.tool_calls ?? []) {
        calls.set(choice.index, [
          ...(calls.get(choice.index) ?? []),
          `${t.index}:${t.function?.name}`,
        ]);
      }
      if (choice.finish_reason) ends.set(choice.index, choice.finish_reason);
    }
    for (const i of [0, 1]) {
      assert.deepEqual(calls.get(i), ["0:get_weather", "1:get_time"]);
      assert.equal(ends.get(i), "tool_calls");
    }
    await settled();
  });

  test("toolCallParser must name a format; an embedding model takes none", async () => {
    await assert.rejects(
      serveOpenAI(server, {
        port: 0,
        models: { x: { ...TOOL_LLM, toolCallParser: "mistral" as "hermes" } },
      }),
      (e) =>
        e instanceof TritonError && e.code === "INVALID_ARG" &&
        /toolCallParser must be one of llama3_json, llama3, hermes, not "mistral"/.test(e.message),
    );
    await assert.rejects(
      serveOpenAI(server, {
        port: 0,
        models: {
          e: {
            model: "tool_llm",
            embedding: { input: "PROMPT", output: "TEXT" },
            toolCallParser: "hermes",
          } as unknown as OpenAIModel,
        },
      }),
      (e) => e instanceof TritonError && /embedding model takes no toolCallParser/.test(e.message),
    );
  });
});

describe("an agent's tool loop: the client's runTools", () => {
  for (const stream of [false, true]) {
    test(`calls the function and answers with its result${stream ? ", streaming" : ""}`, async () => {
      const seen: unknown[] = [];
      const body = {
        model: "hermes",
        messages: user(
          '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call>',
        ),
        tools: [{
          type: "function",
          function: {
            name: "get_weather",
            description: "The weather in a city",
            parameters: { type: "object", properties: { city: { type: "string" } } },
            parse: JSON.parse,
            function: (args: { city: string }) => {
              seen.push(args);
              return `18 °C and clear in ${args.city}`;
            },
          },
        }],
      } as const;
      // The streaming runner, or the one that makes plain calls.
      const runner = stream
        ? client.chat.completions.runTools({ ...body, stream: true })
        : client.chat.completions.runTools(body);
      assert.equal(await runner.finalContent(), "18 °C and clear in Zürich");
      assert.deepEqual(seen, [{ city: "Zürich" }]);
      // Two calls to the model: one that called the tool, one that answered.
      const completions = runner.allChatCompletions();
      assert.deepEqual(completions.map((c) => c.choices[0].finish_reason), ["tool_calls", "stop"]);
      await settled();
    });
  }
});
