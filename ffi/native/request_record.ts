/**
 * The request record: what the native request submitter (`request_submitter.ts`) reads to build
 * one `TRITONSERVER_InferenceRequest` and submit it in one call, instead of an FFI call per step.
 * The x86-64 submitter (`x86_64/submit.ts`) reads it.
 *
 * Every field is 8 bytes. `FUNCTIONS` holds Triton's functions, written once; the rest is written
 * for each request. What the submitter does, in order, stopping at the first call that fails (its
 * `TRITONSERVER_Error*` goes to `ERROR` and the function returns 1; `REQUEST` keeps the request
 * when it was made, for the caller to delete):
 *
 * 1. `TRITONSERVER_InferenceRequestNew(&REQUEST, SERVER, MODEL, VERSION)`;
 * 2. for each of the `INPUT_COUNT` input records: `TRITONSERVER_InferenceRequestAddInput(request,
 *    I_NAME, I_DATATYPE, I_SHAPE, I_DIM_COUNT)`, then, when `I_BYTE_SIZE` is not 0,
 *    `TRITONSERVER_InferenceRequestAppendInputData(request, I_NAME, I_BASE, I_BYTE_SIZE,
 *    I_MEMORY_TYPE, I_MEMORY_TYPE_ID)`;
 * 3. `TRITONSERVER_InferenceRequestSetReleaseCallback(request, RELEASE_FN, USERP)`;
 * 4. `TRITONSERVER_InferenceRequestSetResponseCallback(request, ALLOCATOR, ALLOCATOR_USERP,
 *    RESPONSE_FN, USERP)`;
 * 5. `TRITONSERVER_ServerInferAsync(SERVER, request, NULL)` (returns 0).
 *
 * `MODEL`, `I_NAME` and `I_SHAPE` are addresses, into the record's string area where the
 * submitter's caller copies the names and shapes (Triton copies what it keeps before each call
 * returns).
 *
 * @module
 */

/** Bytes of the record (one per binding, reused for every request). */
export const REQUEST_RECORD_BYTES = 4096;

/** Offsets in the record. */
export const RequestLayout = {
  /** Triton's functions, in {@link SUBMIT_FUNCTIONS}' order. */
  FUNCTIONS: 0,
  SERVER: 64,
  /** The model's name, a NUL-terminated string's address. */
  MODEL: 72,
  /** `int64_t` model version (-1: the server's choice). */
  VERSION: 80,
  ALLOCATOR: 88,
  ALLOCATOR_USERP: 96,
  RESPONSE_FN: 104,
  RELEASE_FN: 112,
  /** The `userp` both callbacks receive. */
  USERP: 120,
  INPUT_COUNT: 128,
  /** Out: the request made (0 when `TRITONSERVER_InferenceRequestNew` failed). */
  REQUEST: 136,
  /** Out: the error of the call that failed. */
  ERROR: 144,
  /** The first input record. */
  INPUTS: 192,
  INPUT_SIZE: 64,
  /** Where names and shapes go, up to the end of the record. */
  STRINGS: 192 + 64 * 16,
} as const;

/** Input records the record has room for; a request with more is built call by call. */
export const MAX_SUBMIT_INPUTS = 16;

/** Offsets in an input record. */
export const InputRecord = {
  NAME: 0,
  DATATYPE: 8,
  SHAPE: 16,
  DIM_COUNT: 24,
  BASE: 32,
  BYTE_SIZE: 40,
  MEMORY_TYPE: 48,
  MEMORY_TYPE_ID: 56,
} as const;

/** The Triton functions the submitter calls, in the order of the record's function table. */
export const SUBMIT_FUNCTIONS = [
  "TRITONSERVER_InferenceRequestNew",
  "TRITONSERVER_InferenceRequestAddInput",
  "TRITONSERVER_InferenceRequestAppendInputData",
  "TRITONSERVER_InferenceRequestSetReleaseCallback",
  "TRITONSERVER_InferenceRequestSetResponseCallback",
  "TRITONSERVER_ServerInferAsync",
] as const;
