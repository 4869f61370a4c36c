/**
 * tritonffi/openai: an OpenAI-compatible API (`/v1/models`, `/v1/completions`,
 * `/v1/chat/completions`, `/v1/embeddings`) over a running {@link Server} of `tritonffi`, in the
 * same process — what the `openai` client libraries, LangChain and the like talk to. Any
 * decoupled model is served through a declared mapping (vLLM's convention, TensorRT-LLM's, or the
 * model's own tensor names); chat renders the messages with the model's chat template. This entry
 * loads Hono and `@huggingface/jinja`; `tritonffi` itself loads neither.
 *
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serveOpenAI } from "tritonffi/openai";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using openai = await serveOpenAI(server, {
 *   port: 0, // any free port (default 9000)
 *   models: { "my-llm": { model: "tiny_llm", mapping: "vllm" } }, // a vLLM-backend model
 * });
 * const r = await fetch(`${openai.url}/v1/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "my-llm", prompt: "Hello there", max_tokens: 8 }),
 * });
 * console.log((await r.json()).choices[0].text);
 * ```
 * @module
 */
export {
  openaiHandler,
  type OpenAIOptions,
  type OpenAIRestrictedApis,
  type OpenAIRestrictedCategory,
  type OpenAIService,
  serveOpenAI,
  type ServeOpenAIOptions,
} from "./serving/openai/service.ts";
export type {
  CustomMapping,
  EmbeddingMapping,
  OpenAIEmbeddingModel,
  OpenAIGenerationModel,
  OpenAIModel,
  ParameterTarget,
} from "./serving/openai/mapping.ts";
export type { FetchHandler, HttpService } from "./serving/common/listen.ts";
export type { Restriction } from "./serving/common/restricted.ts";
export type { ToolCallFormat } from "./serving/openai/tool_call_text.ts";
