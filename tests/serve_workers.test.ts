/**
 * `serve()` on several threads (its `workers` option): the calling thread and worker threads
 * attached to the one server, each listening on the same port with `reusePort`. Many concurrent
 * requests answered byte-exact by more than one thread (`requestsPerWorker()`); shared memory
 * registered through one connection and used and unregistered through many others; log, trace
 * and restricted-API settings the same whichever thread answers; `close()` under load; a worker
 * that dies under load closes the whole service (`closed` rejects) and nothing crashes; the
 * refusals (JS callbacks, Bun without the opt-in, bad counts, a TraceManager, tracing on).
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { type HttpService, serve, SharedMemoryRegions, TraceManager } from "../serve.ts";
import { WORKER_POOL } from "../serving/common/listen.ts";
import type { WorkerPool } from "../serving/common/worker_pool.ts";
import { runScript, startServer, UNSTABLE_NET_SKIP } from "./support/env.ts";
import { int32s } from "./support/grpc_requests.ts";

const KEY = `/tritonffi-workers-${process.pid}`;
const FILE = `/dev/shm${KEY}`;
const FILE_BYTES = 64 * 1024;
const LINUX = process.platform === "linux";

const server: Server = await startServer();
const native = server.info().callbacks === "native";
/** The test's own view of the shared memory object (a registry no service sees). */
let probe: SharedMemoryRegions | undefined;

before(() => {
  if (LINUX) {
    const made = spawnSync("truncate", ["-s", String(FILE_BYTES), FILE]);
    assert.equal(made.status, 0, `truncate: ${made.stderr}`);
    probe = new SharedMemoryRegions(server);
    probe.register("whole", KEY, 0, FILE_BYTES);
  }
});
after(async () => {
  probe?.close();
  await server?.stop();
  if (LINUX) spawnSync("rm", ["-f", FILE]);
});

const needsNative = () => native ? UNSTABLE_NET_SKIP : "workers > 1 needs the native callbacks";

/** An identity_int32 request of `values` (JSON), and the answer it must get. */
function identity(values: number[]) {
  return {
    body: JSON.stringify({
      inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, values.length], data: values }],
    }),
    expected: {
      name: "OUTPUT0",
      datatype: "INT32",
      shape: [1, values.length],
      data: values,
    },
  };
}

/** POSTs `body` (JSON text or a value) to `path` on a new connection. */
async function post(
  http: HttpService,
  path: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`${http.url}${path}`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { connection: "close", ...headers },
  });
  const text = await r.text();
  return { status: r.status, json: text === "" ? undefined : JSON.parse(text) };
}

/** GETs `path` on a new connection. */
async function get(http: HttpService, path: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${http.url}${path}`, { headers: { connection: "close", ...headers } });
  const text = await r.text();
  return { status: r.status, json: text === "" ? undefined : JSON.parse(text) };
}

/** Runs `n` calls of `call`, `concurrency` at a time. */
async function many<T>(n: number, concurrency: number, call: (i: number) => Promise<T>) {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await call(i);
    }
  }));
  return out;
}

const poolOf = (http: HttpService) =>
  (http as unknown as Record<typeof WORKER_POOL, WorkerPool>)[WORKER_POOL];

test("workers: 2 answers 400 concurrent requests byte-exact, from both threads", {
  skip: needsNative(),
}, async () => {
  await using http = await serve(server, { port: 0, workers: 2 });
  assert.equal(http.workers, 2);
  const results = await many(400, 32, async (i) => {
    const values = Array.from({ length: 16 }, (_, k) => i * 100 + k - 7);
    const { body, expected } = identity(values);
    const r = await post(http, "/v2/models/identity_int32/infer", body);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual((r.json as { outputs: unknown[] }).outputs, [expected]);
    return r.status;
  });
  assert.equal(results.length, 400);
  const counts = http.requestsPerWorker();
  assert.equal(counts.length, 2);
  assert.equal(counts[0] + counts[1], 400);
  assert.ok(counts[0] > 0 && counts[1] > 0, `both threads answered: ${counts}`);
});

test("workers: 1 is the calling thread alone", async () => {
  await using http = await serve(server, { port: 0 });
  assert.equal(http.workers, 1);
  assert.equal((await get(http, "/v2/health/live")).status, 200);
  assert.deepEqual(http.requestsPerWorker(), [1]);
  assert.equal(poolOf(http), undefined);
});

test("shared memory registered through one connection serves every thread, unregistered once", {
  skip: needsNative() || (LINUX ? false : "POSIX shared memory under /dev/shm: Linux"),
}, async () => {
  const regions = new SharedMemoryRegions(server);
  try {
    await using http = await serve(server, { port: 0, workers: 3, sharedMemory: regions });
    const reg = await post(http, "/v2/systemsharedmemory/region/in/register", {
      key: KEY,
      offset: 0,
      byte_size: 32 * 64,
    });
    assert.equal(reg.status, 200, JSON.stringify(reg.json));
    // The owner's registry has it, and every thread reports it.
    assert.deepEqual(regions.status(), [{ name: "in", key: KEY, offset: 0, byteSize: 2048 }]);
    const statuses = await many(30, 10, () => get(http, "/v2/systemsharedmemory/status"));
    for (const s of statuses) {
      assert.deepEqual(s.json, [{ name: "in", key: KEY, offset: 0, byte_size: 2048 }]);
    }
    // 32 parts of 16 INT32 each, each read by its own request on a new connection.
    const values = (i: number) => Array.from({ length: 16 }, (_, k) => i * 1000 + k);
    for (let i = 0; i < 32; i++) {
      const lease = probe!.lease("whole", i * 64, 64);
      lease.bytes.set(int32s(values(i)));
      lease.release();
    }
    const before = http.requestsPerWorker();
    await many(96, 16, async (j) => {
      const i = j % 32;
      const r = await post(http, "/v2/models/identity_int32/infer", {
        inputs: [{
          name: "INPUT0",
          datatype: "INT32",
          shape: [1, 16],
          parameters: {
            shared_memory_region: "in",
            shared_memory_byte_size: 64,
            shared_memory_offset: i * 64,
          },
        }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.deepEqual((r.json as { outputs: { data: number[] }[] }).outputs[0].data, values(i));
    });
    const after = http.requestsPerWorker();
    const served = after.map((n, k) => n - before[k]);
    assert.equal(served.filter((n) => n > 0).length >= 2, true, `threads used: ${served}`);
    // Registering the name again through any thread: ALREADY_EXISTS, as on one thread.
    const again = await many(6, 6, () =>
      post(http, "/v2/systemsharedmemory/region/in/register", {
        key: KEY,
        byte_size: 64,
      }));
    for (const a of again) {
      assert.equal(a.status, 400, JSON.stringify(a.json));
      assert.deepEqual(a.json, { error: "shared memory region 'in' already in manager" });
    }
    // Unregistered through one connection: gone for every thread.
    assert.equal((await post(http, "/v2/systemsharedmemory/region/in/unregister")).status, 200);
    assert.deepEqual(regions.status(), []);
    const gone = await many(12, 6, () =>
      post(http, "/v2/models/identity_int32/infer", {
        inputs: [{
          name: "INPUT0",
          datatype: "INT32",
          shape: [1, 16],
          parameters: { shared_memory_region: "in", shared_memory_byte_size: 64 },
        }],
      }));
    for (const g of gone) {
      assert.equal(g.status, 404, JSON.stringify(g.json));
      assert.deepEqual(g.json, { error: "Unable to find shared memory region: 'in'" });
    }
    // A region the owner's registry takes by itself (as serveGrpc() given it would) reaches the
    // workers too.
    regions.register("direct", KEY, 4096, 64);
    await new Promise((r) => setTimeout(r, 200));
    const direct = await many(
      12,
      6,
      () => get(http, "/v2/systemsharedmemory/region/direct/status"),
    );
    for (const d of direct) assert.equal(d.status, 200, JSON.stringify(d.json));
  } finally {
    regions.close();
  }
});

test("log, trace and restricted-API settings are the same whichever thread answers", {
  skip: needsNative(),
}, async () => {
  const restrictedApis = { "model-repository": { header: "admin-key", value: "s3cret" } };
  await using http = await serve(server, { port: 0, workers: 2, restrictedApis });
  const initialLog = (await get(http, "/v2/logging")).json as Record<string, unknown>;
  try {
    const changed = await post(http, "/v2/logging", { log_verbose_level: 3 });
    assert.equal(changed.status, 200, JSON.stringify(changed.json));
    const logs = await many(20, 10, () => get(http, "/v2/logging"));
    for (const l of logs) {
      assert.equal((l.json as { log_verbose_level: number }).log_verbose_level, 3);
    }
    const trace = await post(http, "/v2/trace/setting", { trace_rate: "7" });
    assert.equal(trace.status, 200, JSON.stringify(trace.json));
    const traces = await many(20, 10, () => get(http, "/v2/trace/setting"));
    for (const t of traces) assert.equal((t.json as { trace_rate: string }).trace_rate, "7");
    // Tracing on: refused, on every thread, and nothing changed.
    const on = await many(
      6,
      6,
      () => post(http, "/v2/trace/setting", { trace_level: ["TIMESTAMPS"], trace_file: "x" }),
    );
    for (const o of on) assert.equal(o.status, 501, JSON.stringify(o.json));
    const off = await many(6, 6, () => get(http, "/v2/trace/setting"));
    for (const o of off) {
      assert.deepEqual((o.json as { trace_level: string[] }).trace_level, ["OFF"]);
    }
    // The restriction holds on every thread.
    const denied = await many(20, 10, () => post(http, "/v2/repository/index"));
    for (const d of denied) assert.equal(d.status, 403);
    const allowed = await many(
      20,
      10,
      () => post(http, "/v2/repository/index", {}, { "admin-key": "s3cret" }),
    );
    for (const a of allowed) assert.equal(a.status, 200);
    const counts = http.requestsPerWorker();
    assert.ok(counts.every((n) => n > 0), `both threads answered: ${counts}`);
  } finally {
    const back = await post(http, "/v2/logging", {
      log_verbose_level: initialLog.log_verbose_level,
    });
    assert.equal(back.status, 200);
  }
});

test("close() under load: every answer byte-exact or a refused connection, then nothing listens", {
  skip: needsNative(),
}, async () => {
  const http = await serve(server, { port: 0, workers: 2 });
  let ok = 0;
  let refused = 0;
  const load = many(300, 16, async (i) => {
    const values = Array.from({ length: 16 }, (_, k) => i - k);
    const { body, expected } = identity(values);
    try {
      const r = await post(http, "/v2/models/identity_int32/infer", body);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.deepEqual((r.json as { outputs: unknown[] }).outputs, [expected]);
      ok++;
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e;
      refused++;
    }
  });
  await new Promise((r) => setTimeout(r, 150));
  await http.close({ timeoutMs: 2000 });
  await http.closed;
  await load;
  assert.equal(ok + refused, 300);
  assert.ok(ok > 0, "some answered before the close");
  await assert.rejects(fetch(`${http.url}/v2/health/live`));
});

for (const how of ["crash", "terminate"] as const) {
  test(`a worker that dies under load (${how}) closes the whole service loudly`, {
    skip: needsNative() ||
      (how === "terminate" && "Deno" in globalThis
        ? "Deno reports no end of a terminated worker (only its uncaught errors)"
        : false),
  }, async () => {
    // In a child process: a crash there is seen, and the dead worker's hold on the server (it
    // never gives its use back, see docs/api.md "Workers") ends with that process.
    const r = await runScript("support/serve_workers_die.ts", { DIE_HOW: how }, [
      "--allow-net",
      "--unstable-net",
      "--unstable-no-legacy-abort",
    ]);
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    const last = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    assert.match(last.failure, /^INTERNAL: serve\(\): worker 1 of 3 died \(/);
    assert.equal(last.closeAgain, "same");
    assert.equal(last.wrong, 0);
    assert.ok(last.ok > 0, JSON.stringify(last));
    assert.equal(last.ok + last.failedCalls, 400);
    assert.equal(last.listening, false);
    assert.ok(
      last.logged.some((l: string) => l.includes("worker 1 of 3 died")),
      JSON.stringify(last.logged),
    );
    // The dead worker may have held uses of the server when it died (one for its turn's calls,
    // one while it had requests in flight): then the stop says so.
    assert.match(last.stop, /^(resolved|INTERNAL: attached workers still held [12] use\(s\))/);
  });
}

test("workers > 1 is refused with the reason where it cannot be served", async () => {
  const refused = async (options: Record<string, unknown>, code: string, pattern: RegExp) => {
    await assert.rejects(serve(server, { port: 0, ...options }), (e) => {
      assert.ok(e instanceof TritonError, String(e));
      assert.equal(e.code, code, e.message);
      assert.match(e.message, pattern);
      return true;
    });
  };
  for (const workers of [0, 1.5, "2", 257]) {
    await refused({ workers }, "INVALID_ARG", /workers must be an integer in \[1, 256\]/);
  }
  await refused({ workers: 2, allowBunWorkers: "yes" }, "INVALID_ARG", /allowBunWorkers/);
  if (!native) {
    await refused({ workers: 2 }, "UNSUPPORTED", /needs the native callbacks/);
    return;
  }
  if (UNSTABLE_NET_SKIP) {
    // Deno without --unstable-net: refused first (Deno would end the process otherwise).
    await refused({ workers: 2 }, "UNSUPPORTED", /needs the --unstable-net flag/);
    return;
  }
  await refused(
    { workers: 2, trace: new TraceManager(server) },
    "UNSUPPORTED",
    /not a TraceManager/,
  );
  await refused(
    { workers: 2, trace: { level: "TIMESTAMPS", file: "/tmp/t.json" } },
    "UNSUPPORTED",
    /tracing is not served with workers > 1/,
  );
  if ("Bun" in globalThis) {
    await refused({ workers: 2, allowBunWorkers: false }, "UNSUPPORTED", /allowBunWorkers/);
  }
});
