/**
 * The OpenAI-compatible service in a worker thread of `serveOpenAI()` with `workers` > 1:
 * started by the owner's pool (../common/worker_pool.ts), it serves what `serveOpenAI()` serves on
 * the same port, attached to the owner's server.
 *
 * @module
 */
import { runServeWorker } from "../common/serve_worker.ts";
import { type OpenAIOptions, openaiService } from "./service.ts";

await runServeWorker((server, options, hooks) =>
  openaiService(server, options as OpenAIOptions, hooks)
);
