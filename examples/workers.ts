/**
 * One Triton, several JavaScript threads: this thread starts the server and shares it
 * (`server.share()`); each worker attaches to it (`Server.attach(handle)`) and infers on the same
 * loaded models, with its own callbacks, ring and allocator. Run it:
 * `deno run --allow-ffi --allow-env --allow-read examples/workers.ts`, `bun examples/workers.ts`,
 * `node examples/workers.ts` (the worker is this same file). `WORKERS` sets how many (default 2),
 * `MODEL_REPOSITORY` the repository (default tests/models).
 *
 * Prints one line per worker (`worker 0: add_sub 16 sums, first 3`) and `stopped`.
 *
 * @module
 */
import process from "node:process";
import { Server, type SharedServerHandle } from "../mod.ts";

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
const self = globalThis as unknown as {
  postMessage(message: unknown): void;
  onmessage: ((e: MessageEvent) => void) | null;
};

/** What a worker does: attach, infer, detach (`await using` stops the attached server, which
 * leaves Triton running). */
async function work(handle: SharedServerHandle, index: number): Promise<string> {
  // On Bun attaching is an opt-in: a worker terminated while Triton holds its requests is not
  // safe there. This one stops its server (`await using`) before it ends.
  await using server = await Server.attach(handle, { allowBunWorkers: true });
  const INPUT0 = new Float32Array(16).fill(index + 1);
  const INPUT1 = new Float32Array(16).fill(2);
  using response = await server.model("add_sub").inferOne({ inputs: { INPUT0, INPUT1 } });
  const sum = response.output("OUTPUT0", "FP32").data;
  return `worker ${index}: add_sub ${sum.length} sums, first ${sum[0]}`;
}

/** Starts this file as a worker thread; resolves with the line it posts back. */
async function runWorker(handle: SharedServerHandle, index: number): Promise<string> {
  const url = new URL(import.meta.url);
  if (isNode) {
    const { Worker } = await import("node:worker_threads");
    const worker = new Worker(url, { workerData: { handle, index } });
    const line = await new Promise<string>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    return line;
  }
  const worker = new Worker(url.href, { type: "module" });
  const line = new Promise<string>((resolve, reject) => {
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => reject(new Error(e.message));
  });
  worker.postMessage({ handle, index });
  try {
    return await line;
  } finally {
    worker.terminate();
  }
}

// Which thread this is: Node and Bun say it through node:worker_threads, a Deno worker has a
// WorkerGlobalScope.
const { isMainThread } = await import("node:worker_threads");
const inWorker = !isMainThread || "WorkerGlobalScope" in globalThis;

if (inWorker && isNode) {
  const { parentPort, workerData } = await import("node:worker_threads");
  parentPort!.postMessage(await work(workerData.handle, workerData.index));
} else if (inWorker) {
  self.onmessage = async (e) => {
    self.postMessage(await work(e.data.handle, e.data.index));
    self.onmessage = null;
  };
} else {
  const modelRepository = process.env.MODEL_REPOSITORY ??
    decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);
  await using server = await new Server({ modelRepository, log: { info: false } }).start();
  const handle = server.share();
  const n = Number(process.env.WORKERS ?? 2);
  const lines = await Promise.all(Array.from({ length: n }, (_, i) => runWorker(handle, i)));
  for (const line of lines) console.log(line);
  await server.stop(); // waits for the workers' requests, then stops Triton
  console.log("stopped");
}
