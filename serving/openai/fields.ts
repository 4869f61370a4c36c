/**
 * Reading one field of an OpenAI request body: its kind and range checked, or a 400 in OpenAI's
 * shape whose `param` names the field. A field given as `null` reads as absent, as OpenAI's API
 * takes it.
 *
 * @module
 */
import { describe, isRecord, type Json, type JsonRecord } from "../common/json.ts";
import { badRequest } from "./openai_error.ts";

/** The body's field `key`, `undefined` when absent or null. */
export function field(body: JsonRecord, key: string): Json | undefined {
  const v = body[key];
  return v === null ? undefined : v;
}

/** `value` as a string; `param` names it in the error. */
export function text(value: Json | undefined, param: string): string {
  if (typeof value !== "string") {
    badRequest(`'${param}' must be a string, not ${describe(value)}`, param);
  }
  return value;
}

/** `value` as a boolean, `undefined` when absent. */
export function flag(value: Json | undefined, param: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") {
    badRequest(`'${param}' must be a boolean, not ${describe(value)}`, param);
  }
  return value;
}

/** `value` as a JSON object, `undefined` when absent. */
export function object(value: Json | undefined, param: string): JsonRecord | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) badRequest(`'${param}' must be an object, not ${describe(value)}`, param);
  return value;
}

/** `value` as a number in [`min`, `max`], `undefined` when absent. */
export function numberIn(
  value: Json | undefined,
  param: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n < min || n > max) {
    badRequest(`'${param}' must be a number in [${min}, ${max}], not ${describe(value)}`, param);
  }
  return n;
}

/** `value` as an integer in [`min`, `max`], `undefined` when absent. */
export function integerIn(
  value: Json | undefined,
  param: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    badRequest(`'${param}' must be an integer in [${min}, ${max}], not ${describe(value)}`, param);
  }
  return value;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `value` as a 64-bit signed integer (a `bigint` past 2^53), `undefined` when absent. */
export function int64(value: Json | undefined, param: string): number | bigint | undefined {
  if (value === undefined) return undefined;
  const ok = (typeof value === "number" && Number.isSafeInteger(value)) ||
    (typeof value === "bigint" && value >= INT64_MIN && value <= INT64_MAX);
  if (!ok) badRequest(`'${param}' must be a 64-bit integer, not ${describe(value)}`, param);
  return value as number | bigint;
}

/** `value` as an array, `undefined` when absent. */
export function list(value: Json | undefined, param: string): Json[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    badRequest(`'${param}' must be an array, not ${describe(value)}`, param);
  }
  return value;
}

/** `value` (a JSON value of the body) as a plain JS value: integers past 2^53 become numbers
 * (what a chat template or `JSON.stringify` can take). */
export function plain(value: Json): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** The JSON text of `value`, integers past 2^53 written exactly. */
export function jsonText(value: Json): string {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (isRecord(value)) {
    return `{${
      Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(",")
    }}`;
  }
  return JSON.stringify(value);
}
