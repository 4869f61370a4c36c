/**
 * Server and model metadata, model configuration, batch and transaction properties: Triton's
 * answers as typed records. Field names are Triton's (KServe's for metadata).
 *
 * @module
 */
import { describeValue } from "./value_checks.ts";
import { ModelBatchFlag, ModelTxnPropertyFlag, type Ptr, type TritonLibrary } from "../ffi/mod.ts";
import { check, TritonError } from "./errors.ts";
import { readJsonMessage } from "./message.ts";
import type { ModelConfig } from "./model_config.ts";

/** Server metadata (`TRITONSERVER_ServerMetadata`; KServe's server metadata response). */
export interface ServerMetadata {
  /** Server id (the `serverId` option; Triton's default is `"triton"`). */
  readonly name: string;
  /** Server version. */
  readonly version: string;
  /** Protocol extensions the server supports, e.g. `"model_repository"`, `"statistics"`. */
  readonly extensions: readonly string[];
}

/** One input or output in model metadata. */
export interface TensorMetadata {
  /** Tensor name. */
  readonly name: string;
  /** Triton's data type name without `TYPE_`, e.g. `"FP32"`, `"BYTES"`. */
  readonly datatype: string;
  /** Shape including the batch dimension (-1) for batching models; -1 = variable. */
  readonly shape: readonly number[];
}

/** Model metadata (`TRITONSERVER_ServerModelMetadata`; KServe's model metadata response). */
export interface ModelMetadata {
  /** Model name. */
  readonly name: string;
  /** The ready versions (or the version asked for), as strings as in KServe. */
  readonly versions: readonly string[];
  /** The model's platform, or its backend when it has no platform (e.g. `"python"`). */
  readonly platform: string;
  /** Inputs. */
  readonly inputs: readonly TensorMetadata[];
  /** Outputs. */
  readonly outputs: readonly TensorMetadata[];
}

/** How a model batches (`TRITONSERVER_ServerModelBatchProperties`). */
export interface ModelBatchProperties {
  /** The first dimension of every input and output is the batch (`max_batch_size` > 0;
   * `TRITONSERVER_BATCH_FIRST_DIM`). False means `TRITONSERVER_BATCH_UNKNOWN`. */
  readonly firstDim: boolean;
  /** The raw `TRITONSERVER_ModelBatchFlag` bits. */
  readonly flags: number;
}

/** How a model answers requests (`TRITONSERVER_ServerModelTransactionProperties`). */
export interface ModelTransactionProperties {
  /** Zero or more responses per request (`TRITONSERVER_TXN_DECOUPLED`). */
  readonly decoupled: boolean;
  /** Exactly one response per request (`TRITONSERVER_TXN_ONE_TO_ONE`). */
  readonly oneToOne: boolean;
  /** The raw `TRITONSERVER_ModelTxnPropertyFlag` bits. */
  readonly flags: number;
}

function object<T>(json: unknown, what: string): T {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new TritonError("INTERNAL", `${what} is not a JSON object`);
  }
  return json as T;
}

/**
 * @internal Server metadata (`TRITONSERVER_ServerMetadata`).
 * @throws {TritonError} Triton's error.
 */
export function serverMetadata(lib: TritonLibrary, server: Ptr): ServerMetadata {
  const json = readJsonMessage(lib, (out) => lib.api.TRITONSERVER_ServerMetadata(server, out));
  return object<ServerMetadata>(json, "server metadata");
}

/**
 * @internal Model metadata (`TRITONSERVER_ServerModelMetadata`).
 * @param version -1 lets the server choose.
 * @throws {TritonError} Triton's error (NOT_FOUND / UNAVAILABLE for a model that is not ready).
 */
export function modelMetadata(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  version: number,
): ModelMetadata {
  const json = readJsonMessage(
    lib,
    (out) => lib.api.TRITONSERVER_ServerModelMetadata(server, name, BigInt(version), out),
  );
  return object<ModelMetadata>(json, "model metadata");
}

/**
 * @internal A model's configuration (`TRITONSERVER_ServerModelConfig`).
 * @param version -1 lets the server choose.
 * @param configVersion the JSON format version; Triton supports 1 only.
 * @throws {TritonError} INVALID_ARG for a bad `configVersion` (before any C call); Triton's error.
 */
export function modelConfig(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  version: number,
  configVersion = 1,
): ModelConfig {
  if (!Number.isInteger(configVersion) || configVersion < 1 || configVersion > 0xffffffff) {
    throw new TritonError(
      "INVALID_ARG",
      `configVersion must be an integer >= 1, not ${describeValue(configVersion)}`,
    );
  }
  const json = readJsonMessage(
    lib,
    (out) =>
      lib.api.TRITONSERVER_ServerModelConfig(server, name, BigInt(version), configVersion, out),
  );
  return object<ModelConfig>(json, "model config");
}

/**
 * @internal A model's batch properties (`TRITONSERVER_ServerModelBatchProperties`).
 * @throws {TritonError} Triton's error (NOT_FOUND / UNAVAILABLE for a model that is not ready).
 */
export function batchProperties(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  version: number,
): ModelBatchProperties {
  const flags = new Uint32Array(1);
  const voidp = new BigUint64Array(1);
  check(
    lib,
    lib.api.TRITONSERVER_ServerModelBatchProperties(server, name, BigInt(version), flags, voidp),
  );
  return { firstDim: (flags[0] & ModelBatchFlag.FIRST_DIM) !== 0, flags: flags[0] };
}

/**
 * @internal A model's transaction properties (`TRITONSERVER_ServerModelTransactionProperties`).
 * @throws {TritonError} Triton's error (NOT_FOUND / UNAVAILABLE for a model that is not ready).
 */
export function transactionProperties(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  version: number,
): ModelTransactionProperties {
  const flags = new Uint32Array(1);
  const voidp = new BigUint64Array(1);
  check(
    lib,
    lib.api.TRITONSERVER_ServerModelTransactionProperties(
      server,
      name,
      BigInt(version),
      flags,
      voidp,
    ),
  );
  return {
    decoupled: (flags[0] & ModelTxnPropertyFlag.DECOUPLED) !== 0,
    oneToOne: (flags[0] & ModelTxnPropertyFlag.ONE_TO_ONE) !== 0,
    flags: flags[0],
  };
}
