/**
 * Run by tests/workers_orderings.test.ts in a child process (so that a crash is seen, not
 * suffered): for each case of `$ORDERINGS` (a JSON array of {@link OrderingCase}), a server is
 * started and shared, workers attach (tests/support/orderings_worker.ts) and work, some are
 * terminated at a given step, and the owner stops at a given step; then the workers still running
 * are told to stop. Prints one JSON line per case ({@link OrderingResult}) as it ends, so that the
 * case a crash or a hang interrupted is the one after the last line.
 *
 * @module
 */
import process from "node:process";
import { TritonError } from "../../mod.ts";
import { liveCounter, startServer } from "./env.ts";
import { startWorker, type TestWorker } from "./workers.ts";
import type { OrderingTask } from "./orderings_worker.ts";

/** One worker of a case: its task and when it is terminated. */
export interface WorkerPlan {
  readonly task: OrderingTask;
  /** Never; right after its task is posted; once it attached; once it worked. */
  readonly terminate: "never" | "at-once" | "attached" | "working";
}

/** A case: its workers, and when the owner stops — before any attaches, once they attached, once
 * they worked, or after the workers stopped themselves. */
export interface OrderingCase {
  readonly workers: readonly WorkerPlan[];
  readonly stop: "first" | "attached" | "working" | "after-workers";
}

/** What a worker reported (the message kinds of orderings_worker.ts), or what it was not given
 * the time to. */
export interface WorkerReport {
  terminated?: WorkerPlan["terminate"];
  attach?: string;
  ended?: { count: number; error?: string };
  done?: string;
  timeout?: string;
}

/** How a case went. */
export interface OrderingResult {
  readonly case: number;
  /** "resolved", or the owner's stop() error as `CODE: message`. */
  readonly stop: string;
  readonly workers: readonly WorkerReport[];
  /** The fake core's live requests and responses after the case, less those before it (null on
   * a real core). */
  readonly leaked: { request: number; response: number } | null;
}

const cases = JSON.parse(process.env.ORDERINGS ?? "[]") as OrderingCase[];
const script = new URL("./orderings_worker.ts", import.meta.url);
const live = await liveCounter();
const codeOf = (e?: { code: string; message: string }) => e && `${e.code}: ${e.message}`;

for (const [index, c] of cases.entries()) {
  const before = live && { request: live("request"), response: live("response") };
  // The models the workers use alone (quick to load and unload on a real core too); a short exit
  // timeout where workers are terminated (the owner's stop() waits it out for their uses).
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32", "repeat_int32"],
    exitTimeoutSecs: c.workers.some((w) => w.terminate !== "never") ? 1 : 10,
  });
  const handle = server.share();
  let stop: string | undefined;
  const stopOwner = async () => {
    try {
      await server.stop();
      stop = "resolved";
    } catch (e) {
      stop = e instanceof TritonError ? `${e.code}: ${e.message}` : `JS: ${e}`;
    }
  };
  if (c.stop === "first") await stopOwner();
  const ws: TestWorker[] = await Promise.all(c.workers.map(() => startWorker(script)));
  const reports: WorkerReport[] = c.workers.map(() => ({}));
  const running = (i: number) => reports[i].terminated === undefined && !reports[i].timeout;
  /** The worker's next message of one of `kinds`, recorded; undefined where it timed out. */
  const next = async (i: number, kinds: string[]) => {
    try {
      for (;;) {
        const m = await ws[i].next(undefined, 20_000);
        if (kinds.includes(m.kind as string)) return m;
      }
    } catch (e) {
      reports[i].timeout = `waiting for ${kinds.join(" or ")}: ${e}`;
      return undefined;
    }
  };
  const terminateAt = async (step: WorkerPlan["terminate"]) => {
    for (const [i, plan] of c.workers.entries()) {
      if (plan.terminate === step && running(i)) {
        await ws[i].terminate();
        reports[i].terminated = step;
      }
    }
  };
  c.workers.forEach((plan, i) => ws[i].post({ handle, task: plan.task }));
  await terminateAt("at-once");
  for (const i of c.workers.keys()) {
    if (!running(i)) continue;
    const m = await next(i, ["attached", "attach-failed"]);
    if (m) {
      reports[i].attach = m.kind === "attached"
        ? "attached"
        : codeOf(m.error as { code: string; message: string });
    }
  }
  const attached = (i: number) => running(i) && reports[i].attach === "attached";
  await terminateAt("attached");
  if (c.stop === "attached") await stopOwner();
  // Each attached worker's first success, or its end where the stop came first.
  const firstOf = new Map<number, Record<string, unknown>>();
  for (const i of c.workers.keys()) {
    if (!attached(i)) continue;
    const m = await next(i, ["working", "ended"]);
    if (m) firstOf.set(i, m);
  }
  await terminateAt("working");
  if (c.stop === "working") await stopOwner();
  // The workers still running stop themselves (an idle one, or one the stop did not end), and
  // report how their work ended and how their own stop() settled.
  for (const i of c.workers.keys()) if (attached(i)) ws[i].post("stop");
  for (const i of c.workers.keys()) {
    if (!attached(i)) continue;
    const ended = firstOf.get(i)?.kind === "ended" ? firstOf.get(i) : await next(i, ["ended"]);
    if (!ended) continue;
    const error = ended.error as { code: string; message: string } | undefined;
    reports[i].ended = { count: ended.count as number, error: codeOf(error) };
    const done = await next(i, ["done"]);
    if (done) reports[i].done = codeOf(done.error as never) ?? "resolved";
  }
  if (c.stop === "after-workers") await stopOwner();
  await Promise.all(ws.map((w) => w.terminate()));
  await new Promise((r) => setTimeout(r, 50));
  const leaked = live && before
    ? { request: live("request") - before.request, response: live("response") - before.response }
    : null;
  const result: OrderingResult = { case: index, stop: stop!, workers: reports, leaked };
  console.log(JSON.stringify(result));
}
