/**
 * Serves the test repository's language and embedding models over OpenAI's API, so that OpenAI's
 * clients, `curl` and anything built on them talk to Triton in this process: run it with
 * `npm run serve:openai` (which finds a core for you; on the fake core the models are imitated),
 * or directly:
 * `deno run --unstable-no-legacy-abort --allow-ffi --allow-env --allow-read --allow-write --allow-net examples/openai.ts`,
 * `bun examples/openai.ts`, `node examples/openai.ts`.
 *
 * The models, each under its Triton name: `tiny_llm` (vLLM's convention, with a chat template),
 * `tiny_trtllm` (TensorRT-LLM's; completions only, as it has no chat template), `word_stream` (a
 * custom model, served through the mapping declared below) and `tiny_embed` (embeddings).
 *
 * Environment: `MODEL_REPOSITORY` (default tests/models), `PORT` (default 9000), `HOST` (default
 * 127.0.0.1; 0.0.0.0 in a container), `CORS_ORIGINS` (comma-separated origins whose browser pages
 * may call it, e.g. `http://localhost:5173`, or `*`; default none), `WORKERS` (threads serving,
 * each on the same port; default 1: see docs/serving.md, "Workers"). On SIGINT or SIGTERM it
 * finishes the requests in flight (streams get 20 s) and exits 0.
 *
 * ```sh
 * curl localhost:9000/v1/chat/completions -H 'content-type: application/json' \
 *   -d '{"model":"tiny_llm","messages":[{"role":"user","content":"Hello there"}]}'
 * ```
 *
 * @module
 */
import process from "node:process";
import { Server } from "../mod.ts";
import { type OpenAIModel, serveOpenAI } from "../openai.ts";
import { checkPorts } from "./port_check.ts";

const repository = process.env.MODEL_REPOSITORY ??
  decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);
const hostname = process.env.HOST ?? "127.0.0.1";
// A port in use is one line naming PORT, before any model loads.
const [port] = await checkPorts("examples/openai.ts", hostname, [
  { variable: "PORT", value: process.env.PORT ?? "9000" },
]);
// Origins whose browser pages may call the service, e.g. CORS_ORIGINS=http://localhost:5173.
const corsOrigins = (process.env.CORS_ORIGINS ?? "").split(",").map((o) => o.trim())
  .filter((o) => o !== "");

/** The OpenAI model names and how each is served. */
const models: Record<string, OpenAIModel> = {
  tiny_llm: { mapping: "vllm" },
  tiny_trtllm: { mapping: "trtllm" },
  // A model of no known convention, declared tensor by tensor: the prompt goes in PROMPT, the text
  // comes out of WORD (one word per response), and two OpenAI fields travel as request parameters
  // the model reads. Its chat template is given here, as the model's folder has none.
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

const server = await new Server({
  modelRepository: repository,
  modelControlMode: "explicit",
  startupModels: Object.keys(models),
  log: { info: false },
}).start();
// WORKERS=2 or more: served by this thread and worker threads on the same port (on Deno
// `npm run serve:openai` passes --unstable-net; on Bun it needs TRITONFFI_ALLOW_BUN_WORKERS=1).
const workers = process.env.WORKERS === undefined ? undefined : Number(process.env.WORKERS);
const service = await serveOpenAI(server, { hostname, port, models, corsOrigins, workers });
const v1 = `${service.url}/v1`;
console.log(
  `OpenAI API on ${v1} (${service.runtime}), models ${Object.keys(models).join(", ")} from ` +
    repository,
);
console.log(`Try:
  curl ${v1}/models
  curl ${v1}/chat/completions -H 'content-type: application/json' \\
    -d '{"model":"tiny_llm","messages":[{"role":"user","content":"Hello there"}],"max_tokens":4}'
  curl -N ${v1}/completions -H 'content-type: application/json' \\
    -d '{"model":"tiny_trtllm","prompt":"one two three","stream":true}'
  curl ${v1}/embeddings -H 'content-type: application/json' \\
    -d '{"model":"tiny_embed","input":["hello","world"]}'
or OpenAI's client (npm install openai):
  const client = new OpenAI({ baseURL: "${v1}", apiKey: "unused" });
  const stream = await client.chat.completions.create({
    model: "tiny_llm", messages: [{ role: "user", content: "Hello there" }], stream: true,
  });
  for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? "");`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing the requests in flight (streams get 20 s)`);
  const failed = await service.close({ timeoutMs: 20_000 }).then(() => false, () => true);
  await server.stop().catch((e) => console.error(e.message));
  process.exit(failed ? 1 : 0);
};
// A worker thread that dies closes the service (it says why): stop the server, exit 1.
service.closed.catch(() => void stop("the service failed"));
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
