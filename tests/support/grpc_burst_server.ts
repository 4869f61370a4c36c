/**
 * A gRPC service in a process of its own, for tests/grpc_burst.test.ts: starts a server on
 * `$MODEL_REPOSITORY` (with the core `$TRITONSERVER_LIB` names), serves it with `serveGrpc()` on a
 * free loopback port with `$TRANSPORT` (and `allowDenoHttp2` set to `$ALLOW_DENO_HTTP2_OPTION`, as
 * JSON, where given), prints `port <n>` and waits to be killed; where
 * `serveGrpc()` throws, prints `refused <code>: <message>` and exits. It imports nothing from
 * ./env.ts, so that what the environment says about serving on Deno is what the parent gave.
 */
import process from "node:process";
import { Server, TritonError } from "../../mod.ts";
import { type GrpcTransportName, serveGrpc } from "../../grpc.ts";

const server = await new Server({
  modelRepository: process.env.MODEL_REPOSITORY!,
  modelControlMode: "explicit",
  startupModels: [],
  log: { info: false, warn: false },
}).start();
try {
  const service = await serveGrpc(server, {
    port: 0,
    transport: process.env.TRANSPORT as GrpcTransportName | undefined,
    ...process.env.ALLOW_DENO_HTTP2_OPTION === undefined
      ? {}
      : { allowDenoHttp2: JSON.parse(process.env.ALLOW_DENO_HTTP2_OPTION) },
  });
  console.log(`port ${service.port}`);
  setInterval(() => {}, 60_000); // until killed
} catch (e) {
  const code = e instanceof TritonError ? e.code : "not a TritonError";
  console.log(`refused ${code}: ${e instanceof Error ? e.message : String(e)}`);
  await server.stop();
}
