import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { type InferResponse, ResponseQueue, type Server, TritonError } from "../mod.ts";
import {
  collect,
  collectGarbage,
  idle,
  liveCounter,
  sharedServer,
  sleepInputs,
  startServer,
  stopShared,
} from "./support/env.ts";

after(stopShared);

function out(r: InferResponse): number {
  return (r.outputs.OUT.data as Int32Array)[0];
}

/** Waits until the server has nothing in flight and (on the fake core) nothing alive, once the
 * responses the test dropped without disposing were garbage-collected. */
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
    assert.equal(live("buffer"), 0, "live allocator buffers");
  }
}

test("one request's generator serves several concurrent awaits", async () => {
  const server = await sharedServer();
  const stream = server.model("sleep_stream").infer({ inputs: sleepInputs(3, 30) });
  const values = await Promise.all(
    [0, 1, 2, 3].map(() => stream.next().then((r) => (r.done ? "end" : out(r.value)))),
  );
  assert.deepEqual(values, [0, 1, 2, "end"]);
});

test("many requests run concurrently: total time near the longest delay", async () => {
  const server = await sharedServer();
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from(
      { length: 8 },
      () => collect(server.model("sleep_stream").infer({ inputs: sleepInputs(1, 300) })),
    ),
  );
  const elapsed = performance.now() - t0;
  assert.deepEqual(results.map((r) => r.map(out)), new Array(8).fill([0]));
  assert.ok(elapsed < 8 * 300 / 2, `8 requests of 300 ms took ${elapsed.toFixed(0)} ms`);
});

test("a request started late but finishing early yields first", async () => {
  const server = await sharedServer();
  const order: string[] = [];
  const slow = collect(server.model("sleep_stream").infer({ inputs: sleepInputs(1, 400) }))
    .then(() => order.push("slow"));
  await new Promise((r) => setTimeout(r, 20));
  const fast = collect(server.model("sleep_stream").infer({ inputs: sleepInputs(1, 10) }))
    .then(() => order.push("fast"));
  await Promise.all([slow, fast]);
  assert.deepEqual(order, ["fast", "slow"]);
});

test("responses carry their parameters", async () => {
  const server = await sharedServer();
  const responses = await collect(
    server.model("sleep_stream").infer({ inputs: sleepInputs(2, 1) }),
  );
  assert.deepEqual(responses.map((r) => r.parameters), [
    { index: 0n, last: false, source: "sleep_stream" },
    { index: 1n, last: true, source: "sleep_stream" },
  ]);
});

test("a response reads its fields on first use; after dispose, unread fields throw", async () => {
  const server = await sharedServer();
  const stream = server.model("sleep_stream").infer({ inputs: sleepInputs(3, 1), id: "req-7" });
  const first = (await stream.next()).value!;
  assert.equal(first.id, "req-7");
  assert.equal(first.disposed, false);
  first.dispose();
  assert.equal(first.disposed, true);
  assert.equal(first.id, "req-7", "a field read before stays readable");
  assert.equal(first.final, false);
  assert.throws(() => first.model, isUnavailable);
  assert.throws(() => first.parameters, isUnavailable);
  assert.throws(() => first.outputs, isUnavailable);
  // Moving on leaves the responses handed out readable, every field of them.
  const second = (await stream.next()).value!;
  const third = (await stream.next()).value!;
  assert.equal((await stream.next()).done, true);
  await idle(server);
  assert.equal(second.model.name, "sleep_stream");
  assert.ok(second.model.version >= 1, "the version that ran, not -1");
  assert.deepEqual(second.parameters, { index: 1n, last: false, source: "sleep_stream" });
  assert.deepEqual([out(second), out(third)], [1, 2]);
  assert.equal(third.id, "req-7");
  await settled(server);
});

test("throw() on a stream cancels the request and rejects with the given error", async () => {
  const server = await sharedServer();
  const stream = server.model("sleep_stream").infer({ inputs: sleepInputs(1000, 1) });
  const first = (await stream.next()).value!;
  assert.equal(out(first), 0);
  const reason = new Error("enough");
  await assert.rejects(stream.throw(reason), (e: unknown) => e === reason);
  assert.equal(out(first), 0, "a response handed out stays readable");
  assert.deepEqual(await stream.next(), { value: undefined, done: true });
  first.dispose();
  await settled(server);
});

function isUnavailable(e: unknown): boolean {
  return e instanceof TritonError && e.code === "UNAVAILABLE";
}

test("a model error is thrown as a TritonError with Triton's code and message", async () => {
  const server = await sharedServer();
  const stream = server.model("error_model").infer({ inputs: { INPUT0: new Int32Array([1]) } });
  await assert.rejects(collect(stream), (e: unknown) => {
    assert.ok(e instanceof TritonError);
    assert.equal(e.code, "INTERNAL");
    assert.match(e.message, /error_model: this model always fails/);
    return true;
  });
  await settled(server);
});

test("raiseOnError: false yields the failed response with its error", async () => {
  const server = await sharedServer();
  const responses = await collect(
    server.model("error_model").infer({
      inputs: { INPUT0: new Int32Array([1]) },
      raiseOnError: false,
    }),
  );
  assert.equal(responses.length, 1);
  assert.ok(responses[0].error instanceof TritonError);
  assert.match(responses[0].error.message, /always fails/);
  assert.deepEqual(responses[0].outputs, {});
});

/** Milliseconds until nothing is in flight (at most 10 s). */
async function untilIdle(server: Server): Promise<number> {
  const t0 = performance.now();
  await idle(server);
  return performance.now() - t0;
}

test("break from a stream of 1000 responses cancels it in the model and releases everything", async () => {
  const server = await sharedServer();
  let seen = 0;
  // 1000 responses 5 ms apart: 5 s if the model were not told (sleep_stream releases its request
  // at once, so the cancel must reach it after the release).
  for await (const r of server.model("sleep_stream").infer({ inputs: sleepInputs(1000, 5) })) {
    assert.equal(out(r), seen);
    r.dispose();
    if (++seen === 5) break;
  }
  assert.equal(seen, 5);
  const ms = await untilIdle(server);
  assert.ok(ms < 2500, `the model stopped ${ms.toFixed(0)} ms after the break (not cancelled)`);
  await settled(server);
});

test("leaving a stream whose FINAL already came disposes the responses still queued", async () => {
  const server = await sharedServer();
  await collectGarbage();
  const base = server.liveResponses; // held by earlier tests
  const stream = server.model("sleep_stream").infer({ inputs: sleepInputs(4, 1) });
  await idle(server); // all four responses and the FINAL flag arrive before the first next()
  let kept: InferResponse | undefined;
  for await (const r of stream) {
    assert.equal(out(r), 0);
    kept = r;
    break;
  }
  await idle(server);
  assert.equal(server.liveResponses - base, 0, "all released, the one handed out too");
  assert.equal(out(kept!), 0, "the one handed out is still readable");
  kept!.dispose();
  await settled(server); // on the fake core: no response left alive
});

test("an abort reason that cannot be turned into text still cancels; a non-signal is refused", async () => {
  const server = await sharedServer();
  const controller = new AbortController();
  controller.abort(Symbol("why"));
  const stream = server.model("sleep_stream").infer({
    inputs: sleepInputs(100, 5),
    signal: controller.signal,
  });
  await assert.rejects(
    stream.next(),
    (e: unknown) =>
      e instanceof TritonError && e.code === "CANCELLED" && /Symbol\(why\)/.test(e.message),
  );
  assert.throws(
    () =>
      server.model("sleep_stream").infer({
        inputs: sleepInputs(1, 1),
        signal: {} as AbortSignal,
      }),
    (e: unknown) =>
      e instanceof TritonError && e.code === "INVALID_ARG" && /AbortSignal/.test(e.message),
  );
  await settled(server);
});

test("an AbortSignal fired mid-stream ends it with CANCELLED and delivers nothing more", async () => {
  const server = await sharedServer();
  const controller = new AbortController();
  const seen: number[] = [];
  const queue: InferResponse[] = [];
  await assert.rejects(
    (async () => {
      // 20 ms apart: a loaded machine (the whole suite, Bun's posted JS callbacks) may take a
      // few ms to resume the loop, and a 4th response sent before the abort is rightly queued.
      const stream = server.model("sleep_stream").infer({
        inputs: sleepInputs(1000, 20),
        signal: controller.signal,
        responseQueue: queue,
      });
      for await (const r of stream) {
        seen.push(out(r));
        if (seen.length === 3) controller.abort("enough");
      }
    })(),
    (e: unknown) => e instanceof TritonError && e.code === "CANCELLED" && /enough/.test(e.message),
  );
  assert.deepEqual(seen, [0, 1, 2]);
  const ms = await untilIdle(server); // 1000 responses 20 ms apart: 20 s if the model went on
  assert.ok(ms < 1000, `the model stopped ${ms.toFixed(0)} ms after the abort (not cancelled)`);
  // The three responses, then the request's end: nothing delivered after the abort.
  assert.equal(queue.length, 4, "nothing delivered after the abort");
  assert.deepEqual(queue.slice(0, 3).map(out), [0, 1, 2]);
  const end = queue[3];
  assert.equal(end.final, true);
  assert.equal(end.error?.code, "CANCELLED");
  assert.deepEqual(end.outputs, {});
  for (const r of queue) r.dispose(); // the queue's consumer owns its responses
  await settled(server);
});

test(
  "10,000 requests at concurrency 128 each get exactly their own response",
  { timeout: 300_000 },
  async () => {
    const server = await sharedServer();
    const model = server.model("identity_int32");
    const seen = new Uint8Array(10_000);
    let next = 0;
    const worker = async () => {
      while (next < seen.length) {
        const k = next++;
        for await (
          const r of model.infer({
            inputs: { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([k]) } },
          })
        ) {
          seen[(r.outputs.OUTPUT0.data as Int32Array)[0]]++;
        }
      }
    };
    await Promise.all(Array.from({ length: 128 }, worker));
    assert.equal(seen.filter((n) => n === 1).length, 10_000);
    await settled(server);
  },
);

test("a ResponseQueue receives the responses too, while the generator is not iterated", async () => {
  const server = await sharedServer();
  const queue = new ResponseQueue();
  const stream = server.model("repeat_int32").infer({
    inputs: {
      IN: new Int32Array([4, 5, 6]),
      DELAY: new Uint32Array([1, 1, 1]),
      WAIT: new Uint32Array([0]),
    },
    responseQueue: queue,
  });
  const fromQueue: number[] = [];
  const taken: InferResponse[] = [];
  for (let i = 0; i < 3; i++) {
    const r = (await queue.get())!;
    taken.push(r);
    fromQueue.push((r.outputs.OUT.data as Int32Array)[0]);
  }
  const fromStream: number[] = [];
  for await (const r of stream) fromStream.push((r.outputs.OUT.data as Int32Array)[0]);
  assert.deepEqual(fromQueue, [4, 5, 6]);
  assert.deepEqual(fromStream, [4, 5, 6]);
  // repeat_int32 sends its FINAL flag without a response: the queue gets a stand-in end.
  const end = (await queue.get())!;
  assert.equal(end.final, true);
  assert.equal(end.error, undefined);
  assert.deepEqual(end.outputs, {});
  assert.equal(queue.size, 0);
  for (const r of taken) r.dispose(); // with a queue, its consumer owns the responses
  await settled(server);
});

test("request options are accepted; bad values are rejected before any C call", async () => {
  const server = await sharedServer();
  const model = server.model("identity_int32");
  const inputs = {
    INPUT0: { dtype: "INT32" as const, shape: [1, 2], data: new Int32Array([1, 2]) },
  };
  const [r] = await collect(model.infer({
    inputs,
    id: "opts",
    priority: 1,
    timeoutUs: 5_000_000,
    parameters: { s: "text", i: 3, big: 2n ** 40n, b: true, d: 0.25 },
  }));
  assert.equal(r.id, "opts");
  assert.throws(() => model.infer({ inputs, priority: -1 }), /priority must be an unsigned/);
  assert.throws(() => model.infer({ inputs, timeoutUs: 1.5 }), /timeoutUs must be an unsigned/);
  assert.throws(
    () => model.infer({ inputs, parameters: { x: {} as unknown as string } }),
    /unsupported type object/,
  );
  await settled(server);
});

test("stop() while streams are in flight ends them with an error and does not hang", {
  timeout: 120_000,
}, async () => {
  const live = await liveCounter();
  const before = live?.("total");
  const server = await startServer();
  const streams = Array.from(
    { length: 4 },
    () =>
      collect(server.model("sleep_stream").infer({ inputs: sleepInputs(100, 10) })).then(
        () => "completed",
        (e: unknown) => (e instanceof TritonError ? e.code : String(e)),
      ),
  );
  await new Promise((r) => setTimeout(r, 50));
  await server.stop();
  assert.deepEqual(await Promise.all(streams), new Array(4).fill("UNAVAILABLE"));
  if (live) assert.equal(live("total"), before);
});
