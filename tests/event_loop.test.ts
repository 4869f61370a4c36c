/**
 * The calls that may block (`TRITONSERVER_ServerNew`, `TRITONSERVER_ServerLoadModel`,
 * `TRITONSERVER_ServerStop`) run off the JS thread on every runtime: a timer keeps ticking while
 * `start()`, `loadModel()` and `stop()` wait for slow_load, whose load and unload each take
 * 400 ms (tests/slow_models; the fake core imitates its delays).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "./support/test.ts";
import { fileURLToPath } from "node:url";
import { type Server, TritonError } from "../mod.ts";
import { liveCounter, startServer } from "./support/env.ts";

const SLOW_REPOSITORY = fileURLToPath(new URL("./slow_models", import.meta.url));
const TICK_MS = 10;

interface Timed<T> {
  value: T;
  ms: number;
  ticks: number;
}

/** Runs `op` with a 10 ms interval timer going; counts its ticks. */
async function ticksDuring<T>(op: () => Promise<T>): Promise<Timed<T>> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, TICK_MS);
  const t0 = performance.now();
  try {
    const value = await op();
    return { value, ms: performance.now() - t0, ticks };
  } finally {
    clearInterval(timer);
  }
}

/** The call took slow_load's delay, and the timer ran through it (a blocked event loop runs a
 * timer at most once, after the call returns; a loaded machine delays ticks, hence an eighth). */
function assertTicked(what: string, { ms, ticks }: Timed<unknown>): void {
  assert.ok(ms >= 350, `${what} took ${ms.toFixed(0)} ms: slow_load's 400 ms delay did not apply`);
  const expected = ms / TICK_MS;
  assert.ok(
    ticks >= expected / 8,
    `${what}: the timer ticked ${ticks} times in ${ms.toFixed(0)} ms (about ${
      expected.toFixed(0)
    } expected): the event loop was blocked`,
  );
}

test("a timer keeps ticking through start(), loadModel() and stop()", async () => {
  const started = await ticksDuring(() =>
    startServer({
      modelRepository: SLOW_REPOSITORY,
      modelControlMode: "explicit",
      startupModels: ["slow_load"],
    })
  );
  const server: Server = started.value;
  try {
    assertTicked("start()", started);
    await server.unloadModel("slow_load", { waitUntilUnloaded: true });
    assertTicked("loadModel()", await ticksDuring(() => server.loadModel("slow_load")));
    const out = await server.model("slow_load").inferOne({
      inputs: { INPUT0: new Int32Array([3, 4]) },
    });
    assert.deepEqual(Array.from(out.output("OUTPUT0", "INT32").data), [3, 4]);
  } catch (e) {
    await server.stop();
    throw e;
  }
  assertTicked("stop()", await ticksDuring(() => server.stop()));
});

test("start({ timeoutMs }) rejects by its deadline while ServerNew still loads; that server is deleted later", async () => {
  const live = await liveCounter();
  const servers = live?.("server") ?? 0;
  const t0 = performance.now();
  await assert.rejects(
    startServer({
      modelRepository: SLOW_REPOSITORY,
      modelControlMode: "explicit",
      startupModels: ["slow_load"],
    }, { timeoutMs: 100 }),
    (e: unknown) =>
      e instanceof TritonError && e.code === "UNAVAILABLE" && /within 100 ms/.test(e.message),
  );
  const ms = performance.now() - t0;
  assert.ok(ms < 350, `start() rejected after ${ms.toFixed(0)} ms, past its 100 ms deadline`);
  if (live) {
    // slow_load's 400 ms load, then its 400 ms unload when the late server is deleted.
    const deadline = Date.now() + 5000;
    while (live("server") > servers) {
      assert.ok(Date.now() < deadline, "the server ServerNew made late was never deleted");
      await new Promise((r) => setTimeout(r, 20));
    }
  }
});

test("a model that cannot load (unknown backend) fails start() quickly, every time", async () => {
  const repo = mkdtempSync(join(tmpdir(), "tritonffi-nosuch-"));
  mkdirSync(join(repo, "broken", "1"), { recursive: true });
  writeFileSync(
    join(repo, "broken", "config.pbtxt"),
    'name: "broken"\nbackend: "nosuch"\nmax_batch_size: 0\n' +
      'input [{ name: "IN", data_type: TYPE_INT32, dims: [1] }]\n' +
      'output [{ name: "OUT", data_type: TYPE_INT32, dims: [1] }]\n',
  );
  try {
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await assert.rejects(
        startServer({ modelRepository: repo }, { timeoutMs: 5000 }),
        (e: unknown) => e instanceof TritonError && /failed to load all models/.test(e.message),
      );
      const ms = performance.now() - t0;
      assert.ok(ms < 3000, `run ${i}: start() failed after ${ms.toFixed(0)} ms`);
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});
