/**
 * Ownership: responses stay valid while held, a server closes its children, kept views never read
 * freed memory, memory stays bounded without dispose, one binding per library.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { type InferResponse, ResponseQueue, Tensor, TritonError } from "../mod.ts";
import { loadTriton } from "../ffi/mod.ts";
import { env } from "../ffi/runtime.ts";
import { isTritonError } from "./support/assertions.ts";
import {
  collectGarbage,
  idle,
  isFakeCore,
  liveCounter,
  sharedServer,
  sleepInputs,
  startServer,
  stopShared,
} from "./support/env.ts";

after(stopShared);

const fake = await isFakeCore();

const out = (r: InferResponse) => r.output("OUT", "INT32").data[0];

test("Array.fromAsync keeps every response readable", async () => {
  const server = await sharedServer();
  const rs = await Array.fromAsync(
    server.model("sleep_stream").infer({ inputs: sleepInputs(4, 1), id: "kept" }),
  );
  assert.deepEqual(rs.map(out), [0, 1, 2, 3]);
  assert.deepEqual(rs.map((r) => r.id), ["kept", "kept", "kept", "kept"]);
  assert.deepEqual(rs.map((r) => r.parameters.index), [0n, 1n, 2n, 3n]);
  for (const r of rs) r.dispose();
  const [one] = await Array.fromAsync(
    server.model("identity_fp32").infer({
      inputs: { INPUT0: { dtype: "FP32", shape: [1, 3], data: new Float32Array([1, 2, 3]) } },
    }),
  );
  assert.deepEqual(Array.from(one.output("OUTPUT0", "FP32").data), [1, 2, 3]);
  one.dispose();
});

test("a view kept after its loop stays valid, also once the response itself is collected", async () => {
  const server = await sharedServer();
  const n = 4 << 20; // 16 MiB of FP32
  const input = new Float32Array(n).map((_, i) => i % 1000);
  let kept: Float32Array | undefined;
  for await (
    const r of server.model("identity_fp32").infer({
      inputs: { INPUT0: { dtype: "FP32", shape: [1, n], data: input } },
    })
  ) {
    kept = r.output("OUTPUT0", "FP32").data;
  }
  await collectGarbage(); // the response object is unreachable; its buffer follows the view
  assert.equal(kept!.length, n);
  assert.equal(kept![n - 1], (n - 1) % 1000);
  assert.equal(kept![12345], 345);
  assert.equal(server.liveResponses >= 1, true, "the view holds its native response");
});

test("outputs of a response read without casts where the data type is known", async () => {
  const server = await sharedServer();
  using r = await server.model("identity_bytes").inferOne({
    inputs: { INPUT0: { dtype: "BYTES", shape: [1, 2], data: ["a", "é"] } },
  });
  const bytes: Uint8Array[] = r.output("OUTPUT0", "BYTES").data;
  assert.equal(bytes.length, 2);
  assert.deepEqual(r.output("OUTPUT0", "BYTES").strings(), ["a", "é"]);
  assert.throws(() => r.output("OUTPUT0", "FP32"), isTritonError("INVALID_ARG", /is BYTES/));
  assert.throws(() => r.output("NOPE", "FP32"), isTritonError("NOT_FOUND", /'OUTPUT0'/));
});

test("inferOne: the one response of an ordinary model; a decoupled one is UNSUPPORTED", async () => {
  const server = await sharedServer();
  const r = await server.model("identity_int32").inferOne({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, 2], data: new Int32Array([4, 2]) } },
  });
  assert.deepEqual(Array.from(r.output("OUTPUT0", "INT32").data), [4, 2]);
  assert.equal(r.final, true);
  r.dispose();
  await assert.rejects(
    server.model("sleep_stream").inferOne({ inputs: sleepInputs(3, 1) }),
    isTritonError("UNSUPPORTED", /more than one response/),
  );
  await assert.rejects(
    server.model("error_model").inferOne({ inputs: { INPUT0: new Int32Array([1]) } }),
    isTritonError("INTERNAL", /always fails/),
  );
  await idle(server);
});

test("stop() with responses kept: quick, fields read before stay, views detach", async () => {
  // The kept response holds its model: without releasing it first, stop() would wait the whole
  // exit timeout (5 s), on the real core and on the fake one alike. identity_int32 alone: the
  // real core checks once a second whether its models have unloaded, so its stop takes about
  // 1 s even with nothing kept (Python models take longer to unload).
  const server = await startServer({
    exitTimeoutSecs: 5,
    modelControlMode: "explicit",
    startupModels: ["identity_int32"],
  });
  const n = 20_000; // 80,000 bytes: a view (past COPY_LIMIT)
  const stream = server.model("identity_int32").infer({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, n], data: new Int32Array(n).fill(7) } },
    id: "before-stop",
  });
  const r = (await stream.next()).value!; // held, the stream not moved past it
  const view = r.output("OUTPUT0", "INT32").data;
  assert.equal(view[n - 1], 7);
  assert.equal(r.id, "before-stop");
  assert.equal(server.liveResponses, 1);
  const t0 = performance.now();
  await server.stop();
  const ms = performance.now() - t0;
  assert.ok(ms < 2000, `stop() took ${ms.toFixed(0)} ms with a response kept (exit timeout 5 s)`);
  assert.equal(r.disposed, true);
  assert.equal(r.id, "before-stop", "a field read before stop stays readable");
  assert.throws(() => r.model, isTritonError("UNAVAILABLE", /server was stopped/));
  assert.throws(() => r.output("OUTPUT0", "INT32").data, isTritonError("UNAVAILABLE", /released/));
  assert.equal(view.length, 0, "the view was detached, not left over freed memory");
  r.dispose(); // nothing left to release: no call into the deleted server
  await collectGarbage(); // what earlier tests dropped, on the shared server
  const live = await liveCounter();
  if (live) assert.equal(live("response"), 0);
});

test("stop() past the exit timeout: INTERNAL, the server left undeleted, no crash later", async () => {
  // sleep_stream reads a cancellation only after its sleep (5 s): the request outlives both
  // waits of stop() (1 s for the requests, 1 s in TRITONSERVER_ServerStop). Deleting the server
  // then would free it under the model's thread: the real core crashes, the fake one aborts.
  const live = await liveCounter();
  await collectGarbage(); // what earlier tests dropped
  const before = live && { response: live("response"), request: live("request") };
  const server = await startServer({ exitTimeoutSecs: 1 });
  const t0 = performance.now();
  const stream = server.model("sleep_stream").infer({ inputs: sleepInputs(1, 5000) });
  const ended = stream.next().then(() => "a response", (e: unknown) => e);
  await new Promise((r) => setTimeout(r, 100)); // the request reached the model
  await assert.rejects(
    server.stop(),
    isTritonError("INTERNAL", /Exit timeout expired.*stopped but not deleted/),
  );
  const ms = performance.now() - t0;
  assert.ok(ms >= 1900 && ms < 4500, `stop() returned after ${ms.toFixed(0)} ms`);
  const error = await ended;
  assert.ok(error instanceof TritonError, `the stream ended with ${String(error)}`);
  assert.equal(error.code, "UNAVAILABLE");
  await server.stop(); // stopped: nothing more to do
  assert.throws(() => server.models(), isTritonError("UNAVAILABLE", /stopped/));
  // The model wakes, sees the cancellation and answers into a stream that is gone.
  await new Promise((r) => setTimeout(r, 5500 - (performance.now() - t0)));
  await new Promise((r) => setTimeout(r, 200));
  await collectGarbage();
  if (live && before) {
    // The server is still there: the late response and the released request were deleted.
    assert.equal(live("response"), before.response, "the late response was deleted");
    assert.equal(live("request"), before.request, "the released request was deleted");
  }
});

test("aborting after FINAL throws CANCELLED and delivers nothing more", async () => {
  const server = await sharedServer();
  const controller = new AbortController();
  const stream = server.model("sleep_stream").infer({
    inputs: sleepInputs(5, 0),
    signal: controller.signal,
  });
  await idle(server); // all five responses and FINAL arrived before the first next()
  const seen: number[] = [];
  await assert.rejects(
    (async () => {
      for await (const r of stream) {
        seen.push(out(r));
        r.dispose();
        if (seen.length === 2) controller.abort("enough");
      }
    })(),
    isTritonError("CANCELLED", /enough/),
  );
  assert.deepEqual(seen, [0, 1]);
  await collectGarbage();
  const live = await liveCounter();
  if (live) assert.equal(live("response"), 0, "the three never delivered were released");
});

test("a ResponseQueue sees the end of every request: FINAL alone, an error, stop()", async () => {
  const server = await startServer({ exitTimeoutSecs: 5 });
  /** What the documented loop sees: each response's OUT value (or its error code), until FINAL. */
  const drain = async (queue: ResponseQueue) => {
    const got: (number | string | undefined)[] = [];
    for await (const r of queue) {
      using _ = r;
      got.push(r.error ? r.error.code : r.outputs.OUT?.data[0] as number | undefined);
      if (r.final) break;
    }
    return got;
  };
  // repeat_int32 sends its FINAL flag with no response.
  const q1 = new ResponseQueue();
  server.model("repeat_int32").infer({
    inputs: {
      IN: new Int32Array([1, 2]),
      DELAY: new Uint32Array([1, 1]),
      WAIT: new Uint32Array([0]),
    },
    responseQueue: q1,
  });
  assert.deepEqual(await drain(q1), [1, 2, undefined]); // the last: a FINAL with no outputs
  // A model error: the failed response is FINAL.
  const q2 = new ResponseQueue();
  server.model("error_model").infer({ inputs: { INPUT0: new Int32Array([1]) }, responseQueue: q2 });
  assert.deepEqual(await drain(q2), ["INTERNAL"]);
  // stop() with a stream in flight.
  const q3 = new ResponseQueue();
  server.model("sleep_stream").infer({ inputs: sleepInputs(1000, 5), responseQueue: q3 });
  const ending = drain(q3);
  await new Promise((r) => setTimeout(r, 30));
  await server.stop();
  const r3 = await ending;
  assert.equal(r3.at(-1), "UNAVAILABLE");
  assert.deepEqual(r3.slice(0, -1), r3.slice(0, -1).map((_, i) => i), "the responses before");
});

test("bad input of the wrong kind is INVALID_ARG, and the next inference works", async () => {
  const server = await sharedServer();
  const bytesModel = server.model("identity_bytes");
  assert.throws(
    () =>
      bytesModel.infer({
        inputs: { INPUT0: { dtype: "BYTES", shape: [1, 2], data: [1, 2] as unknown as string[] } },
      }),
    isTritonError(
      "INVALID_ARG",
      /BYTES element 0 must be a Uint8Array or a string, not the number 1/,
    ),
  );
  assert.throws(
    () => new Tensor("BYTES", [1], [{}] as unknown as Uint8Array[]),
    isTritonError("INVALID_ARG", /element 0 must be a Uint8Array or a string, not an object/),
  );
  const intModel = server.model("identity_int32");
  assert.throws(
    () =>
      intModel.infer({
        inputs: {
          INPUT0: { dtype: "INT32", shape: [1, 2], data: new Float32Array([1, 2]) },
        },
      }),
    isTritonError("INVALID_ARG", /INT32 data must be a Int32Array, not a Float32Array/),
  );
  // The documented bit carriers are accepted.
  new Tensor("BOOL", [1], new Uint8Array([1]));
  new Tensor("BF16", [1], new Uint16Array([0x3f80]));
  new Tensor("FP16", [1], new Uint16Array([0x3c00]));
  using r = await intModel.inferOne({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, 2], data: new Int32Array([1, 2]) } },
  });
  assert.deepEqual(Array.from(r.output("OUTPUT0", "INT32").data), [1, 2]);
  await idle(server); // nothing of the refused requests stays in flight
});

test("one binding per library: the same path shares it, another library has its own", {
  skip: !fake && "loads a second copy of the library (done with the fake core only)",
}, async () => {
  const a = await loadTriton();
  const b = await loadTriton();
  assert.equal(a, b);
  assert.equal(a.binding, b.binding);
  assert.equal(a.binding.lib.api, a.api); // the binding calls its own library
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-lib-"));
  const copy = join(dir, "libtritonserver.so");
  copyFileSync(env("TRITONSERVER_LIB")!, copy);
  const other = await loadTriton(copy);
  assert.notEqual(other, a);
  assert.notEqual(other.binding, a.binding);
  assert.notEqual(other.binding.callbacks.responseComplete, a.binding.callbacks.responseComplete);
  assert.equal(other.binding.lib.api, other.api);
  assert.equal(other.binding.lib.path, copy);
});

/** RSS in bytes after a full collection. */
async function rss(): Promise<number> {
  await collectGarbage();
  return process.memoryUsage().rss;
}

test(
  "100,000 undisposed identity_fp32 inferences with 64 KiB outputs keep memory bounded",
  { timeout: 300_000 },
  async () => {
    const server = await sharedServer();
    const model = server.model("identity_fp32");
    const n = 16 << 10; // 64 KiB of FP32
    const data = new Float32Array(n).fill(1.5);
    const inputs = { INPUT0: { dtype: "FP32" as const, shape: [1, n], data } };
    const base = await rss();
    let peakLive = 0;
    let next = 0;
    let sum = 0;
    const worker = async () => {
      while (next < 100_000) {
        next++;
        for await (const r of model.infer({ inputs })) {
          sum += r.output("OUTPUT0", "FP32").data[n - 1];
          peakLive = Math.max(peakLive, server.liveResponses);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await idle(server, 10_000);
    const growth = (await rss()) - base;
    assert.equal(sum, 100_000 * 1.5);
    assert.ok(peakLive <= 256 + 8, `native responses held at once: ${peakLive}`);
    assert.ok(growth < 256 * 2 ** 20, `RSS grew by ${(growth / 2 ** 20).toFixed(0)} MiB`);
    assert.equal(server.liveResponses, 0, "all released once collected");
  },
);

test(
  "a 100,000-response stream, nothing disposed, keeps memory bounded",
  { timeout: 300_000 },
  async () => {
    const server = await sharedServer();
    const base = await rss();
    let count = 0;
    let peakLive = 0;
    for await (const r of server.model("sleep_stream").infer({ inputs: sleepInputs(100_000, 0) })) {
      if (out(r) !== count) throw new Error(`response ${count} carried ${out(r)}`);
      count++;
      if ((count & 1023) === 0) peakLive = Math.max(peakLive, server.liveResponses);
    }
    await idle(server, 10_000);
    const growth = (await rss()) - base;
    assert.equal(count, 100_000);
    assert.ok(peakLive <= 256 + 1024, `native responses held at once: ${peakLive}`);
    assert.ok(growth < 256 * 2 ** 20, `RSS grew by ${(growth / 2 ** 20).toFixed(0)} MiB`);
    assert.equal(server.liveResponses, 0, "all released once collected");
  },
);

test("a response read after a failed start() or on a stopped server is a TritonError", async () => {
  const server = await startServer();
  await server.stop();
  assert.throws(
    () => server.model("identity_int32").infer({ inputs: { INPUT0: new Int32Array([1]) } }),
    (e: unknown) => e instanceof TritonError && e.code === "UNAVAILABLE",
  );
});
