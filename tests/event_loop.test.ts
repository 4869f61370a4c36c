/**
 * The calls that may block (`TRITONSERVER_ServerNew`, `TRITONSERVER_ServerLoadModel`,
 * `TRITONSERVER_ServerStop`) run off the JS thread on every runtime: a timer keeps ticking while
 * `start()`, `loadModel()` and `stop()` wait for slow_load, whose load and unload each take
 * 400 ms (tests/slow_models; the fake core imitates its delays).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Server } from "../mod.ts";
import { startServer } from "./support/env.ts";

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
