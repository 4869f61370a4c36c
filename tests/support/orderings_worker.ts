/**
 * A worker thread for tests/support/workers_orderings.ts: posted `{ handle, task }`, it attaches
 * to the shared server and works until its work fails or the test posts `"stop"`, reporting every
 * step — `attached` (or `attach-failed` with the error), `working` after its first success,
 * `ended` with how many it did and the error that ended it, then `done` once its own `stop()`
 * settled. Nothing it does is left unreported: every error is caught and posted.
 *
 * @module
 */
import { Server, type SharedServerHandle, TritonError } from "../../mod.ts";

/** What a worker does once attached: infer identity_int32 again and again, read one long
 * repeat_int32 stream, or hold the attachment idle. */
export type OrderingTask = "infer-loop" | "stream" | "idle";

type Post = (message: unknown) => void;

function errorOf(e: unknown): { code: string; message: string } {
  return e instanceof TritonError
    ? { code: e.code, message: e.message }
    : { code: "JS", message: String(e) };
}

let stopAsked = false;
let wake: (() => void) | undefined;

async function run(handle: SharedServerHandle, task: OrderingTask, post: Post): Promise<void> {
  let server: Server;
  try {
    server = await Server.attach(handle);
  } catch (e) {
    post({ kind: "attach-failed", error: errorOf(e) });
    return;
  }
  post({ kind: "attached" });
  let count = 0;
  let error: { code: string; message: string } | undefined;
  try {
    if (task === "infer-loop") {
      const data = new Int32Array(16).map((_, i) => i * 3 + 1);
      while (!stopAsked) {
        using r = await server.model("identity_int32").inferOne({
          inputs: { INPUT0: { dtype: "INT32", shape: [1, 16], data } },
        });
        const out = r.outputs.OUTPUT0.data as Int32Array;
        if (!out.every((v, i) => v === data[i])) throw new Error(`wrong output ${out}`);
        if (++count === 1) post({ kind: "working" });
      }
    } else if (task === "stream") {
      // 3 s of responses: long enough to be cut by the owner's stop, short enough to end within
      // the exit timeout where the model does not read cancellation (the real core's repeat
      // backend goes on to its last response).
      const n = 3000;
      const stream = server.model("repeat_int32").infer({
        inputs: {
          IN: new Int32Array(n).map((_, i) => i),
          DELAY: new Uint32Array(n).fill(1),
          WAIT: new Uint32Array([0]),
        },
      });
      for await (const r of stream) {
        if ((r.outputs.OUT.data as Int32Array)[0] !== count) throw new Error("out of order");
        if (++count === 1) post({ kind: "working" });
        if (stopAsked) break;
      }
    } else {
      post({ kind: "working" });
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } catch (e) {
    error = errorOf(e);
  }
  post({ kind: "ended", count, error });
  try {
    await server.stop();
    post({ kind: "done" });
  } catch (e) {
    post({ kind: "done", error: errorOf(e) });
  }
}

function onMessage(m: { handle?: SharedServerHandle; task?: OrderingTask } | "stop", post: Post) {
  if (m === "stop") {
    stopAsked = true;
    wake?.();
    return;
  }
  void run(m.handle!, m.task!, post);
}

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
if (isNode) {
  const { parentPort } = await import("node:worker_threads");
  const port = parentPort!;
  port.on("message", (m) => onMessage(m, (x) => port.postMessage(x)));
} else {
  const self = globalThis as unknown as {
    onmessage: ((e: MessageEvent) => void) | null;
    postMessage(message: unknown): void;
  };
  self.onmessage = (e) => onMessage(e.data, (x) => self.postMessage(x));
}
