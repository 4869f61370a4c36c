/**
 * A worker thread for tests/workers.test.ts and workers_terminate.ts: it is posted
 * `{ handle, task }`, attaches to the shared server (`Server.attach`) and runs the task, posting
 * `{ kind, ... }` messages back. Runs as a Deno or Bun `Worker` or a `node:worker_threads`
 * worker.
 *
 * @module
 */
import { type InferResponse, Server, type SharedServerHandle, TritonError } from "../../mod.ts";

type Post = (message: unknown) => void;

interface Task {
  readonly handle: SharedServerHandle;
  readonly task: "infer" | "stream-until-stop" | "attach" | "stream-forever" | "load" | "ready";
  /** The model of "load" and "ready". */
  readonly model?: string;
  /** Elements of the repeat_int32 stream. */
  readonly n?: number;
  /** Milliseconds repeat_int32 waits before each response of the long stream. @default 1 */
  readonly delayMs?: number;
}

function errorOf(e: unknown): { code: string; message: string } {
  return e instanceof TritonError
    ? { code: e.code, message: e.message }
    : { code: "JS", message: String(e) };
}

function repeatInputs(values: number[], delayMs: number) {
  return {
    IN: new Int32Array(values),
    DELAY: new Uint32Array(values.length).fill(delayMs),
    WAIT: new Uint32Array([0]),
  };
}

/** What one response of repeat_int32 says: [OUT, IDX]. */
function repeatPair(r: InferResponse): [number, number] {
  return [(r.outputs.OUT.data as Int32Array)[0], (r.outputs.IDX.data as Uint32Array)[0]];
}

async function run(message: Task, post: Post): Promise<void> {
  let server: Server;
  try {
    server = await Server.attach(message.handle);
  } catch (e) {
    post({ kind: "attach-failed", error: errorOf(e) });
    return;
  }
  post({ kind: "attached", attached: server.attached, info: server.info() });
  if (message.task === "attach") {
    await server.stop();
    post({ kind: "done" });
    return;
  }
  if (message.task === "load" || message.task === "ready") {
    const name = message.model!;
    if (message.task === "load") await server.loadModel(name);
    const ready = server.modelReady(name);
    await server.stop();
    post({ kind: "done", ready });
    return;
  }
  if (message.task === "infer") {
    const INPUT0 = new Float32Array(16).map((_, i) => i * 0.5);
    const INPUT1 = new Float32Array(16).map((_, i) => 100 - i);
    using sum = await server.model("add_sub").inferOne({ inputs: { INPUT0, INPUT1 } });
    const n = 20_000; // past the copy limit: a view of Triton's buffer
    const ints = new Int32Array(n).map((_, i) => i * 7 - 3);
    using identity = await server.model("identity_int32").inferOne({
      inputs: { INPUT0: { dtype: "INT32", shape: [1, n], data: ints } },
    });
    const values = Array.from({ length: message.n ?? 20 }, (_, i) => i * 3 - 10);
    const pairs: [number, number][] = [];
    for await (const r of server.model("repeat_int32").infer({ inputs: repeatInputs(values, 0) })) {
      pairs.push(repeatPair(r));
    }
    const cancelled = new AbortController();
    let cancelCode = "";
    try {
      const stream = server.model("repeat_int32").infer({
        inputs: repeatInputs([1, 2, 3, 4, 5, 6, 7, 8], 20),
        signal: cancelled.signal,
      });
      for await (const _ of stream) cancelled.abort("enough");
    } catch (e) {
      cancelCode = errorOf(e).code;
    }
    const identityOut = identity.outputs.OUTPUT0.data as Int32Array;
    post({
      kind: "result",
      sum: Array.from(sum.outputs.OUTPUT0.data as Float32Array),
      diff: Array.from(sum.outputs.OUTPUT1.data as Float32Array),
      identityEqual: identityOut.length === n && identityOut.every((v, i) => v === ints[i]),
      pairs,
      cancelCode,
      metadata: server.model("add_sub").metadata().name,
      serverName: server.metadata().name,
      statistics: server.model("add_sub").statistics().inference_count,
      ready: server.modelReady("identity_int32"),
    });
    await server.stop();
    post({ kind: "done", inflight: server.inflight });
    return;
  }
  // A long stream, read until it ends (the owner stops): its responses and the error.
  const values = Array.from({ length: message.n ?? 100_000 }, (_, i) => i);
  let count = 0;
  let ok = true;
  try {
    const stream = server.model("repeat_int32").infer({
      inputs: repeatInputs(values, message.delayMs ?? 1),
    });
    for await (const r of stream) {
      const [out, idx] = repeatPair(r);
      if (out !== count || idx !== count) ok = false;
      if (++count === 3) post({ kind: "streaming" });
    }
    post({ kind: "stream-ended", count, ok });
  } catch (e) {
    post({ kind: "stream-ended", count, ok, error: errorOf(e) });
  }
  if (message.task === "stream-forever") return; // terminated by the test
  let after: { code: string; message: string } | undefined;
  try {
    server.model("identity_int32").metadata();
  } catch (e) {
    after = errorOf(e);
  }
  await server.stop();
  post({ kind: "done", after });
}

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
if (isNode) {
  const { parentPort } = await import("node:worker_threads");
  const port = parentPort!;
  port.on("message", (m: Task) => void run(m, (x) => port.postMessage(x)));
} else {
  const self = globalThis as unknown as {
    onmessage: ((e: MessageEvent<Task>) => void) | null;
    postMessage(message: unknown): void;
  };
  self.onmessage = (e) => void run(e.data, (x) => self.postMessage(x));
}
