/**
 * tritonffi: NVIDIA Triton Inference Server's in-process C API for Deno, Bun and Node, with no
 * compiled addon.
 *
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * const INPUT0 = new Float32Array(16).fill(1);
 * const INPUT1 = new Float32Array(16).fill(2);
 * for await (const r of server.model("add_sub").infer({ inputs: { INPUT0, INPUT1 } })) {
 *   console.log(r.output("OUTPUT0", "FP32").data); // Float32Array(16) [ 3, 3, … ]
 * }
 * ```
 * @module
 */
export { Server, type ServerInfo, type StartOptions } from "./src/server.ts";
export type { AttachOptions, SharedServerHandle } from "./src/shared_server.ts";
export type {
  ByteSize,
  CacheOptions,
  HostPolicy,
  LogOptions,
  MemoryOptions,
  MetricsOptions,
  ModelLoadDeviceLimit,
  RateLimiterOptions,
  RateLimiterResource,
  ServerOptions,
  SettingValue,
} from "./src/options.ts";
export { Model } from "./src/model.ts";
export type { InferRequest, OutputMemory } from "./src/request.ts";
export type {
  DeclarationOf,
  DeclaredOutputName,
  DecoupledModel,
  InferOneThis,
  InputsOf,
  InputValue,
  ModelDeclaration,
  ModelDeclarations,
  ModelOutputs,
  ModelRequest,
  ModelResponse,
  OutputDataType,
  OutputDeclarations,
  OutputName,
  OutputsOf,
  PlainInputs,
  RecordInputs,
  TensorDeclaration,
} from "./src/model_types.ts";
export type { RequestParameterValue, TypedRequestParameter } from "./src/request_parameters.ts";
export type {
  LoadModelOptions,
  ModelIndexEntry,
  ModelState,
  UnloadModelOptions,
} from "./src/repository.ts";
export type {
  ModelBatchProperties,
  ModelMetadata,
  ModelTransactionProperties,
  ServerMetadata,
  TensorMetadata,
} from "./src/metadata.ts";
export type {
  ConfigDataType,
  DeepPartial,
  JsonObject,
  JsonValue,
  ModelConfig,
  ModelConfigOverride,
  ModelDynamicBatchingConfig,
  ModelEnsemblingConfig,
  ModelInputConfig,
  ModelInstanceGroupConfig,
  ModelOutputConfig,
  ModelVersionPolicyConfig,
} from "./src/model_config.ts";
export type {
  InferBatchStatistics,
  InferResponseStatistics,
  InferStatistics,
  MemoryUsage,
  ModelStatistics,
  StatisticDuration,
} from "./src/statistics.ts";
export type { Metric, MetricFamily, MetricFamilyOptions, MetricKind } from "./src/metric_family.ts";
export type { LogLevelName } from "./src/log.ts";
export type {
  TraceActivity,
  TraceActivityBase,
  TraceActivityName,
  TraceLevelName,
  TraceOptions,
  TraceTensorActivity,
  TraceTimestampActivity,
} from "./src/trace.ts";
export { InferResponse, type ParameterValue } from "./src/response.ts";
export { ResponseQueue } from "./src/response_queue.ts";
export { Tensor, type TensorData, type TensorLike } from "./src/tensor.ts";
export { TritonError } from "./src/errors.ts";
export { DATA_TYPES, hasFloat16Array, type NumericArray } from "./src/dtypes.ts";
export { bf16ToNumber, fp16ToNumber, numberToBf16, numberToFp16 } from "./src/half.ts";
export {
  type DataTypeName,
  DEFAULT_LIBRARY_PATH,
  type ErrorCodeName,
  LibraryLoadError,
  type MemoryTypeName,
} from "./ffi/mod.ts";
