/**
 * Model statistics (`TRITONSERVER_ServerModelStatistics`) as typed records, in Triton's JSON
 * shape (KServe's statistics extension): snake_case names, durations in nanoseconds. Counts and
 * durations are JSON numbers (exact up to 2^53).
 *
 * @module
 */
import type { Ptr, TritonLibrary } from "../ffi/mod.ts";
import { TritonError } from "./errors.ts";
import { readJsonMessage } from "./message.ts";

/** A count and the total time those events took. */
export interface StatisticDuration {
  /** Number of events. */
  readonly count: number;
  /** Total duration of those events in nanoseconds. */
  readonly ns: number;
}

/** Request statistics (`inference_stats`). */
export interface InferStatistics {
  /** Successful requests, and their end-to-end time. */
  readonly success: StatisticDuration;
  /** Failed requests, and their time. */
  readonly fail: StatisticDuration;
  /** Time successful requests waited in the queue. */
  readonly queue: StatisticDuration;
  /** Time spent preparing inputs (requests not served from the cache). */
  readonly compute_input: StatisticDuration;
  /** Time spent executing the model. */
  readonly compute_infer: StatisticDuration;
  /** Time spent extracting outputs. */
  readonly compute_output: StatisticDuration;
  /** Response cache hits, and the lookup time. */
  readonly cache_hit: StatisticDuration;
  /** Response cache misses, and the lookup and insertion time. */
  readonly cache_miss: StatisticDuration;
}

/** Statistics of the n-th response of decoupled models (`response_stats[n]`). */
export interface InferResponseStatistics {
  /** Time the model took to produce this response. */
  readonly compute_infer: StatisticDuration;
  /** Time spent extracting this response's outputs. */
  readonly compute_output: StatisticDuration;
  /** Responses sent successfully, and their time. */
  readonly success: StatisticDuration;
  /** Responses that failed, and their time. */
  readonly fail: StatisticDuration;
  /** Responses without outputs (e.g. a FINAL flag alone). */
  readonly empty_response: StatisticDuration;
  /** Responses cancelled, and their time. */
  readonly cancel: StatisticDuration;
}

/** Statistics of executions of one batch size (`batch_stats[]`). */
export interface InferBatchStatistics {
  /** The batch size. */
  readonly batch_size: number;
  /** Executions of this size: input preparation time. */
  readonly compute_input: StatisticDuration;
  /** Executions of this size: model execution time. */
  readonly compute_infer: StatisticDuration;
  /** Executions of this size: output extraction time. */
  readonly compute_output: StatisticDuration;
}

/** Memory a model holds (`memory_usage[]`). */
export interface MemoryUsage {
  /** `"CPU"`, `"CPU_PINNED"` or `"GPU"`. */
  readonly type: string;
  /** Device id. */
  readonly id: number;
  /** Bytes. */
  readonly byte_size: number;
}

/** The statistics of one model version (`model_stats[]`). */
export interface ModelStatistics {
  /** Model name. */
  readonly name: string;
  /** The version, as a string (as in KServe). */
  readonly version: string;
  /** When the last request was received, in milliseconds since the Unix epoch; 0 = never. */
  readonly last_inference: number;
  /** Inferences performed (each batch element counts; cache hits excluded). */
  readonly inference_count: number;
  /** Model executions (a batch counts once). */
  readonly execution_count: number;
  /** Request counts and durations. */
  readonly inference_stats: InferStatistics;
  /** By response index (`"0"`, `"1"`, …); empty for models that do not report it. */
  readonly response_stats: { readonly [index: string]: InferResponseStatistics };
  /** Execution counts and durations per batch size. */
  readonly batch_stats: readonly InferBatchStatistics[];
  /** Memory the model holds, per memory type and device. */
  readonly memory_usage: readonly MemoryUsage[];
}

/**
 * @internal Statistics (`TRITONSERVER_ServerModelStatistics`) of one model's ready versions, or of
 * every ready model when `name` is `""`.
 * @param version -1 = every ready version.
 * @throws {TritonError} Triton's error (INVALID_ARG for a model or version that is not ready;
 *   UNSUPPORTED on a core built without statistics).
 */
export function modelStatistics(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  version: number,
): ModelStatistics[] {
  const json = readJsonMessage(
    lib,
    (out) => lib.api.TRITONSERVER_ServerModelStatistics(server, name, BigInt(version), out),
  ) as { model_stats?: unknown };
  if (!json || !Array.isArray(json.model_stats)) {
    throw new TritonError("INTERNAL", "model statistics have no model_stats array");
  }
  return json.model_stats as ModelStatistics[];
}
