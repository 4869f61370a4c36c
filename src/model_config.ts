/**
 * `ModelConfig`: a model's configuration in Triton's JSON form (config version 1), as
 * `TRITONSERVER_ServerModelConfig` returns it and as a `"config"` load parameter takes it. Field
 * names are the protobuf names of Triton's `model_config.proto` (`max_batch_size`, `input`, …);
 * enums are their names (`"TYPE_FP32"`, `"KIND_CPU"`); 64-bit integers are JSON numbers.
 *
 * @module
 */

/** A JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** A tensor data type in config form (`DataType` of model_config.proto). */
export type ConfigDataType =
  | "TYPE_INVALID"
  | "TYPE_BOOL"
  | "TYPE_UINT8"
  | "TYPE_UINT16"
  | "TYPE_UINT32"
  | "TYPE_UINT64"
  | "TYPE_INT8"
  | "TYPE_INT16"
  | "TYPE_INT32"
  | "TYPE_INT64"
  | "TYPE_FP16"
  | "TYPE_FP32"
  | "TYPE_FP64"
  | "TYPE_STRING"
  | "TYPE_BF16";

/** `ModelInput`. */
export interface ModelInputConfig {
  /** Input name. */
  readonly name: string;
  /** Element data type. */
  readonly data_type: ConfigDataType;
  /** `"FORMAT_NONE" | "FORMAT_NHWC" | "FORMAT_NCHW"`. */
  readonly format?: string;
  /** Shape without the batch dimension; -1 = variable. */
  readonly dims: readonly number[];
  /** Shape the backend sees instead of `dims`. */
  readonly reshape?: { readonly shape: readonly number[] };
  /** The input is a shape tensor. */
  readonly is_shape_tensor?: boolean;
  /** Requests of different shapes may batch together. */
  readonly allow_ragged_batch?: boolean;
  /** Requests may omit the input. */
  readonly optional?: boolean;
  /** The input uses a non-linear (e.g. TensorRT) format. */
  readonly is_non_linear_format_io?: boolean;
}

/** `ModelOutput`. */
export interface ModelOutputConfig {
  /** Output name. */
  readonly name: string;
  /** Element data type. */
  readonly data_type: ConfigDataType;
  /** Shape without the batch dimension; -1 = variable. */
  readonly dims: readonly number[];
  /** Shape the backend produces instead of `dims`. */
  readonly reshape?: { readonly shape: readonly number[] };
  /** File of classification labels. */
  readonly label_filename?: string;
  /** The output is a shape tensor. */
  readonly is_shape_tensor?: boolean;
  /** The output uses a non-linear (e.g. TensorRT) format. */
  readonly is_non_linear_format_io?: boolean;
}

/** `ModelInstanceGroup`. */
export interface ModelInstanceGroupConfig {
  /** Group name (Triton names unnamed groups `<model>_<n>`). */
  readonly name?: string;
  /** `"KIND_AUTO" | "KIND_GPU" | "KIND_CPU" | "KIND_MODEL"`. */
  readonly kind?: string;
  /** Instances per device. */
  readonly count?: number;
  /** GPU ids (KIND_GPU). */
  readonly gpus?: readonly number[];
  /** Rate limiter resources and priority of the instances. */
  readonly rate_limiter?: JsonObject;
  /** Secondary devices of the instances. */
  readonly secondary_devices?: readonly JsonObject[];
  /** Optimization profiles (TensorRT). */
  readonly profile?: readonly string[];
  /** Instances are loaded but not scheduled. */
  readonly passive?: boolean;
  /** Host policy name (see the `hostPolicy` server option). */
  readonly host_policy?: string;
}

/** `ModelVersionPolicy`: one of `latest`, `all`, `specific`. */
export interface ModelVersionPolicyConfig {
  /** Serve the `num_versions` highest versions. */
  readonly latest?: { readonly num_versions: number };
  /** Serve every version. */
  readonly all?: Record<string, never>;
  /** Serve the versions listed. */
  readonly specific?: { readonly versions: readonly number[] };
}

/** `ModelDynamicBatching`. */
export interface ModelDynamicBatchingConfig {
  /** Batch sizes the batcher tries to form. */
  readonly preferred_batch_size?: readonly number[];
  /** Microseconds. */
  readonly max_queue_delay_microseconds?: number;
  /** Responses leave in request order. */
  readonly preserve_ordering?: boolean;
  /** Number of priority levels. */
  readonly priority_levels?: number;
  /** Level of requests without a priority. */
  readonly default_priority_level?: number;
  /** Queue policy (`max_queue_size`, timeouts). */
  readonly default_queue_policy?: JsonObject;
  /** Queue policy per priority level. */
  readonly priority_queue_policy?: { readonly [level: string]: JsonObject };
}

/** `ModelEnsembling`. */
export interface ModelEnsemblingConfig {
  /** The composing models and how tensors flow between them. */
  readonly step: readonly {
    readonly model_name: string;
    readonly model_version: number;
    readonly input_map: { readonly [input: string]: string };
    readonly output_map: { readonly [output: string]: string };
    readonly model_namespace?: string;
  }[];
  /** Limit of requests in flight inside the ensemble; 0 = none. */
  readonly max_inflight_requests?: number;
}

/** A model configuration (`ModelConfig` of model_config.proto). */
export interface ModelConfig {
  /** Model name. */
  readonly name: string;
  /** Platform (e.g. `"tensorrt_plan"`); `""` when `backend` says it. */
  readonly platform: string;
  /** Backend (e.g. `"python"`, `"identity"`). */
  readonly backend: string;
  /** Runtime library of the backend. */
  readonly runtime?: string;
  /** Which versions are served. */
  readonly version_policy?: ModelVersionPolicyConfig;
  /** 0 = the model does not batch. */
  readonly max_batch_size: number;
  /** Inputs. */
  readonly input: readonly ModelInputConfig[];
  /** Outputs. */
  readonly output: readonly ModelOutputConfig[];
  /** Inputs Triton makes from the batch. */
  readonly batch_input?: readonly JsonObject[];
  /** Outputs Triton splits across the batch. */
  readonly batch_output?: readonly JsonObject[];
  /** Optimization policy. */
  readonly optimization?: JsonObject;
  /** Dynamic batcher settings. */
  readonly dynamic_batching?: ModelDynamicBatchingConfig;
  /** Sequence batcher settings. */
  readonly sequence_batching?: JsonObject;
  /** Ensemble steps. */
  readonly ensemble_scheduling?: ModelEnsemblingConfig;
  /** Model instances. */
  readonly instance_group: readonly ModelInstanceGroupConfig[];
  /** Model file name inside the version directory. */
  readonly default_model_filename?: string;
  /** Model file name per CUDA compute capability. */
  readonly cc_model_filenames?: { readonly [key: string]: string };
  /** Tags added to the model's metrics. */
  readonly metric_tags?: { readonly [key: string]: string };
  /** Backend parameters. */
  readonly parameters?: { readonly [key: string]: { readonly string_value: string } };
  /** Warm-up requests run at load. */
  readonly model_warmup?: readonly JsonObject[];
  /** Custom operation libraries. */
  readonly model_operations?: { readonly op_library_filename: readonly string[] };
  /** `decoupled: true`: zero or more responses per request. */
  readonly model_transaction_policy?: { readonly decoupled: boolean };
  /** Repository agents run at load. */
  readonly model_repository_agents?: JsonObject;
  /** Use the response cache. */
  readonly response_cache?: { readonly enable: boolean };
  /** Per-model metric settings. */
  readonly model_metrics?: JsonObject;
}

/** `T` with every field optional, recursively (arrays of partial elements). */
export type DeepPartial<T> = T extends readonly (infer U)[] ? readonly DeepPartial<U>[]
  : T extends object ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
  : T;

/**
 * A configuration to load a model with (`server.loadModel(name, { config })`): any part of a
 * {@link ModelConfig}. Triton uses it instead of config.pbtxt, so it must describe the whole
 * model (backend, inputs, outputs, …) the way config.pbtxt would.
 */
export type ModelConfigOverride = DeepPartial<ModelConfig>;
