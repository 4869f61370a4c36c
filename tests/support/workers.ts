/**
 * Worker threads for the tests, one way on every runtime: a Deno or Bun `Worker`, a
 * `node:worker_threads` worker on Node. Each runs tests/support/attach_worker.ts; its messages are
 * read in order with {@link TestWorker.next}.
 *
 * @module
 */

/** A worker running attach_worker.ts. */
export interface TestWorker {
  post(message: unknown): void;
  /** The next message (of `kind`, skipping others when given), or an error after `timeoutMs`. */
  next(kind?: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  terminate(): Promise<void>;
}

import { startServer } from "./env.ts";

/** Whether this run's binding has the native callbacks, which attaching to a shared server
 * needs: a server started and stopped to ask. */
export async function nativeCallbacks(): Promise<boolean> {
  const server = await startServer({ modelControlMode: "explicit", startupModels: [] });
  try {
    return server.info().callbacks === "native";
  } finally {
    await server.stop();
  }
}

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
const url = new URL("./attach_worker.ts", import.meta.url);

/** Starts a worker running attach_worker.ts, or the module `script` names. */
export async function startWorker(script: URL = url): Promise<TestWorker> {
  const queue: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  const push = (m: unknown) => {
    queue.push(m as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  };
  let post: (m: unknown) => void;
  let terminate: () => Promise<void>;
  if (isNode) {
    const { Worker } = await import("node:worker_threads");
    const w = new Worker(script);
    w.on("message", push);
    w.on("error", (e) => push({ kind: "worker-error", message: String(e) }));
    post = (m) => w.postMessage(m);
    terminate = async () => void (await w.terminate());
  } else {
    const w = new Worker(script.href, { type: "module" });
    w.onmessage = (e) => push(e.data);
    w.onerror = (e) => push({ kind: "worker-error", message: String(e.message ?? e) });
    post = (m) => w.postMessage(m);
    terminate = () => Promise.resolve(w.terminate());
  }
  return {
    post,
    terminate,
    async next(kind?: string, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (queue.length > 0) {
          const m = queue.shift()!;
          if (m.kind === "worker-error") throw new Error(`worker failed: ${m.message}`);
          if (kind === undefined || m.kind === kind) return m;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no "${kind ?? "any"}" message within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
  };
}
