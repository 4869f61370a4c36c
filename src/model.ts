/**
 * `Model`: a model of a running server, by name and version.
 *
 * @module
 */
import type { InferResponse } from "./response.ts";
import { type InferRequest, submit } from "./request.ts";
import type { Server } from "./server.ts";

/** A model served by a {@link Server}. Cheap to create; holds no native object. */
export class Model {
  /** The server that serves it. */
  readonly server: Server;
  /** Model name. */
  readonly name: string;
  /** Model version; -1 = the server's choice (latest ready). */
  readonly version: number;

  /** Use {@link Server.model}. */
  constructor(server: Server, name: string, version = -1) {
    this.server = server;
    this.name = name;
    this.version = version;
  }

  /**
   * Runs an inference (`TRITONSERVER_ServerInferAsync`) and returns its responses as they arrive:
   * one for an ordinary model, zero or more for a decoupled one. Leaving the loop early cancels
   * the request (`TRITONSERVER_InferenceRequestCancel`).
   *
   * The request is submitted at once, so bad input throws here, synchronously.
   * @throws {TritonError} INVALID_ARG (unknown input, wrong data type, shape or byte size),
   *   NOT_FOUND (unknown model), UNAVAILABLE (server stopped or model not ready); a response
   *   carrying an error is thrown by the generator unless `raiseOnError: false`.
   * @example
   * ```ts
   * for await (const response of server.model("add_sub").infer({ inputs: { INPUT0: a, INPUT1: b } })) {
   *   console.log(response.outputs.OUTPUT0.data);
   * }
   * ```
   */
  infer(request: InferRequest): AsyncGenerator<InferResponse> {
    return submit(this.server.inferTarget(this.name, this.version), request);
  }

  /**
   * Whether the model is ready for inference (`TRITONSERVER_ServerModelIsReady`).
   * @throws {TritonError} UNAVAILABLE when the server is not running.
   */
  ready(): boolean {
    return this.server.modelReady(this.name, this.version);
  }
}
