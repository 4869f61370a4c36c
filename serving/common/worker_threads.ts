/**
 * Worker threads one way on every runtime, for the front ends' `workers` option: a Deno or Bun
 * `Worker` (a module worker), a `node:worker_threads` worker on Node. The owner's side
 * ({@link spawnWorker}) says when the thread died — an uncaught error on every runtime, its exit
 * on Node (`"exit"`) and Bun (`"close"`); Deno reports no end of a worker other than an error — and
 * the worker's side ({@link parentPort}) is where it talks to the owner.
 *
 * @module
 */
import { runtimeName } from "../../ffi/mod.ts";

/** The owner's handle on one worker thread. */
export interface WorkerThread {
  /** Posts `message` (structured clone). */
  post(message: unknown): void;
  /** Ends the thread at once (what it still runs is dropped). With `expected` false (tests),
   * the end is reported as a death where the runtime reports it. @default true */
  terminate(expected?: boolean): Promise<void>;
}

/** What the owner hears of a worker. */
export interface WorkerEvents {
  /** A message the worker posted. */
  message(data: unknown): void;
  /** The thread died or ended without being asked: why, in words. Called at most once. */
  died(reason: string): void;
}

/** The part of a Deno or Bun `Worker` used here (their types differ slightly). */
interface WebWorker {
  postMessage(message: unknown): void;
  terminate(): void;
  addEventListener(type: string, listener: (event: Event) => void): void;
}

/** Starts the module at `url` as a worker thread. */
export async function spawnWorker(url: URL, events: WorkerEvents): Promise<WorkerThread> {
  let ended = false;
  const died = (reason: string) => {
    if (ended) return;
    ended = true;
    events.died(reason);
  };
  if (runtimeName() === "node") {
    const { Worker } = await import("node:worker_threads");
    const worker = new Worker(url);
    worker.on("message", (data) => events.message(data));
    worker.on("error", (e) => died(`uncaught error: ${e instanceof Error ? e.message : e}`));
    worker.on("exit", (code) => died(`it exited (code ${code})`));
    return {
      post: (m) => worker.postMessage(m),
      terminate: async (expected = true) => {
        if (expected) ended = true;
        await worker.terminate();
      },
    };
  }
  const WorkerClass = (globalThis as unknown as {
    Worker: new (url: string, options: { type: "module" }) => WebWorker;
  }).Worker;
  const worker = new WorkerClass(url.href, { type: "module" });
  worker.addEventListener("message", (e) => events.message((e as MessageEvent).data));
  worker.addEventListener("error", (e) => {
    // Handled here: the owner's process goes on (and closes the service).
    e.preventDefault();
    died(`uncaught error: ${(e as ErrorEvent).message}`);
  });
  // Bun: the worker's thread ended (terminated, or its loop ran out).
  worker.addEventListener("close", () => died("its thread ended"));
  return {
    post: (m) => worker.postMessage(m),
    terminate: (expected = true) => {
      if (expected) ended = true;
      worker.terminate();
      return Promise.resolve();
    },
  };
}

/** A worker's line to its owner. */
export interface ParentPort {
  post(message: unknown): void;
  /** Calls `listener` with each message the owner posts. */
  listen(listener: (data: unknown) => void): void;
}

/** This worker's line to its owner (`node:worker_threads`' `parentPort` on Node, the worker's
 * global scope on Deno and Bun). */
export async function parentPort(): Promise<ParentPort> {
  if (runtimeName() === "node") {
    const { parentPort: port } = await import("node:worker_threads");
    if (port === null) throw new Error("not in a worker thread");
    return {
      post: (m) => port.postMessage(m),
      listen: (listener) => void port.on("message", listener),
    };
  }
  const scope = globalThis as unknown as {
    postMessage(message: unknown): void;
    addEventListener(type: "message", listener: (e: MessageEvent) => void): void;
  };
  return {
    post: (m) => scope.postMessage(m),
    listen: (listener) => scope.addEventListener("message", (e) => listener(e.data)),
  };
}
