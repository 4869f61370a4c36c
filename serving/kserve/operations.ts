/**
 * The KServe v2 operations on plain values, once for both protocols: health, metadata,
 * configuration, statistics and the model repository extension. The HTTP layer (`http/`) and the
 * gRPC layer (`grpc/`) only decode a request into these arguments, call them and encode what they
 * return; a rule or an error message lives here, so both protocols answer alike.
 *
 * @module
 */
import type { ModelMetadata, ServerMetadata } from "../../src/metadata.ts";
import type { ModelConfig } from "../../src/model_config.ts";
import type { LoadModelOptions, ModelIndexEntry } from "../../src/repository.ts";
import type { Server } from "../../src/server.ts";
import type { ModelStatistics } from "../../src/statistics.ts";
import { TritonError } from "../../src/errors.ts";
import { invalid, unsupported } from "../common/refusals.ts";
import type { SharedMemoryRegions, SharedMemoryRegionStatus } from "./shared_memory.ts";
import {
  cudaRegionNameNeeded,
  type CudaSharedMemoryRegionStatus,
  gpusNotSupported,
} from "./cuda_shared_memory.ts";
import { servedExtensions } from "./extensions.ts";

/** A parameter's value as either protocol carries it: JSON's string, boolean and number (HTTP),
 * or an `InferParameter`'s field (gRPC: 64-bit integers as bigint, `bytes_param` as bytes). */
export type CallParameter = string | boolean | number | bigint | Uint8Array;

/** A parameter's value for an error message. */
export function describeParameter(value: CallParameter): string {
  if (value instanceof Uint8Array) return `${value.byteLength} bytes`;
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return String(value);
}

/** A model version as the protocol gives it: absent or "" is -1 (the server's choice).
 * @throws {TritonError} INVALID_ARG for anything but digits. */
export function versionOf(text: string | undefined): number {
  if (text === undefined || text === "") return -1;
  if (!/^\d+$/.test(text)) invalid(`invalid model version '${text}'`);
  const version = Number(text);
  if (!Number.isSafeInteger(version)) invalid(`invalid model version '${text}'`);
  return version;
}

/** Whether the server is live (`/v2/health/live`, ServerLive). */
export function serverLive(server: Server): boolean {
  return server.live();
}

/** Whether the server is ready (`/v2/health/ready`, ServerReady). */
export function serverReady(server: Server): boolean {
  return server.ready();
}

/** Whether a model is ready (`.../ready`, ModelReady).
 * @throws {TritonError} Triton's error for an unknown model. */
export function modelReady(server: Server, name: string, version: number): boolean {
  return server.model(name, version).ready();
}

/** The server's name, version and the extensions the front end serves (`/v2`, ServerMetadata):
 * `system_shared_memory` and `cuda_shared_memory` where it has `regions` (as tritonserver
 * reports CUDA shared memory whether or not it has a GPU). */
export function serverMetadata(
  server: Server,
  regions?: SharedMemoryRegions,
): ServerMetadata {
  const meta = server.metadata();
  const enabled = regions === undefined ? [] : ["system_shared_memory", "cuda_shared_memory"];
  return { ...meta, extensions: servedExtensions(meta.extensions, enabled) };
}

/** A model's metadata (`/v2/models/{name}`, ModelMetadata).
 * @throws {TritonError} Triton's error for an unknown model. */
export function modelMetadata(server: Server, name: string, version: number): ModelMetadata {
  return server.model(name, version).metadata();
}

/** A model's configuration (`.../config`, ModelConfig).
 * @throws {TritonError} Triton's error for an unknown model. */
export function modelConfig(server: Server, name: string, version: number): ModelConfig {
  return server.model(name, version).config();
}

/**
 * Statistics (`/v2/models/stats`, `.../stats`, ModelStatistics): every model's where `name` is
 * "", one version's where `version` is given, else every version of `name` Triton has statistics
 * for.
 * @throws {TritonError} Triton's error for a model it has no statistics for.
 */
export function modelStatistics(server: Server, name: string, version: number): ModelStatistics[] {
  if (name === "") return server.statistics();
  if (version !== -1) return [server.model(name, version).statistics()];
  const stats = server.statistics().filter((s) => s.name === name);
  // A model with no statistics: Triton's error for it.
  if (stats.length === 0) stats.push(server.model(name).statistics());
  return stats;
}

/** Refuses a repository name: the server has its repositories, not one chosen per call.
 * @throws {TritonError} UNSUPPORTED when `repository` names one. */
function noRepositoryName(repository: string | undefined): void {
  if (repository !== undefined && repository !== "") {
    unsupported("'repository_name' specification is not supported");
  }
}

/**
 * The repository index (`/v2/repository/index`, RepositoryIndex): every model, or only those
 * ready for inference.
 * @throws {TritonError} UNSUPPORTED for a repository name; Triton's error.
 */
export function repositoryIndex(
  server: Server,
  readyOnly: boolean,
  repository?: string,
): ModelIndexEntry[] {
  noRepositoryName(repository);
  return server.models({ readyOnly });
}

/**
 * Loads a model (`.../models/{name}/load`, RepositoryModelLoad) with its load parameters:
 * `config` (the model configuration as JSON text) and `file:<path>` (a model file's bytes).
 * @throws {TritonError} INVALID_ARG naming a parameter of the wrong type or an unknown one;
 *   UNSUPPORTED for a repository name; Triton's load error.
 */
export async function repositoryLoad(
  server: Server,
  name: string,
  parameters: Readonly<Record<string, CallParameter>>,
  repository?: string,
): Promise<void> {
  noRepositoryName(repository);
  const options: { config?: LoadModelOptions["config"]; files?: Record<string, Uint8Array> } = {};
  for (const [key, value] of Object.entries(parameters)) {
    if (key === "config") {
      if (typeof value !== "string") {
        invalid(`parameter 'config' must be a string, not ${describeParameter(value)}`);
      }
      let config: unknown;
      try {
        config = JSON.parse(value);
      } catch (e) {
        invalid(`parameter 'config' is not JSON: ${e instanceof Error ? e.message : e}`);
      }
      if (config === null || typeof config !== "object" || Array.isArray(config)) {
        invalid("parameter 'config' must be a JSON object");
      }
      options.config = config as LoadModelOptions["config"];
    } else if (key.startsWith("file:")) {
      if (!(value instanceof Uint8Array)) {
        invalid(
          `parameter '${key}' must be the file's bytes (base64 text over HTTP), not ` +
            describeParameter(value),
        );
      }
      (options.files ??= {})[key.slice(5)] = value;
    } else {
      invalid(`unknown load parameter '${key}' (expected 'config' or 'file:<path>')`);
    }
  }
  await server.loadModel(name, options);
}

/**
 * Unloads a model (`.../models/{name}/unload`, RepositoryModelUnload); parameter
 * `unload_dependents` (boolean) unloads the models that depend on it too.
 * @throws {TritonError} INVALID_ARG for a parameter of the wrong type; UNSUPPORTED for a
 *   repository name; Triton's error.
 */
export async function repositoryUnload(
  server: Server,
  name: string,
  parameters: Readonly<Record<string, CallParameter>>,
  repository?: string,
): Promise<void> {
  noRepositoryName(repository);
  const dependents = parameters.unload_dependents;
  if (dependents !== undefined && typeof dependents !== "boolean") {
    invalid(
      `parameter 'unload_dependents' must be a boolean, not ${describeParameter(dependents)}`,
    );
  }
  await server.unloadModel(name, { unloadDependents: dependents === true });
}

/** What a disabled front end answers a shared memory registration. */
const SHM_DISABLED = "Client shared memory is disabled: serve with a SharedMemoryRegions " +
  "(the sharedMemory option of serve() and serveGrpc()) to enable it";

/**
 * Registers system shared memory region `name` (`.../systemsharedmemory/region/{name}/register`,
 * SystemSharedMemoryRegister): `byteSize` bytes at `offset` of the POSIX shared memory object
 * `key`.
 * @throws {TritonError} UNSUPPORTED where the front end serves no shared memory; as
 *   `SharedMemoryRegions.register`.
 */
export function sharedMemoryRegister(
  regions: SharedMemoryRegions | undefined,
  name: string,
  key: string | undefined,
  offset: CallParameter | undefined,
  byteSize: CallParameter | undefined,
): void {
  if (regions === undefined) unsupported(SHM_DISABLED);
  if (key === undefined) invalid("Shared memory register request has no 'key' field");
  if (byteSize === undefined) invalid("Shared memory register request has no 'byte_size' field");
  if (typeof offset !== "number" && typeof offset !== "bigint" && offset !== undefined) {
    invalid(`'offset' must be an unsigned integer, not ${describeParameter(offset)}`);
  }
  if (typeof byteSize !== "number" && typeof byteSize !== "bigint") {
    invalid(`'byte_size' must be an unsigned integer, not ${describeParameter(byteSize)}`);
  }
  regions.register(name, key, offset ?? 0, byteSize);
}

/** The system shared memory regions registered, or the one named (`.../status`,
 * SystemSharedMemoryStatus); none where the front end serves no shared memory.
 * @throws {TritonError} NOT_FOUND for a name not registered. */
export function sharedMemoryStatus(
  regions: SharedMemoryRegions | undefined,
  name: string,
): SharedMemoryRegionStatus[] {
  if (regions !== undefined) return regions.status(name);
  if (name !== "") {
    throw new TritonError("NOT_FOUND", `Unable to find system shared memory region: '${name}'`);
  }
  return [];
}

/** Unregisters region `name`, or every one where `name` is "" (`.../unregister`,
 * SystemSharedMemoryUnregister).
 * @throws {TritonError} UNSUPPORTED where the front end serves no shared memory. */
export function sharedMemoryUnregister(
  regions: SharedMemoryRegions | undefined,
  name: string,
): void {
  if (regions === undefined) unsupported(SHM_DISABLED);
  regions.unregister(name);
}

/** A CUDA registration's fields as either protocol carries them. */
export interface CudaRegisterFields {
  /** The `cudaIpcMemHandle_t`'s bytes (gRPC), or their base64 text (HTTP's `raw_handle.b64`);
   * undefined where the request has none. */
  readonly rawHandle: Uint8Array | string | undefined;
  /** The GPU's id; undefined where the request has none. */
  readonly deviceId: CallParameter | undefined;
  /** The region's size in bytes; undefined where the request has none. */
  readonly byteSize: CallParameter | undefined;
}

/** Standard base64 text's bytes; undefined for text that is not base64. */
function base64Bytes(text: string): Uint8Array | undefined {
  const clean = text.replace(/\s+/g, "");
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return undefined;
  const binary = atob(clean);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * Registers CUDA shared memory region `name` (`.../cudasharedmemory/region/{name}/register`,
 * CudaSharedMemoryRegister): the GPU buffer whose `cudaIpcMemHandle_t` is `fields.rawHandle`,
 * on device `fields.deviceId`, of `fields.byteSize` bytes. Checked in tritonserver's order.
 * @throws {TritonError} UNSUPPORTED where the front end serves no shared memory; INVALID_ARG for
 *   an empty name, a server with no CUDA runtime, a field missing or of the wrong type, a handle
 *   that is not the base64 of 64 bytes; as `SharedMemoryRegions.registerCuda`.
 */
export function cudaSharedMemoryRegister(
  regions: SharedMemoryRegions | undefined,
  name: string,
  fields: () => CudaRegisterFields,
): void {
  if (regions === undefined) unsupported(SHM_DISABLED);
  if (name === "") cudaRegionNameNeeded();
  if (!regions.cudaAvailable) gpusNotSupported(name);
  const { rawHandle, deviceId, byteSize } = fields();
  if (rawHandle === undefined) invalid("Shared memory register request has no 'raw_handle' field");
  const count = (value: CallParameter | undefined, key: string) => {
    if (value === undefined) invalid(`attempt to access non-existing object member '${key}'`);
    const whole = typeof value === "bigint" ||
      (typeof value === "number" && Number.isInteger(value));
    if (!whole || value < 0) {
      invalid(`'${key}' must be an unsigned integer, not ${describeParameter(value)}`);
    }
    return value;
  };
  const size = count(byteSize, "byte_size");
  const device = count(deviceId, "device_id");
  const bytes = typeof rawHandle === "string" ? base64Bytes(rawHandle) : rawHandle;
  if (bytes === undefined || bytes.byteLength !== 64) {
    invalid("'raw_handle' must be a valid base64 encoded cudaIpcMemHandle_t");
  }
  regions.registerCuda(name, bytes, device, size);
}

/** The CUDA shared memory regions registered, or the one named (`.../cudasharedmemory/status`,
 * CudaSharedMemoryStatus); none where the front end serves no shared memory.
 * @throws {TritonError} NOT_FOUND for a name not registered (or registered as system memory). */
export function cudaSharedMemoryStatus(
  regions: SharedMemoryRegions | undefined,
  name: string,
): CudaSharedMemoryRegionStatus[] {
  if (regions !== undefined) return regions.cudaStatus(name);
  if (name !== "") {
    throw new TritonError("NOT_FOUND", `Unable to find cuda shared memory region: '${name}'`);
  }
  return [];
}

/** Unregisters CUDA region `name`, or every one where `name` is "" (`.../unregister`,
 * CudaSharedMemoryUnregister).
 * @throws {TritonError} UNSUPPORTED where the front end serves no shared memory; INTERNAL when
 *   the CUDA runtime fails to close a region. */
export function cudaSharedMemoryUnregister(
  regions: SharedMemoryRegions | undefined,
  name: string,
): void {
  if (regions === undefined) unsupported(SHM_DISABLED);
  regions.unregisterCuda(name);
}
