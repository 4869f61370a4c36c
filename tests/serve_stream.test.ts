/**
 * `serve()` streaming and lifetime: generate_stream over decoupled models read as Server-Sent
 * Events, a client that disconnects mid-stream cancelling its request in Triton (the model stops
 * early, nothing stays in flight), concurrent streams, and closing the service gracefully.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { test } from "./support/test.ts";
import { serve } from "../serve.ts";
import {
  postJson,
  type Serving,
  settled,
  sseEvents,
  startServing,
  stopServing,
} from "./support/serve.ts";
import { inflightCounter } from "./support/env.ts";

/** Requests in flight for the whole service, its workers' too (see inflightCounter). */
const inflight = await inflightCounter();

let s: Serving;
before(async () => {
  s = await startServing();
});
after(async () => {
  await stopServing(s);
});

const decoder = new TextDecoder();

/** Reads SSE events from a response body one by one. */
function eventReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  let buffer = "";
  return {
    reader,
    /** The next event's JSON, or undefined at the end. */
    async next(): Promise<Record<string, unknown> | undefined> {
      while (!buffer.includes("\n\n")) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
      const at = buffer.indexOf("\n\n");
      const event = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      return sseEvents(event + "\n\n")[0] as Record<string, unknown>;
    },
  };
}

/** Waits until the server has nothing in flight; returns how long that took (ms). */
async function untilIdle(timeoutMs = 10_000): Promise<number> {
  const t0 = performance.now();
  while (inflight(s.server) > 0 || s.http.active > 0) {
    if (performance.now() - t0 > timeoutMs) {
      throw new Error(`${inflight(s.server)} requests still in flight`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
}

describe("generate_stream", () => {
  test("a decoupled model's responses arrive as SSE events, each as it is produced", async () => {
    const t0 = performance.now();
    const r = await postJson(`${s.url}/v2/models/sleep_stream/generate_stream`, {
      id: "s1",
      COUNT: 4,
      DELAY_MS: 200,
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/event-stream; charset=utf-8");
    const events = eventReader(r.body!);
    const first = await events.next();
    const firstAt = performance.now() - t0;
    const rest = [];
    for (let e = await events.next(); e !== undefined; e = await events.next()) rest.push(e);
    const total = performance.now() - t0;
    const all = [first!, ...rest];
    assert.deepEqual(all.map((e) => e.OUT), [0, 1, 2, 3]);
    assert.deepEqual(all.map((e) => e.index), [0, 1, 2, 3]);
    assert.deepEqual(all.map((e) => e.last), [false, false, false, true]);
    for (const e of all) {
      assert.equal(e.id, "s1");
      assert.equal(e.model_name, "sleep_stream");
      assert.equal(e.model_version, "1");
    }
    // Three responses 200 ms apart follow the first: sent as they come, they span some 600 ms
    // (all at the end: none). 300 ms leaves room for a loaded machine (seen once with responses
    // 100 ms apart and 200 asked: the first event at 305 ms, the last at 447).
    assert.ok(firstAt < total - 300, `first event at ${firstAt} ms, stream done at ${total} ms`);
    await settled(s);
  });

  test("array inputs shaped from the model's metadata (repeat_int32)", async () => {
    const r = await postJson(`${s.url}/v2/models/repeat_int32/generate_stream`, {
      IN: [10, 20, 30],
      DELAY: [0, 0, 0],
      WAIT: 0,
    });
    assert.equal(r.status, 200);
    const events = sseEvents(await r.text()) as { OUT: number; IDX: number }[];
    assert.deepEqual(events.map((e) => e.OUT), [10, 20, 30]);
    assert.deepEqual(events.map((e) => e.IDX), [0, 1, 2]);
    await settled(s);
  });

  test("a first response carrying an error sets the status; the body says it as an event", async () => {
    const r = await postJson(`${s.url}/v2/models/error_model/generate_stream`, { INPUT0: [1, 2] });
    assert.equal(r.status, 500);
    assert.equal(r.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.deepEqual(sseEvents(await r.text()), [{
      error: "error_model: this model always fails",
    }]);
    await settled(s);
  });

  test("a request that fails before inference is a JSON error", async () => {
    const r = await postJson(`${s.url}/v2/models/sleep_stream/generate_stream`, {
      COUNT: "three",
      DELAY_MS: 1,
    });
    assert.equal(r.status, 400);
    assert.equal(r.headers.get("content-type"), "application/json");
    assert.match((await r.json()).error, /element 0 of 'data' is "three", not an INT32/);
  });

  test("32 concurrent streams each get their own responses", async () => {
    const results = await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        const r = await postJson(`${s.url}/v2/models/repeat_int32/generate_stream`, {
          id: `c${i}`,
          IN: [i, i + 1, i + 2],
          DELAY: [1, 1, 1],
          WAIT: 0,
        });
        return (sseEvents(await r.text()) as { id: string; OUT: number }[]).map((e) =>
          `${e.id}:${e.OUT}`
        );
      }),
    );
    for (const [i, events] of results.entries()) {
      assert.deepEqual(events, [`c${i}:${i}`, `c${i}:${i + 1}`, `c${i}:${i + 2}`]);
    }
    await settled(s);
  });
});

describe("a client that goes away cancels its request", () => {
  // sleep_stream with COUNT 100 and DELAY_MS 50 runs 5 s unless cancelled; cancelled, it stops
  // before its next response.
  const long = { COUNT: 100, DELAY_MS: 50 };

  test("aborting the fetch mid-stream", async () => {
    const controller = new AbortController();
    const t0 = performance.now();
    const r = await fetch(`${s.url}/v2/models/sleep_stream/generate_stream`, {
      method: "POST",
      body: JSON.stringify(long),
      signal: controller.signal,
    });
    const events = eventReader(r.body!);
    assert.equal((await events.next())?.OUT, 0);
    assert.equal((await events.next())?.OUT, 1);
    assert.equal(inflight(s.server), 1);
    controller.abort();
    const wait = await untilIdle();
    const total = performance.now() - t0;
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    assert.ok(total < 2500, `the stream of 5 s ended after ${total.toFixed(0)} ms`);
    await settled(s);
  });

  test("cancelling the body reader mid-stream", async () => {
    const t0 = performance.now();
    const r = await postJson(`${s.url}/v2/models/sleep_stream/generate_stream`, long);
    const events = eventReader(r.body!);
    assert.equal((await events.next())?.OUT, 0);
    await events.reader.cancel();
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    assert.ok(performance.now() - t0 < 2500);
    await settled(s);
  });

  test("leaving before the first response", async () => {
    // 40 responses 100 ms apart (4 s); the client leaves at 30 ms, before the first one.
    const controller = new AbortController();
    const pending = fetch(`${s.url}/v2/models/sleep_stream/generate_stream`, {
      method: "POST",
      body: JSON.stringify({ COUNT: 40, DELAY_MS: 100 }),
      signal: controller.signal,
    }).catch((e) => e);
    for (let i = 0; i < 200 && inflight(s.server) === 0; i++) {
      await new Promise((r) => setTimeout(r, 2));
    }
    assert.equal(inflight(s.server), 1);
    await new Promise((r) => setTimeout(r, 30));
    controller.abort();
    assert.ok((await pending) instanceof Error);
    const wait = await untilIdle();
    assert.ok(wait < 1500, `the request ended ${wait.toFixed(0)} ms after the client left`);
    await settled(s);
  });
});

describe("closing the service", () => {
  test("close() lets a stream in flight finish, then refuses connections", async () => {
    const http = await serve(s.server, { port: 0 });
    const r = await postJson(`${http.url}/v2/models/sleep_stream/generate_stream`, {
      COUNT: 3,
      DELAY_MS: 100,
    });
    const text = r.text();
    assert.equal(http.active, 1);
    const t0 = performance.now();
    await http.close();
    const closedAfter = performance.now() - t0;
    assert.deepEqual((sseEvents(await text) as { OUT: number }[]).map((e) => e.OUT), [0, 1, 2]);
    assert.ok(closedAfter > 150, `close() returned after ${closedAfter.toFixed(0)} ms`);
    assert.equal(http.active, 0);
    await assert.rejects(fetch(`${http.url}/v2/health/live`));
    await http.closed;
    await http.close(); // twice is fine
    await settled(s);
  });

  test("close({ timeoutMs }) ends the streams still open and cancels their requests", async () => {
    const http = await serve(s.server, { port: 0 });
    const r = await postJson(`${http.url}/v2/models/sleep_stream/generate_stream`, {
      COUNT: 100,
      DELAY_MS: 50,
    });
    const text = r.text();
    await new Promise((resolve) => setTimeout(resolve, 120));
    const t0 = performance.now();
    await http.close({ timeoutMs: 200 });
    const closedAfter = performance.now() - t0;
    const events = sseEvents(await text) as { OUT?: number; error?: string }[];
    assert.ok(closedAfter >= 190 && closedAfter < 2000, `closed after ${closedAfter} ms`);
    assert.ok(events.length >= 3 && events.length < 50, `${events.length} events`);
    assert.deepEqual(events.at(-1), { error: "the HTTP service is closing" });
    assert.deepEqual(
      events.slice(0, -1).map((e) => e.OUT),
      events.slice(0, -1).map((_, i) => i),
    );
    await untilIdle();
    await settled(s);
    await assert.rejects(
      http.close({ timeoutMs: -1 }).then(() => {
        throw new Error("closing twice resolves, but a bad timeout is refused first");
      }),
      /timeoutMs must be a number/,
    );
  });

  test("aborting the signal given to serve() closes it", async () => {
    const controller = new AbortController();
    const http = await serve(s.server, { port: 0, signal: controller.signal });
    assert.equal((await fetch(`${http.url}/v2/health/ready`)).status, 200);
    controller.abort();
    await http.closed;
    await assert.rejects(fetch(`${http.url}/v2/health/ready`));
  });

  test("await using closes it", async () => {
    let url: string;
    {
      await using http = await serve(s.server, { port: 0 });
      url = http.url;
      assert.equal((await fetch(`${url}/v2/health/live`)).status, 200);
    }
    await assert.rejects(fetch(`${url}/v2/health/live`));
  });
});
