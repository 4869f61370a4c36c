/**
 * The OpenAI front end's mappings checked against the models' configurations when it starts:
 * every mismatch (an unknown tensor, a wrong data type, a tensor mapped twice, a required input
 * left unfilled, a malformed mapping) is an INVALID_ARG `TritonError` naming the model and the
 * tensor, thrown by `openaiHandler` and the rejection of `serveOpenAI`; without `models`, the
 * repository's ready models that follow vLLM's or TensorRT-LLM's convention are served.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { openaiHandler, type OpenAIModel, serveOpenAI } from "../openai.ts";
import { startServer } from "./support/env.ts";
import { TEST_MODEL_NAMES } from "./support/openai.ts";

let server: Server;
before(async () => {
  server = await startServer({
    modelControlMode: "explicit",
    startupModels: [...TEST_MODEL_NAMES, "identity_bytes", "add_sub"],
  });
});
after(async () => {
  await server?.stop();
});

/** Asserts that serving `model` as "m" throws INVALID_ARG matching each of `messages`. */
async function refused(model: OpenAIModel, ...messages: RegExp[]): Promise<void> {
  const check = (e: unknown) => {
    assert.ok(e instanceof TritonError, String(e));
    assert.equal(e.code, "INVALID_ARG", e.message);
    for (const m of messages) assert.match(e.message, m);
    return true;
  };
  assert.throws(() => openaiHandler(server, { models: { m: model } }), check);
  await assert.rejects(serveOpenAI(server, { port: 0, models: { m: model } }), check);
}

test("an unknown tensor names the model and the tensor, and lists the model's", async () => {
  await refused(
    { model: "word_stream", mapping: { prompt: "TEXT", text: "WORD" } },
    /model 'word_stream' \(served as 'm'\)/,
    /prompt input 'TEXT' is not an input of the model \(its inputs: PROMPT\)/,
  );
  await refused(
    { model: "word_stream", mapping: { prompt: "PROMPT", text: "TEXT" } },
    /text output 'TEXT' is not an output of the model \(its outputs: WORD\)/,
  );
  await refused(
    { model: "word_stream", mapping: "vllm" },
    /input 'text_input' is not an input of the model/,
  );
  await refused(
    {
      model: "word_stream",
      mapping: { prompt: "PROMPT", text: "WORD", parameters: { max_tokens: { input: "MAX" } } },
    },
    /'max_tokens' input 'MAX' is not an input/,
  );
  await refused(
    {
      model: "word_stream",
      mapping: { prompt: "PROMPT", text: "WORD", usage: { completionTokens: "N" } },
    },
    /output 'N' is not an output/,
  );
});

test("a tensor of the wrong data type names it, its type and the one needed", async () => {
  await refused(
    { model: "tiny_llm", mapping: { prompt: "stream", text: "text_output" } },
    /input 'stream' \(the prompt\) is BOOL; it must be BYTES/,
  );
  await refused(
    { model: "tiny_llm", mapping: { prompt: "text_input", text: "num_input_tokens" } },
    /output 'num_input_tokens' \(the text\) is UINT32; it must be BYTES/,
  );
  await refused(
    {
      model: "tiny_llm",
      mapping: { prompt: "text_input", text: "text_output", stream: "sampling_parameters" },
    },
    /input 'sampling_parameters' \(the stream flag\) is BYTES; it must be BOOL/,
  );
  await refused(
    {
      model: "tiny_llm",
      mapping: {
        prompt: "text_input",
        text: "text_output",
        usage: { promptTokens: "text_output" },
      },
    },
    /output 'text_output' \(the prompt token count\) is BYTES; it must be INT8 or/,
  );
  await refused(
    {
      model: "tiny_trtllm",
      mapping: {
        prompt: "text_input",
        text: "text_output",
        parameters: { max_tokens: { input: "max_tokens" }, temperature: { input: "seed" } },
      },
    },
    /input 'seed' \(the 'temperature'\) is UINT64; it must be FP32 or FP64/,
  );
  await refused(
    { model: "tiny_embed", embedding: { input: "TEXT", output: "NUM_TOKENS" } },
    /output 'NUM_TOKENS' \(the embedding\) is INT32; it must be FP32 or FP64 or FP16/,
  );
  await refused(
    {
      model: "tiny_llm",
      mapping: { prompt: "text_input", text: "text_output", inputs: { stream: new Int32Array(1) } },
    },
    /input 'stream' \(a constant input\) is BOOL, the value given is INT32/,
  );
});

test("an input mapped twice, a required input left unfilled", async () => {
  await refused(
    {
      model: "tiny_llm",
      mapping: {
        prompt: "text_input",
        text: "text_output",
        parameters: { stop: { input: "text_input" } },
      },
    },
    /input 'text_input' is mapped twice \(prompt and 'stop'\)/,
  );
  await refused(
    { model: "tiny_trtllm", mapping: { prompt: "text_input", text: "text_output" } },
    /input 'max_tokens' is required by the model, and the mapping does not fill it/,
  );
  await refused(
    {
      model: "tiny_trtllm",
      mapping: {
        prompt: "text_input",
        text: "text_output",
        parameters: { seed: { input: "max_tokens" } },
      },
    },
    /input 'max_tokens' is required by the model, but the mapping fills it only when a request gives 'seed'/,
  );
  await refused(
    { model: "add_sub", mapping: { prompt: "INPUT0", text: "OUTPUT0" } },
    /input 'INPUT0' \(the prompt\) is FP32; it must be BYTES/,
  );
});

test("malformed entries name the OpenAI model and the field", async () => {
  await refused({ mapping: "nope" } as unknown as OpenAIModel, /mapping must be "vllm", "trtllm"/);
  await refused(
    {
      model: "word_stream",
      mapping: { prompt: "PROMPT", text: "WORD", outputs: 1 },
    } as unknown as OpenAIModel,
    /unknown field 'outputs'/,
  );
  await refused(
    { model: "word_stream" } as unknown as OpenAIModel,
    /models\['m'\]: give either mapping/,
  );
  await refused(
    { model: "word_stream", mapping: "vllm", tokens: 1 } as unknown as OpenAIModel,
    /models\['m'\]: unknown field 'tokens'/,
  );
  await refused(
    {
      model: "word_stream",
      mapping: { prompt: "PROMPT", text: "WORD", parameters: { max_tokens: { tensor: "x" } } },
    } as unknown as OpenAIModel,
    /parameters\['max_tokens'\] must be \{ input \} or \{ parameter \}/,
  );
  await refused(
    { model: "tiny_llm", mapping: "vllm", chatTemplate: "{% for %}" },
    /chat template of model 'tiny_llm' \(served as 'm'\) does not parse/,
  );
});

test("a model that is not loaded: Triton's error naming it", () => {
  assert.throws(
    () => openaiHandler(server, { models: { m: { model: "repeat_int32", mapping: "trtllm" } } }),
    (e: unknown) =>
      e instanceof TritonError && e.code !== "INVALID_ARG" && /repeat_int32/.test(e.message),
  );
});

test("without models: the ready models that follow vLLM's or TensorRT-LLM's convention", async () => {
  const handler = openaiHandler(server);
  const list = await (await handler(new Request("http://localhost/v1/models"))).json();
  assert.deepEqual(list.data.map((m: { id: string }) => m.id).sort(), ["tiny_llm", "tiny_trtllm"]);
  const r = await handler(
    new Request("http://localhost/v1/completions", {
      method: "POST",
      body: JSON.stringify({ model: "tiny_trtllm", prompt: "a b" }),
    }),
  );
  assert.equal((await r.json()).choices[0].text, " a b");
  // A model Triton has that no convention names (tiny_embed is loaded here): the 404 says why.
  for (
    const [path, body] of [
      ["/v1/embeddings", { model: "tiny_embed", input: "hello world" }],
      ["/v1/models/tiny_embed", undefined],
    ] as const
  ) {
    const missing = await handler(
      new Request(`http://localhost${path}`, {
        method: body ? "POST" : "GET",
        body: body && JSON.stringify(body),
      }),
    );
    assert.equal(missing.status, 404, path);
    const { error } = await missing.json();
    assert.equal(error.code, "model_not_found", path);
    assert.match(
      error.message,
      /^The model 'tiny_embed' does not exist: Triton has a model 'tiny_embed', but without `models` serveOpenAI\(\) serves only .* name it in `models` to serve it \(an embedding model as \{ embedding: \{ input, output \} \}\)$/,
      path,
    );
  }
  // A name Triton does not have either: OpenAI's words alone.
  const unknown = await handler(new Request("http://localhost/v1/models/gpt-9"));
  assert.equal((await unknown.json()).error.message, "The model 'gpt-9' does not exist");
});

test("vllm: the token counts are asked for only when the call reports usage", async () => {
  const { generationPlan } = await import("../serving/openai/plans.ts");
  const { inferRequest } = await import("../serving/openai/choice_inference.ts");
  const { completionRequest } = await import("../serving/openai/request.ts");
  const plan = generationPlan(server, "tiny_llm", { mapping: "vllm" });
  const inputsOf = (body: Record<string, unknown>) => {
    const request = completionRequest({ model: "tiny_llm", prompt: "a b", ...body } as never, 8);
    return Object.keys(inferRequest(plan, "a b", request, new AbortController().signal).inputs)
      .sort();
  };
  const always = [
    "exclude_input_in_output",
    "return_finish_reason",
    "sampling_parameters",
    "stream",
    "text_input",
  ];
  const counts = ["return_num_input_tokens", "return_num_output_tokens"];
  assert.deepEqual(inputsOf({}), [...always, ...counts].sort(), "not streaming: usage is reported");
  assert.deepEqual(inputsOf({ stream: true }), always, "streaming without include_usage");
  assert.deepEqual(
    inputsOf({ stream: true, stream_options: { include_usage: true } }),
    [...always, ...counts].sort(),
  );
});
