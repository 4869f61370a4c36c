/**
 * The two gRPC services' methods — `inference.GRPCInferenceService` and `grpc.health.v1.Health` —
 * with their paths and protobuf (de)serializers over the protocol's schema (`schema.ts`); what
 * the transports serve and what a client is made from.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import { protocolRoot } from "./schema.ts";

const DECODE: protobuf.IConversionOptions = { longs: String, defaults: true };

/** `bytes` as a `Buffer` over the same memory (no copy). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

type Method = grpc.MethodDefinition<unknown, unknown>;

/** @internal The two services' methods (paths and protobuf (de)serializers) over `root`; also
 * what a client is made from. */
export function serviceDefinitions(
  root: protobuf.Root = protocolRoot(),
): { inference: grpc.ServiceDefinition; health: grpc.ServiceDefinition } {
  const type = (name: string) => root.lookupType(name);
  const method = (
    service: string,
    name: string,
    request: string,
    response: string,
    streams = false,
  ): Method => {
    const req = type(request);
    const res = type(response);
    return {
      path: `/${service}/${name}`,
      requestStream: streams,
      responseStream: streams,
      requestSerialize: (m: unknown) =>
        Buffer.from(req.encode(req.fromObject(m as object)).finish()),
      requestDeserialize: (b: Buffer) => req.toObject(req.decode(b), DECODE),
      // A message already encoded (an inference response, encoded while held) goes out as it is.
      responseSerialize: (m: unknown) =>
        asBuffer(m instanceof Uint8Array ? m : res.encode(m as object).finish()),
      responseDeserialize: (b: Buffer) => res.toObject(res.decode(b), DECODE),
    };
  };

  const S = "inference.GRPCInferenceService";
  const P = "inference.";
  const inference: grpc.ServiceDefinition = {
    ServerLive: method(S, "ServerLive", P + "ServerLiveRequest", P + "ServerLiveResponse"),
    ServerReady: method(S, "ServerReady", P + "ServerReadyRequest", P + "ServerReadyResponse"),
    ModelReady: method(S, "ModelReady", P + "ModelReadyRequest", P + "ModelReadyResponse"),
    ServerMetadata: method(
      S,
      "ServerMetadata",
      P + "ServerMetadataRequest",
      P + "ServerMetadataResponse",
    ),
    ModelMetadata: method(
      S,
      "ModelMetadata",
      P + "ModelMetadataRequest",
      P + "ModelMetadataResponse",
    ),
    ModelInfer: method(S, "ModelInfer", P + "ModelInferRequest", P + "ModelInferResponse"),
    ModelStreamInfer: method(
      S,
      "ModelStreamInfer",
      P + "ModelInferRequest",
      P + "ModelStreamInferResponse",
      true,
    ),
    ModelConfig: method(S, "ModelConfig", P + "ModelConfigRequest", P + "ModelConfigResponse"),
    ModelStatistics: method(
      S,
      "ModelStatistics",
      P + "ModelStatisticsRequest",
      P + "ModelStatisticsResponse",
    ),
    RepositoryIndex: method(
      S,
      "RepositoryIndex",
      P + "RepositoryIndexRequest",
      P + "RepositoryIndexResponse",
    ),
    RepositoryModelLoad: method(
      S,
      "RepositoryModelLoad",
      P + "RepositoryModelLoadRequest",
      P + "RepositoryModelLoadResponse",
    ),
    RepositoryModelUnload: method(
      S,
      "RepositoryModelUnload",
      P + "RepositoryModelUnloadRequest",
      P + "RepositoryModelUnloadResponse",
    ),
    LogSettings: method(S, "LogSettings", P + "LogSettingsRequest", P + "LogSettingsResponse"),
    TraceSetting: method(S, "TraceSetting", P + "TraceSettingRequest", P + "TraceSettingResponse"),
    ...Object.fromEntries(
      ["System", "Cuda"].flatMap((kind) =>
        ["Status", "Register", "Unregister"].map((action) => {
          const name = `${kind}SharedMemory${action}`;
          return [name, method(S, name, `${P}${name}Request`, `${P}${name}Response`)];
        })
      ),
    ),
  };
  const health: grpc.ServiceDefinition = {
    Check: method(
      "grpc.health.v1.Health",
      "Check",
      "grpc.health.v1.HealthCheckRequest",
      "grpc.health.v1.HealthCheckResponse",
    ),
  };
  return { inference, health };
}
