/**
 * Reading one field of an OpenAI request body: its kind and range checked in the binding's
 * vocabulary (src/value_checks.ts), or, in the {@link OPENAI} voice, a 400 in OpenAI's shape whose
 * `param` names the field. A field given as `null` reads as absent, as OpenAI's API takes it.
 *
 * @module
 */
import {
  ARRAY,
  BOOLEAN,
  checked,
  INT64,
  integerIn as integerKind,
  numberIn as numberKind,
  optional,
  RECORD,
  STRING,
  type Voice,
} from "../../src/value_checks.ts";
import { describe, isRecord, type Json, type JsonRecord } from "../common/json.ts";
import { badRequest } from "./openai_error.ts";

/** The voice of an OpenAI request's checks: a 400 in OpenAI's shape whose `param` is the field,
 * named in quotes in the message. */
export const OPENAI: Voice = {
  name: (param) => `'${param}'`,
  describe: (value) => describe(value as Json | undefined),
  refuse: (message, param) => badRequest(message, param),
};

/** The body's field `key`, `undefined` when absent or null. */
export function field(body: JsonRecord, key: string): Json | undefined {
  const v = body[key];
  return v === null ? undefined : v;
}

/** `value` as a string; `param` names it in the error. */
export function text(value: Json | undefined, param: string): string {
  return checked(OPENAI, STRING, param, value);
}

/** `value` as a boolean, `undefined` when absent. */
export function flag(value: Json | undefined, param: string): boolean | undefined {
  return optional(OPENAI, BOOLEAN, param, value);
}

/** `value` as a JSON object, `undefined` when absent. */
export function object(value: Json | undefined, param: string): JsonRecord | undefined {
  return optional(OPENAI, RECORD, param, value) as JsonRecord | undefined;
}

/** `value` as a number in [`min`, `max`], `undefined` when absent. */
export function numberIn(
  value: Json | undefined,
  param: string,
  min: number,
  max: number,
): number | undefined {
  return optional(OPENAI, numberKind(min, max), param, value);
}

/** `value` as an integer in [`min`, `max`], `undefined` when absent. */
export function integerIn(
  value: Json | undefined,
  param: string,
  min: number,
  max: number,
): number | undefined {
  return optional(OPENAI, integerKind(min, max), param, value);
}

/** `value` as a 64-bit signed integer (a `bigint` past 2^53), `undefined` when absent. */
export function int64(value: Json | undefined, param: string): number | bigint | undefined {
  return optional(OPENAI, INT64, param, value);
}

/** `value` as an array, `undefined` when absent. */
export function list(value: Json | undefined, param: string): Json[] | undefined {
  return optional(OPENAI, ARRAY, param, value) as Json[] | undefined;
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
