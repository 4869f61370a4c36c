/**
 * `ServerOptions`: the typed record a `Server` is started with, and its translation into a
 * `TRITONSERVER_ServerOptions` object. Validation lives in `options_plan.ts`: every value is
 * checked before the first C call.
 *
 * @module
 */
import type { Ptr, TritonLibrary } from "../ffi/mod.ts";
import { check, discard } from "./errors.ts";
import { type OptionSetter, planServerOptions } from "./options_plan.ts";

/** A setting value handed to Triton as text (`String(value)`). */
export type SettingValue = string | number | boolean;

/** A byte count: a non-negative integer (number or bigint) that fits in 64 bits. */
export type ByteSize = number | bigint;

/** Logging (process-wide in Triton: the last server started sets it for every server). */
export interface LogOptions {
  /** Log file path (`TRITONSERVER_ServerOptionsSetLogFile`); `""` logs to stderr again. */
  readonly file?: string;
  /** Log info messages (`TRITONSERVER_ServerOptionsSetLogInfo`). */
  readonly info?: boolean;
  /** Log warnings (`TRITONSERVER_ServerOptionsSetLogWarn`). */
  readonly warn?: boolean;
  /** Log errors (`TRITONSERVER_ServerOptionsSetLogError`). */
  readonly error?: boolean;
  /** Verbose log level, an integer >= 0; 0 = off (`TRITONSERVER_ServerOptionsSetLogVerbose`). */
  readonly verbose?: number;
  /** Log line format (`TRITONSERVER_ServerOptionsSetLogFormat`). */
  readonly format?: "default" | "iso8601";
}

/** Metrics. On a core built without metrics any of these makes `start()` fail UNSUPPORTED. */
export interface MetricsOptions {
  /** Collect metrics at all (`TRITONSERVER_ServerOptionsSetMetrics`). Triton's default: true. */
  readonly enabled?: boolean;
  /** GPU metrics (`TRITONSERVER_ServerOptionsSetGpuMetrics`). */
  readonly gpu?: boolean;
  /** CPU metrics (`TRITONSERVER_ServerOptionsSetCpuMetrics`). */
  readonly cpu?: boolean;
  /** GPU/CPU metrics polling interval in milliseconds, an integer >= 1
   * (`TRITONSERVER_ServerOptionsSetMetricsInterval`). Triton's default: 2000. */
  readonly intervalMs?: number;
  /** Global metrics settings (`TRITONSERVER_ServerOptionsSetMetricsConfig` with group `""`), e.g.
   * `{ counter_latencies: false, summary_latencies: true, summary_quantiles: "0.5:0.05 0.9:0.01" }`. */
  readonly config?: Readonly<Record<string, SettingValue>>;
}

/** Pinned and CUDA memory pools. */
export interface MemoryOptions {
  /** Pinned host memory pool size in bytes
   * (`TRITONSERVER_ServerOptionsSetPinnedMemoryPoolByteSize`). Triton's default: 256 MiB. */
  readonly pinnedPoolByteSize?: ByteSize;
  /** CUDA memory pool size in bytes per GPU id, e.g. `{ 0: 64 << 20 }`
   * (`TRITONSERVER_ServerOptionsSetCudaMemoryPoolByteSize`). */
  readonly cudaPoolByteSize?: Readonly<Record<number, ByteSize>>;
  /** CUDA virtual address space size in bytes per GPU id
   * (`TRITONSERVER_ServerOptionsSetCudaVirtualAddressSize`). */
  readonly cudaVirtualAddressSize?: Readonly<Record<number, ByteSize>>;
}

/** One rate limiter resource (`TRITONSERVER_ServerOptionsAddRateLimiterResource`). */
export interface RateLimiterResource {
  /** Resource name. */
  readonly name: string;
  /** Number of units available, an integer >= 0. */
  readonly count: number;
  /** Device id the resource belongs to; -1 (default) = a global resource. */
  readonly device?: number;
}

/** The rate limiter. */
export interface RateLimiterOptions {
  /** `"off"` or `"execution_count"` (`TRITONSERVER_ServerOptionsSetRateLimiterMode`). */
  readonly mode?: "off" | "execution_count";
  /** Resources the rate limiter hands out. */
  readonly resources?: readonly RateLimiterResource[];
}

/** The response cache. */
export interface CacheOptions {
  /** Directory of cache implementations (`TRITONSERVER_ServerOptionsSetCacheDirectory`). */
  readonly directory?: string;
  /** Cache configurations by cache name, as objects (serialized to JSON) or JSON text
   * (`TRITONSERVER_ServerOptionsSetCacheConfig`), e.g. `{ local: { size: 1048576 } }`. */
  readonly config?: Readonly<Record<string, Readonly<Record<string, unknown>> | string>>;
}

/** A model load limit on one device (`TRITONSERVER_ServerOptionsSetModelLoadDeviceLimit`). */
export interface ModelLoadDeviceLimit {
  /** Device kind; Triton supports `"gpu"` only. */
  readonly kind: "gpu";
  /** Device id, an integer >= 0. */
  readonly device: number;
  /** Fraction of the device's memory model loading may use, in [0, 1]. */
  readonly fraction: number;
}

/** A host policy's settings (`TRITONSERVER_ServerOptionsSetHostPolicy`). */
export interface HostPolicy {
  /** NUMA node to bind to. */
  readonly "numa-node"?: number | string;
  /** CPU cores to bind to, e.g. `"0-3"`. */
  readonly "cpu-cores"?: string;
}

/** Options of an in-process Triton server. Every field but `modelRepository` is optional; an
 * unknown field or a bad value makes `start()` throw `TritonError` INVALID_ARG before any C call. */
export interface ServerOptions {
  /** Model repository path(s) (`TRITONSERVER_ServerOptionsSetModelRepositoryPath`). */
  readonly modelRepository: string | readonly string[];
  /** Server id reported by `server.metadata().name` (`TRITONSERVER_ServerOptionsSetServerId`).
   * Triton's default: `"triton"`. */
  readonly serverId?: string;
  /** Backend directory (`TRITONSERVER_ServerOptionsSetBackendDirectory`). Default:
   * `$TRITONSERVER_BACKEND_DIR`, else Triton's own default (`/opt/tritonserver/backends`). */
  readonly backendDirectory?: string;
  /** Backend settings by backend name (`TRITONSERVER_ServerOptionsSetBackendConfig`); the
   * backend name `""` holds global settings, e.g. `{ "": { "default-max-batch-size": 8 },
   * python: { "shm-default-byte-size": 1048576 } }`. */
  readonly backendConfig?: Readonly<Record<string, Readonly<Record<string, SettingValue>>>>;
  /** Repository agent directory (`TRITONSERVER_ServerOptionsSetRepoAgentDirectory`). */
  readonly repoAgentDirectory?: string;
  /** Model control mode (`TRITONSERVER_ServerOptionsSetModelControlMode`). Default `"none"`. */
  readonly modelControlMode?: "none" | "poll" | "explicit";
  /** Models to load at start in `"explicit"` mode; `"*"` loads all
   * (`TRITONSERVER_ServerOptionsSetStartupModel`). */
  readonly startupModels?: readonly string[];
  /** Require a complete config.pbtxt (`TRITONSERVER_ServerOptionsSetStrictModelConfig`). With
   * false, Triton auto-completes each model's configuration from what its backend reports, and
   * loads models with no config.pbtxt at all (an ONNX file in its version folder), as
   * `tritonserver` and Triton's Python API do; the C API's own default is true.
   * @default false */
  readonly strictModelConfig?: boolean;
  /** Name of the config file to read from each model's `configs/` directory instead of
   * `config.pbtxt` (`TRITONSERVER_ServerOptionsSetModelConfigName`, API 1.31+). */
  readonly modelConfigName?: string;
  /** Model namespacing (`TRITONSERVER_ServerOptionsSetModelNamespacing`, API 1.18+). */
  readonly modelNamespacing?: boolean;
  /** Threads that load models, an integer >= 1
   * (`TRITONSERVER_ServerOptionsSetModelLoadThreadCount`). */
  readonly modelLoadThreadCount?: number;
  /** Times a failed model load is retried, an integer >= 0
   * (`TRITONSERVER_ServerOptionsSetModelLoadRetryCount`, API 1.28+). @default 0, as
   * `tritonserver`'s `--model-load-retry-count` (the core leaves it unset otherwise). */
  readonly modelLoadRetryCount?: number;
  /** Memory limits for model loading per device. */
  readonly modelLoadDeviceLimit?: readonly ModelLoadDeviceLimit[];
  /** Fail start when a model fails to load (`TRITONSERVER_ServerOptionsSetExitOnError`). */
  readonly exitOnError?: boolean;
  /** Ready only when every model is ready (`TRITONSERVER_ServerOptionsSetStrictReadiness`). */
  readonly strictReadiness?: boolean;
  /** Seconds `stop()` waits for in-flight work and for the models to unload, an integer >= 0
   * (`TRITONSERVER_ServerOptionsSetExitTimeout`; Triton's `--exit-timeout-secs`). Default 30.
   * When it expires first, `stop()` throws `INTERNAL` and leaves the server undeleted (see
   * `Server.stop`); the real core checks its unloads once a second, so 0 always expires there. */
  readonly exitTimeoutSecs?: number;
  /** The rate limiter. */
  readonly rateLimiter?: RateLimiterOptions;
  /** Pinned and CUDA memory pools. */
  readonly memory?: MemoryOptions;
  /** The response cache. */
  readonly cache?: CacheOptions;
  /** Threads of the buffer manager, an integer >= 0
   * (`TRITONSERVER_ServerOptionsSetBufferManagerThreadCount`). */
  readonly bufferManagerThreadCount?: number;
  /** Lowest CUDA compute capability a GPU may have to be used
   * (`TRITONSERVER_ServerOptionsSetMinSupportedComputeCapability`). */
  readonly minSupportedComputeCapability?: number;
  /** Enable peer access between GPUs (`TRITONSERVER_ServerOptionsSetEnablePeerAccess`,
   * API 1.32+). @default true, as `tritonserver`'s `--enable-peer-access` (the core leaves it
   * unset otherwise). */
  readonly enablePeerAccess?: boolean;
  /** Host policies by name. */
  readonly hostPolicy?: Readonly<Record<string, HostPolicy>>;
  /** Metrics switches, interval and settings. */
  readonly metrics?: MetricsOptions;
  /** Logging (process-wide in Triton: the last server started sets it for every server). */
  readonly log?: LogOptions;
}

/**
 * @internal Creates a `TRITONSERVER_ServerOptions` for `o`. The caller deletes it
 * (`TRITONSERVER_ServerOptionsDelete`); on error it is deleted here.
 * @throws {TritonError} INVALID_ARG for a bad option, before any C call; Triton's error when a
 *   setter fails (e.g. UNSUPPORTED for metrics options on a core built without metrics).
 */
export function createServerOptions(lib: TritonLibrary, o: ServerOptions): Ptr {
  return optionsFromPlan(lib, planServerOptions(o));
}

/**
 * @internal Creates a `TRITONSERVER_ServerOptions` and makes the calls of `plan` on it. The caller
 * deletes it; on error it is deleted here.
 * @throws {TritonError} Triton's error when a setter fails.
 */
export function optionsFromPlan(lib: TritonLibrary, plan: readonly OptionSetter[]): Ptr {
  const { api, ffi } = lib;
  const out = new BigUint64Array(1);
  check(lib, api.TRITONSERVER_ServerOptionsNew(out));
  const opts = ffi.fromAddress(out[0]);
  try {
    for (const set of plan) {
      const err = set(api, opts, lib.version.minor);
      if (err !== undefined) check(lib, err);
    }
    return opts;
  } catch (e) {
    discard(lib, api.TRITONSERVER_ServerOptionsDelete(opts));
    throw e;
  }
}
