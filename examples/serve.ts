/**
 * Serves a model repository over the KServe v2 HTTP/REST and gRPC protocols, as `tritonserver`
 * would: run
 * it with `npm run serve` (which finds a core for you, the fake one when no real library is
 * found), or directly:
 * `deno run --unstable-no-legacy-abort --allow-ffi --allow-env --allow-read --allow-write --allow-net examples/serve.ts`,
 * `bun examples/serve.ts`, `node examples/serve.ts`.
 *
 * Environment: `MODEL_REPOSITORY` (default tests/models), `PORT` (default 8000), `GRPC_PORT`
 * (default 8001), `HOST` (default
 * 127.0.0.1; 0.0.0.0 in a container), `ADMIN_KEY` (when set, the model repository endpoints need
 * the header `admin-key: $ADMIN_KEY`), `ALLOW_CLIENT_SHM=1` (clients may register system shared
 * memory regions, as `tritonserver --allow-client-shm=true`), `WORKERS` (threads serving HTTP,
 * and gRPC where it can, each front end on its own port; default 1: see docs/serving.md,
 * "Workers"). Every model of the repository is loaded at start, once both ports are found free (a
 * port in use is one line naming its variable, and exit status 1).
 *
 * ```sh
 * curl localhost:8000/v2/health/ready
 * curl -X POST localhost:8000/v2/models/identity_int32/infer \
 *   -d '{"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,3],"data":[1,2,3]}]}'
 * ```
 *
 * @module
 */
import process from "node:process";
import { Server, TritonError } from "../mod.ts";
import { type RestrictedApis, serve, SharedMemoryRegions } from "../serve.ts";
import { serveGrpc } from "../grpc.ts";
import { checkPorts } from "./port_check.ts";

const repository = process.env.MODEL_REPOSITORY ??
  decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);
const hostname = process.env.HOST ?? "127.0.0.1";
// A port in use (another `npm run serve`) is one line naming its variable, before any model loads.
const [port, grpcPort] = await checkPorts("examples/serve.ts", hostname, [
  { variable: "PORT", value: process.env.PORT ?? "8000" },
  { variable: "GRPC_PORT", value: process.env.GRPC_PORT ?? "8001" },
]);
const adminKey = process.env.ADMIN_KEY;
const restrictedApis: RestrictedApis = adminKey
  ? { "model-repository": { header: "admin-key", value: adminKey } }
  : {};

const server = await new Server({
  modelRepository: repository,
  modelControlMode: "explicit",
  startupModels: ["*"],
  log: { info: false },
}).start();
// One set of regions for both front ends: a region registered over HTTP serves gRPC requests too.
const sharedMemory = process.env.ALLOW_CLIENT_SHM === "1"
  ? new SharedMemoryRegions(server)
  : undefined;
// WORKERS=2 or more: HTTP served by this thread and worker threads on the same port (on Deno
// `npm run serve` passes --unstable-net; on Bun it needs TRITONFFI_ALLOW_BUN_WORKERS=1).
const workers = process.env.WORKERS === undefined ? undefined : Number(process.env.WORKERS);
const http = await serve(server, { hostname, port, restrictedApis, sharedMemory, workers });
// gRPC on the same WORKERS count where it can be (its "http2" transport; a transport named
// grpc-js serves one thread), else on this thread alone. On Deno gRPC is served only where opted in
// (TRITONFFI_ALLOW_DENO_HTTP2=1): its node:http2 server can be crashed by a client
// (docs/serving.md). HTTP is served either way.
const grpcOptions = { hostname, port: grpcPort, restrictedApis, sharedMemory };
const notServed = (e: unknown) => {
  if (!(e instanceof TritonError && e.code === "UNSUPPORTED")) throw e;
  console.log(`gRPC not served: ${e.message}`);
  console.log("(DEMO_RUNTIME=node npm run serve serves both from Node)");
  return undefined;
};
const grpc = await serveGrpc(server, { ...grpcOptions, workers }).catch(async (e) => {
  if (!(e instanceof TritonError && e.code === "UNSUPPORTED" && (workers ?? 1) > 1)) {
    return notServed(e);
  }
  const one = await serveGrpc(server, grpcOptions).catch(notServed);
  if (one) console.log(`gRPC on one thread: ${e.message}`);
  return one;
});
const threads = (n: number, what: string) => `${n} ${what} thread${n === 1 ? "" : "s"}`;
console.log(
  `KServe v2 on ${http.url}${grpc ? ` and gRPC ${grpc.address}` : ""} (${http.runtime}, ` +
    `${threads(http.workers, "HTTP")}${grpc ? `, ${threads(grpc.workers, "gRPC")}` : ""}), ` +
    `model repository ${repository}`,
);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing the requests in flight (event streams get 20 s)`);
  const closed = await Promise.allSettled([
    http.close({ timeoutMs: 20_000 }),
    grpc?.close({ timeoutMs: 20_000 }),
  ]);
  sharedMemory?.close();
  await server.stop().catch((e) => console.error(e.message));
  process.exit(closed.some((c) => c.status === "rejected") ? 1 : 0);
};
// A worker thread that dies closes its service (it says why): stop the rest, exit 1.
http.closed.catch(() => void stop("the HTTP service failed"));
grpc?.closed.catch(() => void stop("the gRPC service failed"));
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
