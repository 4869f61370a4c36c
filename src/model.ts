/**
 * `Model`: a model of a running server, by name and version.
 *
 * @module
 */
import { invalidArgument } from "./value_checks.ts";
import {
  batchProperties,
  type ModelBatchProperties,
  modelConfig,
  type ModelMetadata,
  modelMetadata,
  type ModelTransactionProperties,
  transactionProperties,
} from "./metadata.ts";
import type { ModelConfig } from "./model_config.ts";
import type {
  InferOneThis,
  ModelDeclaration,
  ModelRequest,
  ModelResponse,
  OutputDeclarations,
} from "./model_types.ts";
import type { InferResponse } from "./response.ts";
import { type InferRequest, submit } from "./request.ts";
import type { Server } from "./server.ts";
import { type ModelStatistics, modelStatistics } from "./statistics.ts";
import { TritonError } from "./errors.ts";

/**
 * A model served by a {@link Server}. Cheap to create; holds no native object.
 *
 * @typeParam T the model's declaration (`tritonffi types`), which a `Server<Models>` gives the
 *   models it declares: requests then take the declared inputs, each of its data type, responses
 *   type `output(name)`, and `inferOne` is refused on a model declared decoupled. `undefined`
 *   (the default): any request, as for a model without a declaration.
 */
export class Model<T extends ModelDeclaration | undefined = undefined> {
  /** The server that serves it. */
  readonly server: Server;
  /** Model name. */
  readonly name: string;
  /** Model version; -1 = the server's choice (latest ready). */
  readonly version: number;

  /** Use {@link Server.model}. */
  constructor(server: Server, name: string, version = -1) {
    checkModelRef(name, version);
    this.server = server;
    this.name = name;
    this.version = version;
  }

  /**
   * Runs an inference (`TRITONSERVER_ServerInferAsync`) and returns its responses as they arrive:
   * one for an ordinary model, zero or more for a decoupled one. Leaving the loop early cancels
   * the request (`TRITONSERVER_InferenceRequestCancel`). Each response is the caller's to keep
   * (`Array.fromAsync(model.infer(...))` works); dispose those you are done with, or let the
   * garbage collector release them. See {@link inferOne} for the one-response case.
   *
   * The request is submitted at once, so bad input throws here, synchronously.
   * @throws {TritonError} INVALID_ARG (unknown input, wrong data type, shape or byte size),
   *   NOT_FOUND (unknown model), UNAVAILABLE (server stopped or model not ready); a response
   *   carrying an error is thrown by the generator unless `raiseOnError: false`.
   * @example
   * ```ts
   * import { Server } from "tritonffi";
   *
   * await using server = await new Server({ modelRepository: "./models" }).start();
   * const stream = server.model("repeat_int32").infer({
   *   inputs: {
   *     IN: new Int32Array([4, 5, 6]),
   *     DELAY: new Uint32Array([0, 0, 0]),
   *     WAIT: new Uint32Array([0]),
   *   },
   * });
   * for await (const response of stream) {
   *   if (!response.final) console.log(response.output("OUT", "INT32").data[0]); // 4, 5, 6
   * }
   * ```
   */
  infer(request: ModelRequest<T>): AsyncGenerator<ModelResponse<T>> {
    return submit(
      this.server.inferTarget(this.name, this.version),
      request as InferRequest,
    ) as AsyncGenerator<ModelResponse<T>>;
  }

  /**
   * Runs an inference that has one response — what an ordinary (not decoupled) model sends — and
   * resolves with it (`TRITONSERVER_ServerInferAsync`). The response is the caller's: read it,
   * keep it, `dispose()` it when done (or let `using` or the garbage collector do it).
   * @throws {TritonError} as {@link infer} (bad input synchronously, a failed response as the
   *   rejection); UNSUPPORTED when the model sent no response or more than one (a decoupled
   *   model: use {@link infer}), after cancelling the request and releasing what it sent.
   * @example
   * ```ts
   * import { Server } from "tritonffi";
   *
   * await using server = await new Server({ modelRepository: "./models" }).start();
   * const INPUT0 = new Float32Array(16).fill(1);
   * const INPUT1 = new Float32Array(16).fill(2);
   * using response = await server.model("add_sub").inferOne({ inputs: { INPUT0, INPUT1 } });
   * const sum: Float32Array = response.output("OUTPUT0", "FP32").data;
   * console.log(sum[0]); // 3
   * ```
   */
  async inferOne(
    this: Model<T> & InferOneThis<T>,
    request: ModelRequest<T>,
  ): Promise<ModelResponse<T>> {
    return await oneResponse(this.name, this.infer(request));
  }

  /**
   * Whether the model is ready for inference (`TRITONSERVER_ServerModelIsReady`).
   * @throws {TritonError} UNAVAILABLE when the server is not running.
   */
  ready(): boolean {
    return this.server.modelReady(this.name, this.version);
  }

  /**
   * Model metadata (`TRITONSERVER_ServerModelMetadata`): `{ name, versions, platform, inputs,
   * outputs }`, inputs/outputs as `{ name, datatype, shape }` (shape with -1 for the batch).
   * @throws {TritonError} Triton's error when the model is not ready (NOT_FOUND / UNAVAILABLE);
   *   UNAVAILABLE when the server is not running.
   */
  metadata(): ModelMetadata {
    const { lib, server } = this.server.native();
    return modelMetadata(lib, server, this.name, this.version);
  }

  /**
   * The configuration the model runs with, in Triton's JSON form (`TRITONSERVER_ServerModelConfig`):
   * config.pbtxt as completed by Triton, or the override it was loaded with.
   * @param configVersion JSON format version; Triton supports 1 only.
   * @throws {TritonError} Triton's error when the model is not ready.
   */
  config(configVersion = 1): ModelConfig {
    const { lib, server } = this.server.native();
    return modelConfig(lib, server, this.name, this.version, configVersion);
  }

  /**
   * Statistics of this model (`TRITONSERVER_ServerModelStatistics`): of its version, or with
   * version -1 of its highest ready version. `inference_stats.success.count` counts successful
   * requests; durations are in nanoseconds.
   * @throws {TritonError} INVALID_ARG when the model or version is not ready; UNSUPPORTED on a
   *   core built without statistics.
   */
  statistics(): ModelStatistics {
    const { lib, server } = this.server.native();
    const all = modelStatistics(lib, server, this.name, this.version);
    const pick = all.reduce<ModelStatistics | undefined>(
      (best, s) => (best === undefined || Number(s.version) > Number(best.version) ? s : best),
      undefined,
    );
    if (!pick) throw new TritonError("NOT_FOUND", `no statistics for model '${this.name}'`);
    return pick;
  }

  /**
   * How the model batches (`TRITONSERVER_ServerModelBatchProperties`): `{ firstDim }`, true when
   * every input's first dimension is the batch (max_batch_size > 0).
   * @throws {TritonError} Triton's error when the model is not ready.
   */
  batchProperties(): ModelBatchProperties {
    const { lib, server } = this.server.native();
    return batchProperties(lib, server, this.name, this.version);
  }

  /**
   * How the model answers (`TRITONSERVER_ServerModelTransactionProperties`): `{ decoupled,
   * oneToOne }`.
   * @throws {TritonError} Triton's error when the model is not ready.
   */
  transactionProperties(): ModelTransactionProperties {
    const { lib, server } = this.server.native();
    return transactionProperties(lib, server, this.name, this.version);
  }
}

/**
 * Checks a model name and version as users give them.
 * @throws {TritonError} INVALID_ARG for a name that is not a non-empty string, or a version that
 *   is not an integer >= -1.
 */
export function checkModelRef(name: unknown, version: unknown): void {
  if (typeof name !== "string" || name === "") {
    throw invalidArgument("the model name", "a non-empty string", name);
  }
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < -1) {
    throw invalidArgument(
      `model '${name}': version`,
      "an integer >= -1 (-1: the server's choice)",
      version,
    );
  }
}

/**
 * @internal The one response of `stream`, a request to model `name` (what
 * {@link Model.inferOne} resolves with).
 * @throws {TritonError} UNSUPPORTED when the model sent no response or more than one, after
 *   cancelling the request and disposing what it sent; the response's error.
 */
export async function oneResponse<R extends InferResponse<OutputDeclarations>>(
  name: string,
  stream: AsyncGenerator<R>,
): Promise<R> {
  const first = await stream.next();
  if (first.done) {
    throw new TritonError("UNSUPPORTED", `model '${name}' sent no response; use infer()`);
  }
  let more: IteratorResult<R>;
  try {
    more = await stream.next();
  } catch (e) {
    first.value.dispose(); // the stream failed after it: the caller never gets it
    throw e;
  }
  if (!more.done) {
    more.value.dispose();
    first.value.dispose();
    await stream.return(undefined);
    throw new TritonError(
      "UNSUPPORTED",
      `model '${name}' sent more than one response (it is decoupled); use infer()`,
    );
  }
  return first.value;
}
