/**
 * The test models of the OpenAI front end, driven through the binding: tiny_llm (vLLM's
 * convention), tiny_trtllm (TensorRT-LLM's), word_stream (custom, request parameters) and
 * tiny_embed (embeddings). Their words, limits, stop strings, counts, finish reasons, response
 * flags, cancellation, embeddings and errors, asserted exactly; the same on the fake core (which
 * imitates them by name) and on a real core with the python backend.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, type TestContext } from "node:test";
import { Template } from "@huggingface/jinja";
import { test } from "./support/test.ts";
import { type InferRequest, type InferResponse, type Server, TritonError } from "../mod.ts";
import {
  collect,
  collectGarbage,
  idle,
  liveCounter,
  MODEL_REPOSITORY,
  sharedServer,
  stopShared,
} from "./support/env.ts";

after(stopShared);

/** The shared server, or a skip where `model` did not load (a core without the python backend). */
async function serverWith(t: TestContext, model: string): Promise<Server | undefined> {
  const server = await sharedServer();
  const entry = server.models().find((m) => m.name === model);
  if (entry?.state === "READY") return server;
  t.skip(`${model} is not loaded here (${entry?.state ?? "absent"}: ${entry?.reason ?? "-"})`);
  return undefined;
}

/** Waits until nothing is in flight and (on the fake core) nothing is left alive. */
async function settled(server: Server): Promise<void> {
  await collectGarbage();
  const live = await liveCounter();
  const deadline = Date.now() + 10_000;
  const busy = () =>
    server.inflight > 0 || (live !== undefined && (live("request") > 0 || live("response") > 0));
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(server.inflight, 0, "requests in flight");
  if (live) {
    assert.equal(live("request"), 0, "live requests");
    assert.equal(live("response"), 0, "live responses");
  }
}

/** Every response of a request, copied (the originals disposed); rejects with what `infer`
 * throws too (the core's own checks of a request). */
async function run(server: Server, model: string, request: InferRequest): Promise<InferResponse[]> {
  return await collect(server.model(model).infer(request));
}

function text(r: InferResponse, name: string): string {
  return r.outputs[name].strings()[0];
}

function u32(r: InferResponse, name: string): number {
  return (r.outputs[name].data as Uint32Array)[0];
}

/** A TritonError with `code` whose message matches `message`. */
function tritonError(code: string, message: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof TritonError, `not a TritonError: ${e}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  };
}

/** Milliseconds until nothing is in flight (at most 10 s). */
async function untilIdle(server: Server): Promise<number> {
  const t0 = performance.now();
  await idle(server);
  return performance.now() - t0;
}

const PROMPT = "Hello there\tbig  world";
const ECHO = [" Hello", " there", " big", " world"];

// ------------------------------------------------------------------------------------------------
// tiny_llm: vLLM's convention
// ------------------------------------------------------------------------------------------------

/** tiny_llm's inputs: the prompt, the stream flag, the sampling parameters as JSON. */
function llm(
  prompt: string,
  options: {
    stream?: boolean;
    sampling?: Record<string, unknown> | string;
    exclude?: boolean;
    counts?: boolean;
  } = {},
): InferRequest["inputs"] {
  const { stream, sampling, exclude, counts = true } = options;
  return {
    text_input: [prompt],
    ...(stream === undefined ? {} : { stream: [stream] }),
    ...(sampling === undefined ? {} : {
      sampling_parameters: [typeof sampling === "string" ? sampling : JSON.stringify(sampling)],
    }),
    ...(exclude === undefined ? {} : { exclude_input_in_output: [exclude] }),
    ...(counts
      ? {
        return_finish_reason: [true],
        return_num_input_tokens: [true],
        return_num_output_tokens: [true],
      }
      : {}),
  };
}

/** What each response of tiny_llm carries. */
function llmView(r: InferResponse) {
  return {
    text: text(r, "text_output"),
    finish: text(r, "finish_reason"),
    input: u32(r, "num_input_tokens"),
    output: u32(r, "num_output_tokens"),
    final: r.final,
  };
}

test("tiny_llm streams one word per response, the last one FINAL with the finish reason", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const responses = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, { stream: true, sampling: { temperature: 0.5, top_p: 0.9, seed: 7 } }),
  });
  assert.deepEqual(responses.map(llmView), [
    { text: " Hello", finish: "None", input: 4, output: 1, final: false },
    { text: " there", finish: "None", input: 4, output: 1, final: false },
    { text: " big", finish: "None", input: 4, output: 1, final: false },
    { text: " world", finish: "stop", input: 4, output: 1, final: true },
  ]);
  const out = responses[0].outputs;
  assert.equal(out.text_output.dtype, "BYTES");
  assert.deepEqual(out.text_output.shape, [1]);
  assert.equal(out.num_input_tokens.dtype, "UINT32");
  assert.deepEqual(out.num_input_tokens.shape, [], "no dimension, as vLLM's backend sends it");
  assert.deepEqual(out.num_output_tokens.shape, [1]);
  assert.deepEqual(out.finish_reason.shape, [1]);
  await settled(server);
});

test("tiny_llm: max_tokens cuts the words (finish length), default 16", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const two = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, { stream: true, sampling: { max_tokens: 2 } }),
  });
  assert.deepEqual(two.map((r) => [text(r, "text_output"), text(r, "finish_reason"), r.final]), [
    [" Hello", "None", false],
    [" there", "length", true],
  ]);
  // Exactly max_tokens words: all of them were sent within the limit.
  const four = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, { stream: true, sampling: { max_tokens: 4 } }),
  });
  assert.equal(text(four[3], "finish_reason"), "stop");
  const twenty = Array.from({ length: 20 }, (_, i) => `w${i}`);
  const cut = await run(server, "tiny_llm", {
    inputs: llm(twenty.join(" "), { exclude: true }),
  });
  assert.deepEqual(cut.map(llmView), [{
    text: twenty.slice(0, 16).map((w) => ` ${w}`).join(""),
    finish: "length",
    input: 20,
    output: 16,
    final: true,
  }]);
  await settled(server);
});

test("tiny_llm not streaming: one FINAL response, the prompt first unless excluded", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const whole = await run(server, "tiny_llm", { inputs: llm(PROMPT) });
  assert.deepEqual(whole.map(llmView), [
    { text: PROMPT + ECHO.join(""), finish: "stop", input: 4, output: 4, final: true },
  ]);
  const excluded = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, { stream: false, exclude: true, sampling: { max_tokens: 3 } }),
  });
  assert.deepEqual(excluded.map(llmView), [
    { text: " Hello there big", finish: "length", input: 4, output: 3, final: true },
  ]);
  const included = await run(server, "tiny_llm", {
    inputs: llm("a b", { stream: false, exclude: false }),
  });
  assert.equal(text(included[0], "text_output"), "a b a b");
  await settled(server);
});

test("tiny_llm: a stop string ends the words before it (finish stop)", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const cases: [unknown, string[]][] = [
    ["big", [" Hello", " there"]],
    [["nope", "there"], [" Hello"]],
    ["Hello", []],
    [" big", ECHO], // compared with the word, not its leading space
    [[], ECHO],
  ];
  for (const [stop, words] of cases) {
    const streamed = await run(server, "tiny_llm", {
      inputs: llm(PROMPT, { stream: true, sampling: { stop } }),
    });
    const texts = streamed.map((r) => text(r, "text_output"));
    assert.deepEqual(texts, words.length ? words : [""], JSON.stringify(stop));
    assert.equal(text(streamed.at(-1)!, "finish_reason"), "stop");
    const whole = await run(server, "tiny_llm", {
      inputs: llm(PROMPT, { exclude: true, sampling: { stop, max_tokens: 3 } }),
    });
    assert.deepEqual(whole.map(llmView), [{
      text: words.slice(0, 3).join(""),
      finish: words.length > 3 ? "length" : "stop",
      input: 4,
      output: Math.min(words.length, 3),
      final: true,
    }]);
  }
  // The limit comes before a stop word it would never reach.
  const limit = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, { exclude: true, sampling: { stop: "big", max_tokens: 2 } }),
  });
  assert.equal(text(limit[0], "finish_reason"), "length");
  await settled(server);
});

test("tiny_llm: an empty prompt generates nothing; streaming, one empty FINAL response", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  for (const prompt of ["", " \t\n "]) {
    const streamed = await run(server, "tiny_llm", { inputs: llm(prompt, { stream: true }) });
    assert.deepEqual(streamed.map(llmView), [
      { text: "", finish: "stop", input: 0, output: 0, final: true },
    ]);
    const whole = await run(server, "tiny_llm", { inputs: llm(prompt) });
    assert.deepEqual(whole.map(llmView), [
      { text: prompt, finish: "stop", input: 0, output: 0, final: true },
    ]);
  }
  await settled(server);
});

test("tiny_llm reads the request parameters when no sampling_parameters input is given", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const cases: [Record<string, string | number | bigint | boolean>, string][] = [
    [{ max_tokens: 1 }, " Hello"],
    [{ max_tokens: 2n, stop: "big" }, " Hello there"],
    [{ max_tokens: "3", temperature: 0.25, seed: 1 }, " Hello there big"],
    [{ stop: "there" }, " Hello"],
  ];
  for (const [parameters, expected] of cases) {
    const [r] = await run(server, "tiny_llm", {
      inputs: llm(PROMPT, { exclude: true }),
      parameters,
    });
    assert.equal(text(r, "text_output"), expected, Object.keys(parameters).join(","));
  }
  // The sampling_parameters input, when given, is all that is read.
  const [only] = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, { exclude: true, sampling: {} }),
    parameters: { max_tokens: 1 },
  });
  assert.equal(text(only, "text_output"), ECHO.join(""));
  await settled(server);
});

test("tiny_llm: integral numbers and strings of digits are integers", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  for (const sampling of ['{"max_tokens": 2.0}', '{"max_tokens": "2"}', '{"max_tokens": 2e0}']) {
    const [r] = await run(server, "tiny_llm", { inputs: llm(PROMPT, { exclude: true, sampling }) });
    assert.equal(text(r, "text_output"), " Hello there", sampling);
  }
  const [big] = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, {
      exclude: true,
      sampling: '{"max_tokens": 123456789012345678901234567890}',
    }),
  });
  assert.equal(text(big, "text_output"), ECHO.join(""));
  const [nulls] = await run(server, "tiny_llm", {
    inputs: llm(PROMPT, { exclude: true, sampling: '{"max_tokens": null, "stop": null}' }),
  });
  assert.equal(text(nulls, "text_output"), ECHO.join(""));
  await settled(server);
});

test("tiny_llm returns only the outputs asked for and requested", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const [plain] = await run(server, "tiny_llm", { inputs: llm("a b", { counts: false }) });
  assert.deepEqual(Object.keys(plain.outputs), ["text_output"]);
  assert.equal(text(plain, "text_output"), "a b a b");
  const [some] = await run(server, "tiny_llm", {
    inputs: { ...llm("a b", { counts: false }), return_num_output_tokens: [true] },
  });
  assert.deepEqual(Object.keys(some.outputs).sort(), ["num_output_tokens", "text_output"]);
  assert.equal(u32(some, "num_output_tokens"), 2);
  const [requested] = await run(server, "tiny_llm", {
    inputs: llm("a b"),
    outputs: ["num_input_tokens", "finish_reason"],
  });
  assert.deepEqual(Object.keys(requested.outputs).sort(), ["finish_reason", "num_input_tokens"]);
  assert.equal(u32(requested, "num_input_tokens"), 2);
  await settled(server);
});

test("tiny_llm: bad parameters and inputs are INVALID_ARG errors naming them", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const cases: [InferRequest, RegExp][] = [
    [
      { inputs: llm(PROMPT, { stream: true, exclude: false }) },
      /^tiny_llm: exclude_input_in_output false is not allowed when streaming$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: "not json" }) },
      /^tiny_llm: sampling_parameters must be a JSON object$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: "[1, 2]" }) },
      /^tiny_llm: sampling_parameters must be a JSON object$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: '{"max_tokens": tru}' }) },
      /^tiny_llm: sampling_parameters must be a JSON object$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { max_tokens: 0 } }) },
      /^tiny_llm: max_tokens must be at least 1$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { max_tokens: -5 } }) },
      /^tiny_llm: max_tokens must be at least 1$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { max_tokens: 1.5 } }) },
      /^tiny_llm: max_tokens must be an integer$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { max_tokens: true } }) },
      /^tiny_llm: max_tokens must be an integer$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { max_tokens: " 2" } }) },
      /^tiny_llm: max_tokens must be an integer$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { max_tokens: {} } }) },
      /^tiny_llm: max_tokens must be an integer$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { delay_ms: -1 } }) },
      /^tiny_llm: delay_ms must be at least 0$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { stop: 5 } }) },
      /^tiny_llm: stop must be a string or a list of strings$/,
    ],
    [
      { inputs: llm(PROMPT, { sampling: { stop: ["a", 1] } }) },
      /^tiny_llm: stop must be a string or a list of strings$/,
    ],
    [
      { inputs: llm(PROMPT, { exclude: true }), parameters: { max_tokens: 0.5 } },
      /^tiny_llm: max_tokens must be an integer$/,
    ],
    [
      { inputs: llm(PROMPT, { exclude: true }), parameters: { stop: true } },
      /^tiny_llm: stop must be a string or a list of strings$/,
    ],
  ];
  for (const [request, message] of cases) {
    await assert.rejects(run(server, "tiny_llm", request), tritonError("INVALID_ARG", message));
  }
  // A missing text_input: the core counts the inputs only, so with an optional one given the
  // model sees the request; without, the core refuses it.
  await assert.rejects(
    run(server, "tiny_llm", { inputs: { stream: [true] } }),
    tritonError("INVALID_ARG", /^tiny_llm: missing input 'text_input'$/),
  );
  await assert.rejects(
    run(server, "tiny_llm", { inputs: {} }),
    tritonError("INVALID_ARG", /missing required input\(s\) \['text_input'\]/),
  );
  // The core's own checks: a mistyped input.
  await assert.rejects(
    run(server, "tiny_llm", { inputs: { text_input: ["a"], stream: new Int32Array([1]) } }),
    tritonError(
      "INVALID_ARG",
      /'stream' data-type is 'INT32', but model 'tiny_llm' expects 'BOOL'/,
    ),
  );
  await settled(server);
});

// ------------------------------------------------------------------------------------------------
// tiny_trtllm: TensorRT-LLM's convention
// ------------------------------------------------------------------------------------------------

/** tiny_trtllm's inputs, each with its batch dimension [1, ...]. */
function trt(
  prompt: string,
  maxTokens: number,
  options: { stream?: boolean; stop?: string[]; exclude?: boolean; sampling?: boolean } = {},
): InferRequest["inputs"] {
  const { stream, stop, exclude, sampling } = options;
  return {
    text_input: { dtype: "BYTES", shape: [1, 1], data: [prompt] },
    max_tokens: { dtype: "INT32", shape: [1, 1], data: [maxTokens] },
    ...(stream === undefined ? {} : { stream: { dtype: "BOOL", shape: [1, 1], data: [stream] } }),
    ...(stop === undefined
      ? {}
      : { stop_words: { dtype: "BYTES", shape: [1, stop.length], data: stop } }),
    ...(exclude === undefined
      ? {}
      : { exclude_input_in_output: { dtype: "BOOL", shape: [1, 1], data: [exclude] } }),
    ...(sampling
      ? {
        temperature: { dtype: "FP32", shape: [1, 1], data: [0.7] },
        top_p: { dtype: "FP32", shape: [1, 1], data: [0.9] },
        seed: { dtype: "UINT64", shape: [1, 1], data: [42n] },
      }
      : {}),
  };
}

test("tiny_trtllm streams one word per response, then the FINAL flag alone", async (t) => {
  const server = await serverWith(t, "tiny_trtllm");
  if (!server) return;
  const responses = await run(server, "tiny_trtllm", {
    inputs: trt(PROMPT, 16, { stream: true, sampling: true }),
  });
  assert.deepEqual(responses.map((r) => text(r, "text_output")), ECHO);
  assert.deepEqual(responses.map((r) => r.final), [false, false, false, false]);
  assert.deepEqual(Object.keys(responses[0].outputs), ["text_output"]);
  assert.deepEqual(responses[0].outputs.text_output.shape, [1, 1]);
  const cut = await run(server, "tiny_trtllm", { inputs: trt(PROMPT, 3, { stream: true }) });
  assert.deepEqual(cut.map((r) => text(r, "text_output")), ECHO.slice(0, 3));
  const stopped = await run(server, "tiny_trtllm", {
    inputs: trt(PROMPT, 16, { stream: true, stop: ["x", "big"] }),
  });
  assert.deepEqual(stopped.map((r) => text(r, "text_output")), ECHO.slice(0, 2));
  assert.deepEqual(await run(server, "tiny_trtllm", { inputs: trt(" ", 5, { stream: true }) }), []);
  await settled(server);
});

test("tiny_trtllm not streaming: the whole text, without the prompt unless asked", async (t) => {
  const server = await serverWith(t, "tiny_trtllm");
  if (!server) return;
  const view = (rs: InferResponse[]) => rs.map((r) => [text(r, "text_output"), r.final]);
  // The config's exclude_input_in_output parameter is true, as OpenAI front ends want it.
  assert.deepEqual(view(await run(server, "tiny_trtllm", { inputs: trt(PROMPT, 16) })), [
    [ECHO.join(""), false],
  ]);
  assert.deepEqual(
    view(
      await run(server, "tiny_trtllm", {
        inputs: trt(PROMPT, 2, { stream: false, exclude: false }),
      }),
    ),
    [[PROMPT + " Hello there", false]],
  );
  assert.deepEqual(
    view(
      await run(server, "tiny_trtllm", {
        inputs: trt(PROMPT, 9, { stop: ["there"], exclude: true }),
      }),
    ),
    [[" Hello", false]],
  );
  assert.deepEqual(view(await run(server, "tiny_trtllm", { inputs: trt("", 9) })), [["", false]]);
  // Without stop_words, with zero of them.
  assert.deepEqual(
    view(await run(server, "tiny_trtllm", { inputs: trt("a b", 9, { stop: [] }) })),
    [
      [" a b", false],
    ],
  );
  await settled(server);
});

test("tiny_trtllm: bad input is an INVALID_ARG error, then the stream ends", async (t) => {
  const server = await serverWith(t, "tiny_trtllm");
  if (!server) return;
  const cases: [InferRequest, RegExp][] = [
    [{ inputs: trt(PROMPT, 0) }, /^tiny_trtllm: max_tokens must be at least 1$/],
    [{ inputs: trt(PROMPT, -1, { stream: true }) }, /^tiny_trtllm: max_tokens must be at least 1$/],
    [
      { inputs: trt(PROMPT, 3), parameters: { delay_ms: "soon" } },
      /^tiny_trtllm: delay_ms must be an integer$/,
    ],
    [
      { inputs: trt(PROMPT, 3), parameters: { delay_ms: -2 } },
      /^tiny_trtllm: delay_ms must be at least 0$/,
    ],
    [
      {
        inputs: {
          text_input: { dtype: "BYTES", shape: [2, 1], data: ["a", "b"] },
          max_tokens: { dtype: "INT32", shape: [2, 1], data: [1, 1] },
        },
      },
      /^tiny_trtllm: one prompt per request \(batch size 1\)$/,
    ],
  ];
  for (const [request, message] of cases) {
    await assert.rejects(run(server, "tiny_trtllm", request), tritonError("INVALID_ARG", message));
    // Not raised: the error response, and nothing after it.
    const all = await run(server, "tiny_trtllm", { ...request, raiseOnError: false });
    assert.deepEqual(all.map((r) => [r.error?.code, r.error?.message.match(message) !== null]), [
      ["INVALID_ARG", true],
    ]);
  }
  const prompt = { dtype: "BYTES", shape: [1, 1], data: ["a"] } as const;
  await assert.rejects(
    run(server, "tiny_trtllm", { inputs: { text_input: prompt } }),
    tritonError("INVALID_ARG", /missing required input\(s\) \['max_tokens'\]/),
  );
  const streamFlag = { dtype: "BOOL", shape: [1, 1], data: [true] } as const;
  await assert.rejects(
    run(server, "tiny_trtllm", { inputs: { text_input: prompt, stream: streamFlag } }),
    tritonError("INVALID_ARG", /^tiny_trtllm: missing input 'max_tokens'$/),
  );
  await assert.rejects(
    run(server, "tiny_trtllm", {
      inputs: { max_tokens: trt("a", 1).max_tokens, stream: streamFlag },
    }),
    tritonError("INVALID_ARG", /^tiny_trtllm: missing input 'text_input'$/),
  );
  await assert.rejects(
    run(server, "tiny_trtllm", {
      inputs: { text_input: ["a"], max_tokens: trt("a", 1).max_tokens },
    }),
    tritonError("INVALID_ARG", /unexpected shape for input 'text_input' for model 'tiny_trtllm'/),
  );
  await settled(server);
});

// ------------------------------------------------------------------------------------------------
// word_stream: custom, request parameters
// ------------------------------------------------------------------------------------------------

test("word_stream: one WORD per response, max_words, then the FINAL flag alone", async (t) => {
  const server = await serverWith(t, "word_stream");
  if (!server) return;
  const words = (rs: InferResponse[]) => rs.map((r) => text(r, "WORD"));
  const all = await run(server, "word_stream", { inputs: { PROMPT: [PROMPT] } });
  assert.deepEqual(words(all), ECHO);
  assert.deepEqual(all.map((r) => r.final), [false, false, false, false]);
  assert.deepEqual(all[0].outputs.WORD.shape, [1]);
  const cases: [Record<string, string | number | boolean>, string[]][] = [
    [{ max_words: 2 }, ECHO.slice(0, 2)],
    [{ max_words: "3", temperature: 1.5 }, ECHO.slice(0, 3)],
    [{ max_words: 0 }, []],
    [{ max_words: 99, ignored: true }, ECHO],
  ];
  for (const [parameters, expected] of cases) {
    assert.deepEqual(
      words(await run(server, "word_stream", { inputs: { PROMPT: [PROMPT] }, parameters })),
      expected,
    );
  }
  const twenty = Array.from({ length: 20 }, (_, i) => `w${i}`);
  assert.equal(
    (await run(server, "word_stream", { inputs: { PROMPT: [twenty.join("\n")] } })).length,
    16,
  );
  assert.deepEqual(await run(server, "word_stream", { inputs: { PROMPT: [""] } }), []);
  await settled(server);
});

test("word_stream returns a response_format request parameter as its one response", async (t) => {
  const server = await serverWith(t, "word_stream");
  if (!server) return;
  const format = JSON.stringify({ type: "json_object" });
  const responses = await run(server, "word_stream", {
    inputs: { PROMPT: [PROMPT] },
    parameters: { response_format: format, max_words: 1 },
  });
  assert.deepEqual(responses.map((r) => text(r, "WORD")), [format]);
  const empty = await run(server, "word_stream", {
    inputs: { PROMPT: [PROMPT] },
    parameters: { response_format: "" },
  });
  assert.deepEqual(empty.map((r) => text(r, "WORD")), [""]);
  const cases: [Record<string, string | number | boolean>, RegExp][] = [
    [{ response_format: 5 }, /^word_stream: response_format must be a string$/],
    [{ max_words: -1 }, /^word_stream: max_words must be at least 0$/],
    [{ max_words: "many" }, /^word_stream: max_words must be an integer$/],
    [{ max_words: 1, delay_ms: true }, /^word_stream: delay_ms must be an integer$/],
  ];
  for (const [parameters, message] of cases) {
    await assert.rejects(
      run(server, "word_stream", { inputs: { PROMPT: [PROMPT] }, parameters }),
      tritonError("INVALID_ARG", message),
    );
  }
  await settled(server);
});

// ------------------------------------------------------------------------------------------------
// cancellation and concurrency of the generate models
// ------------------------------------------------------------------------------------------------

/** A request of `model` generating 1000 words, `delayMs` apart. */
function longRequest(model: string, delayMs: number): InferRequest {
  const prompt = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(" ");
  switch (model) {
    case "tiny_llm":
      return {
        inputs: llm(prompt, { stream: true, sampling: { max_tokens: 1000, delay_ms: delayMs } }),
      };
    case "tiny_trtllm":
      return { inputs: trt(prompt, 1000, { stream: true }), parameters: { delay_ms: delayMs } };
    default:
      return { inputs: { PROMPT: [prompt] }, parameters: { max_words: 1000, delay_ms: delayMs } };
  }
}

function firstText(r: InferResponse): string {
  return r.outputs.text_output?.strings()[0] ?? r.outputs.WORD.strings()[0];
}

for (const model of ["tiny_llm", "tiny_trtllm", "word_stream"]) {
  test(`${model}: an abort mid-stream cancels it in the model, which stops`, async (t) => {
    const server = await serverWith(t, model);
    if (!server) return;
    const controller = new AbortController();
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        const stream = server.model(model).infer({
          ...longRequest(model, 20),
          signal: controller.signal,
        });
        for await (const r of stream) {
          seen.push(firstText(r));
          r.dispose();
          if (seen.length === 3) controller.abort("enough");
        }
      })(),
      tritonError("CANCELLED", /enough/),
    );
    assert.deepEqual(seen, [" w0", " w1", " w2"]);
    const ms = await untilIdle(server); // 1000 words 20 ms apart: 20 s had the model gone on
    assert.ok(ms < 1500, `the model stopped ${ms.toFixed(0)} ms after the abort (not cancelled)`);
    await settled(server);
  });

  test(`${model}: leaving the stream early cancels the request`, async (t) => {
    const server = await serverWith(t, model);
    if (!server) return;
    let seen = 0;
    for await (const r of server.model(model).infer(longRequest(model, 5))) {
      assert.equal(firstText(r), ` w${seen}`);
      r.dispose();
      if (++seen === 4) break;
    }
    const ms = await untilIdle(server); // 1000 words 5 ms apart: 5 s had the model gone on
    assert.ok(ms < 1500, `the model stopped ${ms.toFixed(0)} ms after the break (not cancelled)`);
    await settled(server);
  });
}

test("the generate models run requests concurrently: total time near one request's", async (t) => {
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      run(server, "tiny_llm", {
        inputs: llm(`a${i} b${i} c${i}`, { exclude: true, sampling: { delay_ms: 100 } }),
      })),
  );
  const elapsed = performance.now() - t0;
  assert.deepEqual(
    results.map((rs) => rs.map((r) => text(r, "text_output"))),
    Array.from({ length: 6 }, (_, i) => [` a${i} b${i} c${i}`]),
  );
  assert.ok(elapsed < 6 * 300 / 2, `6 requests of 300 ms took ${elapsed.toFixed(0)} ms`);
  await settled(server);
});

// ------------------------------------------------------------------------------------------------
// tiny_embed
// ------------------------------------------------------------------------------------------------

/** tiny_embed's vector of `s`, computed here from its definition. */
function embedding(s: string): number[] {
  const bytes = new TextEncoder().encode(s);
  let h = 0;
  bytes.forEach((b, i) => {
    h = (h + b * (i + 1)) % 1_000_003;
  });
  return Array.from({ length: 8 }, (_, j) => Math.fround((((h * (j + 1)) % 2001) - 1000) / 1000));
}

function wordCount(s: string): number {
  return s.split(/[ \t\n\v\f\r]+/).filter((w) => w !== "").length;
}

test("tiny_embed: 8 float32 numbers per string, and each string's word count", async (t) => {
  const server = await serverWith(t, "tiny_embed");
  if (!server) return;
  const texts = ["Hello there", "", "héllo wörld  x", "a\tb\nc\u000bd\u000ce", "€".repeat(300)];
  const [r] = await run(server, "tiny_embed", { inputs: { TEXT: texts } });
  assert.equal(r.final, true);
  const vectors = r.outputs.EMBEDDING;
  assert.equal(vectors.dtype, "FP32");
  assert.deepEqual(vectors.shape, [texts.length, 8]);
  assert.deepEqual([...(vectors.data as Float32Array)], texts.flatMap(embedding));
  const tokens = r.outputs.NUM_TOKENS;
  assert.equal(tokens.dtype, "INT32");
  assert.deepEqual(tokens.shape, [texts.length]);
  assert.deepEqual([...(tokens.data as Int32Array)], [2, 0, 3, 5, 1]);
  assert.deepEqual(texts.map(wordCount), [2, 0, 3, 5, 1]);
  // Spot values, as the definition gives them: "a" is h = 97, component j = (97 (j + 1)) mod 2001
  // less 1000, over 1000.
  const [a] = await run(server, "tiny_embed", { inputs: { TEXT: ["a"] } });
  assert.deepEqual(
    [...(a.outputs.EMBEDDING.data as Float32Array)],
    [-903, -806, -709, -612, -515, -418, -321, -224].map((x) => Math.fround(x / 1000)),
  );
  const [one] = await run(server, "tiny_embed", {
    inputs: { TEXT: ["x"] },
    outputs: ["NUM_TOKENS"],
  });
  assert.deepEqual(Object.keys(one.outputs), ["NUM_TOKENS"]);
  await settled(server);
});

test("tiny_embed: wrong input is the core's INVALID_ARG", async (t) => {
  const server = await serverWith(t, "tiny_embed");
  if (!server) return;
  await assert.rejects(
    run(server, "tiny_embed", { inputs: { TEXT: new Float32Array([1]) } }),
    tritonError(
      "INVALID_ARG",
      /'TEXT' data-type is 'FP32', but model 'tiny_embed' expects 'BYTES'/,
    ),
  );
  await assert.rejects(
    run(server, "tiny_embed", { inputs: { TEXT: ["a"], EXTRA: ["b"] } }),
    tritonError("INVALID_ARG", /EXTRA/),
  );
  await settled(server);
});

// ------------------------------------------------------------------------------------------------
// tiny_llm's chat template
// ------------------------------------------------------------------------------------------------

test("tiny_llm's tokenizer_config.json: a one-line chat template, its rendering echoed", async (t) => {
  const path = `${MODEL_REPOSITORY}/tiny_llm/tokenizer_config.json`;
  const config = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(config.bos_token, "<s>");
  assert.equal(config.eos_token, "<|end|>");
  const rendered = new Template(config.chat_template).render({
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hello there" },
    ],
    add_generation_prompt: true,
    bos_token: config.bos_token,
    eos_token: config.eos_token,
  });
  assert.equal(
    rendered,
    "<|system|> Be brief. <|end|> <|user|> Hello there <|end|> <|assistant|>",
  );
  const server = await serverWith(t, "tiny_llm");
  if (!server) return;
  const responses = await run(server, "tiny_llm", {
    inputs: llm(rendered, { stream: true, sampling: { stop: ["<|end|>"] } }),
  });
  assert.deepEqual(responses.map((r) => text(r, "text_output")), [" <|system|>", " Be", " brief."]);
  await settled(server);
});
