/**
 * Run by workers.test.ts in a child process (so that a crash is seen, not suffered): workers
 * attach to the owner's server and stream repeat_int32, and are terminated mid-stream, round
 * after round, while the owner infers too; then the owner stops. Prints one JSON line: the rounds,
 * how the owner's stop() ended, and how long it took.
 *
 * @module
 */
import process from "node:process";
import { TritonError } from "../../mod.ts";
import { liveCounter, startServer } from "./env.ts";
import { startWorker } from "./workers.ts";

const rounds = Number(process.env.TERMINATE_ROUNDS ?? 4);
/** The length of each worker's stream, and the wait before each of its responses (ms). */
const n = Number(process.env.TERMINATE_STREAM ?? 300);
const delayMs = Number(process.env.TERMINATE_DELAY_MS ?? 1);
/** How long the owner waits after the last terminate() before its stop (ms). */
const settleMs = Number(process.env.TERMINATE_SETTLE_MS ?? 0);
const server = await startServer({ exitTimeoutSecs: 2 });
const handle = server.share();
let ownerResponses = 0;
let loading = true;
const load = (async () => {
  while (loading) {
    using r = await server.model("identity_int32").inferOne({
      inputs: { INPUT0: { dtype: "INT32", shape: [1, 16], data: new Int32Array(16).fill(5) } },
    });
    if ((r.outputs.OUTPUT0.data as Int32Array)[15] !== 5) throw new Error("wrong output");
    ownerResponses++;
  }
})();
for (let i = 0; i < rounds; i++) {
  const workers = await Promise.all([startWorker(), startWorker()]);
  for (const w of workers) w.post({ handle, task: "stream-forever", n, delayMs });
  await Promise.all(workers.map((w) => w.next("streaming")));
  await Promise.all(workers.map((w) => w.terminate()));
}
await new Promise((r) => setTimeout(r, settleMs));
loading = false;
await load;
const t0 = Date.now();
let stop = "resolved";
try {
  await server.stop();
} catch (e) {
  stop = e instanceof TritonError ? `${e.code}: ${e.message}` : String(e);
}
// Whether Triton still sends responses for the terminated workers' streams (the fake core's
// count of live responses: none of theirs is ever deleted), after the stop cancelled them.
const live = await liveCounter();
const atStop = live?.("response");
await new Promise((r) => setTimeout(r, 500));
console.log(JSON.stringify({
  liveResponses: [atStop, live?.("response")],
  rounds,
  ownerResponses,
  stop,
  stopMs: Date.now() - t0,
  attachments: server.attachments,
}));
process.exit(0);
