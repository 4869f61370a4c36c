/**
 * The messages that are `tritonserver`'s own words. Triton's clients, its tests and users' scripts
 * match on them, so each is written here once and the front ends refuse with it from here; where
 * we add a hint, it goes after tritonserver's words, never before or in their place.
 *
 * @module
 */

/** A restricted API asked without its header (403 over HTTP, UNAVAILABLE over gRPC). */
export function restrictedApi(header: string): string {
  return `This API is restricted, expecting header '${header}'`;
}

/** A request body in a `Content-Encoding` other than gzip and deflate (HTTP 501). */
export const UNSUPPORTED_COMPRESSION = "Unsupported compression type";

/**
 * One-response inference (HTTP's infer, gRPC's ModelInfer) asked of a decoupled model
 * (UNSUPPORTED: HTTP 501, gRPC UNIMPLEMENTED), as each of tritonserver's front ends words it.
 */
export const DECOUPLED_REFUSED = {
  http: "HTTP end point doesn't support models with decoupled transaction policy",
  grpc: "ModelInfer RPC doesn't support models with decoupled transaction policy",
} as const;

/** The log or trace file, which the protocols cannot change (UNSUPPORTED). */
export function fileNotUpdatable(file: "log file" | "trace file"): string {
  return `${file} location can not be updated through network protocol`;
}

/** A log setting of the wrong kind; `got` describes the value. */
export function expectKind(kind: "boolean" | "string", field: string, got: string): string {
  return `expect ${kind} for '${field}', got ${got}`;
}

/** A `log_format` other than `default` and `ISO8601`. */
export function badLogFormat(value: string): string {
  return `invalid argument for log_format, got: ${value}`;
}

/** A numeric trace setting given other than one value. */
export function expectOneValue(name: string): string {
  return `expect only 1 value for '${name}'`;
}

/** A numeric trace setting that is no integer. */
export function unableToParse(name: string, text: string): string {
  return `Unable to parse '${name}', got: ${text}`;
}

/** A `trace_count` below its least value. */
export function traceCountBelow(min: number, text: string): string {
  return `Unable to parse 'trace_count'. Expecting value >= ${min}, got: ${text}`;
}

/** A numeric trace setting out of its range. */
export function outOfRange(name: string, min: number, max: number, text: string): string {
  return `Unable to parse '${name}', value is out of range [ ${min}, ${max} ], got: ${text}`;
}

/** A per-model trace setting for a model that is not ready. */
export function unknownModel(model: string): string {
  return `Request for unknown model : ${model}`;
}

/** A `trace_mode` other than `triton`. */
export function traceModeOnlyTriton(got: string): string {
  return `trace_mode can only be 'triton', got: ${got}`;
}

/** A `classification` parameter that is no integer; `got` describes the value. */
export function classificationNotInteger(got: string): string {
  return `invalid value type for 'classification' parameter, expected an integer, not ${got}`;
}

/** A negative `classification` parameter. */
export const CLASSIFICATION_NEGATIVE =
  "invalid value for 'classification' parameter, expected >= 0";
