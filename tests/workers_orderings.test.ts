/**
 * Property test of a shared server's lifetimes (fast-check): generated orderings of workers
 * attaching, inferring, streaming and idling, workers terminated at any step, and the owner's
 * stop() before, during or after their work. Whatever the order, nothing crashes or hangs (the
 * cases run in a child process that must exit 0 with one line per case), every worker hears how
 * its work ended in the binding's words, and, where no worker was terminated, the owner's stop()
 * resolves and nothing native is left behind. A terminated worker never gives its uses back: the
 * owner's stop() may then fail INTERNAL, saying so (docs/api.md, "Workers").
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 12: each case starts a server and up to three workers) and
 * `FUZZ_SEED=s` run more or other cases.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import fc from "fast-check";
import { test } from "./support/test.ts";
import { isFakeCore, runScript } from "./support/env.ts";
import { nativeCallbacks } from "./support/workers.ts";
import type { OrderingCase, OrderingResult, WorkerPlan } from "./support/workers_orderings.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261205);

const native = await nativeCallbacks();
// A terminated worker leaves its server undeleted (see above), and a real core started again in
// the same process beside it is not what this test is about: there, no worker is terminated.
const fake = await isFakeCore();

const plans: fc.Arbitrary<WorkerPlan> = fc.record({
  task: fc.constantFrom("infer-loop", "stream", "idle") as fc.Arbitrary<WorkerPlan["task"]>,
  terminate: fake
    ? fc.constantFrom("never", "never", "at-once", "attached", "working") as fc.Arbitrary<
      WorkerPlan["terminate"]
    >
    : fc.constant("never" as const),
});
const orderings: fc.Arbitrary<OrderingCase> = fc.record({
  workers: fc.array(plans, { minLength: 1, maxLength: 3 }),
  stop: fc.constantFrom("first", "attached", "working", "after-workers") as fc.Arbitrary<
    OrderingCase["stop"]
  >,
});

/** Checks one case's result against what the binding promises. */
function check(c: OrderingCase, r: OrderingResult): void {
  const what = JSON.stringify({ case: c, result: r });
  const anyTerminated = r.workers.some((w) => w.terminated !== undefined);
  if (anyTerminated) {
    assert.ok(
      r.stop === "resolved" || /^INTERNAL: attached workers still held \d+ use\(s\)/.test(r.stop),
      what,
    );
  } else {
    assert.equal(r.stop, "resolved", what);
    if (r.leaked) assert.deepEqual(r.leaked, { request: 0, response: 0 }, what);
  }
  for (const [i, w] of r.workers.entries()) {
    assert.equal(w.timeout, undefined, `worker ${i} hung: ${what}`);
    const plan = c.workers[i];
    if (w.terminated === "at-once" || w.attach === undefined) continue;
    if (c.stop === "first") {
      assert.match(w.attach, /^UNAVAILABLE: /, `worker ${i} attached after the stop: ${what}`);
      continue;
    }
    assert.equal(w.attach, "attached", what);
    if (w.terminated !== undefined) continue;
    assert.ok(w.ended, `worker ${i} did not say how its work ended: ${what}`);
    if (c.stop === "after-workers") {
      // Told to stop before the owner stopped: its work ended without an error, after some.
      assert.equal(w.ended.error, undefined, what);
      if (plan.task !== "idle") assert.ok(w.ended.count >= 1, what);
    } else if (w.ended.error !== undefined) {
      // The owner stopped under it: its stream or next inference ends UNAVAILABLE.
      assert.match(w.ended.error, /^UNAVAILABLE: /, what);
    }
    assert.equal(w.done, "resolved", `worker ${i}'s own stop(): ${what}`);
  }
}

test("any ordering of attach, work, terminate and the owner's stop: no crash, hang or leak", {
  skip: !native && "attaching needs the native callbacks",
  timeout: 600_000,
}, async () => {
  const cases = fc.sample(orderings, { numRuns: RUNS, seed: SEED });
  const r = await runScript("support/workers_orderings.ts", { ORDERINGS: JSON.stringify(cases) });
  const lines = r.stdout.trim().split("\n").filter((l) => l.startsWith("{"));
  assert.equal(
    r.code,
    0,
    `exit ${r.code} during case ${lines.length}: ${JSON.stringify(cases[lines.length])}\n` +
      `${r.stdout}\n${r.stderr}`,
  );
  assert.equal(lines.length, cases.length, r.stdout);
  const terminated = cases.filter((c) => c.workers.some((w) => w.terminate !== "never")).length;
  for (const [i, line] of lines.entries()) check(cases[i], JSON.parse(line) as OrderingResult);
  console.log(`${cases.length} orderings, ${terminated} with a worker terminated`);
});
