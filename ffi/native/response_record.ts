/**
 * The response record: where the native response reader (`response_reader.ts`) writes everything
 * the binding reads of one `TRITONSERVER_InferenceResponse`, so that JS reads it through typed
 * arrays instead of one FFI call per field. Shared by the C reader (`c/response_reader.c`, which
 * receives these constants as `TRITONFFI_RECORD_*`) and the x86-64 one
 * (`x86_64/reader.ts`).
 *
 * What the reader does, in order, stopping at the first call that fails (its
 * `TRITONSERVER_Error*` goes to `CALL_ERROR` and the function returns 1):
 *
 * 1. `RESPONSE_ERROR` ← `TRITONSERVER_InferenceResponseError`; when it is set, nothing else is read
 *    (returns 0).
 * 2. `OUTPUT_COUNT` ← `TRITONSERVER_InferenceResponseOutputCount`; for each of the first
 *    {@link MAX_OUTPUTS} outputs, `TRITONSERVER_InferenceResponseOutput` into its output record,
 *    then: the name copied with `memccpy(…, 0, NAME_CAP)` (no NUL within the cap: too long, left
 *    to JS); the shape copied when it has at most {@link MAX_DIMS} dimensions; the data copied
 *    into the data area, at an offset a multiple of 8 stored in `O_DATA`, when the buffer is not
 *    in GPU memory, holds at most {@link DATA_LIMIT} bytes and fits (`O_DATA` 0: not copied).
 * 3. `MODEL_NAME`, `MODEL_VERSION` ← `TRITONSERVER_InferenceResponseModel`, the name copied.
 * 4. `ID` ← `TRITONSERVER_InferenceResponseId`, copied.
 * 5. `PARAM_COUNT` ← `TRITONSERVER_InferenceResponseParameterCount`; for each of the first
 *    {@link MAX_PARAMS}, `TRITONSERVER_InferenceResponseParameter` into its parameter record, the
 *    name copied, and the value: a STRING copied (cap `STRING_CAP`), an INT or DOUBLE's 8 bytes
 *    and a BOOL's byte into `P_SCALAR`.
 *
 * Every copy is of memory the response owns, which stays valid while it lives; the pointers are
 * kept too, so JS can read what was not copied.
 *
 * @module
 */

/** Bytes of the record (one per binding, reused for every response). */
export const RECORD_BYTES = 65536;

/** Offsets in the record. */
export const RecordLayout = {
  /** `TRITONSERVER_Error*` of the call that failed (0 when none did). */
  CALL_ERROR: 0,
  /** `TRITONSERVER_InferenceResponseError`. */
  RESPONSE_ERROR: 8,
  /** `uint32_t` output count. */
  OUTPUT_COUNT: 16,
  /** `uint32_t` parameter count. */
  PARAM_COUNT: 24,
  /** `const char*` model name. */
  MODEL_NAME: 32,
  /** `int64_t` model version. */
  MODEL_VERSION: 40,
  /** `const char*` request id. */
  ID: 48,
  /** Copy of the model name (`STRING_CAP` bytes). */
  MODEL_COPY: 64,
  /** Copy of the id (`STRING_CAP` bytes). */
  ID_COPY: 192,
  /** The output records. */
  OUTPUTS: 320,
  /** Bytes per output record. */
  OUTPUT_SIZE: 208,
  /** The parameter records (after {@link MAX_OUTPUTS} output records). */
  PARAMS: 3648,
  /** Bytes per parameter record. */
  PARAM_SIZE: 208,
  /** The data area: small outputs' bytes (after {@link MAX_PARAMS} parameter records). */
  DATA: 8192,
  /** Room for a model name or id copy (NUL included). */
  STRING_CAP: 128,
  /** Room for an output or parameter name copy (NUL included). */
  NAME_CAP: 64,
  /** Room for a STRING parameter value copy (NUL included). */
  VALUE_CAP: 112,
} as const;

/** Offsets in an output record: `TRITONSERVER_InferenceResponseOutput`'s out-parameters, then
 * the copies. */
export const OutputRecord = {
  NAME: 0,
  /** `TRITONSERVER_DataType` (4 bytes). */
  DATATYPE: 8,
  SHAPE: 16,
  DIM_COUNT: 24,
  BASE: 32,
  BYTE_SIZE: 40,
  /** `TRITONSERVER_MemoryType` (4 bytes). */
  MEMORY_TYPE: 48,
  MEMORY_TYPE_ID: 56,
  USERP: 64,
  /** Offset in the record of the data copy; 0: not copied. */
  DATA: 72,
  NAME_COPY: 80,
  /** `MAX_DIMS` int64 dimensions. */
  SHAPE_COPY: 144,
} as const;

/** Offsets in a parameter record: `TRITONSERVER_InferenceResponseParameter`'s out-parameters,
 * then the copies. */
export const ParamRecord = {
  NAME: 0,
  /** `TRITONSERVER_ParameterType` (4 bytes). */
  TYPE: 8,
  VALUE: 16,
  /** An INT's or DOUBLE's 8 bytes, a BOOL's byte. */
  SCALAR: 24,
  NAME_COPY: 32,
  STRING_COPY: 96,
} as const;

/** Outputs the reader reads (later ones are left to JS). */
export const MAX_OUTPUTS = 16;
/** Parameters the reader reads (later ones are left to JS). */
export const MAX_PARAMS = 16;
/** Dimensions the reader copies (a longer shape is left to JS). */
export const MAX_DIMS = 8;
/** The largest output the reader copies, bytes. */
export const DATA_LIMIT = 4096;

if (
  RecordLayout.OUTPUTS + MAX_OUTPUTS * RecordLayout.OUTPUT_SIZE !== RecordLayout.PARAMS ||
  RecordLayout.PARAMS + MAX_PARAMS * RecordLayout.PARAM_SIZE > RecordLayout.DATA ||
  OutputRecord.NAME_COPY + RecordLayout.NAME_CAP !== OutputRecord.SHAPE_COPY ||
  OutputRecord.SHAPE_COPY + MAX_DIMS * 8 !== RecordLayout.OUTPUT_SIZE ||
  ParamRecord.NAME_COPY + RecordLayout.NAME_CAP !== ParamRecord.STRING_COPY ||
  ParamRecord.STRING_COPY + RecordLayout.VALUE_CAP !== RecordLayout.PARAM_SIZE
) {
  throw new Error("the response record's layout does not add up");
}

/** The constants the C reader is compiled with (`TRITONFFI_RECORD_*`, `TRITONFFI_OUT_*`,
 * `TRITONFFI_PARAM_*`). */
export function recordDefines(): Record<string, string> {
  const out: Record<string, string> = {
    TRITONFFI_RECORD_BYTES: String(RECORD_BYTES),
    TRITONFFI_MAX_OUTPUTS: String(MAX_OUTPUTS),
    TRITONFFI_MAX_PARAMS: String(MAX_PARAMS),
    TRITONFFI_MAX_DIMS: String(MAX_DIMS),
    TRITONFFI_DATA_LIMIT: String(DATA_LIMIT),
  };
  for (const [k, v] of Object.entries(RecordLayout)) out[`TRITONFFI_RECORD_${k}`] = String(v);
  for (const [k, v] of Object.entries(OutputRecord)) out[`TRITONFFI_OUT_${k}`] = String(v);
  for (const [k, v] of Object.entries(ParamRecord)) out[`TRITONFFI_PARAM_${k}`] = String(v);
  return out;
}
