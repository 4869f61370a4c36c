/**
 * `serveGrpc()`'s services on `@grpc/grpc-js`'s `grpc.Server` (the default transport): its calls
 * are what the handlers see (./transport.ts). grpc-js inflates compressed request messages itself
 * (gzip, deflate; under `grpc.max_receive_message_length`, counted on what they inflate to) and
 * never compresses a response, whatever the client accepts: `serveGrpc()` refuses a response
 * compression level on this transport.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import { cannotListen } from "../../common/lifecycle.ts";
import { bracketed, type GrpcListener, type GrpcListenOptions, Status } from "./transport.ts";

/**
 * Names `maxMessageBytes` in grpc-js's own "message larger than max" statuses
 * (RESOURCE_EXHAUSTED). grpc-js sends them from inside the call it hands the first interceptor,
 * past any responder an interceptor could install, so that call's `sendStatus` is wrapped.
 */
const namingMessageLimit: grpc.ServerInterceptor = (_method, call) => {
  const send = call.sendStatus.bind(call);
  call.sendStatus = (status) =>
    send(
      status.code === Status.RESOURCE_EXHAUSTED && status.details.includes("larger than")
        ? { ...status, details: `${status.details} (maxMessageBytes)` }
        : status,
    );
  return call as grpc.ServerInterceptingCall;
};

/**
 * Serves `options.services` with grpc-js and resolves once it listens.
 * @throws {TritonError} UNAVAILABLE when it cannot listen.
 */
export async function listenGrpcJs(options: GrpcListenOptions): Promise<GrpcListener> {
  const { maxMessageBytes } = options;
  const grpcServer = new grpc.Server({
    "grpc.max_receive_message_length": maxMessageBytes,
    "grpc.max_send_message_length": maxMessageBytes,
    // node:http2 refuses new streams (ENHANCE_YOUR_CALM) once a session holds more than this;
    // grpc-js lifts it by default, and so does this, explicitly: what a connection holds is
    // bounded by maxMessageBytes per call in flight instead, each paced by HTTP/2 flow control.
    "grpc-node.max_session_memory": Number.MAX_SAFE_INTEGER,
    interceptors: [namingMessageLimit],
    // Channelz stays on (grpc-js's default): with "grpc.enable_channelz": 0, grpc-js 1.14's
    // forceShutdown() does not end the open sessions, and close({ timeout }) would wait forever.
  });
  for (const { definition, implementation } of options.services) {
    // The handlers take grpc-js's calls as the narrower ./transport.ts interfaces.
    grpcServer.addService(definition, implementation as grpc.UntypedServiceImplementation);
  }
  const host = bracketed(options.hostname);
  const port = await new Promise<number>((resolve, reject) => {
    grpcServer.bindAsync(
      `${host}:${options.port}`,
      grpc.ServerCredentials.createInsecure(),
      (e, p) => e ? reject(cannotListen(host, options.port, e)) : resolve(p),
    );
  });
  return {
    port,
    stopAccepting: () => new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve())),
    endInFlight: () => grpcServer.forceShutdown(),
  };
}
