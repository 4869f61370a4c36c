/**
 * Chat templates: `chat_template` of `tokenizer_config.json` beside the model (a string, or
 * Hugging Face's list of named templates), its special tokens (`bos_token` as a string or an
 * added-token object), the `chatTemplate` option over it, `tools` seen by the template, a template
 * that refuses the messages (400 with its message), and the errors at start. Over an identity
 * model of BYTES in a temporary repository, whose text is the rendered prompt itself.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { openaiHandler, type OpenAIModel } from "../openai.ts";
import { BodyChecks, checkedHandler } from "./support/openai_bodies.ts";
import { startServer } from "./support/env.ts";
import { type TempRepo, tempRepo } from "./support/temp_repo.ts";
import { assertOpenAIError, type Obj } from "./support/openai.ts";

/** An identity model of BYTES: its text is its prompt. */
const CONFIG = [
  'backend: "identity"',
  "max_batch_size: 0",
  'input [ { name: "INPUT0" data_type: TYPE_STRING dims: [ -1 ] } ]',
  'output [ { name: "OUTPUT0" data_type: TYPE_STRING dims: [ -1 ] } ]',
  "instance_group [ { count: 1 kind: KIND_CPU } ]",
  "",
].join("\n");

const MODELS: Record<string, unknown> = {
  plain: {
    chat_template:
      "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}" +
      "{% if add_generation_prompt %}[assistant]{% endif %}",
    bos_token: "<s>",
  },
  named: {
    chat_template: [
      { name: "tool_use", template: "tools: {{ tools | length }}" },
      {
        name: "default",
        template:
          "{{ bos_token }}{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}",
      },
    ],
    bos_token: { content: "<B>", lstrip: false },
    eos_token: "</E>",
  },
  strict: {
    chat_template:
      "{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('no system " +
      "messages, please') }}{% endif %}{{ m.content }}{% endfor %}",
  },
  tools: {
    chat_template:
      "{% if tools %}{% for t in tools %}{{ t.function.name }};{% endfor %}{% endif %}" +
      "{% for m in messages %}{{ m.role }}:{{ m.content }}{% if m.tool_call_id %}#{{ m.tool_call_id }}{% endif %} {% endfor %}",
  },
  none: { bos_token: "<s>" },
  broken: "{ this is not json",
};

let repo: TempRepo;
let server: Server;
before(async () => {
  repo = tempRepo();
  for (const [name, tokenizer] of Object.entries(MODELS)) {
    repo.add(name, {
      "config.pbtxt": CONFIG,
      "1/README.txt": "",
      "tokenizer_config.json": typeof tokenizer === "string"
        ? tokenizer
        : JSON.stringify(tokenizer),
    });
  }
  server = await startServer({
    modelRepository: repo.path,
    modelControlMode: "explicit",
    startupModels: Object.keys(MODELS),
  });
});
/** Every chat answer, checked against OpenAI's schemas. */
const bodies = new BodyChecks();
after(async () => {
  await server?.stop();
  repo?.remove();
  bodies.assertValid();
});

const identity = { prompt: "INPUT0", text: "OUTPUT0" };

/** The text a chat call to `name` (served by `model`) answers. */
async function chatText(model: OpenAIModel, body: Obj, name = "m"): Promise<Response> {
  const handler = checkedHandler(openaiHandler(server, { models: { [name]: model } }), bodies);
  return await handler(
    new Request("http://localhost/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: name, ...body }),
    }),
  );
}

async function content(response: Response): Promise<string> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).choices[0].message.content;
}

const hello = [{ role: "system", content: "Be brief" }, { role: "user", content: "Hi" }];

test("tokenizer_config.json beside the model: its template and bos_token", async () => {
  assert.equal(
    await content(await chatText({ model: "plain", mapping: identity }, { messages: hello })),
    "<s>[system] Be brief\n[user] Hi\n[assistant]",
  );
});

test("a list of named templates: the default one; special tokens as added-token objects", async () => {
  assert.equal(
    await content(await chatText({ model: "named", mapping: identity }, { messages: hello })),
    "<B>Be brief</E>Hi</E>",
  );
});

test("the chatTemplate option wins over the file", async () => {
  const model = { model: "plain", mapping: identity, chatTemplate: "{{ messages[-1].content }}!" };
  assert.equal(await content(await chatText(model, { messages: hello })), "Hi!");
});

test("the template sees the request's tools and each message's fields", async () => {
  const model = {
    model: "tools",
    mapping: { ...identity, parameters: { tools: { parameter: "tools" } } },
  };
  const tools = [
    { type: "function", function: { name: "weather", parameters: { type: "object" } } },
    { type: "function", function: { name: "time" } },
  ];
  const messages = [
    { role: "user", content: "rain?" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function" }] },
    { role: "tool", content: "yes", tool_call_id: "c1" },
  ];
  assert.equal(
    await content(await chatText(model, { messages, tools })),
    "weather;time;user:rain? assistant: tool:yes#c1 ",
  );
});

test("a template that refuses the messages: 400 with its message", async () => {
  const error = await assertOpenAIError(
    await chatText({ model: "strict", mapping: identity }, { messages: hello }),
    400,
    "messages",
  );
  assert.match(error.message as string, /no system messages, please/);
  assert.equal(
    await content(
      await chatText({ model: "strict", mapping: identity }, { messages: hello.slice(1) }),
    ),
    "Hi",
  );
});

test("no chat_template: chat is 400 naming the model, completions still work", async () => {
  const error = await assertOpenAIError(
    await chatText({ model: "none", mapping: identity }, { messages: hello }, "plain-model"),
    400,
    "model",
  );
  assert.match(error.message as string, /'plain-model' has no chat template/);
  const handler = openaiHandler(server, { models: { m: { model: "none", mapping: identity } } });
  const r = await handler(
    new Request("http://localhost/v1/completions", {
      method: "POST",
      body: JSON.stringify({ model: "m", prompt: "as is" }),
    }),
  );
  assert.equal((await r.json()).choices[0].text, "as is");
});

test("a tokenizer_config.json that is not JSON: INVALID_ARG at start, naming the file", () => {
  assert.throws(
    () => openaiHandler(server, { models: { m: { model: "broken", mapping: identity } } }),
    (e: unknown) =>
      e instanceof TritonError && e.code === "INVALID_ARG" &&
      /broken\/tokenizer_config\.json is not JSON/.test(e.message),
  );
});
