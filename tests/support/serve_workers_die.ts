/**
 * Run by serve_workers.test.ts in a child process (so that a crash is seen, not suffered, and
 * the dead worker's hold on the server ends with the process): `serve()` with three threads
 * under load, one worker killed (`DIE_HOW`: `crash`, an uncaught error in it; `terminate`, its
 * thread ended from outside), then the owner's server stopped. Prints one JSON line: how the
 * service failed, what the clients got, what was logged, how the stop ended.
 *
 * @module
 */
import process from "node:process";
import { TritonError } from "../../mod.ts";
import { serve } from "../../serve.ts";
import { WORKER_POOL } from "../../serving/common/listen.ts";
import type { WorkerPool } from "../../serving/common/worker_pool.ts";
import { startServer } from "./env.ts";

const how = process.env.DIE_HOW as "crash" | "terminate";
const server = await startServer({ exitTimeoutSecs: 2 });
const http = await serve(server, { port: 0, workers: 3 });
const logged: string[] = [];
const original = console.error;
console.error = (...args: unknown[]) => void logged.push(args.join(" "));

let ok = 0;
let wrong = 0;
let failedCalls = 0;
let next = 0;
const load = Promise.all(Array.from({ length: 16 }, async () => {
  while (next < 400) {
    const i = next++;
    const data = [i, i + 1, i + 2];
    try {
      const r = await fetch(`${http.url}/v2/models/identity_int32/infer`, {
        method: "POST",
        headers: { connection: "close" },
        body: JSON.stringify({
          inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 3], data }],
        }),
      });
      const json = await r.json();
      if (r.status !== 200) failedCalls++;
      else if (JSON.stringify(json.outputs[0].data) === JSON.stringify(data)) ok++;
      else wrong++;
    } catch {
      failedCalls++;
    }
  }
}));
await new Promise((r) => setTimeout(r, 100));
const pool = (http as unknown as Record<typeof WORKER_POOL, WorkerPool>)[WORKER_POOL];
await pool.kill(1, how);
const failure = await http.closed.then(() => undefined, (e) => e);
const closeAgain = await http.close().then(() => "resolved", (e) => e === failure ? "same" : e);
await load;
let listening = true;
try {
  await fetch(`${http.url}/v2/health/live`);
} catch {
  listening = false;
}
console.error = original;
let stop = "resolved";
try {
  await server.stop();
} catch (e) {
  stop = e instanceof TritonError ? `${e.code}: ${e.message}` : String(e);
}
console.log(JSON.stringify({
  failure: failure instanceof TritonError ? `${failure.code}: ${failure.message}` : String(failure),
  closeAgain,
  ok,
  wrong,
  failedCalls,
  listening,
  logged,
  stop,
}));
process.exit(0);
