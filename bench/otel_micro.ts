/**
 * What the binding adds per call where no OpenTelemetry SDK is registered, measured with mitata
 * (median ns per call): the inference's span check (`startInferenceSpan`, what `infer()` runs
 * first: the API's no-op span, found not recording) and an HTTP front end's (`tracedFetch` around
 * a handler that answers at once, against the handler alone). Then the same with an SDK that
 * samples nothing (`BENCH_OTEL=unsampled`). Prints one JSON line. Run on one runtime with
 * `TRITONSERVER_LIB` set, e.g. `node bench/otel_micro.ts` (`npm run bench:otel` runs it on each).
 *
 * @module
 */
import process from "node:process";
import { measure } from "mitata";
import { Server } from "../mod.ts";
import { runtimeName } from "../ffi/mod.ts";
import { startInferenceSpan } from "../src/telemetry.ts";
import { tracedFetch } from "../serving/common/http_span.ts";
import { registerSdk } from "./otel_sdk.ts";

const opts = { min_cpu_time: 300e6 };
const median = async (fn: () => unknown) => (await measure(fn, opts)).p50;

const repository = decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);
const server = await new Server({
  modelRepository: repository,
  modelControlMode: "explicit",
  startupModels: ["identity_fp32"],
  log: { info: false, warn: false },
}).start();
const target = server.inferTarget("identity_fp32", -1);
const lib = target.owner.lib;

const answer = new Response(null);
const handler = () => Promise.resolve(answer);
const traced = tracedFetch(handler, () => false);
const request = new Request("http://127.0.0.1:8000/v2/health/ready");

const measureAll = async () => ({
  inferenceSpanNs: await median(() => startInferenceSpan(lib, target.server, target, "id", [])),
  fetchNs: await median(() => handler()),
  tracedFetchNs: await median(() => traced(request)),
});

const off = await measureAll();
registerSdk("unsampled");
const unsampled = await measureAll();
console.log(JSON.stringify({ runtime: runtimeName(), off, unsampled }));
await server.stop();
process.exit(0);
