/**
 * The face of `ffi/`: the one module of it that `src/` and `bench/` import
 * (`tests/ffi_face.test.ts` checks). What crosses it is the loaded library with its
 * {@link Binding} — whose services read responses into plain values (`binding.responses`), route
 * a request's completions (`binding.track`), choose the allocator policy
 * (`binding.outputPolicy`) and copy GPU memory to the host (`binding.copyToHost`) — Triton's
 * enums, the error class, and the opaque pointer type.
 *
 * @module
 */
export * from "./enums.ts";
export type { FfiRuntime, NativeLibrary, Ptr } from "./types.ts";
export { Binding, type Tracked, type TritonLibrary } from "./binding.ts";
export { DEFAULT_LIBRARY_PATH, LibraryLoadError, loadTriton } from "./loader.ts";
export { env, runtimeName } from "./runtime.ts";
export { check, discard, errorFromPtr, TritonError } from "./triton_error.ts";
export { checkCString } from "./cstring_cache.ts";
export type { AllocatorFunctions, AllocatorPointers } from "./allocator.ts";
export { placedTooSmall } from "./allocator.ts";
export {
  type OutputPlacement,
  type PlacedOutput,
  writeOutputPlacement,
} from "./output_placement.ts";
export type { CallbackTable } from "./callbacks.ts";
export {
  type CompletionHandler,
  CompletionKind,
  type CompletionKindValue,
} from "./completion_ring.ts";
export type { CompletionTarget } from "./completion_routes.ts";
export { type TraceEvent, TraceEventKind } from "./trace_callbacks.ts";
export type { OutParams } from "./out_params.ts";
export type { RequestSubmitter } from "./native/request_submitter.ts";
export {
  closeCudaIpc,
  copyToDevice,
  CudaIpcError,
  type CudaIpcMapping,
  cudaIpcSize,
  openCudaIpc,
} from "./cuda_ipc.ts";
export { CUDA_IPC_HANDLE_SIZE, type CudaRuntime } from "./cuda.ts";
export {
  mapSharedMemory,
  SharedMemoryError,
  type SharedMemoryMapping,
  unmapSharedMemory,
} from "./shared_memory.ts";
export {
  COPY_LIMIT,
  type ModelOf,
  type OutputFields,
  type ParameterValue,
  type RecordedFields,
  ResponseFields,
  responseOutput,
  Slot,
} from "./response_fields.ts";
