/**
 * OpenAI streaming against KServe's generate_stream (not a test): one `Server` serving tiny_llm
 * (tests/models, vLLM's convention) through `serveOpenAI()` and `serve()` on loopback, both
 * loaded the same way by `bench/sse_client.mjs` (N keep-alive clients in a separate Node process,
 * each opening streams of M tokens back to back for a bounded time, every event parsed and its
 * tokens counted). The routes alternate within each round, and which goes first alternates from
 * round to round. Prints one JSON line per run: route, concurrency, round, the client's figures
 * (tokens/s, streams/s, first-token and whole-stream latency), and the serving process's CPU time
 * per token (µs, warm-up included): the work per token, which a loaded machine changes far less
 * than the rate.
 *
 * Run it with `npm run bench:openai` (bench/run_openai.mjs), or directly on one runtime with
 * `TRITONSERVER_LIB` set. Environment: `BENCH_SECONDS` (per run, default 3), `BENCH_CONCURRENCY`
 * (streams at once, default "1,16"), `BENCH_TOKENS` (tokens per stream, default 64),
 * `BENCH_ROUNDS` (default 5), `BENCH_ROUTES` (the routes to run, by name, default all:
 * "generate_stream,generate_stream+counts,completions,completions-text,completions-text+usage,
 * completions-tokenizer+usage,chat").
 *
 * @module
 */
import process from "node:process";
import { Server } from "../mod.ts";
import { serve } from "../serve.ts";
import { serveOpenAI } from "../openai.ts";
import { runtimeName } from "../ffi/mod.ts";
import { runLoadClient } from "./load_client.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,16").split(",").map(Number);
const tokens = Number(process.env.BENCH_TOKENS ?? 64);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const only = process.env.BENCH_ROUTES?.split(",");
const node = process.env.BENCH_NODE ?? "node";
const client = decodeURIComponent(new URL("./sse_client.mjs", import.meta.url).pathname);
const repository = decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);

const server = await new Server({
  modelRepository: repository,
  modelControlMode: "explicit",
  startupModels: ["tiny_llm"],
  log: { info: false, warn: false },
}).start();
const kserve = await serve(server, { port: 0 });
/** tiny_llm asked for the text alone; max_tokens as a request parameter. */
const textMapping = {
  prompt: "text_input",
  text: "text_output",
  stream: "stream",
  parameters: { max_tokens: { parameter: "max_tokens" } },
};
const openai = await serveOpenAI(server, {
  port: 0,
  models: {
    tiny_llm: { mapping: "vllm" },
    // The same model through a custom mapping that asks it for no more than generate_stream does
    // (the text alone; max_tokens as a request parameter, which tiny_llm reads without
    // sampling_parameters): what is left between the two routes is the front ends' own work.
    tiny_llm_text: { model: "tiny_llm", mapping: textMapping },
    // The same again, counted by a tokenizer (tests/models/tiny_trtllm/tokenizer.json): each
    // stream's prompt and text are tokenized once, at its end.
    tiny_llm_tokenizer: {
      model: "tiny_llm",
      mapping: textMapping,
      tokenizer: decodeURIComponent(
        new URL("../tests/models/tiny_trtllm/tokenizer.json", import.meta.url).pathname,
      ),
    },
  },
});

// The prompt's words are the tokens tiny_llm sends back, one per response: `tokens` of them, and
// max_tokens says the same, so every route streams exactly `tokens` tokens.
const prompt = Array.from({ length: tokens }, (_, i) => `w${i}`).join(" ");

interface Route {
  readonly name: string;
  readonly port: number;
  readonly path: string;
  readonly body: unknown;
  /** The stream ends with `data: [DONE]`. */
  readonly done: boolean;
  /** Tokens each stream carries. */
  readonly tokens: number;
}
const routes: Route[] = [
  {
    name: "generate_stream",
    port: kserve.port,
    path: "/v2/models/tiny_llm/generate_stream",
    body: {
      text_input: prompt,
      stream: true,
      exclude_input_in_output: true,
      sampling_parameters: JSON.stringify({ max_tokens: tokens }),
    },
    done: false,
    tokens,
  },
  {
    // generate_stream asking for what the vLLM mapping asks the model for: the counts and the
    // finish reason with every response (four outputs instead of one).
    name: "generate_stream+counts",
    port: kserve.port,
    path: "/v2/models/tiny_llm/generate_stream",
    body: {
      text_input: prompt,
      stream: true,
      exclude_input_in_output: true,
      return_finish_reason: true,
      return_num_input_tokens: true,
      return_num_output_tokens: true,
      sampling_parameters: JSON.stringify({ max_tokens: tokens }),
    },
    done: false,
    tokens,
  },
  {
    name: "completions",
    port: openai.port,
    path: "/v1/completions",
    body: { model: "tiny_llm", prompt, max_tokens: tokens, stream: true },
    done: true,
    tokens,
  },
  {
    name: "completions-text",
    port: openai.port,
    path: "/v1/completions",
    body: { model: "tiny_llm_text", prompt, max_tokens: tokens, stream: true },
    done: true,
    tokens,
  },
  {
    // completions-text asking for usage: where nothing counts, a usage chunk of zeros.
    name: "completions-text+usage",
    port: openai.port,
    path: "/v1/completions",
    body: {
      model: "tiny_llm_text",
      prompt,
      max_tokens: tokens,
      stream: true,
      stream_options: { include_usage: true },
    },
    done: true,
    tokens,
  },
  {
    // The same counted by a tokenizer: what counting costs.
    name: "completions-tokenizer+usage",
    port: openai.port,
    path: "/v1/completions",
    body: {
      model: "tiny_llm_tokenizer",
      prompt,
      max_tokens: tokens,
      stream: true,
      stream_options: { include_usage: true },
    },
    done: true,
    tokens,
  },
  {
    // The chat template puts `<|user|>` before the prompt's words: max_tokens cuts the stream
    // at the same count.
    name: "chat",
    port: openai.port,
    path: "/v1/chat/completions",
    body: {
      model: "tiny_llm",
      messages: [{ role: "user", content: prompt }],
      max_tokens: tokens,
      stream: true,
    },
    done: true,
    tokens,
  },
].filter((r) => only === undefined || only.includes(r.name));

interface ClientResult {
  streams: number;
  tokens: number;
  errors: number;
  tokensPerSecond: number;
  firstError?: string;
}

/** Streams each client opens before the timed run. */
const WARMUP = 20;

/** Runs the load generator on `route`; the servers keep serving meanwhile. */
function load(route: Route, concurrency: number): Promise<ClientResult> {
  const spec = {
    port: route.port,
    path: route.path,
    body: JSON.stringify(route.body),
    concurrency,
    seconds,
    warmup: WARMUP,
    tokens: route.tokens,
    done: route.done,
  };
  return runLoadClient<ClientResult>(node, client, spec);
}

for (const concurrency of concurrencies) {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? routes : [...routes].reverse();
    for (const route of order) {
      // The serving process's CPU time (its JS thread and the core's threads; the load
      // generator is a process of its own), over the warm-up and the timed run.
      const cpu0 = process.cpuUsage();
      const result = await load(route, concurrency);
      const cpu = process.cpuUsage(cpu0);
      const served = result.tokens + WARMUP * concurrency * route.tokens;
      console.log(JSON.stringify({
        runtime: runtimeName(),
        route: route.name,
        concurrency,
        tokensPerStream: tokens,
        round,
        seconds,
        client: result,
        serverCpuUsPerToken: (cpu.user + cpu.system) / served,
        inflightAfter: server.inflight,
      }));
    }
  }
}
await openai.close();
await kserve.close();
await server.stop();
