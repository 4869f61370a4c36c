/**
 * Request parameters: the values a caller gives in `InferRequest.parameters`, the Triton type
 * each goes out as, and the `TRITONSERVER_InferenceRequestSet*Parameter` call that sets it.
 *
 * @module
 */
import { describeValue } from "./value_checks.ts";
import type { Ptr, TritonLibrary } from "../ffi/mod.ts";
import { check, TritonError } from "./errors.ts";

/**
 * A request parameter with its Triton type named (`TRITONSERVER_ParameterType`). Needed for an
 * integral number that must go out as DOUBLE — `{ type: "DOUBLE", value: 1 }`, where a plain `1`
 * goes out as INT — and usable to say INT, STRING or BOOL explicitly.
 */
export type TypedRequestParameter =
  | { readonly type: "DOUBLE"; readonly value: number }
  | { readonly type: "INT"; readonly value: number | bigint }
  | { readonly type: "STRING"; readonly value: string }
  | { readonly type: "BOOL"; readonly value: boolean };

/**
 * A request parameter's value. Plain values go out as: a string STRING, a boolean BOOL, a bigint
 * INT (int64), a number INT when it is a safe integer (`Number.isSafeInteger`) and DOUBLE
 * otherwise (fractions, NaN, ±Infinity, integers beyond ±2^53). A {@link TypedRequestParameter}
 * names the type itself.
 */
export type RequestParameterValue = string | number | bigint | boolean | TypedRequestParameter;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TYPES = ["INT", "DOUBLE", "STRING", "BOOL"];

function invalid(key: string, message: string): never {
  throw new TritonError("INVALID_ARG", `parameter '${key}' ${message}`);
}

/** An int64 from `value`, or INVALID_ARG naming `key`. */
function int64(key: string, value: unknown): bigint {
  const v = typeof value === "bigint"
    ? value
    : typeof value === "number" && Number.isInteger(value)
    ? BigInt(value)
    : invalid(
      key,
      `of type INT must be an integer (number or bigint), not ${describeValue(value)}`,
    );
  if (v < INT64_MIN || v > INT64_MAX) {
    invalid(key, `of type INT must fit in 64 bits, not ${v}`);
  }
  return v;
}

/**
 * The Triton type `value` goes out as, with its value checked.
 * @throws {TritonError} INVALID_ARG for an unsupported value or a typed value that does not fit
 *   its type.
 */
export function typedParameter(key: string, value: unknown): TypedRequestParameter {
  switch (typeof value) {
    case "string":
      return { type: "STRING", value };
    case "boolean":
      return { type: "BOOL", value };
    case "bigint":
      return { type: "INT", value: int64(key, value) };
    case "number":
      return Number.isSafeInteger(value) ? { type: "INT", value } : { type: "DOUBLE", value };
  }
  if (value === null || typeof value !== "object" || !("type" in value)) {
    invalid(key, `has unsupported type ${value === null ? "null" : typeof value}`);
  }
  const { type, value: v } = value as { type: unknown; value?: unknown };
  switch (type) {
    case "INT":
      return { type, value: int64(key, v) };
    case "DOUBLE":
      if (typeof v !== "number") {
        invalid(key, `of type DOUBLE must be a number, not ${describeValue(v)}`);
      }
      return { type, value: v };
    case "STRING":
      if (typeof v !== "string") {
        invalid(key, `of type STRING must be a string, not ${describeValue(v)}`);
      }
      return { type, value: v };
    case "BOOL":
      if (typeof v !== "boolean") {
        invalid(key, `of type BOOL must be a boolean, not ${describeValue(v)}`);
      }
      return { type, value: v };
  }
  return invalid(key, `has type ${String(type)}; the type must be one of ${TYPES.join(", ")}`);
}

/**
 * @internal Sets each parameter on `request` with the call for its type
 * (`TRITONSERVER_InferenceRequestSet{String,Int,Bool,Double}Parameter`).
 * @throws {TritonError} INVALID_ARG as {@link typedParameter}; Triton's error.
 */
export function setRequestParameters(
  lib: TritonLibrary,
  request: Ptr,
  parameters: Readonly<Record<string, RequestParameterValue>>,
): void {
  const { api } = lib;
  for (const [key, raw] of Object.entries(parameters)) {
    const p = typedParameter(key, raw);
    switch (p.type) {
      case "STRING":
        check(lib, api.TRITONSERVER_InferenceRequestSetStringParameter(request, key, p.value));
        break;
      case "BOOL":
        check(lib, api.TRITONSERVER_InferenceRequestSetBoolParameter(request, key, p.value));
        break;
      case "INT":
        check(lib, api.TRITONSERVER_InferenceRequestSetIntParameter(request, key, BigInt(p.value)));
        break;
      case "DOUBLE":
        check(lib, api.TRITONSERVER_InferenceRequestSetDoubleParameter(request, key, p.value));
        break;
    }
  }
}
