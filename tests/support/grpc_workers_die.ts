/**
 * Run by grpc_workers.test.ts in a child process (so that a crash is seen, not suffered, and the
 * dead worker's hold on the server ends with the process): `serveGrpc()` with three threads under
 * load from 16 connections, one worker killed (`DIE_HOW`: `crash`, an uncaught error in it;
 * `terminate`, its thread ended from outside), then the owner's server stopped. Prints one JSON
 * line: how the service failed, what the clients got, what was logged, how the stop ended.
 *
 * @module
 */
import process from "node:process";
import * as grpc from "@grpc/grpc-js";
import { TritonError } from "../../mod.ts";
import { serveGrpc } from "../../grpc.ts";
import { WORKER_POOL } from "../../serving/common/listen.ts";
import type { WorkerPool } from "../../serving/common/worker_pool.ts";
import { serviceDefinitions } from "../../serving/kserve/grpc/definitions.ts";
import { startServer } from "./env.ts";
import { int32s, type Msg } from "./grpc_requests.ts";

const how = process.env.DIE_HOW as "crash" | "terminate";
const server = await startServer({ exitTimeoutSecs: 2 });
const service = await serveGrpc(server, { port: 0, workers: 3 });
const Client = grpc.makeGenericClientConstructor(
  serviceDefinitions().inference,
  "GRPCInferenceService",
);
type InferenceClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;
const clientOf = () =>
  new Client(service.address, grpc.credentials.createInsecure(), {
    "grpc.use_local_subchannel_pool": 1,
  }) as InferenceClient;
const call = (client: InferenceClient, name: string, request: Msg) =>
  new Promise<Msg>((resolve, reject) =>
    client[name](request, (e: grpc.ServiceError | null, r: Msg) => (e ? reject(e) : resolve(r)))
  );
const logged: string[] = [];
const original = console.error;
console.error = (...args: unknown[]) => void logged.push(args.join(" "));

const clients = Array.from({ length: 16 }, clientOf);
let ok = 0;
let wrong = 0;
let failedCalls = 0;
let next = 0;
const load = Promise.all(clients.map(async (client) => {
  while (next < 400) {
    const i = next++;
    const data = [i, i + 1, i + 2];
    try {
      const r = await call(client, "ModelInfer", {
        model_name: "identity_int32",
        inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 3] }],
        raw_input_contents: [int32s(data)],
      });
      const raw = (r.raw_output_contents as Uint8Array[])[0];
      const got = Array.from(new Int32Array(new Uint8Array(raw).buffer));
      if (JSON.stringify(got) === JSON.stringify(data)) ok++;
      else wrong++;
    } catch {
      failedCalls++;
    }
  }
}));
await new Promise((r) => setTimeout(r, 100));
const pool = (service as unknown as Record<typeof WORKER_POOL, WorkerPool>)[WORKER_POOL];
await pool.kill(1, how);
const failure = await service.closed.then(() => undefined, (e) => e);
const closeAgain = await service.close().then(() => "resolved", (e) => e === failure ? "same" : e);
await load;
for (const c of clients) c.close();
const late = clientOf();
const listening = await call(late, "ServerLive", {}).then(() => true, () => false);
late.close();
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
